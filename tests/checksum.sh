#!/bin/sh
# --checksum-file and --checksum (issue 41): one line per regular file
# copied, hashed as it was read, in the format sha256sum -c and xxhsum -c
# check from the checksum file's directory.  The check passes on the
# copied tree and fails once one byte of one copy is changed; names that
# need escaping are escaped as sha256sum escapes them; hard links kept as
# links are listed under each name; a failed file is not listed; a file
# that cannot be written, or one inside the tree being copied, stops the
# run before any copy.  Direct copies with several pieces in flight hash
# in order (--debug says so), and one whose direct writes are refused
# part way still gets the right hash.
. "${abs_top_srcdir:-.}/tests/init.sh"

command -v sha256sum >/dev/null || skip "sha256sum is missing"
M=1048576
mkdir -p src/d dst
head -c $((40 * M)) /dev/urandom >src/big
echo small >src/small
truncate -s $((24 * M)) src/sparse
dd if=src/big of=src/sparse bs=1M count=3 seek=9 conv=notrunc status=none
printf x >"src/d/new
line"
printf y >'src/d/back\slash'
ln src/big src/d/big-link
: >src/empty

# 1. A tree: every file listed, the check passes; one byte changed, it
#    fails.
cp8M -a --checksum-file=dst/SUMS src dst/ || fail "the copy failed"
(cd dst && sha256sum --quiet -c SUMS) || fail "sha256sum -c failed: $(cat dst/SUMS)"
[ "$(wc -l <dst/SUMS)" -eq 7 ] || fail "not 7 lines: $(cat dst/SUMS)"
grep -q '^\\[0-9a-f]\{64\}  src/d/new\\nline$' dst/SUMS &&
  grep -q '^\\[0-9a-f]\{64\}  src/d/back\\\\slash$' dst/SUMS ||
  fail "names not escaped as sha256sum escapes them: $(cat dst/SUMS)"
[ "$(grep -c "^$(sha256sum <src/big | cut -c1-64)  " dst/SUMS)" -eq 2 ] ||
  fail "the hard link is not listed with its file's hash: $(cat dst/SUMS)"
printf Z | dd of=dst/src/sparse bs=1 seek=$((10 * M)) conv=notrunc status=none
(cd dst && sha256sum --quiet -c SUMS) 2>/dev/null &&
  fail "sha256sum -c passed after a byte of a copy changed"

# 2. A direct copy of several pieces in flight, cold: hashed in order;
#    one whose second direct write is refused (then buffered): right too.
evict () { dd if="$1" iflag=nocache count=0 status=none 2>/dev/null; }
mkdir d2
evict src/big
cp8M --debug --direct=always --checksum-file=d2/S src/big d2/ >out ||
  fail "the direct copy failed"
grep -q '^checksum: sha256, of the data as it was read$' out ||
  fail "not hashed in order: $(grep -E 'checksum|direct' out)"
(cd d2 && sha256sum --quiet -c S) || fail "the direct copy's hash is wrong"
if command -v strace >/dev/null; then
  mkdir d3
  evict src/big
  trace -f -o /dev/null -e trace=pwrite64 -e inject=pwrite64:error=EINVAL:when=2 \
    cp8M --direct=always --checksum-file=d3/S src/big d3/ ||
    fail "the refused copy failed"
  (cd d3 && sha256sum --quiet -c S) || fail "the refused copy's hash is wrong"
fi

# 2b. The order lost, and the destination not readable back (an existing
#     file of mode 0200, written by a user who is not root): the copy is
#     kept, the line is missing, and the status says so.  The refused
#     write is held for a second so that pieces after it are written
#     first: without that a slow build (ASan) may refuse a piece before
#     any later one was taken, and the order is never lost.
if command -v strace >/dev/null && [ "$(id -u)" -eq 0 ]; then
  chmod 755 "$work"
  chmod 644 src/big
  mkdir -m 777 d3b
  echo old >d3b/big
  chown nobody d3b/big
  chmod 0200 d3b/big
  evict src/big
  expect 1 "$CP8M: cannot compute the checksum of 'd3b/big': Permission denied" \
    trace -f -o /dev/null -u nobody -e trace=pwrite64 \
    -e inject=pwrite64:error=EINVAL:delay_enter=1s:when=3 \
    "$CP8M" --direct=always --buffer-size=64K --queue-depth=16 \
    --checksum-file=d3b/S src/big d3b/
  [ ! -s d3b/S ] || fail "a line for a file that could not be hashed: $(cat d3b/S)"
  chmod 0600 d3b/big
  cmp src/big d3b/big || fail "the copy that could not be hashed differs"
fi

# 3. xxh3, checked by xxhsum where it is installed.
mkdir d4
if cp8M --checksum=xxh3 --checksum-file=d4/X src/big src/small src/sparse d4/ 2>err; then
  grep -q '^XXH3 (big) = [0-9a-f]\{16\}$' d4/X || fail "xxh3 line: $(cat d4/X)"
  if command -v xxhsum >/dev/null; then
    (cd d4 && xxhsum -q -c X) || fail "xxhsum -c failed: $(cat d4/X)"
  fi
else
  grep -q 'built without libxxhash' err || fail "xxh3: $(cat err)"
fi

# 4. A failed file is not listed; the others are.
mkdir d5
cp8M --checksum-file=d5/S src/small nope src/big d5/ 2>/dev/null &&
  fail "a missing source did not fail the run"
[ "$(cut -c67- d5/S)" = "small
big" ] || fail "after a failure: $(cat d5/S)"

# 5. Refused before any copy: a file that cannot be written, one inside a
#    tree being copied; --checksum alone; --reflink=always.
expect 1 "cp8M: cannot create checksum file 'nodir/S': No such file or directory" \
  cp8M --checksum-file=nodir/S src/small d6
[ ! -e d6 ] || fail "copied although the checksum file could not be written"
expect 1 "cp8M: cannot write checksum file 'src/d/S' inside 'src', which is being copied" \
  cp8M -r --checksum-file=src/d/S src d7
[ ! -e d7 ] || fail "copied although the checksum file was in the tree"
expect 1 "cp8M: --checksum needs --checksum-file=FILE
Try 'cp8M --help' for more information." cp8M --checksum=sha256 src/small d8
expect 1 "cp8M: --checksum-file cannot be used with --reflink=always
Try 'cp8M --help' for more information." \
  cp8M --reflink=always --checksum-file=S src/small d9
exit 0
