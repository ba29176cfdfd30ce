#!/bin/sh
# Shell completion against --help: completion/cp8M (with and without
# bash-completion loaded) offers after "--" exactly the long options that
# --help lists, each in its argument form ("--sparse=", "--verbose", or
# both "--backup" and "--backup="), and after "-" exactly the short ones;
# cp8M takes every option and every value it offers; a few value lists are
# checked word for word.  completion/_cp8M, run by a real zsh through a
# pseudo-terminal (zpty), offers the same long options and the same value
# lists.  CP8M_COMPLETION_DIR may name another directory holding both
# files (to see this test fail on a broken copy).  And make install puts
# both where bash-completion and zsh look, under DATADIR, by default.
. "${abs_top_srcdir:-.}/tests/init.sh"

dir=${CP8M_COMPLETION_DIR:-$abs_top_srcdir/completion}
bash_file=$dir/cp8M
zsh_file=$dir/_cp8M
[ -r "$bash_file" ] || fail "cannot read $bash_file"
[ -r "$zsh_file" ] || fail "cannot read $zsh_file"
command -v bash >/dev/null || skip "bash missing"

# --- make install ------------------------------------------------------------

# A default configure (no --with-*-completion-dir) installs both files
# under DATADIR, whether or not bash-completion and zsh are on the build
# host (configure no longer looks): only the two install rules are run,
# into a scratch DESTDIR with a prefix of its own.
if grep -q -e '--with-bash-completion-dir' -e '--with-zsh-completion-dir' \
     "$abs_top_builddir/config.status" 2>/dev/null; then
  note "configured with a completion directory of its own: install not checked"
else
  MAKEFLAGS= make -s -C "$abs_top_builddir" install-dist_bashcompletionDATA \
    install-dist_zshcompletionDATA DESTDIR="$work/dest" prefix=/opt/c8 \
    >install.out 2>&1 || fail "make install of the completion failed: $(cat install.out)"
  for f in /opt/c8/share/bash-completion/completions/cp8M \
           /opt/c8/share/zsh/site-functions/_cp8M; do
    cmp "$work/dest$f" "$abs_top_srcdir/completion/${f##*/}" ||
      fail "make install did not install $f: $(cd dest && find . -type f)"
  done
fi

# --- What --help lists. ---------------------------------------------------

