#!/bin/sh
# How a destination is preallocated (src/engine/engine.c, prepare_dest):
# a new file of at least one buffer, without holes, gets its final size
# with one fallocate before any data moves, on ext4 with and without
# online discard and on xfs; an existing file overwritten in place gets
# its space past its end (FALLOC_FL_KEEP_SIZE), so that it looks short
# until the last write.  Either way ENOSPC comes from the preallocation,
# before any data moves, and every copy is whole.  (Up to issue 40, new
# files on a discard mount were preallocated past their end and their
# writes kept in file order; bench/README, "What each mechanism buys",
# says why that went.)
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
  copy small "$m_discard/small" 0 $opt
  copy exact "$m_discard/exact" 0 $opt
  copy big "$m_discard/big" 0 $opt
  copy small "$m_plain/small" 0 $opt
  copy small "$m_xfs/small" 0 $opt
done
# Overwritten in place: past the end, the size left to the writes.
for opt in "" --direct=always --direct=never; do
  cp big "$m_discard/old" || exit 99
  trace -f -o trace.log -e trace=fallocate cp8M ${opt:+"$opt"} small "$m_discard/old" ||
    fail "cp8M $opt small onto an existing file failed"
  cmp small "$m_discard/old" || fail "cp8M $opt small onto an existing file: the copy differs"
  grep -q "fallocate([0-9]*, FALLOC_FL_KEEP_SIZE, 0, $(stat -c %s small)) *= 0$" trace.log ||
    fail "cp8M $opt onto an existing file: want a preallocation past its end, got: $(cat trace.log)"
done
rm -f "$m_discard/old"

# A tree on the discard mount, and its copies match GNU cp's.
mkdir tree && cp small exact tree/ && cp big tree/c
cp8M -r tree "$m_discard/tree" || fail "cp8M -r tree failed"
"$GNU_CP" -r tree gnu || fail "cp -r tree failed"
diff -r "$m_discard/tree" gnu >/dev/null ||
  fail "the tree copied on the discard mount differs from GNU cp's"
rm -rf "$m_discard"/* gnu

# ENOSPC from the preallocation, before any data moves, and nothing left
# behind: of the calls on the full mount, the first is a preallocation
# that failed.
random_file huge $((80*M))
trace -f -y -o trace.log -e trace=fallocate,pwrite64 cp8M huge "$m_full/huge" 2>err
status=$?
[ $status -eq 1 ] || fail "ENOSPC: exit $status"
grep -qx "cp8M: error writing '$m_full/huge': No space left on device" err ||
  fail "ENOSPC: message was: $(cat err)"
first=$(grep -E '^[0-9 ]*(fallocate|pwrite64)\([0-9]*<[^>]*/full/' trace.log | head -n 1)
case $first in
  *fallocate*', 0, 0, '*'= -1 ENOSPC'*) ;;
  *) fail "ENOSPC: the first call on the full mount was: $first" ;;
esac
[ ! -e "$m_full/huge" ] || fail "ENOSPC: a partial file was left"

exit 0
