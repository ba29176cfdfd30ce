#!/bin/sh
# --verify (issue 13) against copies that tests/faultshim.so corrupts
# (tests/verify.sh has the others):
# (b) the shim inverts a byte of the first write to the new destination,
#     after cp8M hashed it: "verification failed for 'DST'", exit 1,
#     nothing under the new name; an existing destination is left
#     shorter than the source (same inode); without --verify the same
#     shim makes a wrong copy and exit 0 (so the shim works);
# (c) the shim changes the destination just before it is read back:
#     verification failed too, also when it refuses direct I/O (the
#     check reads buffered and --debug says so);
# (d) a source that grows on its first read (the same shim):
#     exit 0, the notice "'s' changed while being copied; the copy
#     matches what was read", the grown contents;
# (f) a new copy that cannot be read back at all (the shim's
#     FAULTSHIM_NOREREAD) is kept complete under its name, and a
#     --backup is not put back over it;
# (g) a mismatch on the copy of a stream (a FIFO fed by a writer, a pipe)
#     keeps what was read, whole;
# (h) without /proc (the shim's FAULTSHIM_NOPROC) an existing
#     destination and a new one are read through their own descriptors
#     (opened for reading too), both still direct, and a changed byte is
#     still caught.
# The stand-in builds of make platform-check run this test too (see
# tests/verify.sh).  The shim needs a dynamically linked cp8M: against a
# static one (make static-check) the test is skipped (77).
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
need_shim
. "$abs_top_srcdir/tests/verify-lib.sh"
pre=$(shim_preload cp8M)

# ---- (b) a byte inverted on its way to the disk ----
for case in '--direct=always a' '--direct=never a' '--buffer-size=64K big'; do
  set -- $case
  opt=$1 f=$2
  fresh d
  expect 1 "cp8M: verification failed for 'd/$f'" \
    env LD_PRELOAD="$pre" FAULTSHIM_FLIP="$work/d/" \
      cp8M --verify $opt "$f" d/
  [ -z "$(entries d)" ] || fail "$opt $f: left '$(entries d)' behind"
  # Existing destination, overwritten in place: left short.
  cp big "d/$f" && ino=$(inode "d/$f") || exit 99
  expect 1 "cp8M: verification failed for 'd/$f'" \
    env LD_PRELOAD="$pre" FAULTSHIM_FLIP="$work/d/" \
      cp8M --verify $opt "$f" d/
  [ "$(inode "d/$f")" = "$ino" ] || fail "$opt $f: not the same inode"
  [ "$(size "d/$f")" -lt "$(size "$f")" ] ||
    fail "$opt $f: existing destination not shorter than the source"
done
if [ $xxh = yes ]; then
  # (g) A stream source is checked against its hashes; its copy keeps
  # what was read, whole (as any stream's copy that fails), with the
  # flipped byte that made the check fail.
  fresh d
  cat a | env LD_PRELOAD="$pre" FAULTSHIM_FLIP="$work/d/" \
    cp8M --verify /dev/stdin d/p 2>"$work/err"
  [ $? -eq 1 ] && grep -qx "cp8M: verification failed for 'd/p'" "$work/err" ||
    fail "stream source, flipped: $(cat "$work/err")"
  [ "$(size d/p)" = "$(size a)" ] ||
    fail "pipe source, flipped: $(size d/p) bytes kept of $(size a)"
  rm -f fifo && mkfifo fifo || exit 99
  cat a >fifo &
  writer=$!
  expect 1 "cp8M: verification failed for 'd/f'" \
    env LD_PRELOAD="$pre" FAULTSHIM_FLIP="$work/d/" cp8M --verify fifo d/f
  wait $writer
  [ "$(size d/f)" = "$(size a)" ] ||
    fail "FIFO source, flipped: $(size d/f) bytes kept of $(size a)"
  cmp -s -i 1 a d/f ||
    fail "FIFO source, flipped: the copy is not what was read"
fi
# Without --verify the shim really corrupts the copy, and nothing sees it.
fresh d
expect 0 '' env LD_PRELOAD="$pre" FAULTSHIM_FLIP="$work/d/" cp8M a d/
! cmp -s a d/a || fail "the flip shim did not change the copy"
note "(b) a byte changed on its way to the disk is caught"

