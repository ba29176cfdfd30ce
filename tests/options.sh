#!/bin/sh
# --help, --version, --buffer-size, -v and --debug.
. "${abs_top_srcdir:-.}/tests/init.sh"

cp8M --help >help || fail "--help failed"
grep -q '^Usage: cp8M \[OPTION\]\.\.\. \[-T\] SOURCE DEST$' help ||
  fail "--help has no GNU-style Usage line"
for opt in --buffer-size= --debug --target-directory= --no-target-directory \
           --verbose --help --version; do
  grep -q -e "$opt" help || fail "--help does not document $opt"
done
cp8M --help >/dev/full 2>err && fail "--help >/dev/full succeeded"
grep -q 'write error' err || fail "--help >/dev/full: no write error"

cp8M --version >version || fail "--version failed"
head -n 1 version | grep -Eq '^cp8M \(cp8M\) [0-9]+\.[0-9]+' ||
  fail "--version: bad first line: $(head -n 1 version)"
grep -q 'GPLv3+' version || fail "--version does not state the license"

# Invalid buffer sizes.
echo data >a
for bad in x 0 -1 8Q 8M3 2G 1T '' M; do
  expect 1 "cp8M: invalid buffer size '$bad'
A size is a whole number of bytes, optionally followed by K, M, G, T, P or E (powers of 1024, also written KiB, MiB...) or KB, MB, GB, TB, PB or EB (powers of 1000); from 1 byte to 1 GiB.
Try 'cp8M --help' for more information." cp8M --buffer-size="$bad" a b
done
[ ! -e b ] || fail "a copy was made despite an invalid buffer size"
expect 1 "cp8M: invalid queue depth '0' (1 to 64)
Try 'cp8M --help' for more information." cp8M --queue-depth=0 a b

# Invalid bandwidth limits: not a size, negative, above 2^63.
for bad in x -1 '' M 1Q 9223372036854775809 9E 1Z; do
  expect 1 "cp8M: invalid bandwidth limit '$bad'
A rate is a whole number of bytes a second, optionally followed by K, M, G, T, P or E (powers of 1024, also written KiB, MiB...) or KB, MB, GB, TB, PB or EB (powers of 1000); at most 2^63, and 0 for no limit.
Try 'cp8M --help' for more information." cp8M --bwlimit="$bad" a b
done
[ ! -e b ] || fail "a copy was made despite an invalid bandwidth limit"
# 2^63 and 0 (no limit) are limits.
for good in 9223372036854775808 0 8E; do
  cp8M --bwlimit=$good a b && cmp a b || fail "--bwlimit=$good refused"
  rm -f b
done

# Valid sizes and their rounding, as --debug reports them: ARG:SHOWN,
# or ARG:SHOWN:ASKED where the size asked for, unrounded, is not SHOWN.
for pair in "8M:8 MiB" "8MiB:8 MiB" "1:4 KiB:1 bytes" "4096:4 KiB" \
            "3KiB:4 KiB:3 KiB" "8MB:7816 KiB:8000000 bytes" "1G:1 GiB" \
            "512k:512 KiB" "1024M:1 GiB"; do
  arg=${pair%%:*} shown=${pair#*:} asked=${shown#*:} shown=${shown%%:*}
  rm -f b
  expect 0 "" cp8M --debug --buffer-size="$arg" a b
  # The memory budget's line comes once, after the first file's GNU
  # line.  Its figures are the machine's: a quarter of the memory free
  # here (or in the cgroup) may be less than the buffers asked for (4 x 1
  # GiB already needs 16 GiB free), and then they are capped and the line
  # says what was asked (as given).  Either way the file is copied with
  # the size granted.
  budget=$(sed -n 3p "$work/.out")
  case $budget in
    "memory budget: "*"; buffers: up to "[0-9]*" x $shown") granted=$shown ;;
    "memory budget: "*"; buffers: up to "[0-9]*" x "*" ("[0-9]*" x $asked asked for, capped by the budget)")
      granted=${budget##*; buffers: up to } granted=${granted#* x }
      granted=${granted%% (*} ;;
    *) fail "--debug --buffer-size=$arg: no memory budget line for $shown buffers: $(cat "$work/.out")" ;;
  esac
  printf "%s\n" "'a' -> 'b'" \
    "copy offload: avoided, reflink: no, sparse detection: no" \
    "offload: no (--reflink=never, cp8M's default)" \
    "direct I/O: no (smaller than one buffer)" \
    "plan: buffered (smaller than one buffer)" \
    "  I/O: one read and one write of 5 bytes (less than one $granted buffer)" \
    "  holes: none looked for (the source is allocated in full)" \
    "  space: not reserved (one write sets the size and reports a full disk by itself)" \
    "  cache: used as any program uses it" \
    "destination: new file, unnamed until complete (O_TMPFILE)" \
    >want
  # The time is the moment's: its line is checked for its shape.
  sed '3d; /^time: /d' "$work/.out" >got
  grep -Eq '^time: 5 bytes in [0-9.]+ m?s(, [0-9.]+ ([KMGTP]iB|bytes)/s)?$' \
    "$work/.out" || fail "--debug --buffer-size=$arg: no time line"
  cmp -s want got || {
    diff want got >&2
    fail "--debug --buffer-size=$arg"
  }
  cmp a b || fail "copy with --buffer-size=$arg differs"
done

# --debug prints GNU's line and cp8M's per file, after -v's line.
echo x >c
mkdir d
expect 0 "" cp8M --debug a c d
[ "$(grep -c '^copy offload: ' "$work/.out")" -eq 2 ] ||
  fail "--debug did not print one line per file"
[ "$(grep -c ' -> ' "$work/.out")" -eq 2 ] || fail "--debug does not imply -v"
[ "$(grep -c '^memory budget: ' "$work/.out")" -eq 1 ] ||
  fail "--debug printed the memory budget other than once"
expect 0 "" cp8M --debug --buffer-size=2M a d
grep -qx "  I/O: one read and one write of 5 bytes (less than one 2 MiB buffer)" "$work/.out" ||
  fail "--debug line for --buffer-size=2M"

# -v matches GNU cp's format exactly.
expect 0 "" cp8M -v a c d
printf "%s\n" "'a' -> 'd/a'" "'c' -> 'd/c'" >want
cmp -s want "$work/.out" || fail "-v output: $(cat "$work/.out")"
exit 0
