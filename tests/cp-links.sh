#!/bin/sh
# Links and option parsing: -l (hard links; -rl on a tree holding
# symlinks), -s (absolute targets anywhere, relative ones only in the
# current directory), hard links kept by --preserve=links, -a and -d within
# a tree and across operands (link groups compared with GNU cp's), --parents
# (layout, the unquoted -v lines for the directories it makes, './a/b', -p,
# a destination that is not a directory); option conflicts, abbreviated
# long options (also against cp8M's own options), invalid --preserve and
# --update (9.3+) arguments, --help, and -v output to a full device.  Each
# check runs on its own, so the log lists every failing one.
. "${abs_top_srcdir:-.}/tests/init.sh"

failures=0
check () { ( "$@" ) || failures=$((failures + 1)); }
out_is () {
  if [ -n "$1" ]; then printf '%s\n' "$1"; fi >"$work/.want-out"
  cmp -s "$work/.want-out" "$work/.out" ||
    { diff -u "$work/.want-out" "$work/.out" >&2; fail "stdout differs (above)"; }
}
# link_groups DIR: the names of each set of hard links under DIR (one set
# a line, as sorted names), link count included.
link_groups () {
  (cd "$work/$1" && find . ! -type d -printf '%i %n %p\n' | LC_ALL=C sort -k3 |
   awk '{ g[$1] = g[$1] " " $3; n[$1] = $2 } END { for (i in g) print n[i] ":" g[i] }' |
   LC_ALL=C sort)
}
# same_links ARGS...: same_as_gnu ARGS, then the same hard-link groups.
same_links () {
  same_as_gnu "$@" || exit 1
  link_groups gnu >"$work/.gnu.links"
  link_groups ours >"$work/.ours.links"
  cmp -s "$work/.gnu.links" "$work/.ours.links" ||
    { diff -u "$work/.gnu.links" "$work/.ours.links" >&2
      fail "'cp $*': hard links differ from GNU cp (above: GNU first)"; }
}
same_inode () { # same_inode A B
  [ "$(stat -c %d:%i "$1")" = "$(stat -c %d:%i "$2")" ] ||
    fail "$1 and $2 are not the same file"
}
other_inode () { # other_inode A B
  [ "$(stat -c %d:%i "$1")" != "$(stat -c %d:%i "$2")" ] ||
    fail "$1 and $2 are the same file"
}

mkdir tree tree/t tree/t/sub tree/dd tree/d2 tree/a tree/a/b
echo one >tree/f
echo two >tree/g
ln tree/f tree/f-hard
echo c >tree/a/b/c
echo in-t >tree/t/x
ln tree/t/x tree/t/sub/x-hard
ln tree/t/x tree/t/x-hard
ln -s x tree/t/rel
ln -s "$work/tree/f" tree/t/abs
ln -s nowhere tree/t/dangling
ln -s sub tree/t/dirlink
ln -s f tree/lnk
ln -s nowhere tree/dangling
chmod 750 tree/a/b
touch -d '2015-01-01 00:00:00' tree/a tree/a/b tree/a/b/c

# -l: hard links instead of copies.
for args in "-l f new" "-lv f new" "-l f g dd" "-rl t out" "-rlv t out" \
            "-l lnk new" "-lP lnk new" "-rl lnk new" "-rlL t out" \
            "-l dangling new" "-lP dangling new" "-rlH lnk new" "-l f g" \
            "-lf f g" "-l t out" "-al t out" "-l --backup -v f g"; do
  # shellcheck disable=SC2086
  check same_links $args
done
"$GNU_CP" -a tree/f tree/f-hard tree/t .
check expect 0 "" cp8M -l f f-link
check same_inode f f-link
# -rl follows symlinks (GNU: dereference is the default with -l), so the
# dangling one cannot be linked.
check expect 1 "cp8M: cannot stat 't/dangling': No such file or directory" \
  cp8M -rl t t-link
