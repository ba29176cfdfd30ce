#!/bin/sh
# Streams (pipes, FIFOs) are written as the data arrives, as GNU cp
# writes them: a line from a slow writer is in the destination while the
# writer holds back the rest, and what was read is still there when cp8M
# is killed; a fast writer is still copied whole.  No time is measured:
# each step waits for the one before it (generous timeouts only end a
# test that failed), so a slow or busy machine passes as a fast one does.
. "${abs_top_srcdir:-.}/tests/init.sh"

now_ms () { echo $(($(date +%s%N) / 1000000)); }

# wait_for FILE TEXT SECONDS: poll until FILE holds exactly TEXT (fail
# after SECONDS).
wait_for () {
  _end=$(($(now_ms) + $3 * 1000))
  until [ -e "$1" ] && [ "$(cat "$1")" = "$2" ]; do
    [ "$(now_ms)" -gt $_end ] && return 1
    sleep 0.01
  done
}

# The issue's case: (echo hi; sleep; echo there) | cp8M /dev/stdin out.
# The writer sends its second line only once the test has seen the first
# in the destination (or after 60 s, the test failed by then): the first
# line can be there only if cp8M wrote it as it arrived.
{ echo hi; wait_for seen yes 60; echo there; } | cp8M /dev/stdin out &
pid=$!
wait_for out hi 30 ||
  fail "the destination holds '$(cat out 2>/dev/null)', not the first line, while the writer holds back the second"
echo yes >seen
wait $pid || fail "the pipe copy failed"
[ "$(cat out)" = "hi
there" ] || fail "the pipe copy holds '$(cat out)'"

# A FIFO named on the command line, and SIGKILL while the writer waits:
# what was read stays in the destination (nothing else could give it
# back).
mkfifo fifo
cp8M fifo fout &
pid=$!
{ echo first; sleep 30; } >fifo &
writer=$!
wait_for fout first 30 || fail "FIFO: the first line never arrived"
kill -KILL $pid
wait $pid 2>/dev/null
kill $writer 2>/dev/null
wait $writer 2>/dev/null
[ "$(cat fout)" = first ] || fail "FIFO: after SIGKILL the destination holds '$(cat fout)'"

# SIGINT too leaves what was read, as GNU cp leaves it (background jobs
# start with SIGINT ignored: give it back its default, as a terminal
# would).
env --default-signal=INT cp8M fifo iout &
pid=$!
{ echo one; sleep 30; } >fifo &
writer=$!
wait_for iout one 30 || fail "FIFO: the first line never arrived"
kill -INT $pid
wait $pid
status=$?
kill $writer 2>/dev/null
wait $writer 2>/dev/null
[ $status -eq 130 ] || fail "SIGINT: exit status $status"
[ "$(cat iout)" = one ] || fail "SIGINT: the destination holds '$(cat iout)'"

# A fast writer: many buffers' worth, in one piece, identical.
head -c 50000000 /dev/urandom >big
cat big | cp8M --debug /dev/stdin bout >debug || fail "fast pipe copy failed"
cmp -s big bout || fail "fast pipe copy differs"
grep -q "written as the stream arrives" debug ||
  fail "--debug does not say how the stream was written: $(cat debug)"
# Into an existing file.
cat big | cp8M /dev/stdin bout || fail "pipe into an existing file failed"
cmp -s big bout || fail "pipe into an existing file differs"
exit 0
