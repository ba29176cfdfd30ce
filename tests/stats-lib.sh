# Sourced after init.sh by tests/stats.sh and tests/stats-shim.sh: runs
# of cp8M --stats=json and checks of the JSON line they end with.

command -v python3 >/dev/null || skip "python3 is missing"

M=1048576

# json ARGS...: run cp8M --stats=json ARGS; its standard error's last
# line must be one JSON object that python3 -m json.tool accepts, and
# it is left in $work/.json (the exit status in $status).
json () {
  cp8M --stats=json "$@" >"$work/.out" 2>"$work/.err"
  status=$?
  tail -n 1 "$work/.err" >"$work/.json"
  python3 -m json.tool "$work/.json" >/dev/null ||
    fail "cp8M --stats=json $*: not JSON: $(cat "$work/.err")"
}

# check WHAT EXPR...: each python EXPR, with the last JSON object as j,
# must be true.
check () {
  _what=$1
  shift
  python3 - "$work/.json" "$@" <<'EOF' || fail "$_what: $(cat "$work/.json")"
import json, sys
line = open(sys.argv[1]).read()
assert line.count("\n") == 1, "not exactly one line"
j = json.loads(line)
assert list(j)[:2] == ["schema", "version"], "schema and version not first"
assert j["schema"] == "cp8M-stats" and j["version"] == 1
for k, v in j.items():
    if k in ("elapsed_seconds", "mib_per_second"):
        assert isinstance(v, (int, float)) and v >= 0, k
    elif isinstance(v, dict):
        assert all(isinstance(n, int) and n > 0 for n in v.values()), k
    elif k != "schema":
        assert isinstance(v, int) and v >= 0, k
# Every file copied as data went one way, and each table adds up.
assert (j["direct"] + j["buffered"] + j["fell_back"] + j["reflinked"]
        + j["offloaded"]) <= j["files"], "more ways than files"
assert sum(j["buffered_why"].values()) == j["buffered"], "buffered_why"
assert sum(j["fell_back_why"].values()) == j["fell_back"], "fell_back_why"
for e in sys.argv[2:]:
    if not eval(e):
        sys.exit("false: " + e)
EOF
}
