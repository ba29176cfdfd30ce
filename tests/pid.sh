#!/bin/sh
# --pid signals only a cp8M copy (issue 51).  "cp8M --bwlimit=RATE
# --pid=PID" sends SIGUSR2, which ends most processes and which a
# program that waits for it (sigwait, signalfd) takes for its own
# purpose: a process whose mask blocks it is no proof of a cp8M.  A
# program that sigwaits is not signalled, nor a sleep (its mask blocking
# SIGUSR2 or not), nor the process of a thread ID given, nor anything
# when /proc or pidfds are missing, nor a process whose notice (the
# proof a copy holds, src/cp/limit.h) is unsealed, another PID's, cut
# short or another version's; an ended copy (a zombie too) is no process
# to change; a running copy is changed, and says so.
. "${abs_top_srcdir:-.}/tests/init.sh"

command -v python3 >/dev/null || skip "python3 missing"

# waiter MODE READY: a program that waits for SIGTERM with sigwait and
# then exits 0.  MODE sigwait: it blocks SIGUSR2 too, for a sigwait to
# come (during a sigwait the kernel shows the signals waited for as not
# blocked), and exits 3 if one is pending by then; MODE thread: a second
# thread blocks every signal, while the first takes SIGUSR2 as the
# default action has it (ends the process).  READY gets "PID TID" (TID:
# the thread's, or PID again) once the masks are set.  With TEXT (and
# SEAL), it first makes a notice as a copy does: a memfd named
# cp8M-bwlimit holding TEXT with %d for its PID, sealed unless SEAL is
# "open".
cat >waiter.py <<'EOF' || exit 99
import fcntl, os, signal, sys, threading
mode, ready = sys.argv[1], sys.argv[2]
if len(sys.argv) > 3:
    notice = os.memfd_create("cp8M-bwlimit", os.MFD_ALLOW_SEALING)
    os.write(notice, (sys.argv[3] % os.getpid()).encode())
    if sys.argv[4:] != ["open"]:
        fcntl.fcntl(notice, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SEAL
                    | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW
                    | fcntl.F_SEAL_WRITE)
later = {signal.SIGUSR2} if mode == "sigwait" else set()
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM} | later)
def say(tid):
    with open(ready + ".tmp", "w") as f:
        f.write("%d %d\n" % (os.getpid(), tid))
    os.rename(ready + ".tmp", ready)
def worker():
    signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    say(threading.get_native_id())
    threading.Event().wait()
if mode == "thread":
    threading.Thread(target=worker, daemon=True).start()
else:
    say(os.getpid())
signal.sigwait({signal.SIGTERM})
sys.exit(3 if later & signal.sigpending() else 0)
EOF

# start_waiter MODE [TEXT [SEAL]]: start one; sets pid and tid.
start_waiter () {
  rm -f ready
  _mode=$1
  shift
  python3 waiter.py "$_mode" ready "$@" &
  wait_for ready
  read -r pid tid <ready
}

# end_waiter WHAT: the waiter PID must still be there, and never have
# had SIGUSR2 (sent before cp8M exits: pending, if sent at all).
end_waiter () {
  kill -TERM "$pid"
  wait "$pid"
  _s=$?
  [ $_s -eq 0 ] || fail "$1: the waiter ended with status $_s (3: it took SIGUSR2, 140: killed by it)"
}

not_copy=": not a cp8M copy that takes a new limit"

# 1. A program that waits for SIGUSR2 with sigwait (its mask blocks it,
#    as a cp8M's does) is not signalled.
start_waiter sigwait
expect 1 "cp8M: cannot change the limit of process $pid$not_copy" \
  cp8M --bwlimit=1M --pid="$pid"
end_waiter "a sigwait program"

# 1b. The notice is checked whole: a copy's text but not sealed (it
#     could change), another PID's (a copy's child that kept it), or no
#     newline at the end, are no proof; another version's is named.
good='cp8M-bwlimit
version 1
pid %d
'
start_waiter sigwait "$good" open
expect 1 "cp8M: cannot change the limit of process $pid$not_copy" \
  cp8M --bwlimit=1M --pid="$pid"
end_waiter "an unsealed notice"
for text in 'cp8M-bwlimit
version 1
pid 1%d
' 'cp8M-bwlimit
version 1
pid %d'; do
  start_waiter sigwait "$text"
  expect 1 "cp8M: cannot change the limit of process $pid$not_copy" \
    cp8M --bwlimit=1M --pid="$pid"
  end_waiter "a notice: $text"
done
start_waiter sigwait 'cp8M-bwlimit
version 2
pid %d
'
expect 1 "cp8M: cannot change the limit of process $pid: a cp8M copy that takes new limits another way (another version of cp8M)" \
  cp8M --bwlimit=1M --pid="$pid"
end_waiter "a notice of another version"
# The proof is what counts: the same program with a copy's notice is
# sent the limit (so the refusals above are the notice's doing).
start_waiter sigwait "$good"
expect 0 "" cp8M --bwlimit=1M --pid="$pid"
[ "$(cat .out)" = "cp8M: bandwidth limit of PID $pid set to 1.00 MiB/s" ] ||
  fail "what --pid said to a proven process: $(cat .out)"
kill -TERM "$pid"
wait "$pid"
[ $? -eq 3 ] || fail "a process with a copy's notice was not sent SIGUSR2"

