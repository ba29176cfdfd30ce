#!/bin/sh
# Reading ahead across files (tests/read-ahead.sh) meets a next file that
# changes after it was read ahead: tests/faultshim.so cuts it to 1234567
# bytes, or grows it by a file's contents, at its first read, which is
# the read-ahead's.  GNU cp copies it as it is then; so must cp8M, without
# taking what it read before, nor what it wrote ahead of it (b's
# destination is made early while a is copied: write-ahead.sh).  The
# shim needs a dynamically linked cp8M: against a static one (make
# static-check) the test is skipped (77).
. "${abs_top_srcdir:-.}/tests/init.sh"
[ "$(id -u)" -eq 0 ] || skip "not root: cannot mount a loop device"
[ -e /dev/loop-control ] || skip "no /dev/loop-control"
. "$abs_top_srcdir/tests/mounts-lib.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
need_shim

M=1048576
mount_loop ext4 128 disk || fail "cannot set up ext4"
cd "$mp" || exit 99

# Three files of several 1 MiB buffers and a tail, in creation order
# (ext4 numbers inodes, and so the walk's order, the same way): b is
# read ahead while a is copied.
mkdir tree || exit 99
random_file tree/a $((3 * M + 100))
random_file tree/b $((2 * M))
random_file tree/c $((5 * M + 4097))
random_file extra $((M + 12345))
cp8m_args="--direct=always --buffer-size=1M"
for change in "FAULTSHIM_TRUNCATE=1234567" "FAULTSHIM_APPEND=$PWD/extra"; do
  for side in gnu ours; do
    rm -rf "src-$side" "dst-$side"
    mkdir "src-$side" || exit 99
    for f in a b c; do "$GNU_CP" "tree/$f" "src-$side/$f" || exit 99; done
    if [ $side = gnu ]; then prog=$GNU_CP args=; else prog=cp8M args=$cp8m_args; fi
    # shellcheck disable=SC2086
    env LD_PRELOAD="$(shim_preload "$prog")" FAULTSHIM_SRC="$PWD/src-$side/b" \
      "$change" "$prog" -r $args "src-$side" "dst-$side" 2>err ||
      fail "$side, $change: exit $? ($(cat err))"
    cmp "src-$side/b" "dst-$side/b" ||
      fail "$side, $change: the copy of b is not b as it is now"
  done
  cmp dst-gnu/b dst-ours/b || fail "$change: cp8M's copy of b differs from GNU cp's"
  for f in a c; do cmp "tree/$f" "dst-ours/$f" || fail "$change: $f differs"; done
  note "next file changed at its read-ahead ($change): copied as it is now"
done
exit 0
