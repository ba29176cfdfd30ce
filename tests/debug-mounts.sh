#!/bin/sh
# --debug's first line where FICLONE works (xfs with reflink=1, btrfs) and
# where it cannot (ext4), on loop mounts; tests/debug-line.sh has the
# cases that need no mount.
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"
need_mounts
command -v strace >/dev/null || skip "strace is missing (./install-deps)"

mount_loop xfs 320 xfs || fail "cannot set up xfs"; m_xfs=$mp
mount_loop btrfs 200 btrfs || fail "cannot set up btrfs"; m_btrfs=$mp
mount_loop ext4 64 ext4 || fail "cannot set up ext4"; m_ext4=$mp

M=1048576
# run WANT ARGS...: cp8M --debug ARGS (in the current directory) under
# strace, successfully; its GNU line must be WANT.  The trace is in log.
run () {
  _want=$1
  shift
  rm -f d
  trace -o "$work/log" -e trace=ioctl,copy_file_range \
    cp8M --debug "$@" >"$work/.out" 2>"$work/.err" ||
    fail "$(pwd): cp8M --debug $*: $(cat "$work/.err")"
  _got=$(grep '^copy offload: ' "$work/.out")
  [ "$_got" = "$_want" ] || fail "$(pwd): cp8M --debug $*: '$_got', want '$_want'"
}

for m in "$m_xfs" "$m_btrfs"; do
  cd "$m" || fail "cannot enter $m"
  random_file f $((3*M + 5))
  truncate -s $((8*M)) sp
  dd if=/dev/urandom of=sp bs=1M seek=2 count=1 conv=notrunc status=none
  # A clone: no data copy at all, offload and sparse detection unknown.
  for src in f sp; do
    run "copy offload: unknown, reflink: yes, sparse detection: unknown" \
      --reflink=auto $src d
    cmp $src d || fail "$m: clone of $src differs"
    grep -q 'FICLONE, [0-9]*) = 0$' "$work/log" || fail "$m: FICLONE did not clone: $(cat "$work/log")"
    ! grep -q copy_file_range "$work/log" || fail "$m: copy_file_range after a clone"
    run "copy offload: unknown, reflink: yes, sparse detection: unknown" \
      --reflink=always $src d
    cmp $src d || fail "$m: --reflink=always clone of $src differs"
  done
  # An existing destination is cloned over, in place.
  echo old >e
  run "copy offload: unknown, reflink: yes, sparse detection: unknown" \
    --reflink=auto f e
  cmp f e || fail "$m: clone over an existing file differs"
  # The default does not clone.
  run "copy offload: avoided, reflink: no, sparse detection: no" f d
  ! grep -q FICLONE "$work/log" || fail "$m: cloned by default"
  # From a pipe, the clone is tried and refused.
  head -c 5000 /dev/urandom >p
  rm -f d
  cat p | trace -o "$work/log" -e trace=ioctl,copy_file_range \
    cp8M --debug --reflink=auto /dev/stdin d >"$work/.out" || fail "$m: pipe"
  [ "$(grep '^copy offload: ' "$work/.out")" = \
    "copy offload: unsupported, reflink: unsupported, sparse detection: no" ] ||
    fail "$m: pipe: $(cat "$work/.out")"
  cmp p d || fail "$m: pipe copy differs"
done

# ext4: FICLONE cannot, copy_file_range moves the data (per extent for a
# sparse file, whose holes stay); across filesystems, neither.
cd "$m_ext4" || fail "cannot enter $m_ext4"
random_file f $((3*M + 5))
truncate -s $((8*M)) sp
dd if=/dev/urandom of=sp bs=1M seek=2 count=1 conv=notrunc status=none
run "copy offload: yes, reflink: unsupported, sparse detection: no" --reflink=auto f d
cmp f d || fail "ext4: offloaded copy differs"
run "copy offload: yes, reflink: unsupported, sparse detection: SEEK_HOLE" --reflink=auto sp d
cmp sp d && [ "$(holemap sp)" = "$(holemap d)" ] || fail "ext4: offloaded sparse copy differs"
[ "$(grep -c '^copy_file_range' "$work/log")" -eq 1 ] ||
  fail "ext4: one data extent, not one copy_file_range: $(cat "$work/log")"
run "copy offload: avoided, reflink: unsupported, sparse detection: zeros" \
  --reflink=auto --sparse=always f d
: >empty
run "copy offload: unknown, reflink: unsupported, sparse detection: no" --reflink=auto empty d
rm -f d
expect 1 "cp8M: failed to clone 'd' from 'f': Operation not supported" \
  cp8M --debug --reflink=always f d
[ "$(grep '^copy offload: ' "$work/.out")" = \
  "copy offload: unknown, reflink: unsupported, sparse detection: unknown" ] ||
  fail "ext4: --reflink=always: $(cat "$work/.out")"
[ ! -e d ] || fail "ext4: --reflink=always left its destination"
# Across filesystems (xfs to ext4): whatever the kernel answers, the words
# follow it.
run_cross () {
  rm -f d
  trace -o "$work/log" -e trace=ioctl,copy_file_range \
    cp8M --debug --reflink=auto "$m_xfs/f" d >"$work/.out" || fail "xfs to ext4"
  cmp "$m_xfs/f" d || fail "xfs to ext4: copy differs"
  case $(grep '^copy_file_range' "$work/log" | tail -n 1) in
    *") = -1 "*) o=unsupported ;;
    *") = 0") o=unknown ;;
    *) o=yes ;;
  esac
  [ "$(grep '^copy offload: ' "$work/.out")" = \
    "copy offload: $o, reflink: unsupported, sparse detection: no" ] ||
    fail "xfs to ext4: $(cat "$work/.out") / $(cat "$work/log")"
  note "xfs to ext4: $(grep '^copy offload: ' "$work/.out")"
}
run_cross
cd "$work" || exit 99
# A pipe with --sparse=always onto xfs, which allocates ahead of its
# writes: the zeros skipped must not keep that space (GNU punches them),
# so the copy takes the blocks GNU's takes.  (Reviewer's finding: 120
# blocks against GNU's 24 before the holes were punched.)
cd "$m_xfs" || fail "cannot enter $m_xfs"
{ head -c 1000 /dev/urandom; head -c 70000 /dev/zero; head -c 513 /dev/urandom
  head -c 9000 /dev/zero; printf x; head -c 100000 /dev/zero; } >pat ||
  fail "cannot make pat"
cat pat | cp8M --sparse=always /dev/stdin ours || fail "pipe onto xfs"
cat pat | "$GNU_CP" --sparse=always /dev/stdin gnus || fail "GNU: pipe onto xfs"
sync
cmp pat ours || fail "pipe onto xfs: the copy differs"
[ "$(stat -c %b ours)" -le "$(stat -c %b gnus)" ] ||
  fail "pipe onto xfs: $(stat -c %b ours) blocks, GNU cp $(stat -c %b gnus)"
note "pipe with --sparse=always onto xfs: $(stat -c %b ours) blocks (GNU cp: $(stat -c %b gnus))"
cd "$work" || fail "cannot enter $work"

exit 0