# "NAME FORM" per option (FORM: none, optional or required), read from the
# option column as tests/help.sh reads it.
cp8M --help >help || fail "--help failed"
awk '
/^  -/ || /^      --/ {
  field = $0
  sub(/^ +/, "", field)
  sub(/  .*/, "", field)
  n = split(field, items, ", ")
  for (i = 1; i <= n; i++) {
    form = "none"
    if (index(items[i], "[=")) form = "optional"
    else if (index(items[i], "=")) form = "required"
    name = items[i]
    sub(/[[=].*/, "", name)
    print name, form
  }
}' help | LC_ALL=C sort -u >help-items
# cp8M refuses -Z and --context where SELinux is on (so does its
# completion, which is not to offer what cp8M refuses).
if [ -e /sys/fs/selinux/enforce ]; then
  grep -v -e '^-Z ' -e '^--context ' help-items >help-items.new &&
    mv help-items.new help-items
fi
grep '^--' help-items >help-long
grep '^-[^-]' help-items | cut -d' ' -f1 >help-short
[ "$(wc -l <help-long)" -ge 40 ] ||
  fail "found only $(wc -l <help-long) long options in --help"
[ "$(wc -l <help-short)" -ge 15 ] ||
  fail "found only $(wc -l <help-short) short options in --help"

# What the completion is to offer after "--", one a line: the bare name
# unless an argument is required, and NAME= unless none is taken.
while read -r name form; do
  [ "$form" = required ] || echo "$name"
  [ "$form" = none ] || echo "$name="
done <help-long | LC_ALL=C sort >want-long

# The completions are asked in here: d is the only directory, f the only
# other file.  Probes of cp8M run here too, on a SOURCE that is missing.
mkdir here here/d && : >here/f || fail "cannot set up here"

# same LABEL WANT GOT: the two files hold the same lines.
same () {
  LC_ALL=C sort -u "$2" >same.want && LC_ALL=C sort -u "$3" >same.got ||
    fail "cannot sort $2 and $3"
  if ! cmp -s same.want same.got; then
    diff same.want same.got | sed -n 's/^</  missing:/p; s/^>/  extra:  /p' >&2
    fail "$1 (above: what is missing and what is extra)"
  fi
}

# --- bash ------------------------------------------------------------------

# The driver reads one command line a line, completes it at its end as
# readline would (COMP_WORDS split at blanks and at "=" and ":", the word
# under the cursor a lone "=" right after one), calling the function that
# "complete -p cp8M" names, and writes COMPREPLY to OUT/1, OUT/2...
# With "bc", bash-completion is loaded first, so the file's
# _init_completion path is run; without it, its own fallback.
cat >drive.bash <<'EOF'
mode=$1 file=$2 out=$3
if [[ $mode == bc ]]; then
  . /usr/share/bash-completion/bash_completion || exit 3
fi
. "$file" || exit 3
spec=$(complete -p cp8M) || { echo "no completion for cp8M" >&2; exit 3; }
[[ $spec == *' -F '* ]] || { echo "not a function: $spec" >&2; exit 3; }
func=${spec#* -F } func=${func%% *}
set -f
n=0
while IFS= read -r line; do
  n=$((n + 1))
  words=()
  for tok in $line; do
    while [[ $tok == *[=:]* ]]; do
      head=${tok%%[=:]*}
      [[ -n $head ]] && words+=("$head")
      tok=${tok:${#head}}
      words+=("${tok:0:1}")
      tok=${tok:1}
    done
    [[ -n $tok ]] && words+=("$tok")
  done
  [[ $line == *' ' ]] && words+=("")
  COMP_WORDS=("${words[@]}") COMP_CWORD=$((${#words[@]} - 1))
  COMP_LINE=$line COMP_POINT=${#line} COMP_TYPE=9 COMP_KEY=9
  cur=${COMP_WORDS[COMP_CWORD]}
  [[ $cur == [=:] ]] && cur=
  COMPREPLY=()
  "$func" cp8M "$cur" "${COMP_WORDS[COMP_CWORD - 1]}"
  printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' >"$out/$n"
done
EOF

# complete_bash MODE LINE...: complete each LINE in ./here; the replies
# to the Nth are left in bash-MODE/N.
complete_bash () {
  _mode=$1
  shift
  rm -rf "bash-$_mode" && mkdir "bash-$_mode" || fail "cannot make bash-$_mode"
  printf '%s\n' "$@" >queries
  (cd here && bash --norc --noprofile "$work/drive.bash" "$_mode" \
     "$bash_file" "$work/bash-$_mode" <"$work/queries") 2>drive.err ||
    fail "bash ($_mode) could not drive the completion: $(cat drive.err)"
  [ ! -s drive.err ] ||
    fail "the completion ($_mode) wrote to standard error: $(cat drive.err)"
}

# probe OPTION [VALUE]: cp8M takes it.  The probe copies a missing SOURCE
# into d, so that it gets past the option parser and all its checks of
# values and combinations, and stops at the first file: the sign that all
# was taken is the "cannot stat" of that file, and no usage hint.
: >probed
probe () {
  _arg=$1$2
  grep -qxF -e "$_arg" probed && return
  echo "$_arg" >>probed
  _with='' _want="cannot stat 'missing'"
  case $_arg in
    --help | --version)
      cp8M "$_arg" >/dev/null 2>probe.err ||
        fail "cp8M $_arg failed: $(cat probe.err)"
      [ ! -s probe.err ] || fail "cp8M $_arg: $(cat probe.err)"
      return ;;
    # --pid sends a limit instead of copying: an extra operand stops it
    # after the parser, before any process is touched.
    --pid=*) _with=--bwlimit=0 _want="extra operand" ;;
    --checksum=*) _with=--checksum-file=sums ;;
    --null) _with=--files-from=/dev/null ;;
    # A directory is offered to complete on into it: cp8M refuses one as
    # the report itself (issue 51), before the first file.
    --checksum-file=* | --stats-file=*)
      if [ -d "here/$2" ]; then
        (cd here && cp8M "$_arg" missing d) >/dev/null 2>probe.err
        grep -q ": Is a directory$" probe.err ||
          fail "cp8M $_arg: $(cat probe.err)"
        return
      fi ;;
  esac
  case $_arg in
    -t) _args="-t d" ;;
    -S) _args="-S .orig" ;;
    *) _args=$_arg ;;
  esac
  # shellcheck disable=SC2086 # _with and _args are option words
  (cd here && cp8M $_with $_args missing d) >/dev/null 2>probe.err
  if grep -q "$_want" probe.err &&
     { [ -n "$_with" ] || ! grep -q "^Try '" probe.err; }; then
    return
  fi
  # Offered on purpose where libxxhash is missing: cp8M then says why.
  if [ "$_arg" = --checksum=xxh3 ] && grep -q 'without libxxhash' probe.err; then
    note "this cp8M has no xxh3; it says so"
    return
  fi
  fail "the completion offers '$_arg', which cp8M refuses: $(cat probe.err)"
}

