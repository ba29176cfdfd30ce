#!/bin/sh
# Kill torture: SIGKILL (which no program can catch: the OOM killer, a
# power cut as far as names go) at random moments of a copy, then check
# the destination is in one of the states issue 10 allows:
#
#   new destination       absent under its name (at most a hidden
#                         temporary ".cp8M-XXXXXX" beside it, from the
#                         fallback for filesystems without O_TMPFILE), or
#                         complete and identical to the source;
#   existing destination  overwritten in place (same inode): untouched
#                         (old contents, killed before it was opened),
#                         shorter than the source, or complete.
#
# Never a file that has the source's size and is wrong: scripts take a
# file of the right size for a good copy.
#
# Cases: sizes 8 MiB-1, 64 MiB+511 and a 1 GiB sparse file holding 32
# MiB of data in 8 extents (ending in a hole); --direct=auto (source
# evicted from the page cache first, so auto goes direct), always, never;
# a new destination, an existing one larger and one smaller than the
# source.  Each case is first timed unkilled, then killed KILL_ROUNDS
# times at moments uniform over that duration, drawn from a seeded
# generator: the seed is printed, KILL_SEED=N replays the same moments
# (the copy's own timing varies, of course).  Then a recursive copy of a
# tree of such files and 100 small ones (many files in flight), new and
# over an existing copy of the tree; and a smaller round into a bindfs
# (FUSE) mount, which refuses O_TMPFILE, so that the hidden-temporary
# path is killed too.
#
# Default: 6 kills per case, over 180 in all, about half a minute alone.
# Long mode, e.g.: make check TESTS=tests/kill-torture.sh KILL_ROUNDS=100
# The counts of states found are printed at the end (and per part).
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
need_fuse

M=1048576
rounds=${KILL_ROUNDS:-6}
case $rounds in ''|*[!0-9]*|0) fail "KILL_ROUNDS must be a positive number" ;; esac
# (mawk's srand takes seeds below 2^31: larger ones all give one sequence.)
seed=${KILL_SEED:-$(($(od -An -N4 -tu4 /dev/urandom) % 1000000000))}
note "seed $seed (KILL_SEED=$seed replays these kill moments), $rounds kills per case"

# The moments: fractions of the unkilled copy's duration, in order, in
# millionths.  (In a variable, taken by shell arithmetic: a torture of
# hundreds of kills spent more on drawing them with sed and awk.)
fractions=$(awk -v s="$seed" -v n=$((rounds * 120 + 200)) \
  'BEGIN { srand(s); for (i = 0; i < n; i++) printf "%d ", int(rand() * 1000000) }')

# delay_for MS: set delay_ms to the next moment in [0, MS) ms, and delay
# to it in seconds.  (Not through $(...): the moments drawn must stay in
# this shell.)
delay_for () {
  delay_ms=$(($1 * ${fractions%% *} / 1000000))
  fractions=${fractions#* }
  _f=$((delay_ms % 1000 + 1000))
  delay=$((delay_ms / 1000)).${_f#1}
}

now_ms () {
  echo $(($(date +%s%N) / 1000000))
}

mount_loop ext4 2560 disk || fail "cannot set up ext4"; disk=$mp
cd "$disk" || exit 99

# ---- sources and old contents of existing destinations ----

random_file s8 $((8*M - 1))
random_file s64 $((64*M + 511))
truncate -s $((1024*M)) sp || fail "cannot make the sparse file"
for i in 0 1 2 3 4 5 6 7; do
  dd if=/dev/urandom of=sp bs=1M seek=$((i*112 + 3)) count=4 conv=notrunc \
    status=none || fail "cannot fill the sparse file"
done
# old.NAME.larger / old.NAME.smaller: what an existing destination holds.
random_file old.s8.larger $((11*M + 7))
random_file old.s8.smaller $((3*M + 1))
random_file old.s64.larger $((70*M + 3))
random_file old.s64.smaller $((20*M))
truncate -s $((1100*M)) old.sp.larger
dd if=/dev/urandom of=old.sp.larger bs=1M seek=1090 count=2 conv=notrunc status=none
head -c $((2*M)) /dev/urandom | dd of=old.sp.larger conv=notrunc status=none
truncate -s $((300*M)) old.sp.smaller
dd if=/dev/urandom of=old.sp.smaller bs=1M seek=100 count=3 conv=notrunc status=none

# ---- state counters ----

absent=0 complete=0 shorter=0 untouched=0 temps=0 kills=0 finished=0
counts () {
  echo "$1 kills ($2 copies had ended first): absent $3, complete $4," \
    "shorter $5, untouched $6, hidden temp $7"
}
part_start () {
  p_t0=$(now_ms)
  p_absent=$absent p_complete=$complete p_shorter=$shorter
  p_untouched=$untouched p_temps=$temps p_kills=$kills p_finished=$finished
}
part_end () {
  note "$1, $((($(now_ms) - p_t0) / 1000)) s: $(counts $((kills - p_kills)) \
    $((finished - p_finished)) $((absent - p_absent)) \
    $((complete - p_complete)) $((shorter - p_shorter)) \
    $((untouched - p_untouched)) $((temps - p_temps)))"
}

# kill_at DELAY_S ARGS...: run "cp8M ARGS" in the background, SIGKILL it
# after DELAY_S seconds.  Sets status (137 when it was killed).
kill_at () {
  _d=$1
  shift
  cp8M "$@" >/dev/null 2>"$work/kill.err" &
  _pid=$!
  sleep "$_d"
  kill -KILL $_pid 2>/dev/null
  wait $_pid 2>/dev/null
  status=$?
  case $status in
    137) kills=$((kills + 1)) ;;
    0) finished=$((finished + 1)) ;;
    *) fail "cp8M $* exited $status: $(cat "$work/kill.err")" ;;
  esac
}

