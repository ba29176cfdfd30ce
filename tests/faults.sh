#!/bin/sh
# Faults: injected EIO and EINTR, ENOSPC on a full tmpfs and a small ext4,
# a read-only destination, an unreadable source, SIGKILL mid-copy.  Each
# failure names the file and the cause, exits 1, leaves the source as it
# was, still copies the other operands and leaves no partial destination
# that cp8M created.
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
need_mounts
command -v strace >/dev/null || skip "strace is not installed"

M=1048576
mount_loop ext4 400 disk || fail "cannot set up ext4"; disk=$mp
mount_loop ext4 64 small || fail "cannot set up a small ext4"; small=$mp
mount_tmpfs 16 full || fail "cannot set up tmpfs"; full=$mp
mount_loop ext4 64 ro || fail "cannot set up ext4 for read-only"; ro=$mp

cd "$disk" || exit 99
head -c $((64*M + 511)) /dev/urandom >big
echo one >s1
echo two >s2
sum=$(cksum <big)

# fault_case NAME WANT_MSG CP8M_ARGS...: run "cp8M ARGS big s1 s2 out"
# (plus the strace options in $inject); expect exit 1, the message
# WANT_MSG (a grep -x pattern) on stderr, big unchanged, s1 and s2 copied,
# no out/big left.
fault_case () {
  _name=$1 _want=$2
  shift 2
  rm -rf out && mkdir out
  if [ -n "$inject" ]; then
    # shellcheck disable=SC2086
    trace -f -o /dev/null $inject cp8M "$@" big s1 s2 out 2>err
  else
    cp8M "$@" big s1 s2 out 2>err
  fi
  _status=$?
  libc_words err
  [ $_status -eq 1 ] || fail "$_name: exit $_status, expected 1 ($(cat err))"
  grep -qx "$_want" err || fail "$_name: message was: $(cat err)"
  [ "$(cksum <big)" = "$sum" ] || fail "$_name: the source changed"
  cmp s1 out/s1 && cmp s2 out/s2 || fail "$_name: the other operands were not copied"
  [ ! -e out/big ] || fail "$_name: a partial destination was left"
  note "$_name: $(cat err)"
}

# EIO on a read and on a write, direct (every worker's first call) and
# buffered (the second call of the only thread).  -P limits the injection
# to calls on that file (strace counts them per thread).  A new
# destination is written unnamed (O_TMPFILE, "out/#INODE (deleted)") until
# it is complete, so no -P can name it: writes are injected on every
# file, and big's data comes first in each thread (s1 and s2 are later
# calls of the main thread).
in="-P $disk/big" out=
inject="$in -e trace=pread64 -e inject=pread64:error=EIO:when=1"
fault_case "EIO on read, direct" "cp8M: error reading 'big': Input/output error" --direct=always
inject="$out -e trace=pwrite64 -e inject=pwrite64:error=EIO:when=1"
fault_case "EIO on write, direct" "cp8M: error writing 'out/big': Input/output error" --direct=always
inject="$in -e trace=pread64 -e inject=pread64:error=EIO:when=2"
fault_case "EIO on read, buffered" "cp8M: error reading 'big': Input/output error" --direct=never
inject="$out -e trace=pwrite64 -e inject=pwrite64:error=EIO:when=2"
fault_case "EIO on write, buffered" "cp8M: error writing 'out/big': Input/output error" --direct=never
inject=

# EINTR everywhere it can happen: retried, the copy is exact.  Reads are
# limited to big's with -P (the dynamic loader reads libc with pread64);
# writes are not: the new destination is unnamed until complete (see
# above), and only the copy writes with these calls.
for mode in always never; do
  for calls in "-P $disk/big -e trace=pread64,preadv2 -e inject=pread64,preadv2:error=EINTR:when=2+3" \
               "-e trace=pwrite64,pwritev2 -e inject=pwrite64,pwritev2:error=EINTR:when=2+3"; do
    rm -f copy
    # shellcheck disable=SC2086
    trace -f -o /dev/null $calls cp8M --direct=$mode big copy ||
      fail "EINTR (--direct=$mode, $calls): copy failed"
    cmp big copy || fail "EINTR (--direct=$mode, $calls): copy differs"
  done
