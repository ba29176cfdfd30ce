#!/bin/sh
# Recursive copies: -r/-R, -d, -P/-L/-H (the last one wins) with relative,
# absolute and dangling symlinks on the command line and inside trees;
# FIFOs recreated by -r and read by --copy-contents; device nodes under -a;
# a directory into itself; file/directory mismatches both ways; "-r not
# specified"; sources named twice; --strip-trailing-slashes; 'src/..'
# sources; -x over a tmpfs mounted inside the source; --keep-directory-symlink
# (9.5 and later); the order of -v lines for trees.  Each check runs on its
# own, so the log lists every failing one.
. "${abs_top_srcdir:-.}/tests/init.sh"

failures=0
check () { ( "$@" ) || failures=$((failures + 1)); }
# out_is TEXT: the standard output of the last expect was TEXT.
out_is () {
  printf '%s\n' "$1" >"$work/.want-out"
  cmp -s "$work/.want-out" "$work/.out" ||
    { diff -u "$work/.want-out" "$work/.out" >&2; fail "stdout differs (above)"; }
}

mkdir tree tree/src tree/src/sub tree/src/sub/deep tree/d tree/d/sub tree/dd
echo one >tree/src/f1
echo two >tree/src/sub/f2
echo three >tree/src/sub/deep/f3
ln -s f1 tree/src/rel
ln -s "$work/tree/src/f1" tree/src/abs
ln -s nowhere tree/src/dangling
ln -s sub tree/src/dirlink
echo alpha >tree/a
echo delta >tree/d/inside
ln -s a tree/lnk-a
ln -s d tree/lnk-d
ln -s "$work/tree/a" tree/abs-a
ln -s nowhere tree/dangling
# A tree whose file collides with a directory at the destination, and the
# reverse.
mkdir tree/t2 tree/dest tree/dest/t2 tree/dest/t2/x tree/t3 tree/t3/y
echo file >tree/t2/x
mkdir tree/dest/t3
echo file >tree/dest/t3/y

# Plain recursive copies, into a new name and into an existing directory.
for args in "-r src out" "-R src out" "--recursive src out" "-r src dd" \
            "-r src d dd" "-rv src out" "-Rv src d dd" "-av src out" \
            "-r d/ out" "-r d/// out" "-r d/. out" "-rv d/. dd"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done

# Symlinks: without -r they are followed, unless -P or -d; with -r they are
# copied as symlinks, unless -L (all) or -H (command line only).  The last
# of -P, -L and -H wins.
for args in "lnk-a x" "-P lnk-a x" "-d lnk-a x" "-H lnk-a x" "-L lnk-a x" \
            "abs-a x" "-P abs-a x" "-d abs-a x" "dangling x" "-P dangling x" \
            "-d dangling x" "-L -P dangling x" "-P -L dangling x" \
            "lnk-d x" "-r lnk-d x" "-rH lnk-d x" "-rL lnk-d x" \
            "-rP lnk-d x" "-rd lnk-d x" "-rH src out" "-rL src out" \
            "-rP src out" "-rd src out" "-rL -P src out" "-rP -L src out" \
            "-rH -L src out" "-rL -H src out" "-rL -H lnk-d x" \
            "-r -L -P -H lnk-d x" "-r -H -P lnk-d x" "-a -L src out" \
            "-aH lnk-d x" "-rv lnk-a lnk-d dangling dd" \
            "-rLv src/rel src/abs src/dirlink dd"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done

