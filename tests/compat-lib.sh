# Sourced after init.sh by tests/gnu-compat.sh and tests/gnu-compat-shim.sh:
# GNU cp and cp8M, each first in PATH as "cp" (bin-gnu, bin-cp8m), run on
# the same setups and their results compared.

mkdir -p bin-gnu bin-cp8m && ln -s "$GNU_CP" bin-gnu/cp &&
  ln -s "$CP8M" bin-cp8m/cp || fail "cannot set up bin dirs"
# The work directory is reachable by nobody (gnu-compat.sh's check 7).
chmod 755 "$work"

# lsl FILE...: ls -l without times (the two sides run at different times).
lsl () { ls -l --time-style=+ "$@" | sed '/^total /d'; }

# both NAME SETUP COMMAND [STATE]: in a fresh directory per side, run the
# shell code SETUP, then COMMAND with that side's cp first in PATH (as
# "cp"), then STATE (default: a listing of the directory); standard
# output, standard error, exit status and STATE must be the same for GNU
# cp and cp8M.  NAME's results stay in $work/NAME.{gnu,cp8m}.
both () {
  _name=$1 _setup=$2 _cmd=$3
  _state=${4:-'ls -lAR --time-style=+ . | sed "/^total /d"'}
  for _side in gnu cp8m; do
    _d=$work/$_name-$_side
    rm -rf "$_d" && mkdir "$_d" && chmod 777 "$_d" || fail "cannot make $_d"
    (
      cd "$_d" || exit 1
      eval "$_setup" >/dev/null 2>&1 || { echo "setup failed: $_setup"; exit 1; }
      PATH=$work/bin-$_side:$PATH
      export PATH
      eval "$_cmd" </dev/null >"$work/.out" 2>"$work/.err"
      echo "exit status: $?"
      [ "$_side" = cp8m ] && libc_words "$work/.err"
      echo "--- stdout"; cat "$work/.out"
      # GNU 9.5 and later (so 9.11, which cp8M follows) name the source
      # too; 9.1, our /bin/cp, stops after "non-directory".
      echo "--- stderr"
      # With $sort_err, messages about several entries of a directory
      # are compared as a set: each side's own tree has its own inode
      # numbers, and so its own order.
      sed "s/^\(cp: cannot overwrite directory .* with non-directory\) .*/\1/" \
        "$work/.err" | if [ -n "${sort_err:-}" ]; then LC_ALL=C sort; else cat; fi
      echo "--- state"
      eval "$_state" 2>&1
    ) >"$work/$_name.$_side"
  done
  if ! cmp -s "$work/$_name.gnu" "$work/$_name.cp8m"; then
    diff -u "$work/$_name.gnu" "$work/$_name.cp8m" >&2
    fail "$_name: '$_cmd' differs from GNU cp (above: GNU first)"
  fi
}

# has NAME TEXT: cp8M's results for NAME hold the line TEXT.
has () {
  grep -qxF -- "$2" "$work/$1.cp8m" ||
    { cat "$work/$1.cp8m" >&2; fail "$1: no line '$2' (results above)"; }
}
