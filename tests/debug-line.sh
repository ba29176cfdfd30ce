#!/bin/sh
# --debug's first line per file, in GNU cp 9.11's words, and true: each
# case also checks what the copy did (holes, the calls strace sees).
# 9.11's model: the words start as "unknown" (reflink "no" when
# --reflink=never, cp8M's default); FICLONE is tried for every file
# copied as data when reflinks are allowed; a file allocated less than
# its size is scanned with SEEK_DATA ("SEEK_HOLE"), any other read whole
# ("no"), and --sparse=always into a regular file adds zero detection
# ("zeros"); copy_file_range runs per data extent (or once for the whole
# file) when reflinks are allowed and zeros are not looked for, else the
# loop says "avoided"; a file with no data never runs the loop.  The line
# is printed whenever the source was opened, after any error.  Clones on
# xfs and btrfs: tests/debug-mounts.sh.
. "${abs_top_srcdir:-.}/tests/init.sh"

command -v strace >/dev/null || skip "strace is missing (./install-deps)"

M=1048576
random_file f 100000
truncate -s $((10*M)) sp
dd if=/dev/urandom of=sp bs=1M seek=3 count=1 conv=notrunc status=none
dd if=/dev/urandom of=sp bs=1M seek=7 count=1 conv=notrunc status=none
truncate -s $M nodata
: >empty
{ head -c 65536 /dev/urandom; head -c 65536 /dev/zero
  head -c 1000 /dev/urandom; head -c 20000 /dev/zero; } >z
[ "$(stat -c %b sp)" -lt $((10*M/512)) ] && [ "$(stat -c %b nodata)" -eq 0 ] ||
  skip "this filesystem keeps no holes"

# line: the GNU line of the last run (there must be exactly one).
line () {
  [ "$(grep -c '^copy offload: ' "$work/.out")" -eq 1 ] ||
    fail "not one GNU line in: $(cat "$work/.out")"
  grep '^copy offload: ' "$work/.out"
}

# want TEXT WHAT: the last run's GNU line must be TEXT.
want () {
  _got=$(line)
  [ "$_got" = "$1" ] || fail "$2: '$_got', want '$1'"
}

# check WANT ARGS...: cp8M --debug ARGS succeeds, says nothing on
# standard error, and its second line (after -v's) is WANT.
check () {
  _w=$1
  shift
  rm -f d
  expect 0 "" cp8M --debug "$@"
  [ "$(sed -n 2p "$work/.out")" = "$_w" ] ||
    fail "cp8M --debug $*: second line '$(sed -n 2p "$work/.out")', want '$_w'"
}

# traced LOG: the offload and reflink words that GNU's state machine gives
# for the FICLONE and copy_file_range results in the strace LOG: FICLONE
# 0 is "yes" (and no data copy: "unknown" offload), any error
# "unsupported"; each copy_file_range that moved data makes "yes", one
# that failed "unsupported", one that said 0 changes nothing.
traced () {
  awk '/FICLONE/ { r = ($0 ~ /\) = 0$/) ? "yes" : "unsupported" }
       /^copy_file_range\(/ { sub(/.*\) = /, "")
                              if ($1 == "-1") o = "unsupported"
                              else if ($1 + 0 > 0) o = "yes" }
       END { if (o == "") o = "unknown"; if (r == "") r = "unknown"
             print "copy offload: " o ", reflink: " r }' "$1"
}

# auto SPARSE ARGS...: cp8M --debug --reflink=auto ARGS under strace; its
# line must be what the kernel's answers make of it (a clone: no data
# copy, "sparse detection: unknown").
auto () {
  _s=$1
  shift
  rm -f d
  trace -o log -e trace=ioctl,copy_file_range \
    cp8M --debug --reflink=auto "$@" >"$work/.out" 2>"$work/.err" ||
    fail "--reflink=auto $*: $(cat "$work/.err")"
  grep -q FICLONE log || fail "--reflink=auto $*: no FICLONE"
  _t=$(traced log)
  case $_t in *"reflink: yes") _s=unknown ;; esac
  want "$_t, sparse detection: $_s" "--reflink=auto $*"
}

# --- cp8M's default, --reflink=never -----------------------------------
check "copy offload: avoided, reflink: no, sparse detection: no" f d
cmp f d || fail "copy differs"
check "copy offload: avoided, reflink: no, sparse detection: SEEK_HOLE" sp d
cmp sp d && [ "$(holemap sp)" = "$(holemap d)" ] || fail "sparse copy differs"
check "copy offload: avoided, reflink: no, sparse detection: no" empty d
check "copy offload: avoided, reflink: no, sparse detection: no" /proc/self/status d
# No data at all: the copy loop never runs.
check "copy offload: unknown, reflink: no, sparse detection: SEEK_HOLE" nodata d
cmp nodata d && [ "$(stat -c %b d)" -eq 0 ] || fail "copy of a file without data"