check same_inode t/x t-link/x
check same_inode t/sub/x-hard t-link/sub/x-hard
check same_inode t/x t-link/rel

# -s: symbolic links.
for args in "-s f new" "-sv f new" "-s $work/gnu/f d2/x" "-s f d2/x" \
            "-s f g dd" "-s f g" "-sf f g" "-rs t out" "-s ./f new" \
            "-s a/b/c new" "-s lnk new" "-s dangling new" "-s f ." \
            "-s $work/gnu/f $work/gnu/g d2"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
mkdir s-test s-test/d2
echo s >s-test/x
check expect 1 "cp8M: d2/x: can make relative symbolic links only in current directory" \
  sh -c 'cd s-test && exec cp8M -s x d2/x'
check expect 0 "" sh -c 'cd s-test && exec cp8M -s "$PWD/x" d2/abs'
[ "$(readlink s-test/d2/abs)" = "$work/s-test/x" ] ||
  { note "-s: d2/abs -> $(readlink s-test/d2/abs)"; failures=$((failures + 1)); }
check expect 0 "" sh -c 'cd s-test && exec cp8M -s x y'
[ "$(readlink s-test/y)" = x ] || { note "-s: y -> $(readlink s-test/y)"; failures=$((failures + 1)); }

# Hard links kept within a tree and across operands.
for args in "-a t out" "-r t out" "-rd t out" "-r --preserve=links t out" \
            "-a f f-hard dd" "f f-hard dd" "-d f f-hard dd" \
            "--preserve=links f f-hard dd" "-p f f-hard dd" \
            "-a t/x t/sub dd" "-r --preserve=links t/x t/sub t/x-hard dd" \
            "-a --no-preserve=links t out" "-aL t out" "-rL --preserve=links t out" \
            "-av f f-hard t dd" "-d lnk f dd"; do
  # shellcheck disable=SC2086
  check same_links $args
done
# A copy that failed is no target for the later names of its file (GNU's
# forget_created): the dangling symlink dd/f refuses the first name, and
# the second is copied, not linked to what the first left there.
RUN_SETUP='ln -s nowhere dd/f' check same_links --preserve=links f f-hard dd
mkdir dd-a
check expect 0 "" cp8M -a f f-hard t dd-a
check same_inode dd-a/f dd-a/f-hard
check same_inode dd-a/t/x dd-a/t/sub/x-hard
mkdir dd-r
check expect 0 "" cp8M -r f f-hard t dd-r
check other_inode dd-r/f dd-r/f-hard

# --parents.
for args in "--parents a/b/c dd" "--parents -v a/b/c dd" \
            "--parents -v ./a/b dd" "--parents -rv ./a/b dd" \
            "--parents -p a/b/c dd" "--parents -a a dd" "--parents a/b/c f dd" \
            "--parents -v a/b/c t/x dd" "--parents a/b/c f" \
            "--parents a/b/c nonexistent" "--parents -v f dd" \
            "--parents -r a/b dd" "--parents -rv a/b/ dd" "--path -v a/b/c dd"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
# The operand's parent there already: GNU cp gives none of the
# directories on the way attributes; one of them there: with -p, all.
for setup in "mkdir -p dd/a/b && chmod 700 dd/a/b" "mkdir -p dd/a && chmod 700 dd/a"; do
  for args in "--parents -p a/b/c dd" "--parents -a a/b/c f dd" "--parents a/b/c dd"; do
    # shellcheck disable=SC2086
    RUN_SETUP=$setup check same_as_gnu $args
  done
done
# Run twice: the directories exist the second time.
check eval 'same_as_gnu --parents -v a/b/c dd && cd gnu && "$GNU_CP" --parents -v a/b/c dd >/dev/null'
mkdir par par/dd par/a par/a/b
echo c >par/a/b/c
check eval 'expect 0 "" sh -c "cd par && exec cp8M --parents -v a/b/c dd" &&
  out_is "a -> dd/a
