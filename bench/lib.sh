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

# timed_fio_limit DIR SIZE_MIB: the device's copy limit timed as a copy
# is: one sequential reader of DIR/src and one writer of a new DIR/dst,
# balanced by --flow, 8 MiB blocks, 8 in flight each, direct I/O; the
# writer ends with an fsync (end_fsync=1), and the wall clock runs from a
# cold cache to the end of a final sync.  fio's own bandwidth leaves out
# that flush, which every copy pays, and overstated the limit on a
# host-cached disk.  fio spends about half a second starting up whatever
# the size, which no copy pays: the same job over the first 8 MiB is
# timed just before and its wall time taken off.  Sets wall like
# timed_copy.
timed_fio_limit () {
  for _size in 8 "$2"; do
    cat >"$1/limit.fio" <<FIO
[global]
bs=8M
iodepth=8
direct=1
ioengine=libaio
size=${_size}M
[reader]
rw=read
filename=$1/src
flow=1
[writer]
rw=write
filename=$1/dst
end_fsync=1
flow=-1
FIO
    timed_copy "$1/dst" fio --output=/dev/null "$1/limit.fio"
    [ "$_size" = 8 ] && _startup=$wall
  done
  wall=$(echo "$wall $_startup" | awk '{ printf "%.3f", $1 - $2 }')
}