# same_as_gnu's diff -r cannot compare FIFOs or devices, so trees holding
# them (./stree) are compared by listing: type, mode, size, link target and
# device numbers, and the contents of regular files.
special_listing () {
  (cd "$work/$1" && find . -printf '%p|%y|%m|%s|%l|' -exec stat -c '%t:%T' {} \; |
   LC_ALL=C sort)
}
special_same () {
  RUN_PREFIX='timeout 10'
  run_both stree "$@"
  RUN_PREFIX=
  special_listing gnu >"$work/.gnu.tree"
  special_listing ours >"$work/.ours.tree"
  cmp -s "$work/.gnu.tree" "$work/.ours.tree" ||
    { diff -u "$work/.gnu.tree" "$work/.ours.tree" >&2
      fail "'cp $*': the resulting trees differ (above: GNU first)"; }
  (cd "$work/gnu" && find . -type f) | while read -r _f; do
    cmp -s "$work/gnu/$_f" "$work/ours/$_f" || fail "'cp $*': $_f differs"
  done
}
mkdir -p bin-gnu bin-cp8m
ln -sf "$GNU_CP" bin-gnu/cp
ln -sf "$CP8M" bin-cp8m/cp
mkdir stree stree/src stree/src/sub stree/dd
echo one >stree/src/f1
mkfifo stree/fifo stree/src/fifo stree/src/sub/fifo2
ln -s fifo stree/lnk-fifo

# FIFOs: -r and -a recreate them; so does -R inside a tree.
for args in "-r fifo f2" "-a fifo f2" "-R src out" "-rv fifo src dd" \
            "-av src dd" "-rL lnk-fifo f2" "-rH lnk-fifo f2" "-r lnk-fifo f2"; do
  # shellcheck disable=SC2086
  check special_same $args
done
fifo_type () {
  [ -p "$1" ] || fail "$1 is not a FIFO"
}
mkdir fifo-test
mkfifo fifo-test/ff
check expect 0 "" cp8M -r fifo-test/ff fifo-test/copy
check fifo_type fifo-test/copy

# Reading a FIFO: without -r, or with -r --copy-contents.  A writer feeds
# the FIFO; timeout keeps a wrong implementation from hanging the test.
read_fifo () { # read_fifo FIFO DEST CP-ARGS...: copy with a writer on FIFO
  _fifo=$1 _dest=$2
  shift 2
  timeout 10 sh -c 'echo data >"$1"' x "$_fifo" &
  _writer=$!
  timeout 10 cp8M "$@" >"$work/.fifo.out" 2>"$work/.fifo.err"
  _st=$?
  kill "$_writer" 2>/dev/null
  wait "$_writer"
  [ "$_st" -eq 0 ] || { cat "$work/.fifo.err" >&2; fail "cp8M $* exited $_st"; }
  [ ! -s "$work/.fifo.err" ] || { cat "$work/.fifo.err" >&2; fail "cp8M $*: stderr"; }
  [ -f "$_dest" ] && [ ! -p "$_dest" ] || fail "cp8M $*: $_dest is not a regular file"
  [ "$(cat "$_dest")" = data ] || fail "cp8M $*: $_dest does not hold the FIFO's data"
}
check read_fifo fifo-test/ff fifo-test/plain fifo-test/ff fifo-test/plain
check read_fifo fifo-test/ff fifo-test/contents -r --copy-contents \
  fifo-test/ff fifo-test/contents
# Inside a tree: --copy-contents reads the FIFO found while recursing.
mkdir fifo-tree
mkfifo fifo-tree/ff
check read_fifo fifo-tree/ff fifo-tree-copy/ff -R --copy-contents \
  fifo-tree fifo-tree-copy

# Device nodes (as root): -a and -r recreate them, with the same numbers;
# without -r (or with --copy-contents) the device is read.
if [ "$(id -u)" -eq 0 ] && mknod stree/null c 1 3 2>/dev/null; then
  mkdir stree/devdir
  mknod stree/devdir/zero c 1 5
  ln -s ../null stree/devdir/lnk-null
  for args in "-a null n2" "-r null n2" "-R --copy-contents null n2" \
              "null n2" "-av null dd" "-P null n2" "-a devdir dd" \
              "-rL devdir out" "-rv devdir out"; do
    # shellcheck disable=SC2086
    check special_same $args
  done
  check expect 0 "" cp8M -a stree/devdir devcopy
  [ "$(stat -c '%F %t:%T' devcopy/zero)" = "character special file 1:5" ] ||
    { note "-a: devcopy/zero is $(stat -c '%F %t:%T' devcopy/zero)"
      failures=$((failures + 1)); }