a/b -> dd/a/b
'"'a/b/c' -> 'dd/a/b/c'"'"'
check eval 'expect 0 "" sh -c "cd par && exec cp8M --parents -v ./a/b/c dd" &&
  out_is "'"'./a/b/c' -> 'dd/./a/b/c'"'"'
check expect 1 "cp8M: with --parents, the destination must be a directory
Try 'cp8M --help' for more information." sh -c 'cd par && exec cp8M --parents a/b/c a/b/c'
chmod 700 par/a/b
touch -d '2015-01-01 00:00:00' par/a/b
mkdir par/dd3
check expect 0 "" sh -c 'cd par && exec cp8M --parents -p a/b/c dd3'
[ "$(stat -c '%a %y' par/dd3/a/b)" = "$(stat -c '%a %y' par/a/b)" ] ||
  { note "--parents -p: dd3/a/b is $(stat -c '%a %y' par/dd3/a/b)"; failures=$((failures + 1)); }

# An absolute operand goes under the target like a relative one: its
# directories made there (or met there, when they exist), never at its
# own path on the live system (/etc/fstab -> dd/etc/fstab).
mkdir -p abs/x/y && echo z >abs/x/y/z && echo w >abs/x/w
for args in "--parents -v $work/abs/x/y/z dd" "--parents -rv $work/abs/x dd" \
            "--parents -v $work/abs/x/y/z //$work/abs/x/w dd"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
  # shellcheck disable=SC2086
  RUN_SETUP="mkdir -p dd$work/abs/x/y" check same_as_gnu $args
done
# A directory given twice with --backup: a warning, as GNU's, also when
# the two names differ only by slashes (the second's copy was looked up
# with an absolute name under the target's descriptor).
check same_as_gnu -R --backup=numbered t t dd
check same_as_gnu -R --parents --backup=numbered "//$work/abs/x" "$work/abs/x" dd
# With -p or -a, GNU 9.1 fails to give the directories their sources'
# modes ("No such file or directory"), which 9.11 fixed (its NEWS):
# the copy and its modes are checked, not GNU 9.1's words.
chmod 750 abs/x/y
touch -d '2015-01-01 00:00:00' abs/x/y
for opt in -p -a; do
  rm -rf ddp && mkdir ddp
  check expect 0 "" cp8M --parents $opt "$work/abs/x/y/z" "//$work/abs/x/w" ddp
  [ "$(stat -c '%a %y' "ddp$work/abs/x/y")" = "$(stat -c '%a %y' abs/x/y)" ] &&
    [ "$(cat "ddp$work/abs/x/y/z" "ddp$work/abs/x/w")" = "z
w" ] || { note "--parents $opt of an absolute operand: $(stat -c '%a %y' "ddp$work/abs/x/y")";
          failures=$((failures + 1)); }
done
[ "$(cat abs/x/y/z)" = z ] && [ ! -e abs/x/y/x ] ||
  { note "--parents wrote into its own source"; failures=$((failures + 1)); }

# Option parsing.
for args in "-l -s f new" "-ls f new" "--link --symbolic-link f new" \
            "-t dd -t d2 f" "--reflink=always --sparse=never f new" \
            "--reflink --sparse=always f new" "--sparse=never --reflink=always f new" \
            "--rem f g" "--remove f g" "--backup=simple f g" \
            "--re f g" "--no f g" "--pre=mode f g" "--preserve=foo f g" \
            "--preserve=mode,bogus f g" "--no-preserve=foo f g" "--preserve= f g" \
            "--sparse=sometimes f g" "--reflink=bogus f g" "--sparse f g" \
            "--su=.x -v f g" "--verb f new" "--stri f g" \
            "--preserve=m f new" "--preserve=l,t -v f new" "--reflink=nev f new" \
            "-Tt dd f"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
