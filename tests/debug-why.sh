#!/bin/sh
# --debug's own lines say what really happened to each file: why neither
# FICLONE nor copy_file_range moved its data ("offload: ..."), what a
# file without data gets (no "one read and one write of 0 bytes"), and
# one "time: ..." line per file copied.  GNU's first line:
# tests/debug-line.sh; the plans: the manual's "Debug lines".
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"

M=1048576
random_file f $((2*M + 7))
truncate -s $((64*M)) holes
truncate -s $((16*M)) atend
printf tail | dd of=atend bs=1 seek=$((16*M - 4)) conv=notrunc status=none
: >empty
[ "$(stat -c %b holes)" -eq 0 ] || skip "this filesystem keeps no holes"

# why WANT ARGS...: cp8M --debug ARGS succeeds, and its one offload line
# is WANT.
why () {
  _w=$1
  shift
  rm -f d
  expect 0 "" cp8M --debug "$@"
  [ "$(grep -c '^offload: ' "$work/.out")" -eq 1 ] ||
    fail "cp8M --debug $*: not one offload line: $(cat "$work/.out")"
  _got=$(grep '^offload: ' "$work/.out")
  [ "$_got" = "$_w" ] || fail "cp8M --debug $*: '$_got', want '$_w'"
}

# --- why offload was not used --------------------------------------------
why "offload: no (--reflink=never, cp8M's default)" f d
why "offload: no (--reflink=never)" --reflink=never f d
why "offload: no (--sparse=never: every hole is written)" \
  --reflink=auto --sparse=never f d
why "offload: no (--checksum-file: the data is hashed as it is read)" \
  --reflink=auto --checksum-file=sums f d
# --sparse=always: FICLONE is tried (and refused on ext4), not
# copy_file_range.
rm -f d
cp8M --reflink=always f d 2>/dev/null && cloned=yes || cloned=no
if [ $cloned = no ]; then
  why "offload: no (FICLONE refused; not tried: all-zero blocks are made holes (--sparse=always), which copy_file_range would copy)" \
    --reflink=auto --sparse=always f d
  cmp f d || fail "--sparse=always: copy differs"
fi

# Across filesystems copy_file_range refuses (EXDEV on Linux 5.19 and
# later, EXDEV or EINVAL before): the line says so, with the errno.
if [ "$(id -u)" -eq 0 ] && [ "$(stat -f -c %T .)" != tmpfs ] &&
   mount_tmpfs 32 tmp; then
  rm -f "$mp/d"
  expect 0 "" cp8M --debug --reflink=auto f "$mp/d"
  cmp f "$mp/d" || fail "to tmpfs: copy differs"
  grep -Eq "^offload: no \\(FICLONE refused; copy_file_range refused: (Invalid cross-device link|Invalid argument)\\)$" \
    "$work/.out" || fail "to tmpfs: $(cat "$work/.out")"
  grep -q '^then from byte 0: ' "$work/.out" ||
    fail "to tmpfs: no plan for the rest: $(cat "$work/.out")"
  # The plan's reason stays its own: the refusal is the offload's.
  ! grep -Eq '^(direct I/O|then from byte 0): .*: (Invalid|[A-Z]*$)' "$work/.out" ||
    fail "to tmpfs: the errno leaked into the plan: $(cat "$work/.out")"
  note "to tmpfs: $(grep '^offload: ' "$work/.out")"
else
  note "no tmpfs mount here: the cross-device case is not checked"
fi

# Where copy_file_range works, it says so; refused part way (strace
# injects EXDEV into the second call), "partly", with the bytes moved.
rm -f d
expect 0 "" cp8M --debug --reflink=auto f d
if grep -q '^offload: yes (FICLONE refused; copy_file_range)$' "$work/.out" &&
   command -v strace >/dev/null; then
  # Two data extents: one call each, the second refused.
  truncate -s $((6*M)) g
  dd if=/dev/urandom of=g bs=1M count=1 conv=notrunc status=none
  dd if=/dev/urandom of=g bs=1M seek=4 count=1 conv=notrunc status=none
  rm -f d
  trace -o /dev/null -e inject=copy_file_range:error=EXDEV:when=2 \
    cp8M --debug --reflink=auto g d >"$work/.out" ||
    fail "refused part way"
  cmp g d || fail "refused part way: copy differs"
  grep -q "^offload: partly (FICLONE refused; copy_file_range moved $M bytes, then copy_file_range refused: Invalid cross-device link)$" \
    "$work/.out" || fail "refused part way: $(cat "$work/.out")"
