#!/bin/sh
# Warming small files ahead of the walk (src/cp/prefetch.c): while one
# small file is copied, a thread asks the kernel for the data of the next
# ones (posix_fadvise WILLNEED), so that a tree of small files does not
# wait for one read at a time.  Checked here:
#   - trees copied with it are identical to GNU cp's copies, access times
#     included (warming reads nothing through read(), which would move
#     them);
#   - it happens, in a thread of its own, for the small files of a new
#     destination directory, subdirectories included, and the main
#     thread opens nothing more for it;
#   - it never opens to read what is not a small regular file: files over
#     1 MiB are only looked at (O_PATH), a FIFO and a device among the
#     files not even that;
#   - where it would be wasted it does not happen: into a directory that
#     exists (files may be skipped or overwritten in place), with
#     --direct=always, -l, -s and --attributes-only (nothing is read), and
#     from a FUSE mount (bindfs -o direct_io: reads skip the cache);
#   - nor files of at least one buffer (--buffer-size=256K), which the
#     engine copies with direct I/O, nor after copies that fail (no
#     inodes left), nor from an overlay on FUSE;
#   - with few descriptors (ulimit -n) the copy still succeeds, identical;
#   - the copy is the same when the files change after they were warmed
#     (they are read again by the copy: the cache is the file);
#   - files already cached are not warmed, and a listing whose first few
#     files are all cached is left alone (a cached tree would pay for
#     nothing), while one cached only in part is still warmed.
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
need_fuse
command -v strace >/dev/null || skip "strace is not installed"

M=1048576
mount_loop ext4 256 disk || fail "cannot set up ext4"; disk=$mp
mkdir "$disk/under" || exit 99
mount_bindfs_direct "$disk/under" fuse || fail "cannot set up bindfs"; fuse=$mp
cd "$disk" || exit 99

# A tree in creation order (the walk's order on ext4: by inode): small
# files, a FIFO, a device, a symbolic link and a big file among them, and
# a subdirectory of small files.
mkdir tree tree/sub || exit 99
i=0
while [ $i -lt 12 ]; do
  random_file "tree/s$i" $((i * 3000 + 1))
  case $i in
    3) mkfifo tree/fifo ;;
    5) mknod tree/null c 1 3 ;;
    7) ln -s s1 tree/lnk ;;
    9) random_file tree/big $((2 * M)) ;;
  esac
  i=$((i + 1))
done
i=0
while [ $i -lt 10 ]; do random_file "tree/sub/t$i" $((i * 5000 + 7)); i=$((i + 1)); done
: >tree/empty
find tree -type f -exec touch -a -d 2001-02-03 {} + || exit 99

# Once the walk has queued files it waits until the warming thread has
# looked at all of them (a hook for the tests, prefetch.h): what it
# warms then depends on the files, not on which thread the machine's
# load (or strace, or ASan) favours, so the counts below are exact.  One copy
# (section 1) runs without it.
CP8M_PREFETCH_LOCKSTEP=1
export CP8M_PREFETCH_LOCKSTEP