check expect 1 "cp8M: cannot make both hard and symbolic links
Try 'cp8M --help' for more information." cp8M -l -s tree/f x
check expect 1 "cp8M: multiple target directories specified" cp8M -t tree -t tree tree/f
check expect 1 "cp8M: --reflink can be used only with --sparse=auto
Try 'cp8M --help' for more information." cp8M --reflink=always --sparse=never tree/f x
check expect 1 "cp8M: option '--re' is ambiguous; possibilities: '--recursive' '--remove-destination' '--reflink'
Try 'cp8M --help' for more information." cp8M --re tree/f x
check expect 1 "cp8M: invalid argument 'foo' for '--preserve'
Valid arguments are:
  - 'mode'
  - 'timestamps'
  - 'ownership'
  - 'links'
  - 'context'
  - 'xattr'
  - 'all'
Try 'cp8M --help' for more information." cp8M --preserve=foo tree/f x
# An abbreviation means what it means to GNU cp, even where one of
# cp8M's options starts the same way (issue 51; tests/abbreviations.sh
# tries them all); one that several of GNU's options fit is refused
# with GNU's list, which names none of cp8M's.  Nothing is made.
mkdir ab
echo 1 >ab/f
echo 2 >ab/g
for case in "ve|'--verbose' '--version'" \
            "s|'--sparse' '--strip-trailing-slashes' '--suffix' '--symbolic-link'"; do
  check expect 1 "cp8M: option '--${case%%|*}' is ambiguous; possibilities: ${case#*|}
Try 'cp8M --help' for more information." cp8M --"${case%%|*}" ab/f ab/new
done
[ ! -e ab/new ] && [ ! -L ab/new ] ||
  { note "an ambiguous abbreviation made ab/new"; failures=$((failures + 1)); }
check eval 'expect 0 "" cp8M -v --backup=simple ab/f ab/g &&
  out_is "'"'ab/f' -> 'ab/g' (backup: 'ab/g~')"'"'
check eval 'expect 0 "" cp8M --rem -v ab/f ab/g &&
  out_is "removed '"'ab/g'"'
'"'ab/f' -> 'ab/g'"'"'
# --update's argument (9.3+; none-fail 9.5+): argmatch, abbreviations too.
check expect 1 "cp8M: invalid argument 'sometimes' for '--update'
Valid arguments are:
  - 'all'
  - 'none'
  - 'none-fail'
  - 'older'
Try 'cp8M --help' for more information." cp8M --update=sometimes ab/f ab/g
check expect 1 "cp8M: ambiguous argument 'no' for '--update'
Valid arguments are:
  - 'all'
  - 'none'
  - 'none-fail'
  - 'older'
Try 'cp8M --help' for more information." cp8M --update=no ab/f ab/g
check expect 1 "cp8M: ambiguous argument '' for '--update'
Valid arguments are:
  - 'all'
  - 'none'
  - 'none-fail'
  - 'older'
Try 'cp8M --help' for more information." cp8M --update= ab/f ab/g
echo 3 >ab/h
check expect 0 "" cp8M --update=a ab/h ab/g
[ "$(cat ab/g)" = 3 ] || { note "--update=a did not mean all"; failures=$((failures + 1)); }
check expect 0 "" cp8M --update=none-f ab/f ab/new
# --help exits 0, prints to stdout only; -v to a full device fails.
check expect 0 "" cp8M --help
[ -s .out ] || { note "--help printed nothing"; failures=$((failures + 1)); }
check expect 0 "" sh -c 'cp8M --version >/dev/null'
check same_as_gnu --help-me
if [ -w /dev/full ]; then
  check expect 1 "cp8M: write error: No space left on device" \
    sh -c 'exec cp8M -v ab/f ab/full-copy >/dev/full'
  [ -f ab/full-copy ] || { note "-v >/dev/full: file not copied"; failures=$((failures + 1)); }
  check expect 1 "cp8M: write error: No space left on device" \
    sh -c 'exec cp8M --help >/dev/full'
  check expect 0 "" sh -c 'exec cp8M ab/f ab/quiet >/dev/full'
fi

[ "$failures" -eq 0 ] || fail "$failures check(s) failed (above)"
exit 0
