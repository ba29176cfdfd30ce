#!/bin/sh
# The direct-I/O engine on the root filesystem: O_DIRECT opens and
# 8388608-byte I/Os under strace, no page-cache residue, exact copies of
# awkward sizes, holes kept, and fallback when the kernel refuses.
. "${abs_top_srcdir:-.}/tests/init.sh"
command -v strace >/dev/null || skip "strace is not installed"
strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here"
command -v fincore >/dev/null || skip "fincore (util-linux) is missing"

# Work on the filesystem of the build tree, not /tmp (often tmpfs, which
# caches whatever the flags say).
cd "$abs_top_builddir" && dir=$(mktemp -d cp8m-direct.XXXXXX) || exit 99
trap 'rm -rf "$abs_top_builddir/$dir"; cd /; rm -rf "$work"' EXIT
cd "$dir" || exit 99
probe=$(mktemp probe.XXXXXX)
dd if=/dev/zero of="$probe" bs=4096 count=1 oflag=direct status=none 2>/dev/null ||
  skip "this filesystem refuses O_DIRECT"
rm -f "$probe"

M=1048576


# resident FILE: pages of FILE in the page cache.
resident () {
  fincore --noheadings --output PAGES "$1" | tr -d ' '
}

# io_calls DIR: "call path requested returned" for every data call traced
# in DIR/log.* (strace -ff), whatever the thread.  strace -s 0 hides the
# iovec of preadv2/pwritev2, so for those the count returned stands for
# the count requested.
io_calls () {
  # A new destination is written unnamed (O_TMPFILE) until complete:
  # strace -y shows it as "<DIR/#INODE>(deleted)"; here that is dst.
  cat "$1"/log.* | sed 's|/#[0-9]*>(deleted)|/dst>|' | sed -n \
    -e 's/^\(pread64\|pwrite64\)([0-9]*<\([^>]*\)>, [^,]*, \([0-9]*\), [0-9]*) *= \(-*[0-9]*\).*/\1 \2 \3 \4/p' \
    -e 's/^\(preadv2\|pwritev2\)([0-9]*<\([^>]*\)>, .*) *= \(-*[0-9]*\).*/\1 \2 \3 \3/p' |
    awk '$2 ~ /\/(src|dst)$/'
}

# traced_copy ARGS...: run cp8M ARGS under strace -ff into ./trace.
traced_copy () {
  rm -rf trace && mkdir trace
  trace -ff -y -s 0 -o trace/log cp8M "$@"
}

# --- strace: O_DIRECT opens and 8 MiB I/Os, default settings, cold ----
size=$((100*M + 511))
random_file src "$size"
evict src
traced_copy --debug src dst >debug || fail "cp8M failed under strace"
cmp src dst || fail "direct copy differs"
# The buffers are 8 MiB, unless the memory budget (a quarter of what is
# free here) cannot hold four of them: then those it granted.
debug_buffers debug
[ $buf_capped = yes ] || [ $buf_size -eq 8388608 ] ||
  fail "default buffers of $buf_text: $(cat debug)"
grep -q "^direct I/O: yes (O_DIRECT, $buf_text x [0-9]* in flight" debug ||
  fail "--debug does not report direct I/O: $(cat debug)"
# glibc opens with openat, musl with open.
[ "$(cat trace/log.* | grep -c '^open\(at\)\{0,1\}(.*O_DIRECT[|)]')" -eq 2 ] ||
  fail "expected two O_DIRECT opens (source and destination)"
io_calls trace >calls
here=$(pwd)
# Body: whole buffers (12 of 8 MiB) and the rest as one piece (4 MiB),
# read and written direct; tail: 511 bytes through the plain descriptor.
whole=$(((size - 511) / buf_size)) piece=$(((size - 511) % buf_size))
for call in pread64 pwrite64; do
  n=$(awk -v c=$call -v b=$buf_size '$1 == c && $3 == b && $4 == b' calls | wc -l)
  [ "$n" -eq $whole ] || fail "$n ${call}s of $buf_size bytes, expected $whole"
done
# (preadv2 shows what it returned: 0 at the end of file.)
awk -v b=$buf_size -v p=$piece '$3 != b && $3 != p && $3 != 511 && $4 != 0' calls | grep . &&
  fail "unexpected I/O sizes (above)"
total=$(awk '$1 ~ /write/ && $2 ~ /dst$/ { s += $4 } END { print s }' calls)
[ "$total" -eq "$size" ] || fail "wrote $total bytes for a $size-byte file"
note "strace: $whole x $buf_size direct reads and writes, tail 511 bytes"

# --- no page-cache residue after a default copy of 256 MiB --------------
rm -f dst
random_file big $((256*M))
evict big
[ "$(resident big)" -eq 0 ] || skip "cannot evict the source here"
cp8M big big.copy || fail "256 MiB copy failed"
src_pages=$(resident big) dst_pages=$(resident big.copy)
[ "$src_pages" -eq 0 ] && [ "$dst_pages" -eq 0 ] ||
  fail "pages left in the page cache: source $src_pages, destination $dst_pages"
cmp big big.copy || fail "256 MiB copy differs"
note "fincore: 256 MiB copy left 0 pages of source and destination"
# With a tail too: the tail's pages go through RWF_DONTCACHE.
head -c $((256*M + 1000)) big >big2
evict big2
cp8M big2 big2.copy || fail "256 MiB + 1000 copy failed"
note "256 MiB + 1000: $(resident big2) source and $(resident big2.copy) destination pages resident"
rm -f big big.copy big2 big2.copy