else
  note "cannot make a device node: device checks skipped"
fi

# -v lists a directory's entries in GNU's order (by inode number): both
# tools copy the same source tree here, so the orders must agree.
mkdir order order/s
for n in a b c d e f g h; do echo "$n" >"order/s/$n"; done
rm order/s/c order/s/a && echo 1 >order/s/z && echo 2 >order/s/a &&
  mkdir order/s/sub && echo 3 >order/s/sub/y || fail "cannot set up order/"
(cd order && "$GNU_CP" -rv s g >../order.gnu && "$CP8M" -rv s m >../order.ours) ||
  fail "-rv on order/ failed"
sed 's/ -> .g/ -> X/' order.gnu >order.gnu.x
sed 's/ -> .m/ -> X/' order.ours >order.ours.x
check cmp order.gnu.x order.ours.x

# A directory into itself or into one of its subdirectories.  Entries
# are read in inode order, and the walk stops when it meets its own copy:
# how much was copied before depends on where the new directory's inode
# number falls, which differs between any two runs.  So the messages and
# the status are compared, not the trees.
for args in "-r d d" "-r d d/sub" "-R d d/sub/new" \
            "-r src src/sub/deep" "-r d/ d/sub" "-r lnk-d d" \
            "-rL lnk-d d/sub" "-r d lnk-d" "-r d/ lnk-d/sub"; do
  # shellcheck disable=SC2086
  check run_both tree $args
done
mkdir self self/d self/d/sub
check expect 1 "cp8M: cannot copy a directory, 'd', into itself, 'd/d'" \
  sh -c 'cd self && exec cp8M -r d d'
check expect 1 "cp8M: cannot copy a directory, 'd', into itself, 'd/sub/d'" \
  sh -c 'cd self && exec cp8M -r d d/sub'

# File and directory mismatches, both ways.
for args in "-r d a" "-rT d a" "-r t3 dest" "-rv t3 dest" "-r d lnk-a" \
            "-r src/sub/f2 d/sub"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
mkdir mis mis/t2 mis/dest mis/dest/t2 mis/dest/t2/x
echo file >mis/t2/x
# GNU 9.5 and later name the source in this message (9.1 does not).
check expect 1 "cp8M: cannot overwrite directory 'dest/t2/x' with non-directory 't2/x'" \
  sh -c 'cd mis && exec cp8M -r t2 dest'
check expect 1 "cp8M: cannot overwrite directory 'dest/t2' with non-directory 't2/x'" \
  sh -c 'cd mis && exec cp8M -rT t2/x dest/t2'

# "-r not specified" and sources given twice.
for args in "d out" "d dd" "a d dd" "-v a d lnk-d dd" "a a dd" "a ./a dd" \
            "-r d d dd" "-r d ./d dd" "-r d/ d dd" "-rv a a d d dd" \
            "-r lnk-d d dd" "-rL lnk-d d dd"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
mkdir twice twice/d twice/out
echo x >twice/a
check expect 0 "cp8M: warning: source file 'a' specified more than once" \
  sh -c 'cd twice && exec cp8M a a out'
check expect 0 "cp8M: warning: source directory 'd' specified more than once" \
  sh -c 'cd twice && exec cp8M -r d d out'
check expect 1 "cp8M: -r not specified; omitting directory 'd'" \
  sh -c 'cd twice && exec cp8M d out'

# --strip-trailing-slashes.
for args in "--strip-trailing-slashes a/ b" "a/ b" \
            "-r --strip-trailing-slashes d/ out" \
            "-r --strip-trailing-slashes lnk-d/ out" "-r lnk-d/ out" \
            "-r --strip-trailing-slashes lnk-d// dd" \
            "--strip-trailing-slashes lnk-a/ dd" "-rv --strip-trailing-slashes d/// dd/"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done

# A source ending in '..'.
for args in "-R src/sub/.. out" "-Rv src/sub/.. out" "-R src/sub/.. dd" \
            "-R src/sub/deep/../.. out" "-Rv d/sub/.. src/.. out"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done

