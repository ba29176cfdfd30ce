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
  # BENCH_SETTLE seconds for the host to finish writing what the last run
  # left it (the guest's sync does not wait for that).
  [ "${BENCH_SETTLE:-0}" = 0 ] || sleep "$BENCH_SETTLE"
  if ! echo 3 2>/dev/null >/proc/sys/vm/drop_caches; then
    [ -n "${warned_drop:-}" ] ||
      echo "note: cannot drop the page cache (not root): runs are warm" >&2
    warned_drop=1
  fi
}

# evict FILE...: these files only out of the page cache (their dirty
# pages written first, then their clean ones dropped), for a cold run
# that leaves the rest of the machine's cache alone (bench/demo).
evict () {
  for _f; do
    dd of="$_f" oflag=nocache conv=notrunc,fdatasync count=0 status=none &&
      dd if="$_f" iflag=nocache count=0 status=none || return 1
  done
}

# timed_copy DST COMMAND...: drop caches, run COMMAND (which writes DST,
# a file or a tree, removed first), then sync so dirty pages count
# against the tool that made them.  Sets wall (seconds) and growth_mib
# (page-cache growth).
timed_copy () {
  _dst=$1
  shift
  rm -rf "$_dst"
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

# fio_huge_pages: give fio's I/O buffers huge pages (mem=mmaphuge, from
# the hugetlb pool, reserved here) as cp8M's buffers have (transparent
# huge pages, src/engine/engine.c): an I/O from scattered 4 KiB pages
# reaches the device in more, smaller requests, and the limit would be
# that of fio's buffers rather than of the device.  Sets fio_mem (empty
# when the pool cannot grow: not root, or no memory for it; fio then
# uses malloc as before).  fio_huge_release gives the pages back.
fio_huge_pages () {
  fio_mem= fio_hp_before=
  _pool=/proc/sys/vm/nr_hugepages
  _hps=$(awk '/^Hugepagesize:/ { print int($2 / 1024) }' /proc/meminfo 2>/dev/null)
  [ -w "$_pool" ] && [ "${_hps:-0}" -gt 0 ] || return 0
  fio_hp_before=$(cat "$_pool")
  # Two jobs of 8 x 8 MiB each, and room for fio's alignment and rounding
  # (fio 3.33 needs 34 pages of 2 MiB a job, and crashes when the pool
  # is short), with some to spare.
  _want=$((fio_hp_before + 2 * ((64 + _hps - 1) / _hps + 4) + 4))
  echo "$_want" 2>/dev/null >"$_pool" || :
  if [ "$(cat "$_pool")" -ge "$_want" ]; then
    fio_mem=mmaphuge
  else
    fio_huge_release
  fi
}
fio_huge_release () {
  [ -z "${fio_hp_before:-}" ] || echo "$fio_hp_before" >/proc/sys/vm/nr_hugepages
  fio_hp_before=
}

# timed_fio_limit DIR SIZE_MIB: the device's copy limit timed as a copy
# is: one sequential reader of DIR/src and one writer of a new DIR/dst,
# kept in step by equal flow weights (flow=1 each: fio 3.x reads flow as
# a weight; the old flow=1/-1 pair turns flow control off there and let
# the reader run ahead), 8 MiB blocks, 8 in flight each, direct I/O; the
# writer ends with an fsync (end_fsync=1), and the wall clock runs from a
# cold cache to the end of a final sync.  fio's own bandwidth leaves out
# that flush, which every copy pays, and overstated the limit on a
# host-cached disk.  fio spends about half a second starting up whatever
# the size, which no copy pays: the same job over the first 8 MiB is
# timed once per DIR (before its first limit; kept in DIR/limit.startup)
# and its wall time taken off.  Sets wall like timed_copy.
timed_fio_limit () {
  fio_startup "$1"
  timed_fio_job "$1" "$2"
  wall=$(echo "$wall $(cat "$1/limit.startup")" | awk '{ printf "%.3f", $1 - $2 }')
}

# fio_startup DIR: time fio's start-up once for DIR (see above).
fio_startup () {
  if [ ! -s "$1/limit.startup" ]; then
    timed_fio_job "$1" 8
    echo "$wall" >"$1/limit.startup"
  fi
}

# timed_fio_tree DIR TREE SIZE_MIB: the same balanced reader and writer
# through the files of the tree DIR/TREE (equal files, SIZE_MIB in all),
# one file after another (file_service_type=sequential), the writer
# making as many new files, in as many directories, under DIR/fio-tree:
# what the device gives for the same files, where timed_fio_limit gives
# it for the same bytes in one file.  The writer makes, preallocates and
# at the end fsyncs each of its files.  fio caps a list of file names at
# 4096 characters, so the reader goes through short links (DIR/fio-links)
# and the writer uses names like d3/17.  Sets wall like timed_fio_limit.
timed_fio_tree () {
  fio_startup "$1"
  rm -rf "$1/fio-links"
  mkdir "$1/fio-links"
  _n=0 _rl= _wl= _dirs=
  for _f in $(cd "$1/$2" && find . -type f | sort); do
    _f=${_f#./}
    ln -s "$1/$2/$_f" "$1/fio-links/$_n"
    _rl=$_rl:$_n _wl=$_wl:${_f%%/*}/$_n
    case " $_dirs " in *" ${_f%%/*} "*) ;; *) _dirs="$_dirs ${_f%%/*}" ;; esac
    _n=$((_n + 1))
  done
  cat >"$1/tree.fio" <<FIO
[global]
bs=8M
iodepth=8
direct=1
ioengine=libaio
mem=${fio_mem:-malloc}
size=${3}M
file_service_type=sequential
[reader]
rw=read
directory=$1/fio-links
filename=${_rl#:}
flow=1
[writer]
rw=write
directory=$1/fio-tree
filename=${_wl#:}
end_fsync=1
flow=1
FIO
  timed_copy "$1/fio-tree" sh -c 'cd "$1" && shift && mkdir fio-tree &&
    cd fio-tree && mkdir "$@" && exec fio --output=/dev/null ../tree.fio' \
    sh "$1" $_dirs
  wall=$(echo "$wall $(cat "$1/limit.startup")" | awk '{ printf "%.3f", $1 - $2 }')
  rm -rf "$1/fio-tree" "$1/fio-links"
}

# timed_fio_job DIR SIZE_MIB: one run of that job, timed like a copy.
timed_fio_job () {
  cat >"$1/limit.fio" <<FIO
[global]
bs=8M
iodepth=8
direct=1
ioengine=libaio
mem=${fio_mem:-malloc}
size=${2}M
[reader]
rw=read
filename=$1/src
flow=1
[writer]
rw=write
filename=$1/dst
end_fsync=1
flow=1
FIO
  timed_copy "$1/dst" fio --output=/dev/null "$1/limit.fio"
}

# ---- memory cgroups (bench/run's hot-set and container scenarios) ----

# cg_find: set cg_version (1 or 2) and cg_mnt to a hierarchy with the
# memory controller; return 1 when there is none.
cg_find () {
  cg_version= cg_mnt=
  _v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
  if [ -n "$_v2" ] && grep -qw memory "$_v2/cgroup.subtree_control" 2>/dev/null; then
    cg_version=2 cg_mnt=$_v2
  else
    cg_mnt=$(awk '{ for (i = 7; $i != "-"; i++) continue
                   if ($(i + 1) == "cgroup" && ("," $(i + 3) ",") ~ /,memory,/)
                     { print $5; exit } }' /proc/self/mountinfo)
    [ -n "$cg_mnt" ] && cg_version=1
  fi
  [ -n "$cg_version" ]
}

# cg_new NAME MIB: a fresh memory cgroup NAME limited to MIB (no swap);
# its directory in cg.
cg_new () {
  cg=$cg_mnt/$1
  [ -d "$cg" ] && rmdir "$cg" 2>/dev/null
  mkdir "$cg" || return 1
  if [ "$cg_version" = 2 ]; then
    echo "${2}M" >"$cg/memory.max" || return 1
    [ ! -e "$cg/memory.swap.max" ] || echo 0 >"$cg/memory.swap.max"
  else
    echo "${2}M" >"$cg/memory.limit_in_bytes"
  fi
}

# cg_oom_kills: how many processes the cgroup's OOM killer killed.
cg_oom_kills () {
  if [ "$cg_version" = 2 ]; then
    awk '$1 == "oom_kill" { print $2 }' "$cg/memory.events"
  else
    awk '$1 == "oom_kill" { print $2; f = 1 } END { if (!f) print 0 }' \
      "$cg/memory.oom_control"
  fi
}

# in_cg COMMAND...: run COMMAND as a member of the cgroup $cg.
in_cg () {
  sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$@"
}

# resident_pct FILE: the share of FILE's pages in the page cache, in %.
resident_pct () {
  fincore -b -n -o RES,SIZE "$1" |
    awk '{ if ($2 > 0) printf "%.0f", 100 * $1 / $2; else print 0 }'
}
