# Shared by the bench/ scripts: cold-cache runs with wall time and
# page-cache growth.  Sourced, not run.

# cached_kib: the page cache's size now, from /proc/meminfo.
cached_kib () {
  awk '/^Cached:/ { print $2 }' /proc/meminfo
}

# drop_caches: start cold.  Needs root; without it the figures are warm and
# say so.
drop_caches () {
  sync
  if ! echo 3 2>/dev/null >/proc/sys/vm/drop_caches; then
    [ -n "${warned_drop:-}" ] ||
      echo "note: cannot drop the page cache (not root): runs are warm" >&2
    warned_drop=1
  fi
}

# timed_copy DST COMMAND...: drop caches, run COMMAND (which writes DST),
# then sync so dirty pages count against the tool that made them.  Sets
# wall (seconds) and growth_mib (page-cache growth).
timed_copy () {
  _dst=$1
  shift
  rm -f "$_dst"
  drop_caches
  _before=$(cached_kib)
  _t0=$(date +%s.%N)
  "$@" || { echo "failed: $*" >&2; exit 1; }
  sync
  _t1=$(date +%s.%N)
  _after=$(cached_kib)
  wall=$(echo "$_t1 $_t0" | awk '{ printf "%.3f", $1 - $2 }')
  growth_mib=$(( (_after - _before) / 1024 ))
}

# median: the median of the numbers on standard input, one per line.
median () {
  sort -n | awk '{ v[NR] = $1 }
    END { if (NR % 2) print v[(NR + 1) / 2];
          else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