done

# ENOSPC: preallocation fails before any data moves.
for target in "$full" "$small"; do
  head -c $((100*M)) /dev/urandom >huge
  rm -rf "$target/out" && mkdir "$target/out"
  trace -f -y -o trace.log -e trace=fallocate,pwrite64 \
    cp8M huge s1 "$target/out" 2>err
  status=$?
  [ $status -eq 1 ] || fail "ENOSPC on $target: exit $status"
  grep -qx "cp8M: error writing '$target/out/huge': No space left on device" err ||
    fail "ENOSPC on $target: message was: $(cat err)"
  grep -q '^[0-9 ]*fallocate(.*= -1 ENOSPC' trace.log ||
    fail "ENOSPC on $target: preallocation did not fail first"
  # Writes into out/ up to the failed preallocation: the destination's
  # descriptor reads out/huge, or out/#INODE (deleted) while unnamed.
  [ "$(sed '/fallocate(.*= -1 ENOSPC/q' trace.log |
       grep -c '^[0-9 ]*pwrite64([0-9]*<[^>]*/out/[^>/]*>')" -eq 0 ] ||
    fail "ENOSPC on $target: data was written before the failure"
  [ ! -e "$target/out/huge" ] || fail "ENOSPC on $target: partial file left"
  cmp s1 "$target/out/s1" || fail "ENOSPC on $target: the other operand was not copied"
  note "ENOSPC on $(basename "$target"): $(cat err)"
done
rm -f huge

# A read-only destination: the same words as GNU cp.
mount -o remount,ro "$ro" || fail "cannot remount read-only"
cp8M s1 "$ro/x" 2>err
status=$?
"$GNU_CP" s1 "$ro/x" 2>gnu.err
[ $status -eq 1 ] || fail "read-only destination: exit $status"
sed 's/^[^:]*: //' err >ours.msg
sed 's/^[^:]*: //' gnu.err >gnu.msg
cmp -s ours.msg gnu.msg || fail "read-only destination: '$(cat err)' vs GNU '$(cat gnu.err)'"
note "read-only destination: $(cat err)"

# An unreadable source, as an unprivileged user.
chmod 755 "$disk"
echo secret >unreadable && chmod 000 unreadable
mkdir -p nbout && chmod 777 nbout
setpriv --reuid=nobody --regid=nogroup --clear-groups \
  "$abs_top_builddir/src/cp8M" unreadable s1 nbout 2>err
status=$?
[ $status -eq 1 ] || fail "unreadable source: exit $status"
grep -q "cannot open 'unreadable' for reading: Permission denied" err ||
  fail "unreadable source: message was: $(cat err)"
cmp s1 nbout/s1 || fail "unreadable source: the other operand was not copied"

# SIGKILL cannot be caught, but the destination's name appears only once
# its copy is complete: a copy killed half way leaves no file under the
# name (at most a hidden temporary .cp8M-XXXXXX where O_TMPFILE is
# refused; on ext4 nothing at all).  tests/kill-torture.sh kills at
# random moments; this is the one mid-copy case: strace sends the
# SIGKILL at the tenth write (of a thread: strace counts them per
# thread), about 10 MiB into the 64, however fast or busy the machine.
rm -rf kd && mkdir kd
trace -f -o /dev/null -e trace=pwrite64 \
  -e inject=pwrite64:signal=SIGKILL:when=10 \
  cp8M --direct=always --buffer-size=1M --queue-depth=1 big kd/killed \
  2>/dev/null
left=$(entries kd)
for f in $left; do
  is_hidden_temp "$f" || fail "SIGKILL mid-copy left '$f' (expected no file under its name)"
done
note "SIGKILL mid-copy: left ${left:-nothing}"
[ "$(cksum <big)" = "$sum" ] || fail "SIGKILL: the source changed"
exit 0
