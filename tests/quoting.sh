#!/bin/sh
# File names with quotes, bytes above 127, invalid UTF-8, spaces, tabs
# and newlines, quoted in each message cp8M prints about a file that a
# test can bring about: the same lines as GNU cp's, and not one byte read
# past a buffer (valgrind, or AddressSanitizer in a sanitizer build).
# Issue 51 §5: a name holding a single quote and ending in a byte quoted
# as $'\NNN' (say "'\376") was printed with the heap bytes that followed it
# (gnulib's quotearg as Debian 12 ships it; fixed by gl/lib/quotearg.c.diff,
# see gl/README).  GNU cp 9.1 has that bug too, so for those names GNU cp
# copies a stand-in name (PHn) and the expected line gets the name's
# quoted form from the table below: quotearg's own, once fixed (the form
# whose length it measures before writing).
. "${abs_top_srcdir:-.}/tests/init.sh"

if sanitized; then
  vg=
else
  command -v valgrind >/dev/null || skip "valgrind missing"
  vg="valgrind -q --error-exitcode=99 --log-file=$work/vg.log"
fi

# NAME (printf's escapes) | its quoted form in the C locale | in C.UTF-8.
# An empty form: GNU cp copies the name itself.
cat >names.tab <<'EOF'
a'b||
sp ace||
tab\tx||
nl\nx||
\376||
\377x||
\303(||
\303\251||
"dq"||
$HOME||
'\376|''\'''$'\376'|''\'''$'\376'
x'\377|'x'\'''$'\377'|'x'\'''$'\377'
a'\nb|'a'\'''$'\n''b'|'a'\'''$'\n''b'
'\303(|''\'''$'\303''('|''\'''$'\303''('
'\303\251|''\'''$'\303\251'|
\376'\377|''$'\376'\'''$'\377'|''$'\376'\'''$'\377'
EOF

mkdir bin-gnu bin-cp8m &&
  ln -s "$GNU_CP" bin-gnu/cp && ln -s "$CP8M" bin-cp8m/cp ||
  fail "cannot set up bin-gnu, bin-cp8m"

# each_name LOCALE FUNCTION ARGS...: FUNCTION ARGS NAME GNU-NAME for each
# name, GNU-NAME the stand-in PHn where the name has a quoted form in
# LOCALE; with that form in $form.
each_name () {
  _col=2
  [ "$1" = C ] || _col=3
  shift
  _i=0
  while IFS= read -r _line; do
    _i=$((_i + 1))
    # shellcheck disable=SC2059
    _name=$(printf "${_line%%|*}"; echo _)
    _name=${_name%_}
    form=$(printf '%s\n' "$_line" | cut -d'|' -f$_col)
    _gname=$_name
    [ -z "$form" ] || _gname=PH$_i
    "$@" "$_name" "$_gname"
  done <"$work/names.tab"
}

# subst_line NAME GNU-NAME: a line of sed script that turns GNU-NAME'
# into the tail of NAME's quoted form (its opening quote is the one
# before the directory's name).
subst_line () {
  [ -n "$form" ] || return 0
  _t=$(printf '%s\n' "${form#?}" | sed 's/[\\&|]/\\&/g')
  printf "s|%s'|%s|g\n" "$2" "$_t"
}

# mk DIR KIND NAME GNU-NAME: make o/DIR/NAME and g/DIR/GNU-NAME, KIND one
# of file, dir, link (dangling).
mk () {
  for _s in o g; do
    _n=$3
    [ $_s = o ] || _n=$4
    mkdir -p "$_s/$1" || fail "mkdir $_s/$1"
    case $2 in
      file) echo data >"$_s/$1/$_n" ;;
      dir) mkdir "$_s/$1/$_n" ;;
      link) ln -s nowhere "$_s/$1/$_n" ;;
    esac || fail "cannot make $_s/$1 ($2)"
  done
}

