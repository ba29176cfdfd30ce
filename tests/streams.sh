#!/bin/sh
# Streams (pipes, FIFOs) are written as the data arrives, as GNU cp
# writes them: a line from a slow writer is in the destination at once,
# and what was read is still there when cp8M is killed; a fast writer is
# still copied whole.
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
# The first line must be in the destination within 0.5 s of being
# written, long before the writer goes on.
{ echo hi; now_ms >wrote-hi; sleep 3; echo there; } | cp8M /dev/stdin out &
pid=$!
end=$(($(now_ms) + 10000))
until [ -s wrote-hi ]; do
  [ "$(now_ms)" -gt $end ] && fail "the writer did not start"
  sleep 0.01
done
wait_for out hi 2 || fail "2 s on, the destination holds '$(cat out 2>/dev/null)', not the first line"
ms=$(($(now_ms) - $(cat wrote-hi)))
[ "$ms" -le 500 ] || fail "the first line took $ms ms to reach the destination"
note "pipe: first line in the destination within $ms ms"
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
wait_for fout first 5 || fail "FIFO: the first line never arrived"
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
wait_for iout one 5 || fail "FIFO: the first line never arrived"
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
