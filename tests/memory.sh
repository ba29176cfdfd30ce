#!/bin/sh
# cp8M in a small memory cgroup (a 48-128 MiB container, systemd's
# MemoryMax=): its buffers fit the budget it measures, so it is never
# killed and never makes the cgroup reclaim; copies are identical.  Also
# an address-space limit the budget cannot see (ulimit -v): allocations
# that fail mean fewer buffers, not a failed copy.
. "${abs_top_srcdir:-.}/tests/init.sh"
[ "$(id -u)" -eq 0 ] || skip "not root: cannot make a memory cgroup"

# Find a hierarchy with the memory controller: v2 (a cgroup2 mount whose
# root delegates memory) or v1.
# mount_of TYPE [SUPER-OPTION]: the mount point of the first TYPE mount
# (with SUPER-OPTION among its options).
mount_of () {
  awk -v type="$1" -v opt="${2:-}" '
    { for (i = 7; i <= NF && $i != "-"; i++) continue
      if ($(i + 1) == type && (opt == "" || ("," $(i + 3) ",") ~ ("," opt ",")))
        { print $5; exit } }' /proc/self/mountinfo
}
cg_version= cg_mnt=
v2=$(mount_of cgroup2)
if [ -n "$v2" ] && grep -qw memory "$v2/cgroup.subtree_control" 2>/dev/null; then
  cg_version=2 cg_mnt=$v2
else
  cg_mnt=$(mount_of cgroup memory)
  [ -n "$cg_mnt" ] && cg_version=1
fi
[ -n "$cg_version" ] || skip "no memory cgroup controller"
note "memory cgroup v$cg_version at $cg_mnt"

# Data on the build tree's disk: tmpfs pages would be charged to the
# cgroup and could not be reclaimed.
data=$(mktemp -d "$abs_top_builddir/cp8m-memory.XXXXXX") || exit 99
cg=$cg_mnt/cp8m-test.$$
trap 'cd /; rm -rf "$data" "$work"; rmdir "$cg" 2>/dev/null' EXIT
mkdir "$cg" || fail "cannot create $cg"

# limit MIB: set the cgroup's limit (no swap to hide in).
limit () {
  if [ $cg_version = 2 ]; then
    echo "${1}M" >"$cg/memory.max" || return 1
    [ -e "$cg/memory.swap.max" ] && echo 0 >"$cg/memory.swap.max"
    return 0
  fi
  echo "${1}M" >"$cg/memory.limit_in_bytes"
}

# counters: what says the cgroup hit its limit or killed.
counters () {
  if [ $cg_version = 2 ]; then
    awk '$1 == "oom" || $1 == "oom_kill" || $1 == "max"' "$cg/memory.events" |
      tr '\n' ' '
  else
    echo "failcnt $(cat "$cg/memory.failcnt")" \
         "oom_kill $(awk '$1 == "oom_kill" { print $2 }' "$cg/memory.oom_control")"
  fi
}

# in_cgroup COMMAND...: run COMMAND as a member of the cgroup.
in_cgroup () {
  sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$@"
}

# uncache FILE...: drop FILE's pages, so that cp8M reads it cold (a
# cached source is read from the cache, and its copy's pages would then be
# the cgroup's to reclaim).
uncache () {
  for _f in "$@"; do
    dd if="$_f" iflag=nocache count=0 status=none
  done
}

cd "$data" || exit 99
dd if=/dev/urandom of=big bs=1M count=300 status=none &&
  { head -c 64M /dev/urandom; head -c 511 /dev/urandom; } >odd &&
  mkdir tree && i=0 &&
  while [ $i -lt 20 ]; do
    head -c 20M /dev/urandom >tree/f$i || exit 99
    i=$((i + 1))
  done || fail "cannot make the sources"
sync

for mib in 48 64 128; do
  limit $mib || fail "cannot set a $mib MiB limit"
  for case in big odd tree; do
    rm -rf copy
    case $case in
      big) uncache big; args="big copy" ;;
      odd) uncache odd; args="--direct=always odd copy" ;;
      tree) uncache tree/*; args="-r tree copy" ;;
    esac
    src=$(echo "$args" | awk '{ print $(NF - 1) }')
    before=$(counters)
    in_cgroup cp8M --debug $args >"$work/out" 2>"$work/err"
    status=$?
    after=$(counters)
    [ $status -eq 0 ] ||
      fail "$mib MiB, $case: exit $status ($(cat "$work/err")); $before -> $after"
    if [ $case = tree ]; then
      diff -r tree copy >/dev/null || fail "$mib MiB, tree: copy differs"
    else
      cmp -s "$src" copy || fail "$mib MiB, $case: copy differs"
    fi
    # The limit was never hit: no OOM kill, no forced reclaim (v1's
    # failcnt, v2's "max" events).
    [ "$before" = "$after" ] ||
      fail "$mib MiB, $case: the cgroup hit its limit: $before -> $after"
    grep -q "^memory budget: .* cgroup v$cg_version $cg " "$work/out" ||
      fail "$mib MiB, $case: --debug does not name the cgroup: $(grep budget "$work/out")"
    note "$mib MiB, $case: $(grep -m1 '^direct I/O' "$work/out"); $after"
  done
  note "$mib MiB: $(grep '^memory budget' "$work/out")"
done

# Explicit sizes are capped too, and --debug says so.
limit 64
uncache big
rm -rf copy
in_cgroup cp8M --debug --queue-depth=32 --buffer-size=16M big copy \
  >"$work/out" 2>"$work/err" || fail "explicit sizes at 64 MiB: $(cat "$work/err")"
cmp -s big copy || fail "explicit sizes at 64 MiB: copy differs"
grep -q "32 x 16 MiB asked for, capped by the budget" "$work/out" ||
  fail "--debug does not say the explicit sizes were capped: $(cat "$work/out")"

# An address-space limit the budget does not measure: allocations fail,
# the copy goes on with the buffers it got (24 x 8 MiB asked for, more
# than the limit leaves room for).  (Not under AddressSanitizer, which
# reserves terabytes of address space for itself.)
[ -n "${ASAN_OPTIONS:-}" ] && { note "ulimit -v: not under AddressSanitizer"; exit 0; }
rm -f copy
(ulimit -v 150000 && exec cp8M --debug --direct=always --queue-depth=24 big copy) \
  >"$work/out" 2>"$work/err" || fail "ulimit -v: $(cat "$work/err")"
cmp -s big copy || fail "ulimit -v: copy differs"
grep -q "fewer or smaller buffers: an allocation failed" "$work/out" ||
  fail "ulimit -v: --debug does not say buffers were short: $(cat "$work/out")"
note "ulimit -v 150000: $(grep '^direct I/O' "$work/out")"
exit 0