# --- awkward sizes, direct forced -------------------------------------
for size in 1 511 4097 $((8*M + 1)) $((64*M + 1000)); do
  random_file s "$size"
  for depth in 1 4; do
    rm -f d
    cp8M --direct=always --queue-depth=$depth s d ||
      fail "--direct=always copy of $size bytes failed"
    cmp s d || fail "--direct=always copy of $size bytes (depth $depth) differs"
  done
done

# --- sparse files keep their holes, direct or not ---------------------
truncate -s $((64*M)) sparse
dd if=/dev/urandom of=sparse bs=1M seek=8 count=4 conv=notrunc status=none
dd if=/dev/urandom of=sparse bs=1M seek=30 count=9 conv=notrunc status=none
dd if=/dev/urandom of=sparse bs=1 seek=$((50*M + 7)) count=3 conv=notrunc status=none
holemap sparse >map.src
for mode in auto always never; do
  rm -f sp
  cp8M --debug --direct=$mode sparse sp >debug || fail "sparse copy ($mode)"
  cmp sparse sp || fail "sparse copy ($mode) differs"
  grep -q 'sparse detection: SEEK_HOLE' debug ||
    fail "--direct=$mode: holes not detected: $(cat debug)"
  holemap sp >map.dst
  cmp -s map.src map.dst || {
    diff map.src map.dst >&2
    fail "sparse copy (--direct=$mode) has another hole layout"
  }
done
"$GNU_CP" sparse gnu-sp && holemap gnu-sp >map.gnu
cmp -s map.gnu map.dst || note "GNU cp's hole layout differs from the source's"

# --- refused direct I/O: the copy completes buffered -------------------
# 1 MiB buffers, so that each of 4 threads makes its third call (strace
# counts calls per thread).
random_file src $((40*M + 3))
for inj in pread64 pwrite64; do
  for depth in 1 4; do
    rm -f dst
    trace -f -o /dev/null -e trace=$inj -e inject=$inj:error=EINVAL:when=3 \
      cp8M --debug --direct=always --queue-depth=$depth --buffer-size=1M \
      src dst >debug ||
      fail "$inj refused (depth $depth): copy failed"
    cmp src dst || fail "$inj refused (depth $depth): copy differs"
    case $inj in pread64) op=read ;; *) op=write ;; esac
    grep -q "^direct I/O: partly (.*$op: Invalid argument)" debug ||
      fail "$inj refused: --debug does not say so: $(cat debug)"
  done
done
# Refused at the first direct write while zero blocks are being skipped:
# the rest of the chunk (data after the zero block too) is redone.
{ head -c 4096 /dev/urandom; head -c 4096 /dev/zero; head -c 4096 /dev/urandom; } >z
rm -f zc
trace -f -o /dev/null -e trace=pwrite64 -e inject=pwrite64:error=EINVAL:when=1 \
  cp8M --direct=always --sparse=always z zc || fail "zero blocks + refused write: copy failed"
cmp z zc || fail "zero blocks + refused write: copy differs"
for size in 12 10000 $((16*M + 100)); do
  head -c $size /dev/urandom >z
  for mode in always never; do
    rm -f zc
    cp8M --direct=$mode --sparse=always z zc || fail "--sparse=always, $size bytes"
    cmp z zc || fail "--sparse=always --direct=$mode: $size-byte copy differs"
  done
done

# --reflink: auto clones or offloads (identical copy, --debug says which);
# always fails or succeeds exactly as GNU cp's does on this filesystem.
rm -f r
cp8M --debug --reflink=auto src r >debug || fail "--reflink=auto failed"
cmp src r || fail "--reflink=auto copy differs"
grep -Eq '^copy offload: yes|reflink: yes' debug || note "--reflink=auto: $(sed -n 2p debug)"
mkdir -p ours gnu
(cd ours && cp8M --reflink=always ../src r 2>../ours.err; echo $? >>../ours.err)
libc_words ours.err
(cd gnu && "$GNU_CP" --reflink=always ../src r 2>../gnu.err; echo $? >>../gnu.err)
sed -i 's/^[^:]*: //' ours.err gnu.err
cmp ours.err gnu.err || { diff gnu.err ours.err >&2; fail "--reflink=always differs from GNU cp"; }
[ ! -e ours/r ] || [ -s ours/r ] || fail "--reflink=always left an empty file"

# Refused at open: find which openat is the O_DIRECT one, then refuse it
# (a new destination both times: a copy in place opens less on the way).
rm -f dst
traced_copy --direct=always src dst
call=$(cat trace/log.* | grep '^open\(at\)\{0,1\}(.*O_DIRECT[|)]' | head -n 1 |
       sed 's/(.*//')
[ -n "$call" ] || fail "no O_DIRECT open to refuse"
n=$(cat trace/log.* | grep "^$call(" | grep -n 'O_DIRECT[|)]' | head -n 1 | cut -d: -f1)
rm -f dst
trace -f -o /dev/null -e trace=$call -e inject=$call:error=EINVAL:when=$n \
  cp8M --debug --direct=always src dst >debug || fail "open refused: copy failed"
cmp src dst || fail "open refused: copy differs"
grep -q '^direct I/O: no (open: Invalid argument)' debug &&
  grep -q '^  cache: RWF_DONTCACHE on reads and writes' debug ||
  fail "open refused: --debug says $(cat debug)"
exit 0