# A value for each option whose completion offers none (free text, or
# the PIDs of cp8M processes, of which there may be none): it must be taken
# all the same.
sample () {
  case $1 in
    --suffix=) echo .orig ;;
    --context=) echo unconfined_u:object_r:user_home_t:s0 ;;
    --pid=) echo 1 ;;
  esac
}

bash_modes=plain
if [ -r /usr/share/bash-completion/bash_completion ]; then
  bash_modes="plain bc"
else
  note "bash-completion is not installed: its path is not tested"
fi

for mode in $bash_modes; do
  out=bash-$mode
  complete_bash "$mode" 'cp8M --' 'cp8M -'
  same "bash ($mode): 'cp8M --' against --help" want-long "$out/1"
  same "bash ($mode): 'cp8M -' against --help" help-short "$out/2"
  cp "$out/1" offered-long && cp "$out/2" offered-short ||
    fail "cannot keep the replies"

  # Every option offered, and every value offered for it, is taken.
  while read -r opt; do
    case $opt in
      *=) ;;
      *) probe "$opt" ;;
    esac
  done <offered-long
  while read -r opt; do probe "$opt"; done <offered-short
  grep '=$' offered-long >value-options
  set --
  while read -r opt; do set -- "$@" "cp8M $opt"; done <value-options
  complete_bash "$mode" "$@"
  i=0
  while read -r opt; do
    i=$((i + 1))
    if [ -s "$out/$i" ]; then
      while read -r value; do probe "$opt" "$value"; done <"$out/$i"
    else
      value=$(sample "$opt")
      [ -n "$value" ] ||
        fail "bash ($mode): 'cp8M $opt' offers nothing, and this test has no value for it"
      probe "$opt" "$value"
    fi
    cp "$out/$i" "values-$mode${opt%=}" || fail "cannot keep the values"
  done <value-options

  # Some lists word for word, and the other ways a value is asked for.
  printf '%s\n' auto always never >want
  same "bash ($mode): --direct=" want "values-$mode--direct"
  printf '%s\n' none off numbered t existing nil simple never >want
  same "bash ($mode): --backup=" want "values-$mode--backup"
  printf '%s\n' all none none-fail older >want
  same "bash ($mode): --update=" want "values-$mode--update"
  complete_bash "$mode" 'cp8M --direct=al' 'cp8M --preserve=mode,' \
    'cp8M -pv --no-preserve=links,mo' 'cp8M --sparse ' 'cp8M -t ' \
    'cp8M --target-directory=' 'cp8M -- --' 'cp8M --pr' 'cp8M --verb'
  echo always >want
  same "bash ($mode): --direct=al" want "$out/1"
  printf 'mode,%s\n' ownership timestamps links xattr all >want
  [ ! -e /sys/fs/selinux/enforce ] || echo mode,context >>want
  same "bash ($mode): --preserve=mode, (the rest of the list)" want "$out/2"
  echo links,mode >want
  same "bash ($mode): --no-preserve=links,mo" want "$out/3"
  printf '%s\n' auto always never >want
  same "bash ($mode): '--sparse ' (the value as the next word)" want "$out/4"
  echo d >want
  sed 's,/$,,' "$out/5" >got
  same "bash ($mode): '-t ' (directories only)" want got
  sed 's,/$,,' "$out/6" >got
  same "bash ($mode): --target-directory= (directories only)" want got
  [ ! -s "$out/7" ] ||
    fail "bash ($mode): after '--', options are offered: $(cat "$out/7")"
  printf '%s\n' --preserve --preserve= --progress --progress= >want
  same "bash ($mode): --pr" want "$out/8"
  echo --verbose >want
  same "bash ($mode): --verb" want "$out/9"
