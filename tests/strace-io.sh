#!/bin/sh
# strace shows the buffered engine (--direct=never, as the original cp8M)
# moving data in 8388608-byte reads and writes: every read and write is a
# whole buffer but the last.  (tests/direct.sh does the same for direct
# I/O.)
. "${abs_top_srcdir:-.}/tests/init.sh"
command -v strace >/dev/null || skip "strace is not installed"
strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here"

M=1048576
size=$((100*M + 511))
random_file src "$size"

# io_sizes LOG CALL FILE: "requested returned" for each CALL on FILE.
io_sizes () {
  # A new destination is written unnamed (O_TMPFILE) until complete:
  # strace -y shows it as "<DIR/#INODE>(deleted)"; here that is dst.
  sed "s|<$work/#[0-9]*>(deleted)|<$work/dst>|" "$1" | grep "^$2(.*<$work/$3>" |
    sed -n 's/.*, \([0-9][0-9]*\), [0-9][0-9]*) *= \(-*[0-9][0-9]*\)$/\1 \2/p'
}

# check_io LOG BUFSIZE SIZE: the reads and writes in LOG of a SIZE-byte
# copy from src to dst with BUFSIZE-byte buffers.
check_io () {
  log=$1 buf=$2 total=$3
  full=$((total / buf)) tail=$((total % buf))
  io_sizes "$log" pread64 src >reads
  io_sizes "$log" pwrite64 dst >writes
  [ -s writes ] || fail "no writes to dst traced"

  # Reads: full buffers, then the tail, then the read that finds the end
  # of file (as GNU cp, cp8M reads until it does: the source may grow).
  { i=0
    while [ $i -lt $full ]; do echo "$buf $buf"; i=$((i + 1)); done
    [ $tail -gt 0 ] && echo "$tail $tail"
    echo "$buf 0"
  } >reads.want
  cmp -s reads.want reads || {
    diff reads.want reads | head -20 >&2
    fail "reads of src were not whole $buf-byte buffers (diff above)"
  }
  { i=0
    while [ $i -lt $full ]; do echo "$buf $buf"; i=$((i + 1)); done
    [ $tail -gt 0 ] && echo "$tail $tail"
  } >writes.want
  cmp -s writes.want writes || {
    diff writes.want writes | head -20 >&2
    fail "writes to dst were not whole $buf-byte buffers (diff above)"
  }
}

trace -y -s 0 -e trace=pread64,pwrite64 -o log cp8M --debug --direct=never src dst \
  >debug || fail "cp8M under strace failed"
cmp src dst || fail "copy differs"
# 8 MiB buffers, unless the memory budget (a quarter of what is free
# here) cannot hold four of them: then those it granted.
debug_buffers debug
[ $buf_capped = yes ] || [ $buf_size -eq 8388608 ] ||
  fail "default buffers of $buf_text: $(cat debug)"
check_io log $buf_size "$size"
note "--direct=never: $(wc -l <reads) reads and $(wc -l <writes) writes, all $buf_size bytes but the last"

# --buffer-size is obeyed, and rounded up to a multiple of 4096.
rm dst
trace -y -s 0 -e trace=pread64,pwrite64 -o log cp8M --direct=never --buffer-size=1MiB src dst ||
  fail "cp8M --buffer-size=1MiB failed"
check_io log 1048576 "$size"
rm dst
random_file src $((3*M + 5))
trace -y -s 0 -e trace=pread64,pwrite64 -o log cp8M --direct=never --buffer-size=1000000 src dst ||
  fail "cp8M --buffer-size=1000000 failed"
check_io log 1003520 $((3*M + 5))
cmp src dst || fail "copy with a rounded buffer differs"
exit 0