else
  note "--reflink=auto here: $(grep '^offload: ' "$work/.out")"
fi

# --- no data: what really happens ----------------------------------------
# A file of holes only: no read, no write, no direct I/O; the copy gets
# the size and no blocks.
for opts in "" "--reflink=auto" "--direct=always"; do
  rm -f d
  expect 0 "" cp8M --debug $opts holes d
  cmp holes d && [ "$(stat -c %b d)" -eq 0 ] || fail "$opts: holes copied badly"
  ! grep -q 'of 0 bytes' "$work/.out" ||
    fail "$opts: 0 bytes read and written: $(cat "$work/.out")"
  for want in "direct I/O: no (no data: the source is all holes)" \
      "  I/O: none: the destination is only given the source's size" \
      "time: no data (a 64.0 MiB file, all holes) in "; do
    grep -q "^$want" "$work/.out" ||
      fail "$opts: no '$want' in: $(cat "$work/.out")"
  done
  [ "$opts" != --reflink=auto ] || [ $cloned = yes ] ||
    grep -q "^offload: no (FICLONE refused; not needed: the source is all holes)$" \
      "$work/.out" ||
    fail "--reflink=auto: no reason for the holes: $(cat "$work/.out")"
done
# --sparse=never writes the holes as zeros: that is 64 MiB of writes,
# said as such, and the space reserved first.
rm -f d
expect 0 "" cp8M --debug --sparse=never holes d
cmp holes d && [ "$(stat -c %b d)" -ge $((64*M/512)) ] ||
  fail "--sparse=never: holes not written"
grep -q '^  I/O: 8 MiB pieces, ' "$work/.out" &&
  grep -q '^  space: reserved for the whole file first' "$work/.out" &&
  grep -q '^time: 64.0 MiB in ' "$work/.out" ||
  fail "--sparse=never of holes: $(cat "$work/.out")"
# An empty file: one read meets the end at once.
expect 0 "" cp8M --debug empty d
cmp empty d || fail "empty file"
grep -q '^  I/O: one read, which met the end of file: no data$' "$work/.out" &&
  grep -q '^time: 0 bytes in ' "$work/.out" ||
  fail "empty file: $(cat "$work/.out")"
# Data only at the end: the data is what is said.
rm -f d
expect 0 "" cp8M --debug atend d
cmp atend d || fail "data at the end: copy differs"
grep -q '^time: 4.0 KiB of data (a 16.0 MiB file with holes) in ' "$work/.out" ||
  fail "data at the end: $(cat "$work/.out")"

# --- one time line per file copied --------------------------------------
mkdir -p src/sub
cp f src/a && cp holes src/b && : >src/sub/c && ln -s a src/l
rm -rf dst
expect 0 "" cp8M --debug -r src dst
diff -r src dst || fail "-r: trees differ"
[ "$(grep -c '^time: ' "$work/.out")" -eq 3 ] ||
  fail "-r: not 3 time lines for 3 files: $(cat "$work/.out")"
# Each regular file's block (from its -v line to the next) has one, the
# last of its lines; the other nodes' have none.
awk '/ -> / { check(); name = $0; data = 0; timed = 0; last = ""; next }
     /^copy offload: / { data = 1 }
     /^time: / { timed++ }
     { last = $0 }
     function check () {
       if (name != "" && (data ? timed != 1 || last !~ /^time: / : timed))
         print name
     }
     END { check() }' "$work/.out" >untimed
[ ! -s untimed ] || fail "-r: wrong time lines for: $(cat untimed) in $(cat "$work/.out")"
grep -Eq '^time: 2\.0 MiB in [0-9.]+ m?s, [0-9.]+ [KMGT]iB/s$' "$work/.out" ||
  fail "-r: the time line of 'a': $(grep '^time' "$work/.out")"
exit 0
