#!/bin/sh
# Reading ahead across files (engine_lookahead): while one file is
# copied, the engine reads the first chunks of the walk's next regular
# files (in the same directory, or the next operands), and each of those
# copies starts by writing them.  Checked here:
#   - trees and operands copied with it are identical to GNU cp's copies
#     (treedigest), access times included: the copy of a file read ahead
#     gets the access time the file had before (read ahead with
#     O_NOATIME), as GNU cp's -p gives it;
#   - it happens (--debug's "read ahead"), early and several files
#     ahead: the next files are opened for it before this one is linked
#     into place (strace);
#   - trees of files smaller than one buffer pay nothing for it (no
#     O_PATH open), nor do destinations that exist or the second name of
#     a file -a links, and it needs no descriptors a copy needs (ulimit
#     -n).
# (A next file that changes after it was read ahead: read-ahead-shim.sh.)
. "${abs_top_srcdir:-.}/tests/init.sh"
[ "$(id -u)" -eq 0 ] || skip "not root: cannot mount a loop device"
[ -e /dev/loop-control ] || skip "no /dev/loop-control"
. "$abs_top_srcdir/tests/mounts-lib.sh"
command -v strace >/dev/null || skip "strace is not installed"

M=1048576
mount_loop ext4 256 disk || fail "cannot set up ext4"
cd "$mp" || exit 99

# A tree in creation order (ext4 numbers inodes, and so the walk's order,
# the same way): files of several 1 MiB buffers, a tail, a file smaller
# than a buffer, a FIFO and a symlink between them, a subdirectory.
mkdir tree tree/sub || exit 99
random_file tree/a $((3 * M + 100))
random_file tree/b $((2 * M))
random_file tree/c $((5 * M + 4097))
random_file tree/tiny 100
mkfifo tree/fifo
random_file tree/d $((M + 1))
ln -s a tree/lnk
random_file tree/sub/e $((4 * M))
random_file tree/sub/f $((2 * M + 1))
random_file tree/sub/g $((M - 1))
# Old access times: reading a file with them moves them (relatime).
find tree -type f -exec touch -a -d 2001-02-03 {} + || exit 99
cp8m_args="--direct=always --buffer-size=1M"

# 1. A tree with -rp: the same copy as GNU cp's, and files read ahead.
"$GNU_CP" -rp tree gnu || fail "GNU cp -rp failed"
find tree -type f -exec touch -a -d 2001-02-03 {} + || exit 99
# shellcheck disable=SC2086
cp8M -rp --debug $cp8m_args tree ours >debug.out 2>debug.err ||
  fail "cp8M -rp failed: $(cat debug.err)"
[ -s debug.err ] && fail "cp8M -rp: $(cat debug.err)"
same_copy gnu ours
n=$(grep -c 'read ahead' debug.out)
[ "$n" -ge 2 ] || { cat debug.out >&2; fail "-rp: $n files read ahead, expected 2 or more"; }
note "-rp tree: same as GNU cp, access times too; $n files read ahead"

# 2. Early, and several files ahead: while a is copied, both b and c
#    (the regular files up to the FIFO) are opened to be read ahead,
#    before a is linked into place.
rm -rf ours
# shellcheck disable=SC2086
trace -f -o trace -e trace=open,openat,linkat cp8M -r $cp8m_args tree ours ||
  fail "cp8M -r under strace failed"