# --sparse=always: zero detection, on top of SEEK_DATA for a sparse file.
# The zero blocks become holes as GNU cp makes them.
"$GNU_CP" --sparse=always z gnu-z
check "copy offload: avoided, reflink: no, sparse detection: zeros" --sparse=always z d
cmp z d && [ "$(holemap d)" = "$(holemap gnu-z)" ] ||
  fail "--sparse=always: $(holemap d) / GNU: $(holemap gnu-z)"
check "copy offload: avoided, reflink: no, sparse detection: SEEK_HOLE + zeros" \
  --sparse=always sp d
cmp sp d && [ "$(holemap sp)" = "$(holemap d)" ] || fail "--sparse=always sp differs"
# From a pipe too, however the data arrives: the same holes.
cat z | cp8M --debug --sparse=always /dev/stdin d >"$work/.out" ||
  fail "--sparse=always from a pipe"
want "copy offload: avoided, reflink: no, sparse detection: zeros" \
  "--sparse=always from a pipe"
cmp z d && [ "$(holemap d)" = "$(holemap gnu-z)" ] ||
  fail "--sparse=always from a pipe: $(holemap d) / GNU from the file: $(holemap gnu-z)"

# --sparse=never: SEEK_DATA still finds the data ("SEEK_HOLE"), only the
# data is read, and the holes are written as zeros.
rm -f d
trace -o log -e trace=pread64,preadv2 cp8M --debug --sparse=never sp d >"$work/.out" ||
  fail "--sparse=never failed"
want "copy offload: avoided, reflink: no, sparse detection: SEEK_HOLE" "--sparse=never"
cmp sp d && [ "$(stat -c %b d)" -ge $((10*M/512)) ] || fail "--sparse=never: holes kept"
read_bytes=$(awk '/^pread|^preadv2/ && !/, 784, 64\)/ { sub(/.*\) = /, ""); n += $1 } END { print n + 0 }' log)
[ "$read_bytes" -eq $((2*M)) ] || fail "--sparse=never read $read_bytes bytes, not the 2 MiB of data"
# ... and --reflink=auto with it is --reflink=never, as in GNU cp.
rm -f d
trace -o log -e trace=ioctl,copy_file_range \
  cp8M --debug --reflink=auto --sparse=never sp d >"$work/.out" ||
  fail "--reflink=auto --sparse=never failed"
want "copy offload: avoided, reflink: no, sparse detection: SEEK_HOLE" \
  "--reflink=auto --sparse=never"
! grep -Eq 'FICLONE|copy_file_range' log ||
  fail "--reflink=auto --sparse=never cloned or offloaded: $(cat log)"

# --- --reflink=auto: as the kernel answers ------------------------------
auto no f d
cmp f d || fail "--reflink=auto copy differs"
note "--reflink=auto here: $(line)"
mv log clone-log   # how FICLONE answers for files here
auto SEEK_HOLE sp d
cmp sp d && [ "$(holemap sp)" = "$(holemap d)" ] || fail "--reflink=auto sparse copy differs"
# One copy_file_range per data extent, at its offset: the holes are not
# copied.
if grep -q '^copy_file_range(.* = [1-9]' log; then
  holemap sp | awk 'NF == 2 && $1 != "size" { print $1, $2 - $1 }' >want-calls
  sed -n 's/^copy_file_range([0-9]*, \[\([0-9]*\)\], [0-9]*, \[[0-9]*\], \([0-9]*\), 0) = .*/\1 \2/p' \
    log >got-calls
  cmp -s want-calls got-calls ||
    { diff want-calls got-calls >&2; fail "copy_file_range calls are not one per extent"; }
fi
auto no empty d
grep -q '^copy_file_range(.*) = 0$' log && want "copy offload: unknown, reflink: unsupported, sparse detection: no" "--reflink=auto empty"
auto no /proc/self/status d
note "--reflink=auto /proc/self/status: $(line) ($(grep copy_file_range log | head -n 1))"
auto SEEK_HOLE nodata d
! grep -q copy_file_range log || fail "--reflink=auto: copy_file_range on a file without data"
# --sparse=always: no copy_file_range ("avoided").
rm -f d
trace -o log -e trace=ioctl,copy_file_range \
  cp8M --debug --reflink=auto --sparse=always f d >"$work/.out" || fail "--reflink=auto --sparse=always"
if grep -q 'FICLONE.* = 0$' log; then
  want "copy offload: unknown, reflink: yes, sparse detection: unknown" "--reflink=auto --sparse=always"
