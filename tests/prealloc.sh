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

# in_order SRC...: copied onto the discard mount (direct, whatever the
# cache holds), the writes of each file preallocated past its end go one
# at a time, in file order: a write that lands before those below it
# are written splits the file's extents, and past four a block is added
# that is freed and discarded when the file is done.  (Without the
# ordering, all the chunks of a file are written at once, in any
# order.)  Every file given is big enough to split (prealloc.h,
# prealloc_in_order): with 1 KiB blocks ext4 maps a direct write 4 MiB
# at a time, so that 32 MiB is eight pieces.  The copies must match.
# Each write of a file must begin within what was written of it from its
# start (by what the writes returned): where the one before ended, never
# past an unwritten gap; and only once the one before it has returned.
# strace -y names the unnamed file ("#inode").
in_order () {
  mkdir "$m_discard/io" || fail "cannot make $m_discard/io"
  trace -f -y -s 0 -o trace.log -e trace=pwrite64,pwritev2 \
    cp8M --direct=always -r "$@" "$m_discard/io" || fail "cp8M -r $* failed"
  for _f in "$@"; do
    if [ -d "$_f" ]; then
      diff -r "$_f" "$m_discard/io/$_f" >/dev/null || fail "$_f: the copy differs"
    else
      cmp "$_f" "$m_discard/io/$_f" || fail "$_f: the copy differs"
    fi
  done
  # strace -y names the file by its resolved path: match its tail only.
  _bad=$(awk -v dst="/discard/io/" '
    function done(file, off, line) {
      sub(/.*= /, "", line)
      if (off + line > want[file]) want[file] = off + line
      busy[file] = 0 }
    index($0, "pwrite") && index($0, dst) && !index($0, "resumed>") {
      file = substr($0, index($0, dst)); sub(/>.*/, "", file)
      if (busy[file]) { bad = "a write began while another of its file was in flight: " $0; exit }
      line = $0; sub(/ <unfinished \.\.\.>$/, "", line); sub(/\) *= .*$/, "", line)
      n = split(line, f, ", ")
      off = f[n - (f[1] ~ /pwritev2/ ? 1 : 0)] + 0
      if (off > want[file] + 0) { bad = "write at " off ", past what was written (" want[file] + 0 "): " $0; exit }
      writes++
      if (index($0, "<unfinished")) { busy[file] = 1; of[$1] = file; at[$1] = off }
      else done(file, off, $0)
      next
    }
    ($1 in of) && index($0, "pwrite") && index($0, "resumed>") {
      done(of[$1], at[$1], $0); delete of[$1] }
    END {
      if (bad) print bad
      else if (writes < 8) print "only " writes + 0 " writes seen"
    }' trace.log)
  [ -z "$_bad" ] || fail "cp8M -r $*: $_bad"
  rm -rf "$m_discard/io"
}
random_file mid $((64*M))
in_order mid
# A file of at most four pieces cannot split past four extents in any
# order: its writes stay free (16 MiB: four pieces of 4 MiB, what ext4
# maps at a time on 1 KiB blocks); 64 MiB is written in order, and so is
# a 16 MiB file with holes copied whole (--sparse=never): its chunks end
# at each hole, more pieces than four.
truncate -s $((16*M)) holey || fail "cannot make holey"
for _i in 1 5 9 13; do
  dd if=/dev/urandom of=holey bs=1M seek=$_i count=1 conv=notrunc 2>/dev/null ||
    fail "cannot write holey"
done
for _f in exact mid holey; do
  rm -f "$m_discard/$_f"
  cp8M --direct=always --sparse=never --debug "$_f" "$m_discard/$_f" \
    >debug.out || fail "cp8M --debug $_f failed"
  cmp "$_f" "$m_discard/$_f" || fail "$_f: the copy differs"
  grep -q '^direct I/O: yes (.*, writes one at a time in order' debug.out
  _ordered=$?
  case $_f:$_ordered in
    exact:1 | mid:0 | holey:0) ;;
    *) fail "$_f: writes in order or not, wrongly: $(cat debug.out)" ;;
  esac
done
rm -f "$m_discard/exact" "$m_discard/mid" "$m_discard/holey" holey
mkdir three && random_file three/a $((64*M)) && random_file three/b $((64*M)) &&
  random_file three/c $((32*M))
in_order three
rm -rf three mid

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