awk '/O_NOATIME/ { opened++ }
     /linkat\(.*"a"/ { early = opened }
     /linkat\(/ { opened = 0 }
     END { exit !(early >= 2) }' trace ||
  { grep -E 'O_NOATIME|linkat' trace >&2; fail "b and c were not both opened to be read ahead before a was linked"; }
cmp tree/c ours/c && cmp tree/sub/f ours/sub/f || fail "-r under strace: wrong copies"

# 2b. A file smaller than a buffer between them, copied direct too: the
#     files read ahead before it keep what was read (each is read once).
mkdir mixed || exit 99
random_file mixed/a $((3 * M))
random_file mixed/b $((M / 2))
random_file mixed/c $((3 * M))
random_file mixed/d $((3 * M))
# shellcheck disable=SC2086
cp8M -r --debug $cp8m_args mixed mixed-copy >debug.out ||
  fail "cp8M -r mixed failed"
for f in a b c d; do cmp "mixed/$f" "mixed-copy/$f" || fail "mixed: $f differs"; done
n=$(grep -c 'read ahead' debug.out)
[ "$n" -eq 2 ] || { cat debug.out >&2; fail "mixed: $n files took chunks read ahead, expected 2 (c and d)"; }

# 3. Operands: each next one is read ahead.
mkdir ops || exit 99
# shellcheck disable=SC2086
cp8M --debug $cp8m_args tree/a tree/b tree/c ops/ >debug.out ||
  fail "cp8M a b c ops/ failed"
for f in a b c; do cmp "tree/$f" "ops/$f" || fail "operands: ops/$f differs"; done
n=$(grep -c 'read ahead' debug.out)
[ "$n" -eq 2 ] || { cat debug.out >&2; fail "operands: $n read ahead, expected 2 (b and c)"; }

# 4. The next file changes at its first read, which is the read-ahead's:
#    tests/read-ahead-shim.sh (the fault shim cuts or grows it).

# 5. Small files: no open more (the read-ahead's O_PATH) for any of them
#    in the main thread (another warms them: prefetch.sh).
mkdir small || exit 99
i=0
while [ $i -lt 20 ]; do random_file "small/f$i" $((i * 1000 + 1)); i=$((i + 1)); done
trace -f -o trace.small -e trace=open,openat cp8M -r small small-copy ||
  fail "cp8M -r small failed"
main=$(head -n 1 trace.small | cut -d' ' -f1)
n=$(grep "^$main " trace.small | grep 'O_PATH' | grep -vc 'O_DIRECTORY')
[ "$n" -eq 0 ] || fail "small files: $n O_PATH opens of files"

# 6. Nothing read ahead where it would be wasted: the next file's
#    destination exists (it is overwritten in place, which takes no chunk
#    read ahead), or, with -a, the next file is the second name of a file
#    already copied (it is linked).  Each time the file before is copied
#    anew, so reading ahead would otherwise happen.
mkdir ex exdst || exit 99
random_file ex/a $((2 * M))
random_file ex/b $((2 * M))
"$GNU_CP" ex/b exdst/b || exit 99
# shellcheck disable=SC2086
trace -f -o trace.exist -e trace=open,openat cp8M -r $cp8m_args ex/. exdst/ ||
  fail "cp8M -r onto a partial copy failed"
grep -q O_NOATIME trace.exist &&
  { grep -E 'O_NOATIME|O_PATH' trace.exist >&2; fail "read ahead a file whose destination exists"; }
cmp ex/a exdst/a && cmp ex/b exdst/b || fail "onto a partial copy: wrong copies"
mkdir links links/d1 links/d2 || exit 99
random_file links/d2/w $((2 * M))
random_file links/d1/x $((2 * M))
ln links/d1/x links/d2/y
# shellcheck disable=SC2086
trace -f -o trace.links -e trace=open,openat cp8M -a $cp8m_args links links-copy ||
  fail "cp8M -a links failed"
grep -q O_NOATIME trace.links &&
  { grep -E 'O_NOATIME|O_PATH' trace.links >&2; fail "read ahead the second name of a file"; }
[ links-copy/d1/x -ef links-copy/d2/y ] || fail "-a links: x and y are not one file"
cmp links/d2/w links-copy/d2/w || fail "-a links: w differs"

# 7. Few descriptors: the copy still succeeds, identical.  Each copy
# starts from old access times, as in 1 (a read moves them).
rm -rf ours
find tree -type f -exec touch -a -d 2001-02-03 {} + || exit 99
"$GNU_CP" -rp tree gnu12 || fail "GNU cp -rp failed"
find tree -type f -exec touch -a -d 2001-02-03 {} + || exit 99
# shellcheck disable=SC2086
(ulimit -n 12 && exec cp8M -rp $cp8m_args tree ours) 2>err ||
  fail "cp8M -rp under ulimit -n 12 failed: $(cat err)"
same_copy gnu12 ours
note "ulimit -n 12: same as GNU cp"
exit 0
