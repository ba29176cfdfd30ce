#!/bin/sh
# --verify (issue 13):
# (a) plain copies pass, silently: files not a multiple of 4096 (direct
#     body and buffered tail), several buffers, an empty file, a sparse
#     file, --sparse=always, a stream source, a tree with -r;
# (b) tests/faultshim.so inverts a byte of the first write to the new
#     destination, after cp8M hashed it: "verification failed for 'DST'",
#     exit 1, nothing under the new name; an existing destination is left
#     shorter than the source (same inode); without --verify the same
#     shim makes a wrong copy and exit 0 (so the shim works);
# (c) the shim changes the destination just before it is read back:
#     verification failed too, also when it refuses direct I/O (the
#     check reads buffered and --debug says so);
# (d) a source that grows on its first read (the same shim):
#     exit 0, the notice "'s' changed while being copied; the copy
#     matches what was read", the grown contents;
# (e) --debug says how each file was checked ("verify: ...");
# (f) an existing destination its user cannot read back (nobody, mode
#     0200): "cannot verify 'DST': Permission denied", exit 1, the copy
#     kept complete; a new one (of mode 0204) is read back through its
#     own descriptor; a new one that cannot be read back at all (the
#     shim's FAULTSHIM_NOREREAD) is kept complete under its name, and a
#     --backup is not put back over it;
# (g) a mismatch on the copy of a stream (a FIFO fed by a writer, a pipe)
#     keeps what was read, whole;
# (h) without /proc (a mount namespace with none, or the shim's
#     FAULTSHIM_NOPROC) an existing destination and a new one are read
#     through their own descriptors (opened for reading too), both still
#     direct, and a changed byte is still caught.
# The stand-in builds of make platform-check (another system's direct
# I/O switch, no __linux__) run this test too: their re-read never goes
# through /proc, and is switched with directio () (a fake that takes it)
# or F_NOCACHE (which Linux refuses: buffered).
# The shim needs a dynamically linked cp8M: under make static-check the
# parts (b) to (d) are skipped (noted in the log).
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"

M=1048576
if grep -q '^#define HAVE_LIBXXHASH 1' "$abs_top_builddir/config.h"; then
  xxh=yes how=xxh3
else
  xxh=no how='byte by byte (built without libxxhash)'
fi
note "built with libxxhash: $xxh"
# How this build switches direct I/O on (the stand-in builds have no
# O_DIRECT), and so what --debug says of a re-read that is not refused.
if grep -q '^#define HAVE_DECL_O_DIRECT 1' "$abs_top_builddir/config.h"; then
  reread=direct
elif grep -q '^#define HAVE_DIRECTIO 1' "$abs_top_builddir/config.h"; then
  reread=direct
else
  reread='buffered (direct I/O refused: Invalid argument; the page cache may have answered)'
fi
linux=yes
grep -q '^#define HAVE_DECL_O_DIRECT 1' "$abs_top_builddir/config.h" ||
  linux=no
note "the re-read is $reread"

random_file a $((3*M + 1234))
random_file big $((9*M + 5))
: >empty
# Data, a 2 MiB hole, data, and a trailing hole.
random_file part 70000
dd if=part of=sparse bs=4096 conv=notrunc status=none &&
  dd if=part of=sparse bs=4096 seek=$((2*M/4096)) conv=notrunc status=none &&
  truncate -s $((5*M)) sparse || exit 99
head -c $((M + 7)) /dev/zero >zeros

# ---- (a) good copies pass silently ----
for opt in --direct=always --direct=never --direct=auto --sparse=always \
           --buffer-size=64K; do
  files='a empty sparse zeros'
  case $opt in --direct=always|--buffer-size=*) files="$files big" ;; esac
  for f in $files; do
    rm -f "$f.copy"
    expect 0 '' cp8M --verify $opt "$f" "$f.copy"
    cmp -s "$f" "$f.copy" || fail "--verify $opt $f: wrong copy"
  done
done
if [ $xxh = yes ]; then
  cat a | cp8M --verify /dev/stdin a.piped 2>"$work/err" ||
    fail "stream source: $(cat "$work/err")"
  cmp -s a a.piped || fail "stream source: wrong copy"
fi
mkdir -p tree/sub && cp a big empty sparse tree/ && cp a tree/sub/ || exit 99
expect 0 '' cp8M -r --verify tree tree.copy
diff -r tree tree.copy >/dev/null || fail "-r --verify: trees differ"
note "(a) good copies pass"

# ---- (e) --debug says how ----
debug_says () {   # WHAT PATTERN: the last run's stdout has a line PATTERN
  grep -qx "$2" "$work/.out" ||
    fail "$1: --debug did not say '$2' (got: $(grep verify "$work/.out"))"
}
rm -f a.copy
expect 0 '' cp8M --debug --verify --direct=always a a.copy
debug_says "direct" "verify: $how, $reread"
expect 0 '' cp8M --debug --verify a /dev/null
debug_says "/dev/null" "verify: no (the destination cannot be read back)"
rm -f a.piped
if [ $xxh = yes ]; then
  cat a | cp8M --debug --verify /dev/stdin a.piped >"$work/.out" 2>&1 ||
    fail "stream source with --debug failed"
  debug_says "stream" "verify: xxh3, .*"
