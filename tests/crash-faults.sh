#!/bin/sh
# Failures and changing sources under issue 10's rules ("crash-safe
# destinations"; tests/crash-shim.sh has the faults the LD_PRELOAD shim
# injects):
#
# - a real process appending while 256 MiB are copied: exit 0, a prefix
#   of the source's final contents, at least its first size.
# - ENOSPC (a full tmpfs) and EIO (strace) on an existing destination:
#   exit 1, the same inode, shorter than the source; a new one gone.
# - a failed copy with --backup puts the backup back.
# - --debug says how the destination was written ("destination: ...").
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
need_fuse
command -v strace >/dev/null || skip "strace is not installed"

M=1048576
mount_disk_fuse 1536
mount_tmpfs 16 full || fail "cannot set up tmpfs"; full=$mp
cd "$disk" || exit 99
random_file s16 $((16*M + 3000))
random_file old $((M + 5))

# A real process appends while 256 MiB are copied.
random_file big $((256*M))
for mode in always never; do
  what="a process appending during the copy, --direct=$mode"
  cp big g || exit 99
  first=$(size g)
  rm -f g.copy appender.stop
  (n=0
   while [ ! -e appender.stop ] && [ $n -lt 2000 ]; do
     head -c 65536 /dev/urandom >>g || break
     n=$((n + 1))
   done) &
  appender=$!
  # Let it start: the copy must see the file grow.
  until [ "$(size g)" -gt "$first" ]; do sleep 0.01; done
  first=$(size g)
  cp8M --direct=$mode g g.copy 2>"$work/err"
  status=$?
  touch appender.stop
  wait $appender
  [ $status -eq 0 ] || fail "$what: exit $status ($(cat "$work/err"))"
  got=$(size g.copy)
  [ "$got" -ge "$first" ] || fail "$what: $got bytes copied, the source had $first at the start"
  cmp -s -n "$got" g g.copy || fail "$what: the copy is not a prefix of the source"
  note "$what: $got bytes copied ($first at the start, $(size g) in the end)"
  rm -f g g.copy
done
rm -f big

# ---- ENOSPC and EIO ----

# ENOSPC on a 16 MiB tmpfs: a 32 MiB file (preallocation fails) and a
# sparse 64 MiB file with 24 MiB of data (no preallocation: the disk
# fills part way through).
random_file s32 $((32*M))
truncate -s $((64*M)) sparse
for i in 0 3 6; do
  dd if=/dev/urandom of=sparse bs=1M seek=$((i*9)) count=8 conv=notrunc status=none
done
cause="No space left on device"
for f in s32 sparse; do
  for mode in always never; do
    what="ENOSPC, existing destination, $f, --direct=$mode"
    fresh "$full/out" && cp old "$full/out/dst"
    ino=$(inode "$full/out/dst")
    cp8M --direct=$mode $f "$full/out/dst" 2>"$work/err"
    status=$?
    failed "$what" "$full/out/dst"
    [ "$(entries "$full/out")" = dst ] || fail "$what: left $(entries "$full/out")"
    [ "$(inode "$full/out/dst")" = "$ino" ] || fail "$what: the destination was replaced"
    [ "$(size "$full/out/dst")" -lt "$(size $f)" ] ||
      fail "$what: $(size "$full/out/dst") bytes left, not shorter than the source"
    note "$what: $(size "$full/out/dst") bytes left"

    what="ENOSPC, new destination, $f, --direct=$mode"
    fresh "$full/out"
    cp8M --direct=$mode $f "$full/out/dst" 2>"$work/err"
    status=$?
    failed "$what" "$full/out/dst"
    [ -z "$(entries "$full/out")" ] || fail "$what: left $(entries "$full/out")"
  done
done
cause=
rm -f s32 sparse

# EIO on the third write of each thread (strace counts per thread),
# after the first data is in.
eio () {
  trace -f -o /dev/null -e trace=pwrite64,pwritev2 \
    -e inject=pwrite64,pwritev2:error=EIO:when=3 \
    cp8M --buffer-size=1M --queue-depth=2 "$@" 2>"$work/err"
}
for mode in always never; do
  what="EIO, existing destination, --direct=$mode"
  fresh out && cp old out/dst
  ino=$(inode out/dst)
  eio --direct=$mode s16 out/dst
  status=$?
  failed "$what" out/dst
  [ "$(entries out)" = dst ] || fail "$what: left $(entries out)"
  [ "$(inode out/dst)" = "$ino" ] || fail "$what: the destination was replaced"
  [ "$(size out/dst)" -lt "$(size s16)" ] ||
    fail "$what: $(size out/dst) bytes left, not shorter than the source"
  note "$what: $(size out/dst) bytes left"

  what="EIO, new destination, --direct=$mode"
  fresh out
  eio --direct=$mode s16 out/dst
  status=$?
  failed "$what" out/dst
  [ -z "$(entries out)" ] || fail "$what: left $(entries out)"

  for backup in simple numbered; do
    what="EIO with --backup=$backup, --direct=$mode"
    fresh out && cp old out/dst
    eio --direct=$mode --backup=$backup s16 out/dst
    status=$?
    failed "$what" out/dst
    [ "$(entries out)" = dst ] || fail "$what: left $(entries out), expected dst only"
    cmp -s old out/dst || fail "$what: dst does not hold its old contents"
  done
done

# ---- --debug names the way the destination was written ----

for place in "$disk/out:new" "$fuse/out:new" "$disk/out:existing"; do
  dir=${place%:*} kind=${place##*:}
  fresh "$dir"
  [ $kind = new ] || cp old "$dir/dst"
  cp8M --debug s16 "$dir/dst" >"$work/out" 2>"$work/err" ||
    fail "--debug copy failed: $(cat "$work/err")"
  cmp -s s16 "$dir/dst" || fail "--debug copy differs"
  line=$(grep '^destination: ' "$work/out" "$work/err" | head -n 1 | sed 's/^[^:]*://')
  [ -n "$line" ] || fail "--debug printed no 'destination: ' line for a $kind file in $dir"
  note "--debug, $kind file on $(basename "$(dirname "$dir")"): $line"
done
exit 0