# ---- (c) the destination changes before it is read back ----
# A new file, and an existing one, are opened again through /proc, or,
# where there is none (the stand-in builds), read through a copy of the
# descriptor they were written through (opened for reading too).
for opt in --direct=always --direct=never; do
  fresh d
  expect 1 "cp8M: verification failed for 'd/a'" \
    env LD_PRELOAD="$pre" FAULTSHIM_CHANGE="$work/d/" \
      cp8M --verify $opt a d/
  [ -z "$(entries d)" ] || fail "change $opt: left '$(entries d)' behind"
  cp big d/a || exit 99
  expect 1 "cp8M: verification failed for 'd/a'" \
    env LD_PRELOAD="$pre" FAULTSHIM_CHANGE="$work/d/" \
      cp8M --verify $opt a d/
  [ "$(size d/a)" -lt "$(size a)" ] ||
    fail "change $opt: existing destination not shorter than the source"
done
if [ $linux = yes ]; then
  # The same when the destination refuses direct I/O: read buffered.
  fresh d
  expect 0 '' env LD_PRELOAD="$pre" FAULTSHIM_NODIRECT="$work/d/" \
    cp8M --debug --verify a d/
  debug_says "no direct" \
    "verify: $how, buffered (direct I/O refused: Invalid argument; the page cache may have answered)"
  fresh d
  expect 1 "cp8M: verification failed for 'd/a'" \
    env LD_PRELOAD="$pre" FAULTSHIM_NODIRECT="$work/d/" \
      FAULTSHIM_CHANGE="$work/d/" cp8M --verify a d/
fi
note "(c) a destination changed before the check is caught"

# ---- (f, shim) a new copy that cannot be read back at all ----
# It is complete, and nothing showed it wrong: it gets its name, and a
# --backup of the file it replaces stays a backup.
fresh d
expect 1 "cp8M: cannot verify 'd/a': Input/output error" \
  env LD_PRELOAD="$pre" FAULTSHIM_NOREREAD="$work/d/" cp8M --verify a d/
cmp -s a d/a || fail "unreadable new copy: not kept under its name"
printf old >d/a || exit 99
expect 1 "cp8M: cannot verify 'd/a': Input/output error" \
  env LD_PRELOAD="$pre" FAULTSHIM_NOREREAD="$work/d/" \
    cp8M --verify --backup=simple a d/
cmp -s a d/a || fail "unreadable new copy with --backup: not kept"
[ "$(cat d/a~)" = old ] || fail "unreadable new copy: the backup is gone"
note "(f) a new copy that cannot be read back is kept"

# ---- (h, shim) no /proc: FAULTSHIM_NOPROC ----
# Every open through /proc/self/fd fails as where /proc is not mounted:
# a destination, existing or new (unnamed), is read back through a copy
# of its own descriptor, opened for reading too; both read back direct,
# and what changed them is caught.
if [ $linux = yes ]; then
  for opt in --direct=always --direct=never; do
    fresh d
    cp big d/a || exit 99
    for to in d/a d/b; do   # existing, new
      expect 0 '' env LD_PRELOAD="$pre" FAULTSHIM_NOPROC=1 \
        cp8M --debug --verify $opt a $to
      debug_says "no /proc $opt $to" "verify: $how, direct"
    done
    cmp -s a d/a && cmp -s a d/b || fail "no /proc $opt: wrong copies"
    cp big d/a || exit 99
    # (An existing file is read back through a copy of its descriptor,
    # opened for reading too: a byte changed on its way is what it meets.)
    expect 1 "cp8M: verification failed for 'd/a'" \
      env LD_PRELOAD="$pre" FAULTSHIM_NOPROC=1 FAULTSHIM_FLIP="$work/d/" \
        cp8M --verify $opt a d/
    [ "$(size d/a)" -lt "$(size a)" ] ||
      fail "no /proc, changed $opt: not shorter than the source"
    rm -f d/b
    expect 1 "cp8M: verification failed for 'd/b'" \
      env LD_PRELOAD="$pre" FAULTSHIM_NOPROC=1 FAULTSHIM_FLIP="$work/d/" \
        cp8M --verify $opt a d/b
    [ "$(entries d)" = a ] || fail "no /proc, flipped $opt: left '$(entries d)'"
  done
  note "(h) without /proc, changes are caught"
fi

# ---- (d) a source that grows while it is copied ----
random_file extra 5000
for opt in --direct=always --direct=never; do
  cp big s && rm -f s.copy || exit 99
  expect 0 "cp8M: 's' changed while being copied; the copy matches what was read" \
    env LD_PRELOAD="$pre" FAULTSHIM_SRC="$work/s" FAULTSHIM_APPEND=extra \
      cp8M --verify $opt s s.copy
  cat big extra | cmp -s - s.copy || fail "grown source $opt: wrong copy"
done
# Without --verify it is not said (GNU cp says nothing either).
cp big s && rm -f s.copy || exit 99
expect 0 '' env LD_PRELOAD="$pre" FAULTSHIM_SRC="$work/s" \
  FAULTSHIM_APPEND=extra cp8M s s.copy
note "(d) a changed source is reported, the copy kept"
exit 0