# compare WHAT: GNU's output (g.out, g.err, g.status) with the stand-ins
# replaced, against cp8M's (o.*), lines sorted (globs order the two
# trees' names differently); -i's prompts are split into lines first.
compare () {
  for _f in out err; do
    sed -f subst.sed "g.$_f" | sed 's/? /?\n/g' | LC_ALL=C sort >"g.$_f.s"
    sed 's/? /?\n/g' "o.$_f" | LC_ALL=C sort >"o.$_f.s"
    if ! cmp -s "g.$_f.s" "o.$_f.s"; then
      diff "g.$_f.s" "o.$_f.s" >&2
      fail "$1 ($loc): standard $_f differs from GNU cp's (above, GNU first)"
    fi
  done
  [ "$(cat g.status)" = "$(cat o.status)" ] ||
    fail "$1 ($loc): exit status $(cat o.status), GNU cp's $(cat g.status)"
}

# pair WHAT ARGS...: cp ARGS in g/ (GNU cp; cp $gnu_args when set) and
# o/ (cp8M, under valgrind), the shell expanding globs in each.  Standard
# input: ./answers.
pair () {
  _what=$1
  shift
  (cd g && PATH="$work/bin-gnu:$PATH" eval "cp ${gnu_args:-$*}") \
    <answers >g.out 2>g.err
  echo $? >g.status
  rm -f vg.log
  # shellcheck disable=SC2086
  (cd o && PATH="$work/bin-cp8m:$PATH" eval "$vg cp $*") \
    <answers >o.out 2>o.err
  _st=$?
  if [ "$_st" -eq 99 ] || [ -s vg.log ]; then
    cat vg.log o.err >&2
    fail "$_what ($loc): valgrind found an error (above)"
  fi
  echo $_st >o.status
  libc_words o.err
}

# both WHAT ARGS...: pair, then compare.
both () {
  pair "$@"
  compare "$1"
}

# The case of the report: the name alone, so that quotearg sizes a buffer
# for it (the heap bytes were read past that buffer's end).
n=$(printf "'\376")
mkdir -p "one/s/$n" one/dst/s && touch "one/dst/s/$n" || fail "cannot make one/"
# shellcheck disable=SC2086
(cd one && $vg cp8M -r s dst) >one.out 2>one.err
st=$?
[ ! -s vg.log ] ||
  { cat vg.log >&2; fail "the report's case: valgrind found an error (above)"; }
printf '%s\n' "cp8M: cannot overwrite non-directory 'dst/s/'\\'''\$'\\376' with directory 's/'\\'''\$'\\376'" >one.want
cmp -s one.want one.err ||
  { diff one.want one.err >&2; fail "the report's case: the message differs (above: expected first)"; }
[ "$st" -eq 1 ] || fail "the report's case: exit status $st, expected 1"

for loc in C C.UTF-8; do
  if [ $loc != C ]; then
    locale -a 2>/dev/null | grep -qix 'c\.utf-\{0,1\}8' || {
      note "no C.UTF-8 locale: the names were tried in the C locale only"
      break
    }
  fi
  LC_ALL=$loc
  export LC_ALL
  rm -rf g o && mkdir g o || fail "cannot reset g, o"
  : >subst.sed
  each_name $loc subst_line >subst.sed
  # (y: GNU cp 9.1 exits 0 when told n, 9.2 and later 1)
  yes y 2>/dev/null | head -n 100 >answers

  # Sources: files, directories, dangling links; a directory for each
  # name in tree/ (copied with -r onto files of the same names).
  each_name $loc mk s file
  each_name $loc mk t file
  each_name $loc mk dd dir
  each_name $loc mk tree/x dir
  each_name $loc mk exist file
  each_name $loc mk dangle link
  each_name $loc mk over/x file
  mkdir -p g/d o/d g/v o/v g/db o/db g/j o/j

  both "cannot stat" 'dangle/* d/'
  both "omitting directory" 'dd/* d/'
  both "-v" '-v s/* v/'
  # Its -v lines, against GNU cp -v's (9.1 has no --debug; the debug
  # lines are 9.11's and cp8M's own: tests/debug-line.sh).
  gnu_args='-v s/* db/'
  pair "--debug" '--debug s/* db/'
  gnu_args=
  sed -i "/^[^'\"]/d" o.out
  compare "--debug"
  both "will not overwrite just-created" 's/* t/* j/'
  both "-i's question" '-i s/* exist/'
  both "not writing through dangling symlink" 's/* dangle/'
  both "the same file" 's/* s/'
  both "cannot overwrite non-directory" '-r tree/x over/'
  both "-v -r" '-rv dd d/'
done
exit 0
