#!/bin/sh
# Failures and changing sources under issue 10's rules ("crash-safe
# destinations"):
#
# - close() of a destination failing with EIO (NFS reports write errors
#   there) is a failure: exit 1, a message naming the destination, a new
#   destination gone (no hidden temporary either).  Also when only the
#   engine's own O_DIRECT reopen fails to close, and through the hidden
#   temporary name of a FUSE mount without O_TMPFILE.
# - a source whose direct reads come back short (its size was a guess)
#   and whose next direct write is refused: a correct copy or an error,
#   never exit 0 with wrong bytes.
# - a source that grows or shrinks on the first read of its data (done
#   by tests/faultshim.so, the same way under GNU cp and cp8M): exit 0,
#   the same destination as GNU cp's, the source's final contents when
#   it only grew, and --debug says "source changed during the copy".
#   Then a real process appending while 256 MiB are copied: exit 0, a
#   prefix of the source's final contents, at least its first size.
# - ENOSPC (a full tmpfs) and EIO (strace) on an existing destination:
#   exit 1, the same inode, shorter than the source; a new one gone.
# - a failed copy with --backup puts the backup back.
# - --debug says how the destination was written ("destination: ...").
#
# The shim needs a dynamically linked cp8M: under make static-check its
# parts are skipped (noted in the log), the others still run.
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
need_fuse
command -v strace >/dev/null || skip "strace is not installed"

M=1048576
mount_loop ext4 1536 disk || fail "cannot set up ext4"; disk=$mp
mount_tmpfs 16 full || fail "cannot set up tmpfs"; full=$mp
mkdir "$disk/under" || exit 99
mount_bindfs_direct "$disk/under" fuse || fail "cannot set up bindfs"; fuse=$mp
cd "$disk" || exit 99
random_file s16 $((16*M + 3000))
random_file old $((M + 5))

# fresh DIR: an empty DIR.
fresh () {
  rm -rf "$1" && mkdir "$1" || fail "cannot make $1"
}

# failed WHAT DEST: the last copy exited 1 and its standard error ($work
# /err) has a line "cp8M: ... 'DEST' ...: Input/output error" (or the
# cause in $cause).
failed () {
  libc_words "$work/err"
  [ "$status" -eq 1 ] || fail "$1: exit $status, expected 1 ($(cat "$work/err"))"
  grep -q "^cp8M: .*'$2'.*: ${cause:-Input/output error}\$" "$work/err" ||
    fail "$1: no message naming '$2' (got: $(cat "$work/err"))"
}

if shim_usable; then
  shim=yes
  pre_cp8m=$(shim_preload cp8M) pre_gnu=$(shim_preload "$GNU_CP")
else
  shim=no
  note "cp8M is static: LD_PRELOAD cannot reach it, the shim's checks are skipped"
fi

# ---- close() fails ----

if [ $shim = yes ]; then
  for mode in never always; do
    what="close EIO, new destination, --direct=$mode"
    fresh out
    env FAULTSHIM_CLOSE_EIO=$disk/out/ LD_PRELOAD="$pre_cp8m" \
      cp8M --direct=$mode s16 out/dst 2>"$work/err"
    status=$?
    failed "$what" out/dst
    [ -z "$(entries out)" ] || fail "$what: left $(entries out)"
    note "$what: $(cat "$work/err")"
  done

  what="close EIO of the O_DIRECT descriptor only"
  fresh out
  env FAULTSHIM_CLOSE_EIO=$disk/out/ FAULTSHIM_CLOSE_DIRECT_ONLY=1 \
    LD_PRELOAD="$pre_cp8m" cp8M --direct=always s16 out/dst 2>"$work/err"
  status=$?
  failed "$what" out/dst
  [ -z "$(entries out)" ] || fail "$what: left $(entries out)"
  note "$what: $(cat "$work/err")"

  what="close EIO, new destination through a hidden temporary (bindfs)"
  fresh "$fuse/out"
  env FAULTSHIM_CLOSE_EIO=$fuse/out/ \
    LD_PRELOAD="$pre_cp8m" cp8M --direct=never s16 "$fuse/out/dst" 2>"$work/err"
  status=$?
  failed "$what" "$fuse/out/dst"
  [ -z "$(entries "$fuse/out")" ] || fail "$what: left $(entries "$fuse/out")"

  what="close EIO, existing destination"
  fresh out && cp old out/dst
  env FAULTSHIM_CLOSE_EIO=$disk/out/ LD_PRELOAD="$pre_cp8m" \
    cp8M s16 out/dst 2>"$work/err"
  status=$?
  failed "$what" out/dst
  [ "$(entries out)" = dst ] || fail "$what: left $(entries out)"

  what="close EIO with --backup=simple"
  fresh out && cp old out/dst
  env FAULTSHIM_CLOSE_EIO=$disk/out/ \
    LD_PRELOAD="$pre_cp8m" cp8M --backup=simple s16 out/dst 2>"$work/err"
  status=$?
  failed "$what" out/dst
  [ "$(entries out)" = dst ] || fail "$what: left $(entries out), expected dst only"
  cmp -s old out/dst || fail "$what: dst does not hold its old contents"
