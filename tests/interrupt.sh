#!/bin/sh
# SIGINT, SIGTERM and SIGHUP in the middle of a copy (issue 10), and
# every other signal whose default action ends a process (issue 38):
#
# - a new destination never appears under its name while it is written
#   (an unnamed O_TMPFILE; on a FUSE mount that refuses O_TMPFILE, one
#   hidden temporary ".cp8M-XXXXXX" in the same directory), and after the
#   signal nothing is left: neither the name nor a temporary;
# - an existing destination is overwritten in place: afterwards it is the
#   same inode, shorter than the source;
# - with --backup (simple and numbered) the backup is put back under the
#   destination's name, old contents, and no backup name is left;
# - cp8M dies of the signal it was sent;
# - writing past the file size limit (ulimit -f) is an ordinary failure
#   of that file, not a fatal SIGXFSZ: nothing is left of it.
#
# Reads are slowed down by strace (50 ms per read, 1 MiB buffers) so that
# the signal lands mid-copy however fast the disk; the test waits until
# cp8M has written some data (its I/O counters) before signalling it.
# The source is big enough that the copy would go on for 6 s more, so
# that it is still under way when the signal comes on a busy machine too
# (the copies are all signalled: its size costs nothing but its making).
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
need_fuse
command -v strace >/dev/null || skip "strace is not installed"
env --default-signal=INT true 2>/dev/null ||
  skip "env --default-signal is missing (coreutils < 8.31)"

M=1048576
mount_disk_fuse 1024
cd "$disk" || exit 99
random_file src $((256*M + 511))
random_file old $((M + 5))
sum=$(cksum <src)

# Does the FUSE mount refuse O_TMPFILE (bindfs does)?  Then a new
# destination there goes through a hidden temporary name.
fuse_tmpfile=$(o_tmpfile "$fuse")
note "O_TMPFILE on bindfs: $fuse_tmpfile"

# slow ARGS...: "cp8M ARGS" with every read delayed.  A non-interactive
# shell starts background jobs with SIGINT and SIGQUIT ignored; the copy
# gets the default dispositions back, as from a terminal.
slow () {
  trace -f -o /dev/null -e trace=pread64,preadv2,read \
    -e inject=pread64,preadv2:delay_exit=50000 \
    env --default-signal cp8M --buffer-size=1M --queue-depth=2 "$@"
}

# start ARGS...: slow cp8M ARGS in the background; sets job and cp (its
# pid) once it has written 2 MiB.
start () {
  slow "$@" 2>"$work/err" &
  job=$!
  find_cp8m $job
  wait_progress "$cp" $((2*M))
}

# finish SIG WHAT: send SIG to the running copy, wait for it; it must not
# have succeeded.
finish () {
  kill -"$1" "$cp" || fail "$2: no cp8M to signal"
  wait $job
  status=$?
  [ $status -ne 0 ] || fail "$2: the copy finished before SIG$1"
}

# while_copying DIR WHAT: the new destination is not visible in DIR.
while_copying () {
  _e=$(entries "$1")
  case $_e in
    '') [ "$1" != "$fuse/out" ] || [ "$fuse_tmpfile" != no ] ||
          fail "$2: no hidden temporary on a mount without O_TMPFILE" ;;
    .cp8M-??????)
      is_hidden_temp "$_e" || fail "$2: '$_e' visible while copying" ;;
    *) fail "$2: '$_e' visible in the directory while copying" ;;
  esac
}