# 2. A thread ID is refused: the signal would go to its whole process,
#    here to a thread that dies of it.
start_waiter thread
[ "$tid" != "$pid" ] || fail "the waiter's thread has the process's ID"
expect 1 "cp8M: cannot change the limit of process $tid: a thread of process $pid, not a process" \
  cp8M --bwlimit=1M --pid="$tid"
end_waiter "a thread ID"

# end_sleep PID WHAT: the sleep PID must still be there, with no SIGUSR2
# pending (sent before cp8M exits, so already pending if sent at all).
end_sleep () {
  grep -q '^ShdPnd:[[:space:]]*0*$' "/proc/$1/status" ||
    fail "$2: a signal is pending: $(grep Pnd "/proc/$1/status")"
  kill -TERM "$1"
  wait "$1"
  _s=$?
  [ $_s -eq 143 ] || fail "$2: the sleep ended with status $_s (140: SIGUSR2)"
}

# 3. A plain process, its mask blocking SIGUSR2 or not.
sleep 600 &
plain=$!
expect 1 "cp8M: cannot change the limit of process $plain$not_copy" \
  cp8M --bwlimit=1M --pid=$plain
end_sleep $plain "a sleep"
perl -MPOSIX -e 'sigprocmask (SIG_BLOCK, POSIX::SigSet->new (SIGUSR2))
                   or die; exec @ARGV' sleep 600 &
blocked=$!
_i=0
until grep -q '^SigBlk:.*[1-9a-f]' /proc/$blocked/status 2>/dev/null &&
      [ "$(cat /proc/$blocked/comm)" = sleep ]; do
  [ $_i -lt 1000 ] || fail "the sleep never blocked SIGUSR2"
  sleep 0.01; _i=$((_i + 1)); done
expect 1 "cp8M: cannot change the limit of process $blocked$not_copy" \
  cp8M --bwlimit=1M --pid=$blocked

# 4. Without /proc (a tmpfs mounted over it, in a mount namespace of
#    its own) nothing can be proven: nothing is sent.  Without pidfds
#    (pidfd_open failing with ENOSYS, as before Linux 5.3) the same.
sleep 600 &
plain=$!
# (Not under AddressSanitizer, which needs /proc itself: LeakSanitizer
# aborts at the exit.)
if [ "$(id -u)" -eq 0 ] && ! sanitized && unshare -m true 2>/dev/null; then
  expect 1 "cp8M: cannot change the limit of process $plain: /proc is not mounted, so the process cannot be checked" \
    unshare -m sh -c 'mount -t tmpfs none /proc && exec "$@"' sh \
      cp8M --bwlimit=1M --pid=$plain
else
  note "not root, no mount namespace, or a sanitized build: the case without /proc left out"
fi
if command -v strace >/dev/null; then
  expect 1 "cp8M: cannot change the limit of process $plain: this system has no pidfd_open (Linux 5.3 or later has), so the process cannot be pinned" \
    trace -f -qq -o /dev/null -e trace=pidfd_open \
      -e inject=pidfd_open:error=ENOSYS cp8M --bwlimit=1M --pid=$plain
else
  note "no strace: the case without pidfds left out"
fi
end_sleep $plain "no /proc or no pidfd"
end_sleep $blocked "a sleep blocking SIGUSR2"

# 5. A running copy is changed, and says so; once it has ended (a
#    zombie not yet waited for, then reaped) it is refused.  Its parent
#    is a sleep, which never waits for it (the shell would).
head -c 8M /dev/urandom >big
sh -c 'cp8M --bwlimit=1M --stats=json big copy 2>err &
       echo $! >cpid.tmp && mv cpid.tmp cpid && exec sleep 600' &
keeper=$!
wait_for cpid
copy=$(cat cpid)
# Under way once it has written (the copy has no name until complete).
_i=0
while [ "$(awk '/^wchar/ { print $2 }' /proc/$copy/io)" -lt 200000 ]; do
  [ $_i -lt 3000 ] || fail "the copy never began"
  sleep 0.01; _i=$((_i + 1)); done
expect 0 "" cp8M --bwlimit=2M --pid=$copy
[ "$(cat .out)" = "cp8M: bandwidth limit of PID $copy set to 2.00 MiB/s" ] ||
  fail "what --pid said: $(cat .out)"
expect 0 "" cp8M --bwlimit=0 --pid=$copy
[ "$(cat .out)" = "cp8M: bandwidth limit of PID $copy lifted" ] ||
  fail "what --pid=0 said: $(cat .out)"
_i=0
until [ "$(awk '{ print $3 }' /proc/$copy/stat)" = Z ]; do
  [ $_i -lt 3000 ] || fail "the copy never ended"
  sleep 0.01; _i=$((_i + 1)); done
expect 1 "cp8M: cannot change the limit of process $copy: No such process" \
  cp8M --bwlimit=1M --pid=$copy
kill $keeper
wait $keeper
cmp big copy || fail "the copy differs"
grep -q '"bwlimit":0,"changed":0,"errors":0,' err ||
  fail "the copy's report: $(cat err)"
# Reaped (by init, or a subreaper, once its parent is gone).
_i=0
while [ -e /proc/$copy ]; do
  [ $_i -lt 3000 ] || fail "the copy was never reaped"
  sleep 0.01; _i=$((_i + 1)); done
expect 1 "cp8M: cannot change the limit of process $copy: No such process" \
  cp8M --bwlimit=1M --pid=$copy
exit 0