else
  want "copy offload: avoided, reflink: unsupported, sparse detection: zeros" \
    "--reflink=auto --sparse=always"
  ! grep -q copy_file_range log || fail "--sparse=always used copy_file_range"
fi
# A pipe read as data: FICLONE and copy_file_range are both tried and
# both refuse, taking nothing.
head -c 300000 /dev/urandom >pdata
rm -f d
cat pdata | trace -o log -e trace=ioctl,copy_file_range \
  cp8M --debug --reflink=auto /dev/stdin d >"$work/.out" || fail "--reflink=auto from a pipe"
cmp pdata d || fail "--reflink=auto from a pipe: copy differs"
want "copy offload: unsupported, reflink: unsupported, sparse detection: no" "--reflink=auto from a pipe"
[ "$(traced log)" = "copy offload: unsupported, reflink: unsupported" ] ||
  fail "--reflink=auto from a pipe: the calls say $(traced log)"

# --- failures: the line comes after the error, with what was reached ----
expect 1 "cp8M: cannot create regular file 'nodir/x': No such file or directory" \
  cp8M --debug f nodir/x
want "copy offload: unknown, reflink: no, sparse detection: unknown" "no destination"
expect 1 "cp8M: cannot create regular file 'nodir/x': No such file or directory" \
  cp8M --debug --reflink=auto f nodir/x
want "copy offload: unknown, reflink: unknown, sparse detection: unknown" \
  "no destination, --reflink=auto"
expect 1 "cp8M: error writing '/dev/full': No space left on device" cp8M --debug f /dev/full
want "copy offload: avoided, reflink: no, sparse detection: no" "write error"
rm -f d
expect 1 "cp8M: failed to clone 'd' from 'f': No space left on device" \
  trace -o /dev/null -e inject=ioctl:error=ENOSPC cp8M --debug --reflink=auto f d
want "copy offload: unknown, reflink: unknown, sparse detection: unknown" "clone: ENOSPC"
[ ! -e d ] || fail "a failed clone left its destination"
if ! grep -q 'FICLONE.* = 0$' clone-log; then
  expect 1 "cp8M: error copying 'f' to 'd': Input/output error" \
    trace -o /dev/null -e inject=copy_file_range:error=EIO cp8M --debug --reflink=auto f d
  want "copy offload: unsupported, reflink: unsupported, sparse detection: no" \
    "copy_file_range: EIO"
  why=$(sed -n 's/.*FICLONE.* = -1 [A-Z]* (\(.*\))$/\1/p' clone-log)
  expect 1 "cp8M: failed to clone 'd' from 'f': $why" cp8M --debug --reflink=always f d
  want "copy offload: unknown, reflink: unsupported, sparse detection: unknown" \
    "--reflink=always"
  # copy_file_range refused part way: the rest is read and written, and
  # the word is the refusal.
  rm -f d
  trace -o /dev/null -e inject=copy_file_range:error=EXDEV:when=2 \
    cp8M --debug --reflink=auto sp d >"$work/.out" || fail "refused part way"
  cmp sp d && [ "$(holemap sp)" = "$(holemap d)" ] || fail "refused part way: copy differs"
  want "copy offload: unsupported, reflink: unsupported, sparse detection: SEEK_HOLE" \
    "refused part way"
fi
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  chmod 755 "$work"
  mkdir nb ro
  cp "$CP8M" nb/cp8M
  chmod 555 ro
  chmod 644 f
  expect 1 "cp8M: cannot create regular file 'ro/x': Permission denied" \
    as_nobody env PATH="$work/nb:$PATH" cp8M --debug f ro/x
  want "copy offload: unknown, reflink: no, sparse detection: unknown" "unwritable directory"
fi

# --- no line where no data is copied ------------------------------------
for opt in --attributes-only -l -s; do
  rm -f d
  expect 0 "" cp8M --debug $opt "$work/f" d
  ! grep -q '^copy offload' "$work/.out" || fail "$opt printed GNU's line"
done

# --- order: -v's line, GNU's, then cp8M's (the budget once) -------------
mkdir dir
expect 0 "" cp8M --debug f z dir
sed '/^  /d; s/^\(memory budget\|offload\|direct I\/O\|plan\|destination\|time\|copy offload\): .*/\1/' "$work/.out" >got
printf '%s\n' "'f' -> 'dir/f'" "copy offload" "memory budget" "offload" \
  "direct I/O" "plan" "destination" "time" "'z' -> 'dir/z'" "copy offload" \
  "offload" "direct I/O" "plan" "destination" "time" >want-order
cmp -s want-order got || { diff want-order got >&2; fail "--debug lines out of order"; }
exit 0
