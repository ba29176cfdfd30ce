#!/bin/sh
# A destination cp8M created and could not finish is removed, also when
# SIGINT or SIGTERM arrive mid-copy; a source that shrinks or grows while
# it is read is copied to where it ends, as GNU cp does (issue 10).
# Writing past the file size limit (ulimit -f) fails that file only
# (issue 38).
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
env --default-signal=INT true 2>/dev/null ||
  skip "env --default-signal is missing (coreutils < 8.31)"
command -v strace >/dev/null || skip "strace is not installed"

cd "$abs_top_builddir" && dir=$(mktemp -d cp8m-signals.XXXXXX) || exit 99
trap 'rm -rf "$abs_top_builddir/$dir"; cd /; rm -rf "$work"' EXIT
cd "$dir" || exit 99
M=1048576

# Reads are slowed down (strace delays each pread64 by 50 ms, with one or
# two in flight, 2 GiB to read) so that the signal always lands mid-copy,
# however fast the disk, and however busy the machine (the copy would
# take 50 s and more).  A non-interactive shell starts background jobs
# with SIGINT ignored; the copy gets the default disposition back, as
# from a terminal.
slow () {
  trace -f -o /dev/null -e trace=pread64 -e inject=pread64:delay_exit=50000 \
    env --default-signal=INT "$@"
}

# signal_copy SIG PID: send SIG to the cp8M that the background job PID
# (a shell running strace) runs.
signal_copy () {
  _cp=$(descendant "$2" cp8M) && kill -"$1" "$_cp"
}

# started JOB: wait until the cp8M of the background job JOB has written
# data.  A new destination stays invisible until it is complete (an
# O_TMPFILE linked at the end), so its name cannot say the copy began.
started () {
  find_cp8m "$1"
  wait_progress "$cp"
}


head -c $((2048*M)) /dev/zero >big || fail "cannot make a 2 GiB file"
sum=$(cksum <big)
for sig in INT TERM; do
  rm -f copy
  slow cp8M --direct=always --buffer-size=1M --queue-depth=2 big copy &
  pid=$!
  started $pid
  signal_copy "$sig" $pid || fail "no cp8M to signal"
  wait $pid
  status=$?
  [ $status -ne 0 ] || fail "SIG$sig: the copy finished before the signal"
  [ ! -e copy ] || fail "SIG$sig left a partial destination ($(stat -c %s copy) bytes)"
done
[ "$(cksum <big)" = "$sum" ] || fail "the source was modified"

# An existing destination is overwritten, never removed.
echo old >existing
slow cp8M --buffer-size=1M --queue-depth=1 big existing &
pid=$!
started $pid
signal_copy TERM $pid || fail "no cp8M to signal"
wait $pid
[ $? -ne 0 ] || fail "existing destination: the copy finished before the signal"
[ -e existing ] || fail "an existing destination was removed"
rm -f big existing

# stopped_copy ARGS...: cp8M ARGS in the background (job $pid, its
# standard error in ./err), stopped (SIGSTOP, which strace sends at its
# second read of ./src) until the caller sends it SIGCONT ($cp is its
# pid): whatever the caller does meanwhile happens mid-copy.
stopped_copy () {
  rm -f "$work/stop.trace"
  trace -f -o "$work/stop.trace" -P "$PWD/src" -e trace=pread64 \
    -e inject=pread64:signal=SIGSTOP:when=2 cp8M "$@" 2>err &
  pid=$!
  stopped_at "$work/stop.trace" $pid
}

# The source shrinks, then grows, during the copy: as GNU cp, cp8M
# copies until a read finds the end of the file, and succeeds.  What
# was read before a shrink is kept (a prefix of the old contents, at
# least as long as what is left); a grown source is copied whole.
for change in shrink grow; do
  head -c $((64*M)) /dev/urandom >src
  cp src before || fail "cannot save the source"
  rm -f copy
  stopped_copy --direct=always --buffer-size=1M --queue-depth=1 src copy
  case $change in
    shrink) truncate -s $((3*M)) src ;;
    grow) head -c 4096 /dev/urandom >>src ;;
  esac
  kill -CONT "$cp"
  wait $pid
  status=$?
  [ $status -eq 0 ] || fail "source did $change: exit $status, expected 0 ($(cat err))"
  [ ! -s err ] || fail "source did $change: message: $(cat err)"
  [ -f copy ] || fail "source did $change: no destination"
  case $change in
    shrink)
      [ "$(stat -c %s copy)" -ge $((3*M)) ] &&
        cmp -s -n "$(stat -c %s copy)" before copy ||
        fail "source did shrink: the copy ($(stat -c %s copy) bytes) is not what was read" ;;
    grow)
      cmp -s src copy || fail "source did grow: the copy is not the grown source" ;;
  esac
done
rm -f before src

# Past the file size limit (ulimit -f, 10 MiB here) the kernel sends
# SIGXFSZ to the thread that writes and fails the write with EFBIG: an
# ordinary error of that file, as a full disk is, with GNU cp's words for
# a failed write (GNU cp 9.1 dies of SIGXFSZ, unless it is ignored).  A
# new destination is not left, the next operand is copied, exit 1,
# whichever thread writes: direct with several I/Os in flight, buffered.
# An existing destination is overwritten in place, as GNU cp does, and
# stays shorter than the source.
head -c $((20*M + 100)) /dev/urandom >src || exit 99
echo small >small
for opts in "--direct=always --buffer-size=1M --queue-depth=4" \
            "--direct=always" "--direct=never"; do
  rm -rf d && mkdir d || exit 99
  # shellcheck disable=SC2086
  expect 1 "cp8M: error writing 'd/src': File too large" \
    sh -c 'ulimit -f 20480 && exec cp8M "$@"' sh $opts src small d
  [ "$(entries d)" = small ] && cmp -s small d/small ||
    fail "ulimit -f, $opts: left $(entries d), expected small only"
  echo old >d/src
  ino=$(inode d/src)
  # shellcheck disable=SC2086
  expect 1 "cp8M: error writing 'd/src': File too large" \
    sh -c 'ulimit -f 20480 && exec cp8M "$@"' sh $opts src d/src
  [ "$(inode d/src)" = "$ino" ] && [ "$(size d/src)" -le $((10*M)) ] ||
    fail "ulimit -f, $opts, existing destination: $(size d/src) bytes"
done
exit 0
