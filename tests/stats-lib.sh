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
import json, re, sys
line = open(sys.argv[1]).read()
assert line.count("\n") == 1, "not exactly one line"
j = json.loads(line)
assert list(j)[:2] == ["schema", "version"], "schema and version not first"
assert j["schema"] == "cp8M-stats" and j["version"] == 1
import datetime
def when(v):
    # RFC 3339, in UTC to the millisecond.
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", v), v
    return datetime.datetime.fromisoformat(v)
for k, v in j.items():
    if k in ("elapsed_seconds", "mib_per_second"):
        assert isinstance(v, (int, float)) and v >= 0, k
    elif k in ("buffered_why", "fell_back_why"):
        assert all(isinstance(n, int) and n > 0 for n in v.values()), k
    elif k in ("start", "end"):
        when(v)
    elif k == "state":
        assert v == "finished", k
    elif k == "failures":
        assert isinstance(v, list), k
        for f in v:
            assert list(f) == ["source", "destination", "message", "errno"], f
            assert f["errno"] is None or re.fullmatch("E[A-Z0-9]+", f["errno"]), f
    elif k in ("verify", "sync"):
        assert isinstance(v["asked"], bool), k
        assert all(isinstance(n, int) and n >= 0 for n in v.values()), k
    elif k != "schema":
        assert isinstance(v, int) and not isinstance(v, bool) and v >= 0, k
# The same object as --stats-file writes: everything there, in one order.
assert list(j) == ["schema", "version", "files", "directories", "symlinks",
    "specials", "hard_links", "bytes", "hole_bytes", "direct", "buffered",
    "fell_back", "reflinked", "offloaded", "cached_anyway", "buffered_why",
    "fell_back_why", "bwlimit", "changed", "errors", "start", "end",
    "elapsed_seconds", "mib_per_second", "buffer_bytes", "state",
    "exit_status", "failures", "verify", "sync"], list(j)
assert when(j["start"]) <= when(j["end"]), "start after end"
assert len(j["failures"]) == j["errors"], "failures and errors differ"
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
