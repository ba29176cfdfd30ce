#!/bin/sh
# How a new destination is preallocated (src/engine/prealloc.h).  On an
# ext4 mount with online discard, a file small enough to end in the
# inode's four extents is preallocated past its end (FALLOC_FL_KEEP_SIZE)
# and its writes give it its size: given its size first, the direct
# writes finishing out of order grow the extent tree by a block that is
# freed, and discarded, when the file is done.  Everywhere else, and for
# bigger files, the destination gets its final size first as before.
# Either way ENOSPC comes from the preallocation, before any data moves,
# and every copy is whole.
#
# ext4 is made with 1 KiB blocks so that "bigger" (4 x 32768 blocks =
# 128 MiB) stays small enough for a test.
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"
need_mounts
command -v strace >/dev/null || skip "strace is missing (./install-deps)"

M=1048576
mount_loop ext4 400 discard "-b 1024" discard || fail "cannot set up ext4 with discard"
m_discard=$mp
mount_loop ext4 200 plain "-b 1024" || fail "cannot set up ext4"
m_plain=$mp
mount_loop xfs 320 xfs "" discard || fail "cannot set up xfs with discard"
m_xfs=$mp
mount_loop ext4 64 full "-b 1024" discard || fail "cannot set up a small ext4"
m_full=$mp

cd "$work" || exit 99
random_file small $((24*M + 1000))
random_file exact $((16*M))
random_file big $((136*M))

# copy SRC DEST WANT [OPTION]: cp8M OPTION SRC DEST under strace; its one
# preallocation of DEST must have flags WANT (0 or FALLOC_FL_KEEP_SIZE),
# and DEST must be SRC.
copy () {
  rm -f "$2"
  trace -f -o trace.log -e trace=fallocate cp8M ${4:+"$4"} "$1" "$2" ||
    fail "cp8M $4 $1 $2 failed"
  cmp "$1" "$2" || fail "cp8M $4 $1 $2: the copy differs"
  _calls=$(grep -c 'fallocate(' trace.log)
  [ "$_calls" -eq 1 ] || fail "cp8M $4 $1 $2: $_calls preallocations: $(cat trace.log)"
  grep -q "fallocate([0-9]*, $3, 0, $(stat -c %s "$1")) *= 0$" trace.log ||
    fail "cp8M $4 $1 $2: want a preallocation with $3, got: $(cat trace.log)"
}

for opt in "" --direct=always --direct=never; do
  copy small "$m_discard/small" FALLOC_FL_KEEP_SIZE $opt
  copy exact "$m_discard/exact" FALLOC_FL_KEEP_SIZE $opt
  copy big "$m_discard/big" 0 $opt
  copy small "$m_plain/small" 0 $opt
  copy small "$m_xfs/small" 0 $opt
done

# A tree on the discard mount, and its copies match GNU cp's.
mkdir tree && cp small exact tree/ && cp big tree/c
cp8M -r tree "$m_discard/tree" || fail "cp8M -r tree failed"
"$GNU_CP" -r tree gnu || fail "cp -r tree failed"
diff -r "$m_discard/tree" gnu >/dev/null ||
  fail "the tree copied on the discard mount differs from GNU cp's"
rm -rf "$m_discard"/* gnu

# ENOSPC from the preallocation past the end, before any data moves, and
# nothing left behind: of the calls on the full mount, the first is a
# preallocation past the end that failed.
random_file huge $((80*M))
trace -f -y -o trace.log -e trace=fallocate,pwrite64 cp8M huge "$m_full/huge" 2>err
status=$?
[ $status -eq 1 ] || fail "ENOSPC: exit $status"
grep -qx "cp8M: error writing '$m_full/huge': No space left on device" err ||
  fail "ENOSPC: message was: $(cat err)"
first=$(grep -E '^[0-9 ]*(fallocate|pwrite64)\([0-9]*<[^>]*/full/' trace.log | head -n 1)
case $first in
  *fallocate*FALLOC_FL_KEEP_SIZE*'= -1 ENOSPC'*) ;;
  *) fail "ENOSPC: the first call on the full mount was: $first" ;;
esac
[ ! -e "$m_full/huge" ] || fail "ENOSPC: a partial file was left"

exit 0