fi

# ---- short direct reads, then refused direct writes ----

# FAULTSHIM_DIRECT_EOF makes the source's O_DIRECT reads end early;
# FAULTSHIM_DIRECT_WRITE_EINVAL refuses direct writes past an offset (an
# unaligned short piece is refused by the kernel itself).
if [ $shim = yes ]; then
  for fault in "$((5*M))" "$((5*M)) $((7*M))" "$((5*M + 12288)) $((5*M))" \
               "$((5*M + 1000))" "$((5*M + 1000)) $((5*M))"; do
    set -- $fault
    what="direct reads end at $1${2:+, direct writes refused past $2}"
    fresh out
    env FAULTSHIM_SRC=$disk/s16 FAULTSHIM_DIRECT_EOF=$1 \
      FAULTSHIM_DIRECT_WRITE_EINVAL=${2:-} \
      LD_PRELOAD="$pre_cp8m" \
      cp8M --direct=always --buffer-size=1M --queue-depth=4 s16 out/dst \
        2>"$work/err"
    status=$?
    if [ $status -eq 0 ]; then
      cmp -s s16 out/dst ||
        fail "$what: exit 0 with a wrong copy ($(size out/dst) of $(size s16) bytes, $(cmp s16 out/dst 2>&1))"
      note "$what: a correct copy"
    else
      [ $status -eq 1 ] || fail "$what: exit $status"
      [ -z "$(entries out)" ] || fail "$what: exit 1, but left $(entries out)"
      note "$what: exit 1 ($(cat "$work/err"))"
    fi
  done
fi

# An existing destination whose direct writes are refused part way: the
# refused ranges are redone buffered, and the chunk that ends the file
# must still come last.  Killed at the Nth positioned write with flags
# (pwritev2: the direct ones, then the redone ranges), the file is
# shorter than the source (or complete), never full-sized and wrong.
if [ $shim = yes ]; then
  random_file m1 $((512*1024))
  for when in 1 2 3; do
    what="direct writes refused past 300000, existing destination, SIGKILL at pwritev2 $when"
    echo old >ex
    env FAULTSHIM_DIRECT_WRITE_EINVAL=300000 LD_PRELOAD="$pre_cp8m" \
      strace -f -qq -o /dev/null -e trace=pwritev2 \
      -e inject=pwritev2:signal=SIGKILL:when=$when \
      cp8M --direct=always --buffer-size=128K --queue-depth=4 m1 ex \
      2>/dev/null
    cmp -s m1 ex || [ "$(size ex)" -lt "$(size m1)" ] ||
      fail "$what: ex has the source's size and differs ($(cmp m1 ex 2>&1))"
    note "$what: $(size ex) bytes left"
  done
  rm -f m1 ex
fi

# ---- the source changes on the first read of its data ----

if [ $shim = yes ]; then
  random_file extra.small 5000
  random_file extra.big $((9*M + 1))
  for change in APPEND=extra.small APPEND=extra.big TRUNCATE=$((5*M + 100)) \
                TRUNCATE=100 TRUNCATE=0; do
    # GNU cp first (copy_file_range), on a fresh copy of the source.
    cp s16 s || exit 99
    rm -f gnu.dst
    env FAULTSHIM_SRC="$disk/s" "FAULTSHIM_$change" \
      LD_PRELOAD="$pre_gnu" "$GNU_CP" s gnu.dst 2>"$work/err" ||
      fail "$change: GNU cp failed: $(cat "$work/err")"
    case $change in
      APPEND=*) cat s16 "${change#APPEND=}" >grown
                cmp -s s grown || fail "$change: the shim did not append" ;;
      TRUNCATE=*) [ "$(size s)" -eq "${change#TRUNCATE=}" ] ||
                    fail "$change: the shim did not truncate" ;;
    esac
    for opt in --direct=always --direct=never --direct=auto --reflink=auto; do
      what="source $change on the first read, cp8M $opt"
      cp s16 s || exit 99
      rm -f ours.dst
      env FAULTSHIM_SRC="$disk/s" "FAULTSHIM_$change" \
        LD_PRELOAD="$pre_cp8m" cp8M --debug $opt s ours.dst >"$work/out" 2>"$work/err"
      status=$?
      [ $status -eq 0 ] || fail "$what: exit $status ($(cat "$work/err"))"
      cmp -s gnu.dst ours.dst ||
        fail "$what: not what GNU cp made ($(size ours.dst) bytes, GNU $(size gnu.dst))"
      case $change in
        APPEND=*) cmp -s grown ours.dst || fail "$what: not the grown source" ;;
      esac
      grep -q 'source changed during the copy' "$work/out" "$work/err" ||
        fail "$what: --debug did not say \"source changed during the copy\""
    done
    note "source $change on the first read: cp8M (4 ways) made what GNU cp made, $(size gnu.dst) bytes"
  done
  rm -f s gnu.dst ours.dst grown extra.small extra.big
fi

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