done

# --- zsh -------------------------------------------------------------------

if ! command -v zsh >/dev/null; then
  note "zsh missing: its completion is not tested"
  exit 0
fi
if ! zsh -fc 'zmodload zsh/zpty' 2>/dev/null; then
  note "zsh has no zpty module: its completion is not tested"
  exit 0
fi
# A container or chroot without /dev/pts has no pseudo-terminal to give.
if ! zsh -fc 'zmodload zsh/zpty && zpty t true && zpty -d t' >/dev/null 2>&1; then
  note "no pseudo-terminal (/dev/pts): zsh's completion is not tested"
  exit 0
fi

# The driver starts an interactive zsh on a pseudo-terminal (no rc files,
# ZDOTDIR here, compinit over a copy of _cp8M alone), types each LINE and
# a Tab and collects what the completion system was given to offer: a
# wrapper of compadd writes the words that match.  Every command waits for
# the shell's output, not for time; a Tab typed ahead of a prompt is lost.
mkdir zdot zfuncs && cp "$zsh_file" zfuncs/ || fail "cannot set up zsh"
cat >drive.zsh <<'EOF'
zmodload zsh/zpty || exit 3
funcs=$1 out=$2
shift 2
zpty z env ZDOTDIR=$out/zdot TERM=dumb zsh -f -i || exit 3
# run CMD N: CMD, then wait until its output and the next prompt show.
run () {
  zpty -w z "$1; print MARK-\$((1000+$2))"
  zpty -r z junk "*MARK-$((1000+$2))*Z%P> " || exit 4
}
run "PS1='Z%%P> '; unsetopt autolist beep; fpath=($funcs \$fpath)" 0
run 'autoload -U compinit && compinit -u -D' 1
# The wrapper: a call with -O, -A or -D only asks what would match and
# adds nothing, so it is not written down.
zpty -w z 'compadd () {
  if (( ${@[(I)-[OAD]*]} )); then builtin compadd "$@"; return; fi
  local -a m
  builtin compadd -O m "$@"
  print -rl -- $m >>$LOG
  builtin compadd "$@"
}'
integer n=0
for line; do
  n+=1
  run "LOG=$out/zsh/$n; : >\$LOG" $((2 * n))
  zpty -w -n z "$line"$'\t\C-u'
  run : $((2 * n + 1))
done
zpty -d z
EOF

set -- 'cp8M --' 'cp8M -' 'cp8M --preserve=mode,'
while read -r opt; do set -- "$@" "cp8M $opt"; done <value-options
mkdir zsh || fail "cannot make zsh"
to=
command -v timeout >/dev/null && to="timeout 60"
# shellcheck disable=SC2086 # to is a command and its argument
(cd here && $to zsh -f "$work/drive.zsh" "$work/zfuncs" "$work" "$@") \
  >zsh.out 2>&1 || fail "zsh could not drive the completion: $(cat -v zsh.out)"

# zsh gives the names without "=", and pads some words with blanks.
sed 's/=$//' want-long | LC_ALL=C sort -u >want
sed 's/ *$//; /^$/d' zsh/1 >got
same "zsh: 'cp8M --' against --help" want got
sed 's/ *$//; /^$/d' zsh/2 | grep -v '^--' >got
same "zsh: 'cp8M -' against --help" help-short got
printf 'mode,%s\n' ownership timestamps links xattr all >want
[ ! -e /sys/fs/selinux/enforce ] || echo mode,context >>want
sed 's/ *$//; /^$/d; s/^/mode,/' zsh/3 >got
same "zsh: --preserve=mode, (the rest of the list)" want got
# Each value list as bash's, whose values cp8M took above (files and PIDs
# aside: those depend on the directory and on what runs).
i=3
while read -r opt; do
  i=$((i + 1))
  case $opt in
    --target-directory= | --checksum-file= | --stats-file= | --files-from= | \
      --pid=) continue ;;
  esac
  sed 's/ *$//; /^$/d' "zsh/$i" >got
  same "zsh: 'cp8M $opt' against bash's" "values-plain${opt%=}" got
done <value-options
exit 0