# timed ARGS...: run "cp8M --debug ARGS" to the end; it must succeed.
# Sets ms to its duration and dest_line to its "destination: " line.
timed () {
  _t0=$(now_ms)
  cp8M --debug "$@" >"$work/timed.out" 2>"$work/timed.err" ||
    fail "cp8M $* failed unkilled: $(cat "$work/timed.err")"
  ms=$(($(now_ms) - _t0))
  dest_line=$(grep '^destination: ' "$work/timed.out" | head -n 1)
}

# check_new DIR NAME SRC WHAT: after a kill, DIR holds NAME complete, or
# nothing, or only hidden temporaries (counted, then removed).
check_new () {
  _seen=
  for _entry in $(cd "$1" && ls -A); do
    if [ "$_entry" = "$2" ]; then
      same "$1/$2" "$3" ||
        fail "$4: a destination of $(size "$1/$2") bytes is left, not the source ($(size "$3") bytes)"
      complete=$((complete + 1))
      _seen=1
    elif is_hidden_temp "$_entry"; then
      temps=$((temps + 1))
      rm -f "$1/$_entry"
      _seen=1
    else
      fail "$4: unexpected '$_entry' left beside the destination"
    fi
  done
  [ -n "$_seen" ] || absent=$((absent + 1))
}

# check_existing FILE SRC OLD INODE WHAT: FILE is the same inode as
# before and holds OLD, or is complete, or is shorter than SRC.
check_existing () {
  [ -f "$1" ] || fail "$5: the existing destination is gone"
  [ "$(inode "$1")" = "$4" ] ||
    fail "$5: the existing destination was replaced (inode $4 -> $(inode "$1")), not overwritten in place"
  if same "$1" "$2"; then
    complete=$((complete + 1))
  elif same "$1" "$3"; then
    untouched=$((untouched + 1))
  elif [ "$(size "$1")" -lt "$(size "$2")" ]; then
    shorter=$((shorter + 1))
  else
    fail "$5: the existing destination has $(size "$1") bytes (source: $(size "$2")) and is not the source"
  fi
}

# ---- single files ----

