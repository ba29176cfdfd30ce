#!/bin/sh
# --stats=json and --stats-file (issue 53): each failure names its cause
# by its errno name beside the message, so that a script can tell a full
# disk (ENOSPC) from a permission refused (EACCES) without reading
# English, in whatever language the messages are; and the object on
# stderr is the file's, byte for byte, failures and all.
. "${abs_top_srcdir:-.}/tests/init.sh"
[ "$(id -u)" -eq 0 ] || skip "not root: cannot mount a tmpfs or be nobody"
command -v setpriv >/dev/null || skip "setpriv is missing"
command -v python3 >/dev/null || skip "python3 is missing"
. "$abs_top_srcdir/tests/mounts-lib.sh"

M=1048576

# failures JSON_FILE: each failure as "errno|message", one a line.
failures () {
  python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["failures"]:
    print("%s|%s" % (f["errno"], f["message"]))' "$1"
}

# both NAME ARGS...: cp8M ARGS with --stats=json and --stats-file=NAME.json
# (in reports/, which nobody may write too; stderr in NAME.err); the two
# objects must be the same bytes.
mkdir reports && chmod 777 reports || exit 99
both () {
  _name=$1
  shift
  "$@" --stats=json --stats-file="$work/reports/$_name.json" \
    2>"$work/$_name.err" && fail "$_name: exit 0"
  tail -n 1 "$work/$_name.err" | cmp -s - "reports/$_name.json" ||
    fail "$_name: the objects differ: $(cat "$_name.err" "reports/$_name.json")"
}

# 1. A full disk: ENOSPC.
mount_tmpfs 1 full || fail "cannot mount a tmpfs"
random_file big $((2*M))
both full cp8M big "$mp/big"
failures reports/full.json >full.list
grep -q "^ENOSPC|.*: No space left on device$" full.list ||
  fail "a full disk: $(cat full.list)"
[ "$(wc -l <full.list)" -eq 1 ] || fail "a full disk: $(cat full.list)"

# 2. A source nobody may read, copied as nobody: EACCES beside
#    the message as printed.
chmod 755 "$work"
mkdir nb && cp "$CP8M" nb/cp8M || exit 99
random_file secret 1000
chmod 000 secret && mkdir out && chown nobody out || exit 99
both denied as_nobody env PATH="$work/nb:$PATH" cp8M secret out/secret
failures reports/denied.json >denied.list
grep -q "^EACCES|cannot open 'secret' for reading: Permission denied$" \
  denied.list || fail "an unreadable source: $(cat denied.list)"

# 3. A failure with no system cause: null.
mkdir d
both dir cp8M d out2
failures reports/dir.json >dir.list
[ "$(cat dir.list)" = "None|-r not specified; omitting directory 'd'" ] ||
  fail "a directory without -r: $(cat dir.list)"
exit 0