else
  # Nothing to compare a stream's copy with: the check asked for cannot
  # be made, which is an error (the copy is kept).
  cat a | cp8M --debug --verify /dev/stdin a.piped >"$work/.out" \
    2>"$work/.err"
  [ $? -eq 1 ] && grep -qx "cp8M: cannot verify 'a.piped': a stream cannot be read again (built without libxxhash)" "$work/.err" ||
    fail "stream source without hashes: $(cat "$work/.err")"
  debug_says "stream" \
    "verify: no (a stream cannot be read again; built without libxxhash)"
  cmp -s a a.piped || fail "stream source without hashes: copy not kept"
fi
# copy_file_range moves the data (ext4 on this file system): no hashes.
rm -f a.copy
expect 0 '' cp8M --debug --verify --reflink=auto a a.copy
if grep -q '^copy offload: yes' "$work/.out"; then
  debug_says "offloaded" \
    "verify: byte by byte ($( [ $xxh = yes ] && echo 'data cloned or offloaded' || echo 'built without libxxhash')), .*"
fi
# Without --verify, no such line.
expect 0 '' cp8M --debug a a.copy2
! grep -q '^verify' "$work/.out" || fail "--debug without --verify says verify"
note "(e) --debug says how"

# ---- (f) a destination that cannot be read back ----
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  chmod 755 "$work" && mkdir nb && chown nobody:nogroup nb &&
    chmod 644 a || exit 99
  # An existing file nobody may write but not read: GNU cp copies into
  # it; the check cannot be made, which says so, and the copy stays.
  printf old >nb/x && chown nobody:nogroup nb/x && chmod 200 nb/x || exit 99
  ino=$(inode nb/x)
  for opt in --direct=always --direct=never; do
    expect 1 "cp8M: cannot verify 'nb/x': Permission denied" \
      as_nobody cp8M --verify $opt a nb/x
    cmp -s a nb/x || fail "unreadable existing destination $opt: not kept"
    [ "$(inode nb/x)" = "$ino" ] || fail "$opt: not the same inode"
  done
  expect 1 "cp8M: cannot verify 'nb/x': Permission denied" \
    as_nobody cp8M --debug --verify a nb/x
  debug_says "unreadable" "verify: no (the destination cannot be opened for reading: Permission denied)"
  # A new copy of a file others may read, whose owner may only write
  # (mode 0204), made by nobody: cp8M created it open for reading too,
  # and reads it back through that descriptor.
  cp a a204 && chmod 204 a204 || exit 99
  expect 0 '' as_nobody cp8M --debug --verify a204 nb/new
  debug_says "new, mode 0204" "verify: $how, $reread"
  cmp -s a nb/new || fail "new destination of mode 0204: wrong copy"
  [ "$(stat -c %a nb/new)" = 204 ] ||
    fail "new destination of mode 0204: mode $(stat -c %a nb/new)"
  # The other operands go on.
  cp a x && chmod 644 x || exit 99
  expect 1 "cp8M: cannot verify 'nb/x': Permission denied" \
    as_nobody cp8M --verify a204 x a nb/
  cmp -s a nb/a204 && cmp -s a nb/x && cmp -s a nb/a ||
    fail "the copies into nb/ differ"
  note "(f) a copy that cannot be read back is an error, and kept"
else
  note "(f) skipped: not root, or no setpriv"
fi

# ---- (h, real) no /proc at all ----
# A mount namespace whose /proc is an empty tmpfs: cp8M's second opens
# through /proc/self/fd find nothing, as where /proc is not mounted.
# (Not under AddressSanitizer, which needs /proc itself: it warns on
# stderr and LeakSanitizer aborts at the exit; FAULTSHIM_NOPROC tests the
# same path there.)
if [ "$(id -u)" -eq 0 ] && [ $linux = yes ] && ! sanitized &&
   unshare -m sh -c 'mount -t tmpfs -o size=64k none /proc' 2>/dev/null; then
  noproc () {
    unshare -m sh -c 'mount -t tmpfs -o size=64k none /proc && exec "$@"' \
      sh "$@"
  }
  rm -rf np && mkdir np && cp big np/old || exit 99
  ino=$(inode np/old)
  expect 0 '' noproc cp8M --debug --verify a np/new
  debug_says "no /proc, new" "verify: $how, direct"
  expect 0 '' noproc cp8M --debug --verify a np/old
  debug_says "no /proc, existing" "verify: $how, direct"
  cmp -s a np/new && cmp -s a np/old || fail "no /proc: wrong copies"
  [ "$(inode np/old)" = "$ino" ] || fail "no /proc: not the same inode"
  expect 0 '' noproc cp8M -r --verify --direct=never tree np/tree
  diff -r tree np/tree >/dev/null || fail "no /proc: trees differ"
  note "(h) without /proc, copies are read back all the same"
else
  note "(h, real) skipped: not root, not Linux, a sanitizer build, or no mount namespace"
fi

# ---- the shim ----
if ! shim_usable; then
  note "cp8M is static: LD_PRELOAD cannot reach it, (b) to (d) skipped"
  exit 0
fi
pre=$(shim_preload cp8M)

# ---- (b) a byte inverted on its way to the disk ----
fresh () { rm -rf "$1" && mkdir "$1" || exit 99; }
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