# one_case FS DIR SRC MODE KIND N: copy SRC into DIR/out/dst (on the
# filesystem called FS) unkilled, then until N copies are killed (a copy
# that ends before its moment is checked too, and another moment drawn;
# at most 3N tries).  KIND is new, larger or smaller (an existing
# destination holding old.SRC.KIND).  The moments are drawn over the
# duration of the first case of FS, SRC and MODE (the shorter of two
# unkilled copies): the kind of destination changes it little, so the
# next cases copy once unkilled, for the check.
one_case () {
  _dir=$2 _src=$3 _mode=$4 _kind=$5 _n=$6
  _what="$1: $_src --direct=$_mode, $_kind destination"
  _r=0 _k=0
  eval "_ms=\${ms_${1}_${_src}_${_mode}-}"
  [ -z "$_ms" ] || _r=1
  while [ $_k -lt "$_n" ] && [ $_r -lt $((3 * _n + 2)) ]; do
    rm -rf "$_dir/out" && mkdir "$_dir/out" || fail "cannot reset $_dir/out"
    _ino=
    if [ "$_kind" != new ]; then
      "$GNU_CP" "old.$_src.$_kind" "$_dir/out/dst" ||
        fail "cannot set up $_what"
      _ino=$(inode "$_dir/out/dst")
    fi
    [ "$_mode" = auto ] && dd if="$_src" iflag=nocache count=0 status=none
    if [ $_r -lt 2 ]; then
      # The duration: the shorter of two unkilled copies.
      timed --direct="$_mode" "$_src" "$_dir/out/dst"
      [ -n "$_ms" ] && [ "$_ms" -le "$ms" ] || _ms=$ms
      same "$_dir/out/dst" "$_src" ||
        fail "$_what: the unkilled copy differs"
      [ -z "$_ino" ] || [ "$(inode "$_dir/out/dst")" = "$_ino" ] ||
        fail "$_what: the unkilled copy replaced the existing file"
      [ "$(entries "$_dir/out")" = dst ] ||
        fail "$_what: the unkilled copy left $(entries "$_dir/out")"
      [ $_r -eq 0 ] || note "$_what: ${_ms} ms unkilled; ${dest_line:-no destination: line}"
      eval "ms_${1}_${_src}_${_mode}=\$_ms"
    else
      delay_for "$_ms"
      kill_at "$delay" --direct="$_mode" "$_src" "$_dir/out/dst"
      if [ $status -eq 0 ]; then
        # It ended before its moment: it takes less than that, so the
        # next moments are drawn below it (more of them land).
        [ "$delay_ms" -lt 1 ] || _ms=$delay_ms
        eval "ms_${1}_${_src}_${_mode}=\$_ms"
      else
        _k=$((_k + 1))
      fi
      if [ "$_kind" = new ]; then
        check_new "$_dir/out" dst "$_src" "$_what"
      else
        [ "$(entries "$_dir/out")" = dst ] ||
          fail "$_what: killed, left $(entries "$_dir/out") (only dst expected: overwritten in place)"
        check_existing "$_dir/out/dst" "$_src" "old.$_src.$_kind" "$_ino" \
          "$_what"
      fi
    fi
    _r=$((_r + 1))
  done
}

part_start
for src in s8 s64 sp; do
  for mode in auto always never; do
    for kind in new larger smaller; do
      one_case ext4 "$disk" "$src" $mode $kind "$rounds"
    done
  done
done
part_end "single files on ext4"

# ---- a tree, copied with -r ----

# Two directories of small files, 100 in all: many files in flight
# (src/cp/jobs.c) when the kill comes.
mkdir -p tree/d/e tree/m1 tree/m2
cp s8 tree/f8 && cp s64 tree/d/f64 && cp sp tree/d/sp || fail "cannot make the tree"
for i in 1 2 3 4 5 6; do random_file tree/d/e/small$i $((i * 7919)); done
mkdir -p oldtree/d/e oldtree/m1 oldtree/m2
cp old.s8.larger oldtree/f8 && cp old.s64.smaller oldtree/d/f64 &&
  cp old.sp.smaller oldtree/d/sp || fail "cannot make the old tree"
for i in 1 2 3 4 5 6; do random_file oldtree/d/e/small$i $(((7 - i) * 5003)); done
i=1
while [ $i -le 50 ]; do
  for m in m1 m2; do
    random_file tree/$m/f$i $((i * 157 + 1))
    random_file oldtree/$m/f$i $((i * 61 + 1))
  done
  i=$((i + 1))
done
files=$(cd tree && find . -type f | LC_ALL=C sort)

# check_new_tree: every file of ./new is a complete file of ./tree or a
# hidden temporary; directories only where ./tree has them.
check_new_tree () {
  [ -d new ] || { absent=$((absent + $(echo "$files" | wc -l))); return; }
  for _f in $(cd new && find . -mindepth 1 | LC_ALL=C sort); do
    if [ -d "new/$_f" ]; then
      [ -d "tree/$_f" ] || fail "-r, new: unexpected directory $_f"
    elif is_hidden_temp "$(basename "$_f")"; then
      temps=$((temps + 1))
      rm -f "new/$_f"
    else
      [ -f "tree/$_f" ] || fail "-r, new: unexpected $_f"
      same "new/$_f" "tree/$_f" ||
        fail "-r, new: $_f is left with $(size "new/$_f") bytes, not the source ($(size "tree/$_f") bytes)"
      complete=$((complete + 1))
    fi
  done
  for _f in $files; do
    [ -e "new/$_f" ] || absent=$((absent + 1))
  done
}