# --keep-directory-symlink (GNU 9.5 and later; not in 9.1): an existing
# destination symlink to a directory is followed while recursing.  Without
# it, GNU 9.1 and 9.11 both refuse.
mkdir tree/kd tree/kd/src tree/kd/src/sub tree/kd/dest tree/kd/dest/real
echo f >tree/kd/src/sub/f
ln -s real tree/kd/dest/sub
check same_as_gnu -R kd/src/sub kd/dest
check same_as_gnu -R kd/src/. kd/dest
rm -rf kd && "$GNU_CP" -a tree/kd kd
kept_symlink () {
  [ -L kd/dest/sub ] || fail "--keep-directory-symlink replaced kd/dest/sub"
  [ "$(readlink kd/dest/sub)" = real ] || fail "kd/dest/sub changed target"
  [ "$(cat kd/dest/real/f 2>/dev/null)" = f ] ||
    fail "--keep-directory-symlink did not copy into the symlinked directory"
}
check expect 0 "" cp8M -R --keep-directory-symlink kd/src/sub kd/dest
check kept_symlink
rm -rf kd && "$GNU_CP" -a tree/kd kd
check eval 'expect 0 "" cp8M -Rv --keep-directory-symlink kd/src/. kd/dest &&
  out_is "'"'kd/src/./sub/f' -> 'kd/dest/./sub/f'"'"'
check kept_symlink
rm -rf tree/kd kd

# -x: a tmpfs mounted inside the source is not entered (its mount point is
# still made).  Needs root and a mount that works here.
mkdir xsrc xsrc/mnt xsrc/plain
echo top >xsrc/top
echo in >xsrc/plain/in
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=1m cp8m-test "$work/xsrc/mnt" 2>/dev/null; then
  echo hidden >xsrc/mnt/hidden
  mkdir xsrc/mnt/deeper
  mkdir bin-gnu-x bin-ours-x
  ln -s "$GNU_CP" bin-gnu-x/cp
  ln -s "$CP8M" bin-ours-x/cp
  x_same () { # x_same ARGS...: run with both, compare output and trees
    for _s in gnu ours; do
      rm -rf "$work/x-$_s" && mkdir "$work/x-$_s"
      PATH=$work/bin-$_s-x:$PATH cp "$@" "$work/x-$_s/out" \
        >"$work/.x$_s.out" 2>"$work/.x$_s.err"
      echo $? >>"$work/.x$_s.err"
      sed "s|$work/x-$_s/|DEST/|" "$work/.x$_s.out" >"$work/.x$_s.o2"
    done
    cmp -s "$work/.xgnu.err" "$work/.xours.err" ||
      { diff -u "$work/.xgnu.err" "$work/.xours.err" >&2; fail "cp $* -x: stderr/status differ"; }
    cmp -s "$work/.xgnu.o2" "$work/.xours.o2" ||
      { diff -u "$work/.xgnu.o2" "$work/.xours.o2" >&2; fail "cp $* -x: stdout differs"; }
    tree_listing x-gnu >"$work/.xgnu.tree"
    tree_listing x-ours >"$work/.xours.tree"
    cmp -s "$work/.xgnu.tree" "$work/.xours.tree" ||
      { diff -u "$work/.xgnu.tree" "$work/.xours.tree" >&2; fail "cp $* -x: trees differ"; }
  }
  check x_same -rx xsrc
  check x_same -rvx xsrc
  check x_same --one-file-system -a xsrc
  check x_same -rx xsrc/mnt
  check x_same -r xsrc
  check expect 0 "" cp8M -rx xsrc xcopy
  [ -d xcopy/mnt ] && [ ! -e xcopy/mnt/hidden ] && [ -f xcopy/plain/in ] ||
    { note "-x: wrong result"; failures=$((failures + 1)); }
  umount "$work/xsrc/mnt" || fail "cannot unmount the tmpfs"
else
  note "cannot mount a tmpfs: -x checks skipped"
fi

[ "$failures" -eq 0 ] || fail "$failures check(s) failed (above)"
exit 0