# evict_sources ARGS...: evict the files of every operand in cp8M's ARGS
# but the last (bindfs's through the directory behind it).
evict_sources () {
  _n=0
  for _a; do case $_a in -*) ;; *) _n=$((_n + 1)) ;; esac; done
  for _a; do
    case $_a in -*) continue ;; esac
    _n=$((_n - 1))
    [ $_n -gt 0 ] || break
    case $_a in "$fuse"/*) _a=$disk/under/${_a#"$fuse"/} ;; esac
    evict_tree "$_a" || fail "cannot evict $_a"
  done
}

# traced OUT ARGS...: cp8M ARGS under strace, its sources evicted first
# (the kernel skips what is cached), the trace in OUT; MAIN: the main
# thread's process id (the first line's).
traced () {
  _out=$1
  shift
  [ -n "${keep_cache:-}" ] || evict_sources "$@"
  trace -f -o "$_out" -e trace=open,openat,fadvise64 cp8M "$@" ||
    fail "cp8M $* failed"
  main=$(head -n 1 "$_out" | cut -d' ' -f1)
}

# warmed TRACE: how many WILLNEED fadvise calls TRACE shows.
warmed () {
  grep -c 'POSIX_FADV_WILLNEED' "$1"
}

# looked TRACE: how many files the warming thread opened to warm, or to
# find them cached.
looked () {
  grep -v "^$main " "$1" | grep -c '/proc/self/fd/.*O_RDONLY'
}

# warmed_file TRACE FILE: how many times TRACE shows FILE warmed (each
# file of the tests has a size of its own, which its fadvise shows).
warmed_file () {
  grep -c ", $(stat -c %s "$2"), POSIX_FADV_WILLNEED" "$1"
}

# in_walk_order DIR: the names in DIR in the walk's order (by inode).
in_walk_order () {
  ls -i -U "$1" | sort -n | awk '{ print $2 }'
}

# expect_warmed TRACE DIR [MAX]: every regular file of DIR of 1 byte to
# MAX (1 MiB) from its third entry on was warmed, once; EXPECTED counts
# them.
# Warming starts once a small file was copied by reading it (one made by
# cloning, say, says the tree is better left alone), from the entry after
# the one being copied: the second entry in sub, whose first is the run's
# first file, and in tree, whose first is sub.
expect_warmed () {
  in_walk_order "$2" | tail -n +3 >names.$$
  _checked=0
  while read -r _f; do
    [ -f "$2/$_f" ] && [ ! -L "$2/$_f" ] || continue
    _s=$(stat -c %s "$2/$_f")
    [ "$_s" -gt 0 ] && [ "$_s" -le "${3:-$M}" ] || continue
    _n=$(warmed_file "$1" "$2/$_f")
    [ "$_n" -eq 1 ] || fail "$2/$_f ($_s bytes): warmed $_n times, not once"
    _checked=$((_checked + 1))
  done <names.$$
  [ $_checked -gt 0 ] || fail "$2: no file to expect warmed (the test lost its point)"
  expected=$((expected + _checked))
}

# ahead TRACE: the warming thread looked at each file (O_PATH) before the
# main thread opened it to copy (the lockstep's promise: what the thread
# was given is done before the walk goes on).
ahead () {
  awk -v main="$main" '
    / resumed>/ || !match($0, /"[^"]*"/) { next }
    { name = substr($0, RSTART, RLENGTH) }
    $1 == main && /O_RDONLY/ && !/O_PATH|O_DIRECTORY/ { copied[name] = 1 }
    $1 != main && /O_PATH/ && !/O_DIRECTORY/ && (name in copied) { print; bad = 1 }
    END { exit bad }' "$1" || fail "the thread looked at files after their copy began"
}

# 1. A new tree with -a: identical to GNU's, warmed by another thread:
#    the small files of each directory but the first two entries'.
"$GNU_CP" -a tree gnu || fail "GNU cp -a failed"
find tree -type f -exec touch -a -d 2001-02-03 {} + || exit 99
traced trace.a -a tree ours
same_copy gnu ours
expected=0
expect_warmed trace.a tree
expect_warmed trace.a tree/sub
n=$(looked trace.a)
[ "$n" -eq "$expected" ] && [ "$(warmed trace.a)" -eq "$expected" ] ||
  fail "-a: $n looked at, $(warmed trace.a) warmed, not $expected"
ahead trace.a
grep 'POSIX_FADV_WILLNEED' trace.a | grep -q "^$main " &&
  fail "the main thread warmed files itself"
# (Not counting the nodes that are no regular files: the main thread sets
# their metadata, and reads their sources', through such descriptors,
# src/cp/node.h.)
find tree ! -type f ! -type d -printf '"%f"\n' >specials
grep "^$main " trace.a | grep 'O_PATH' | grep -v O_DIRECTORY |
  grep -qvF -f specials &&
  fail "the main thread opened files with O_PATH (that is the warming thread's)"
# Without the hook, as users run it: the same copy, nothing warmed by the
# main thread (how many files the thread gets to first is the machine's
# business).
rm -rf ours
find tree -type f -exec touch -a -d 2001-02-03 {} + || exit 99
CP8M_PREFETCH_LOCKSTEP=
traced trace.free -a tree ours
CP8M_PREFETCH_LOCKSTEP=1
same_copy gnu ours
grep 'POSIX_FADV_WILLNEED' trace.free | grep -q "^$main " &&
  fail "without the hook: the main thread warmed files itself"
note "-a: $n files warmed, by a thread of their own ($(warmed trace.free) without the hook)"

# 2. Only small regular files are opened to read: not the FIFO, not the
#    device, not the symbolic link (their listing type says so), and the
#    big file only with O_PATH.
# (The main thread of that run opens them O_PATH for their metadata:
# src/cp/node.h.)
main_a=$(head -n 1 trace.a | cut -d' ' -f1)
grep -E '"(fifo|null|lnk)"' trace.a | grep -v "^$main_a " &&
  fail "the warming thread opened a FIFO, a device or a symbolic link"
# The thread's open to read comes right after its O_PATH open of the same
# file: never after the big one's.
grep -v "^$main " trace.a | grep -v resumed | awk '
  /O_PATH/ { big = /"big"/; next }
  /\/proc\/self\/fd\// && big { bad = 1 }
  END { exit bad }' || fail "the big file was opened to read ahead"
grep -q "$((2 * M)), POSIX_FADV_WILLNEED" trace.a && fail "the big file was warmed"
grep -v "^$main " trace.a | grep '"big"' | grep -q O_PATH ||
  fail "the big file was not even looked at (the test lost its point)"
note "FIFO, device and symbolic link untouched; the big file only looked at"

# 3. Where it would be wasted: nothing.
mkdir exists exists/sub || exit 99
traced trace.exists -r tree/. exists
[ "$(warmed trace.exists)" -eq 0 ] || fail "warmed files for a destination that exists"
cmp tree/s5 exists/s5 && cmp tree/sub/t9 exists/sub/t9 || fail "into exists: wrong copy"
for opt in --direct=always -l -s --attributes-only; do
  rm -rf other
  # -s needs absolute sources.
  traced trace.opt -r $opt "$disk/tree" other
  [ "$(warmed trace.opt)" -eq 0 ] || fail "$opt: warmed files"
done
cp -r tree "$disk/under/tree" || exit 99
traced trace.fuse -r "$fuse/tree" fusecopy
[ "$(warmed trace.fuse)" -eq 0 ] || fail "warmed files on a FUSE mount"
cmp tree/sub/t9 fusecopy/sub/t9 || fail "from FUSE: wrong copy"
note "nothing warmed into an existing directory, with --direct=always, -l, -s, --attributes-only, from FUSE"

# 4. Few descriptors: the copy succeeds, identical, without the warming
#    (12, 40: it needs room the copy does not) and with it (200).
for lim in 12 40 200; do
  rm -rf ours
  find tree -type f -exec touch -a -d 2001-02-03 {} + || exit 99
  evict_tree tree || exit 99
  (ulimit -n $lim && trace -f -o trace.lim -e trace=openat,fadvise64 \
     "$CP8M" -a tree ours) 2>err ||
    fail "cp8M -a under ulimit -n $lim failed: $(cat err)"
  same_copy gnu ours
done
# The same files warmed as with no limit.
expect_warmed trace.lim tree
expect_warmed trace.lim tree/sub
note "ulimit -n 12, 40, 200: same as GNU cp, warmed at 200"

# 5. Not what the engine copies with direct I/O: with 256 KiB buffers,
#    files of 600 KB are not warmed (those of 4 KB are).
mkdir mixed || exit 99
i=0
while [ $i -lt 10 ]; do
  random_file "mixed/s$i" $((4000 + i))
  random_file "mixed/b$i" $((600000 + i))
  i=$((i + 1))
done
traced trace.mixed -r --buffer-size=256K --debug mixed mixedcopy >debug.mixed
grep -q ", 6000.., POSIX_FADV_WILLNEED" trace.mixed && fail "--buffer-size=256K: a 600 KB file warmed"
expect_warmed trace.mixed mixed 262143
n=$(grep -c "source mostly in the page cache" debug.mixed)
[ "$n" -eq 0 ] || fail "--buffer-size=256K: $n files no longer copied with direct I/O"
note "--buffer-size=256K: only the 4 KB files warmed; the 600 KB ones still go direct"

# 6. Copies that fail are no reason to read on: a destination without
#    inodes left takes a few files, the rest fail (as with GNU cp), and
#    the walk stops warming with the first failure.
mount_loop ext4 16 few "-N 32" || fail "cannot set up a small ext4"; few=$mp
mkdir many || exit 99
i=0
while [ $i -lt 150 ]; do random_file "many/f$i" 5000; i=$((i + 1)); done
evict_tree many || exit 99
trace -f -o trace.few -e trace=fadvise64 cp8M -r many "$few/m" 2>err.few &&
  fail "150 files into 32 inodes: no failure"
grep -q "No space left on device" err.few || fail "no ENOSPC: $(head -n 3 err.few)"
n=$(warmed trace.few)
[ "$n" -le 64 ] || fail "$n files warmed for copies that failed"
note "no inodes left: $n files warmed, not 150"

# 7. An overlay on a FUSE mount (reads through it skip the cache too):
#    nothing warmed.
mkdir up work ovl || exit 99
mount -t overlay overlay -o "lowerdir=$fuse,upperdir=$disk/up,workdir=$disk/work" \
  "$disk/ovl" || fail "cannot mount an overlay"
_mounts="$disk/ovl $_mounts"
traced trace.ovl -r ovl/tree ovlcopy
[ "$(warmed trace.ovl)" -eq 0 ] || fail "warmed files on an overlay of FUSE"
cmp tree/sub/t9 ovlcopy/sub/t9 || fail "from the overlay: wrong copy"
note "overlay on FUSE: nothing warmed"

# 8. Files rewritten after they were warmed: the copy has what they hold
#    at the end.  The copy of f1 is held (its write delayed 2 s) while
#    the files after it are warmed (the trace shows it); then cp8M is
#    stopped (SIGSTOP), and the files are rewritten while f1 is not yet
#    linked, so none of the copies after it has begun, however busy the
#    machine.  (Where f1 was linked first, on a busy machine, the run is
#    made again.)
mkdir chg || exit 99
i=0
while [ $i -lt 8 ]; do random_file "chg/f$i" 20000; i=$((i + 1)); done
tries=0
while :; do
  rm -rf ours trace.chg
  evict_tree chg || exit 99
  trace -f -o trace.chg -e trace=pwrite64,fadvise64 \
    -e inject=pwrite64:delay_exit=2000000:when=2 cp8M -r chg ours &
  pid=$!
  i=0
  while [ "$(warmed trace.chg 2>/dev/null)" != 6 ] && [ $i -lt 200 ]; do
    sleep 0.05
    i=$((i + 1))
  done
  if cp=$(descendant $pid cp8M) && kill -STOP "$cp" 2>/dev/null; then
    stopped_at trace.chg $pid
    [ -e ours/f1 ] || break
    kill -CONT "$cp"
  fi
  wait $pid || fail "cp8M -r chg failed"
  tries=$((tries + 1))
  [ $tries -lt 5 ] || fail "f1 was copied before cp8M could be stopped, in 5 runs"
done
i=2
while [ $i -lt 8 ]; do random_file "chg/f$i" 30000; i=$((i + 1)); done
kill -CONT "$cp"
wait $pid || fail "cp8M -r chg failed"
[ "$(warmed trace.chg)" -eq 6 ] || fail "chg: f2 to f7 not warmed (the test lost its point)"
i=0
while [ $i -lt 8 ]; do
  cmp "chg/f$i" "ours/f$i" || fail "f$i: the copy is not the file as it ended"
  i=$((i + 1))
done
note "files rewritten after warming: copied as rewritten"

# 9. A cached source: nothing warmed, and the thread gives up on each
#    listing after 4 cached files in a row (it looks with cachestat,
#    through the same /proc open it warms them with).  Then a listing
#    cached in part (every other file in the walk's order, by inode, so
#    that never 4 in a row): the files not cached are warmed, those
#    cached are not (each file has a size of its own).  Both need what
#    was read in to stay cached until the copy looks: memory pressure
#    (make -j check) can take it away, so an attempt whose
#    counts are off is made again, up to three times; a fault in cp8M
#    fails all three.  cachestat came with Linux 6.5: before it, every
#    file is warmed.
mkdir cached || exit 99
i=0
while [ $i -lt 30 ]; do random_file "cached/c$i" $((i * 1000 + 9)); i=$((i + 1)); done
in_walk_order cached | awk 'NR % 2' >incache
in_walk_order cached | awk 'NR % 2 == 0 && NR > 2' >notincache

# all_cached: copy the directory, all of it read in first; WHY says what
# went wrong.
all_cached () {
  sync
  cat cached/* >/dev/null
  rm -rf ours
  keep_cache=1 traced trace.cached -r cached ours
  diff -r cached ours || fail "cached: wrong copy"
  looked=$(looked trace.cached)
  why="a cached listing: $(warmed trace.cached) files warmed, $looked looked at, not none and 4"
  # 4, not the 29 it goes through if it never gives up.
  [ "$(warmed trace.cached)" -eq 0 ] && [ "$looked" -eq 4 ]
}

# half_cached: the same, every other file read in first.
half_cached () {
  evict_tree cached || exit 99
  (cd cached && xargs cat) <incache >/dev/null
  rm -rf ours
  keep_cache=1 traced trace.half -r cached ours
  diff -r cached ours || fail "half cached: wrong copy"
  # The 14 not cached from the third entry on (as in expect_warmed), and
  # none of the others.
  while read -r f; do
    [ "$(warmed_file trace.half "cached/$f")" -ge 1 ] ||
      { why="half cached: $f, not cached, was not warmed"; return 1; }
  done <notincache
  while read -r f; do
    [ "$(warmed_file trace.half "cached/$f")" -eq 0 ] ||
      { why="half cached: $f, cached, was warmed"; return 1; }
  done <incache
  return 0
}

case $(uname -r) in
  [0-5].*|6.[0-4].*|6.[0-4]-*)
    note "Linux $(uname -r) has no cachestat: cached sources not checked"
    exit 0 ;;
esac
for check in all_cached half_cached; do
  tries=1
  until $check; do
    [ $tries -lt 3 ] || fail "$why (3 attempts)"
    note "$why: again"
    tries=$((tries + 1))
  done
done
note "cached: $looked looked at and none warmed; half cached: $(warmed trace.half) of 14 warmed"
exit 0