for sig in INT TERM HUP; do
  # New destinations: invisible while written, nothing left after.
  for place in "$disk:always" "$disk:never" "$fuse:never" "$fuse:always"; do
    dir=${place%:*}/out mode=${place##*:}
    what="SIG$sig, new destination on $(basename "${place%:*}"), --direct=$mode"
    rm -rf "$dir" && mkdir "$dir" || exit 99
    start --direct="$mode" src "$dir/dst"
    while_copying "$dir" "$what"
    seen=$(entries "$dir")
    finish $sig "$what"
    [ -z "$(entries "$dir")" ] ||
      fail "$what: left $(entries "$dir") (exit $status)"
    note "$what: ${seen:-nothing} visible while copying, nothing left"
  done

  # An existing destination: overwritten in place, shorter than the
  # source afterwards.
  for mode in always never; do
    what="SIG$sig, existing destination, --direct=$mode"
    rm -rf out && mkdir out && cp old out/dst || exit 99
    ino=$(inode out/dst)
    start --direct=$mode src out/dst
    finish $sig "$what"
    [ "$(entries out)" = dst ] || fail "$what: left $(entries out)"
    [ "$(inode out/dst)" = "$ino" ] || fail "$what: the destination was replaced"
    [ "$(size out/dst)" -lt "$(size src)" ] ||
      fail "$what: $(size out/dst) bytes left, not shorter than the source"
    note "$what: $(size out/dst) bytes left"
  done

  # With a backup: the old file back under its name, no backup left.
  for backup in simple numbered; do
    what="SIG$sig, --backup=$backup"
    rm -rf out && mkdir out && cp old out/dst || exit 99
    start --backup=$backup src out/dst
    finish $sig "$what"
    [ "$(entries out)" = dst ] || fail "$what: left $(entries out), expected dst only"
    cmp -s old out/dst ||
      fail "$what: dst does not hold its old contents ($(size out/dst) bytes)"
  done
done

# The other signals that end a process by default (issue 38).
#
# caught PID: every signal whose default action ends a process, but
# SIGKILL, has a handler in the process PID (bit N-1 of the SigCgt mask
# in /proc/PID/status for signal N).  Those without a name (32 and 33)
# are the C library's own; SIGUSR1 asks for a status line and SIGUSR2
# brings a new --bwlimit (below): both are waited for, not caught.
caught () {
  _cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status")
  [ ${#_cgt} -eq 16 ] || fail "cannot read the caught signals of $1"
  _lo=$((0x$(echo "$_cgt" | cut -c9-16))) _hi=$((0x$(echo "$_cgt" | cut -c1-8)))
  # The shell names signals as glibc does (SIGRTMIN 34); musl, the other
  # C library cp8M is built with, keeps 32 to 34 for itself.
  _libc_rtmin=34
  [ "$cp8m_libc" = glibc ] || _libc_rtmin=35
  _n=1
  while _name=$(kill -l $_n 2>/dev/null); do
    if [ $_n -ge 32 ] && [ $_n -lt $_libc_rtmin ]; then
      _n=$((_n + 1))
      continue
    fi
    if [ $_n -le 32 ]; then
      _bit=$((_lo >> (_n - 1) & 1))
    else
      _bit=$((_hi >> (_n - 33) & 1))
    fi
    case $_name in
      ""|[0-9]*|KILL|STOP|CHLD|CONT|TSTP|TTIN|TTOU|URG|WINCH|USR1|USR2) ;;
      *) [ $_bit -eq 1 ] || fail "SIG$_name is not caught: it would leave a half-made copy" ;;
    esac
    _n=$((_n + 1))
  done
}

# One run each, with --backup on the mount without O_TMPFILE:
# afterwards the old file must be back under its name and nothing else
# left (no hidden temporary).  SIGXFSZ sent by another process is one of
# them.  The first run also gets SIGUSR1 first, which must print a status
# line and let the copy go on, and a plain SIGUSR2, which must change
# nothing.  A sanitizer build keeps its own handler
# of SIGSEGV.
ulimit -c 0   # SIGQUIT, SIGABRT, SIGSEGV would dump core
fatal="QUIT PIPE ALRM XCPU XFSZ ABRT RTMIN+5"
sanitized || fatal="$fatal SEGV"
for sig in $fatal; do
  what="SIG$sig, --backup, new destination on fuse"
  rm -rf "$fuse/out" && mkdir "$fuse/out" && cp old "$fuse/out/dst" || exit 99
  start --backup src "$fuse/out/dst"
  if [ "$sig" = QUIT ]; then
    caught "$cp"
    kill -USR1 "$cp"
    _i=0
    until grep -q ' written in ' "$work/err"; do
      _i=$((_i + 1))
      [ $_i -lt 1000 ] || fail "no status line after SIGUSR1"
      sleep 0.01
    done
    kill -0 "$cp" 2>/dev/null || fail "SIGUSR1 ended the copy"
    # A plain SIGUSR2 (kill, not cp8M --pid's sigqueue) brings no limit
    # and must not end the copy either.
    kill -USR2 "$cp"
    kill -USR1 "$cp"
    _i=0
    until [ "$(grep -c ' written in ' "$work/err")" -ge 2 ]; do
      _i=$((_i + 1))
      [ $_i -lt 1000 ] || fail "no second status line after SIGUSR2"
      sleep 0.01
    done
    kill -0 "$cp" 2>/dev/null || fail "SIGUSR2 ended the copy"
    grep -q 'limit' "$work/err" && fail "a plain SIGUSR2 set a limit: $(cat "$work/err")"
  fi
  seen=$(entries "$fuse/out")
  finish "$sig" "$what"
  [ "$(kill -l $status)" = "$sig" ] ||
    fail "$what: exit $status, not killed by SIG$sig"
  [ "$(entries "$fuse/out")" = dst ] ||
    fail "$what: left $(entries "$fuse/out"), expected dst only"
  cmp -s old "$fuse/out/dst" ||
    fail "$what: dst does not hold its old contents ($(size "$fuse/out/dst") bytes)"
  note "$what: $seen while copying, dst with its old contents after"
done

# Past the file size limit (ulimit -f, 2 MiB here) the kernel sends
# SIGXFSZ to the writer and the write fails: an error of that file, as
# GNU cp reports it when SIGXFSZ is ignored, whose hidden temporary is
# removed; the next operand is copied, exit 1.
for mode in always never; do
  rm -rf "$fuse/out" && mkdir "$fuse/out" || exit 99
  expect 1 "cp8M: error writing '$fuse/out/src': File too large" \
    sh -c 'ulimit -f 4096 && exec cp8M "$@"' sh --direct=$mode src old "$fuse/out"
  [ "$(entries "$fuse/out")" = old ] && cmp -s old "$fuse/out/old" ||
    fail "ulimit -f, --direct=$mode: left $(entries "$fuse/out"), expected old only"
done
[ "$(cksum <src)" = "$sum" ] || fail "the source was modified"
exit 0