# check_existing_tree: every file of ./ex overwritten in place, each one
# untouched, shorter or complete; no other names.
check_existing_tree () {
  [ "$(cd ex && find . | LC_ALL=C sort)" = "$(cd tree && find . | LC_ALL=C sort)" ] ||
    fail "-r, existing: the names under ex changed: $(cd ex && find . | LC_ALL=C sort | tr '\n' ' ')"
  for _f in $files; do
    _ino=$(sed -n "s|^$_f ||p" "$work/inodes")
    check_existing "ex/$_f" "tree/$_f" "oldtree/$_f" "$_ino" "-r, existing: $_f"
  done
}

# tree_round KIND MODE: set up, then a timed copy while tree_ms is unset
# (twice: the shorter counts), a killed one after.
tree_round () {
  _kind=$1 _mode=$2
  rm -rf new ex
  if [ "$_kind" = existing ]; then
    "$GNU_CP" -a oldtree ex || fail "cannot set up the existing tree"
    (cd ex && find . -type f -printf '%p %i\n') >"$work/inodes"
    set -- -rT tree ex
  else
    set -- -r tree new
  fi
  if [ -z "$tree_ms" ] || [ -z "$tree_ms1" ]; then
    timed --direct="$_mode" "$@"
    _a=$absent _s=$shorter _u=$untouched _t=$temps
    if [ "$_kind" = existing ]; then check_existing_tree; else check_new_tree; fi
    [ $absent = $_a ] && [ $shorter = $_s ] && [ $untouched = $_u ] &&
      [ $temps = $_t ] || fail "-r, $_kind tree: the unkilled copy is incomplete"
    complete=$((complete - $(echo "$files" | wc -l)))
    if [ -z "$tree_ms1" ]; then
      tree_ms1=$ms
    else
      tree_ms=$ms
      [ "$tree_ms" -le "$tree_ms1" ] || tree_ms=$tree_ms1
      note "-r, $_kind tree: ${tree_ms} ms unkilled"
    fi
  else
    delay_for "$tree_ms"
    kill_at "$delay" --direct="$_mode" "$@"
    # Ended first: as for single files (one_case).
    [ $status -ne 0 ] || [ "$delay_ms" -lt 1 ] || tree_ms=$delay_ms
    if [ "$_kind" = existing ]; then check_existing_tree; else check_new_tree; fi
  fi
}

# The states of the tree's files are counted per file.
part_start
for kind in new existing; do
  tree_ms= tree_ms1= r=0 k=0
  while [ $k -lt "$rounds" ] && [ $r -lt $((3 * rounds + 2)) ]; do
    set -- auto always never
    shift $((r % 3))
    tree_round $kind "$1"
    [ -z "$tree_ms" ] || [ $r -lt 2 ] || [ $status -eq 0 ] || k=$((k + 1))
    r=$((r + 1))
  done
done
part_end "-r of a tree of $(echo "$files" | wc -l) files (counted per file)"
rm -rf new ex tree oldtree

# ---- the hidden-temporary path: a bindfs mount refuses O_TMPFILE ----

mkdir -p "$disk/under" || exit 99
mount_bindfs_direct "$disk/under" fuse || fail "cannot set up bindfs"; fuse=$mp
case $(o_tmpfile "$fuse") in
  no) note "bindfs refuses O_TMPFILE: its round kills the hidden-temporary path" ;;
  yes) note "bindfs takes O_TMPFILE here: its round kills the O_TMPFILE path" ;;
esac
part_start
fuse_rounds=$(((rounds + 1) / 2))
for src in s8 s64; do
  for mode in always never; do
    for kind in new smaller; do
      one_case bindfs "$fuse" "$src" $mode $kind "$fuse_rounds"
    done
  done
done
part_end "bindfs"

note "all: $(counts $kills $finished $absent $complete $shorter $untouched $temps)"
# A torture whose copies all end before their kill tests nothing.
planned=$((27 * rounds + 2 * rounds + 8 * fuse_rounds))
[ $((kills * 2)) -ge "$planned" ] ||
  fail "only $kills of $planned planned kills landed before the copy ended"
exit 0
