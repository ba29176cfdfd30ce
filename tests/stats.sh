#!/bin/sh
# --stats[=text|json]: at the end, on standard error only, what was
# copied and how.  The JSON line must parse (python3 -m json.tool) and
# its numbers must match a tree of known contents: files, directories,
# symbolic links, specials, hard links, data bytes, hole bytes; errors
# and exit 1 with the line still printed when a copy fails; direct and
# buffered counts with --direct=always/never.  -v's standard output is
# the same with and without --stats.  (tests/stats-shim.sh: a source
# that changes while it is copied, a direct write the kernel refuses.)
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/stats-lib.sh"

# ---- a tree of known contents, copied with -a ----

mkdir -p src/sub/deep || exit 99
random_file src/a 100000
printf x >src/b
: >src/empty
random_file src/sub/c 5000
random_file src/sub/deep/d 70000
random_file src/h1 3000
ln src/h1 src/sub/h2 || exit 99
truncate -s $((10*M)) src/sp || exit 99
dd if=/dev/urandom of=src/sp bs=1M seek=4 count=1 conv=notrunc status=none ||
  exit 99
ln -s a src/l1 && ln -s ../nowhere src/sub/l2 || exit 99
mkfifo src/fifo || exit 99
holes=yes
[ "$(stat -c %b src/sp)" -lt $((10*M/512)) ] || holes=no

json -a src t
[ $status -eq 0 ] || fail "cp8M -a: exit $status: $(cat "$work/.err")"
[ "$(wc -l <"$work/.err")" -eq 1 ] ||
  fail "cp8M -a: more than the JSON line on stderr: $(cat "$work/.err")"
[ -s "$work/.out" ] && fail "cp8M -a: --stats wrote to stdout"
data=$((100000 + 1 + 5000 + 70000 + 3000 + M))
check "the tree" 'j["files"] == 7' 'j["directories"] == 3' \
  'j["symlinks"] == 2' 'j["specials"] == 1' 'j["hard_links"] == 1' \
  'j["errors"] == 0' 'j["changed"] == 0' 'j["buffer_bytes"] > 0' \
  "j['bytes'] == $data" \
  'j["buffered_why"].get("empty file") == 1' \
  'j["direct"] + j["buffered"] + j["fell_back"] == 7'
if [ $holes = yes ]; then
  check "the sparse file's hole" "j['hole_bytes'] == $((9*M))"
else
  note "this filesystem keeps no holes: hole_bytes not checked"
fi
rm -rf t

# Zero blocks left as holes (--sparse=always) are holes, not data.
{ head -c $M /dev/zero; head -c 4096 /dev/urandom; } >z
json --sparse=always z z.copy
[ $status -eq 0 ] || fail "--sparse=always: exit $status"
if [ $holes = yes ]; then
  check "--sparse=always" 'j["bytes"] == 4096' "j['hole_bytes'] == $M"
fi

# ---- a warning is not an error (exit 0) ----

mkdir w || exit 99
json src/a src/a w
[ $status -eq 0 ] || fail "a source given twice: exit $status"
grep -q "^cp8M: warning: source file 'src/a' specified more than once" \
  "$work/.err" || fail "a source given twice: no warning: $(cat "$work/.err")"
check "a source given twice" 'j["files"] == 1' 'j["errors"] == 0'

# ---- failures: counted as errors, not as copies; the line still comes ----

mkdir m || exit 99
json src/a no-such-file m
[ $status -eq 1 ] || fail "a missing source: exit $status"
grep -q "^cp8M: cannot stat 'no-such-file'" "$work/.err" ||
  fail "a missing source: no message: $(cat "$work/.err")"
check "a missing source" 'j["files"] == 1' 'j["errors"] == 1' \
  'j["bytes"] == 100000'

mkdir -p e/a || exit 99
json -R src/a src/sub e
[ $status -eq 1 ] || fail "a directory in the way: exit $status"
check "a directory in the way" 'j["files"] == 3' 'j["errors"] == 1' \
  'j["directories"] == 2' 'j["hard_links"] == 0' \
  'j["bytes"] == 5000 + 70000 + 3000'

# A regular file that cannot be read (as nobody): its copy fails part
# way (in regular.c, after its destination was looked at).
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  chmod 755 "$work"
  mkdir nb nbsrc nbdst && cp "$CP8M" nb/cp8M || exit 99
  random_file nbsrc/ok 1000
  random_file nbsrc/unreadable 2000
  chmod 644 nbsrc/ok && chmod 000 nbsrc/unreadable && chown nobody nbdst ||
    exit 99
  as_nobody env PATH="$work/nb:$PATH" cp8M --stats=json -R nbsrc nbdst \
    >"$work/.out" 2>"$work/.err"
  status=$?
  tail -n 1 "$work/.err" >"$work/.json"
  [ $status -eq 1 ] || fail "an unreadable source: exit $status"
  grep -q "cannot open 'nbsrc/unreadable' for reading" "$work/.err" ||
    fail "an unreadable source: no message: $(cat "$work/.err")"
  check "an unreadable source" 'j["files"] == 1' 'j["errors"] == 1' \
    'j["bytes"] == 1000' 'j["directories"] == 1'
fi

# ---- links made instead of copies: -s and -l ----

mkdir ls ll || exit 99
json -s "$work/src/a" "$work/src/b" ls
check "-s" 'j["symlinks"] == 2' 'j["files"] == 0' 'j["bytes"] == 0'
json -l src/a src/b ll
check "-l" 'j["hard_links"] == 2' 'j["files"] == 0' 'j["bytes"] == 0'

# ---- direct and buffered ----

random_file big $((8*M + 5000))
cp8M --debug --direct=always big probe >"$work/.dbg" 2>&1 ||
  fail "--direct=always: $(cat "$work/.dbg")"
if grep -q '^direct I/O: yes' "$work/.dbg"; then
  json --direct=always --buffer-size=1M --queue-depth=2 big big.1
  check "--direct=always" 'j["direct"] == 1' 'j["buffered"] == 0' \
    'j["fell_back"] == 0' "j['bytes'] == $((8*M + 5000))" \
    "j['buffer_bytes'] == $((2*M))"
else
  note "no direct I/O here: --direct=always not checked"
fi
json --direct=never big big.2
check "--direct=never" 'j["direct"] == 0' 'j["buffered"] == 1' \
  'j["buffered_why"] == {"--direct=never": 1}'
cmp -s big big.2 || fail "--direct=never: a wrong copy"

# ---- text, and standard output untouched ----

cp8M -av src t1 >out1 2>err1 || fail "cp8M -av: $(cat err1)"
cp8M -av --stats src t2 >out2 2>err2 || fail "cp8M -av --stats: $(cat err2)"
cp8M -av --stats=json src t3 >out3 2>err3 ||
  fail "cp8M -av --stats=json: $(cat err3)"
[ -s err1 ] && fail "cp8M -av: stderr: $(cat err1)"
sed 's/t2/t1/g' out2 | cmp -s out1 - || fail "--stats changed -v's stdout"
sed 's/t3/t1/g' out3 | cmp -s out1 - || fail "--stats=json changed -v's stdout"
grep -q '^cp8M statistics:$' err2 && grep -q '^  copied  *7 files, 3 directories' err2 &&
  grep -q '^  errors  *0$' err2 || fail "--stats: unexpected text: $(cat err2)"
exit 0
