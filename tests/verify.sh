#!/bin/sh
# --verify (issue 13), without the fault shim (tests/verify-shim.sh has
# the copies it corrupts):
# (a) plain copies pass, silently: files not a multiple of 4096 (direct
#     body and buffered tail), several buffers, an empty file, a sparse
#     file, --sparse=always, a stream source, a tree with -r;
# (e) --debug says how each file was checked ("verify: ...");
# (f) an existing destination its user cannot read back (nobody, mode
#     0200): "cannot verify 'DST': Permission denied", exit 1, the copy
#     kept complete; a new one (of mode 0204) is read back through its
#     own descriptor;
# (h) without /proc (a mount namespace with none) an existing
#     destination and a new one are read through their own descriptors
#     (opened for reading too), both still direct.
# The stand-in builds of make platform-check (another system's direct
# I/O switch, no __linux__) run this test too: their re-read never goes
# through /proc, and is switched with directio () (a fake that takes it)
# or F_NOCACHE (which Linux refuses: buffered).
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
. "$abs_top_srcdir/tests/verify-lib.sh"

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

exit 0
