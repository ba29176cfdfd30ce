#!/bin/sh
# --stats=json through tests/faultshim.so: a source that changes while it
# is copied counts as "changed", and a direct write the kernel refuses as
# a copy that "fell_back", with its reason.  The shim needs a dynamically
# linked cp8M: against a static one (make static-check) the test is
# skipped (77).
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
need_shim
. "$abs_top_srcdir/tests/stats-lib.sh"
pre=$(shim_preload cp8M)

random_file ch $((2*M))
random_file extra 5000
env FAULTSHIM_SRC="$work/ch" FAULTSHIM_APPEND="$work/extra" \
  LD_PRELOAD="$pre" cp8M --stats=json ch ch.copy 2>"$work/.err"
status=$?
tail -n 1 "$work/.err" >"$work/.json"
[ $status -eq 0 ] || fail "a changing source: exit $status"
check "a changing source" 'j["changed"] == 1' 'j["files"] == 1' \
  "j['bytes'] == $((2*M + 5000))"

random_file fb $((4*M))
cp8M --debug --direct=always --buffer-size=1M fb probe >"$work/.dbg" 2>&1 ||
  fail "--direct=always: $(cat "$work/.dbg")"
grep -q '^direct I/O: yes' "$work/.dbg" ||
  skip "no direct I/O here: a refused direct write cannot be told apart"
env FAULTSHIM_DIRECT_WRITE_EINVAL=$M LD_PRELOAD="$pre" \
  cp8M --stats=json --direct=always --buffer-size=1M fb fb.copy \
  2>"$work/.err"
status=$?
tail -n 1 "$work/.err" >"$work/.json"
[ $status -eq 0 ] || fail "a refused direct write: exit $status"
cmp -s fb fb.copy || fail "a refused direct write: a wrong copy"
check "a refused direct write" 'j["fell_back"] == 1' \
  'j["fell_back_why"] == {"direct I/O refused on write (Invalid argument)": 1}'
exit 0
