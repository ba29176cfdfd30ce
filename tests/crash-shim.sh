#!/bin/sh
# Faults injected by tests/faultshim.so under issue 10's rules
# ("crash-safe destinations"; tests/crash-faults.sh has the rest):
#
# - close() of a destination failing with EIO (NFS reports write errors
#   there) is a failure: exit 1, a message naming the destination, a new
#   destination gone (no hidden temporary either).  Also when only the
#   engine's own O_DIRECT reopen fails to close, and through the hidden
#   temporary name of a FUSE mount without O_TMPFILE.
# - a source whose direct reads come back short (its size was a guess)
#   and whose next direct write is refused: a correct copy or an error,
#   never exit 0 with wrong bytes; an existing destination whose direct
#   writes are refused part way, killed at each of its first writes, is
#   shorter than the source or complete.
# - a source that grows or shrinks on the first read of its data (done
#   by the shim, the same way under GNU cp and cp8M): exit 0, the same
#   destination as GNU cp's, the source's final contents when it only
#   grew, and --debug says "source changed during the copy".
#
# The shim needs a dynamically linked cp8M: against a static one (make
# static-check) the test is skipped (77).
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
need_fuse
command -v strace >/dev/null || skip "strace is not installed"
need_shim
pre_cp8m=$(shim_preload cp8M) pre_gnu=$(shim_preload "$GNU_CP")

M=1048576
mount_disk_fuse 256
cd "$disk" || exit 99
random_file s16 $((16*M + 3000))
random_file old $((M + 5))

# ---- close() fails ----

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

# ---- short direct reads, then refused direct writes ----

# FAULTSHIM_DIRECT_EOF makes the source's O_DIRECT reads end early;
# FAULTSHIM_DIRECT_WRITE_EINVAL refuses direct writes past an offset (an
# unaligned short piece is refused by the kernel itself).
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

# An existing destination whose direct writes are refused part way: the
# refused ranges are redone buffered, and the chunk that ends the file
# must still come last.  Killed at the Nth positioned write with flags
# (pwritev2: the direct ones, then the redone ranges), the file is
# shorter than the source (or complete), never full-sized and wrong.
# Four pieces of 1 MiB, all in flight at once, the third refused: its
# read takes long enough that the fourth (the one that ends the file) is
# always held back by then, so the order of the two redone writes is
# what the kills test (with 128 KiB pieces that was a race).
random_file m1 $((4*M))
for when in 1 2 3; do
  what="direct writes refused past 2400000, existing destination, SIGKILL at pwritev2 $when"
  echo old >ex
  env FAULTSHIM_DIRECT_WRITE_EINVAL=2400000 LD_PRELOAD="$pre_cp8m" \
    strace -f -qq -o /dev/null -e trace=pwritev2 \
    -e inject=pwritev2:signal=SIGKILL:when=$when \
    cp8M --direct=always --buffer-size=1M --queue-depth=4 m1 ex \
    2>/dev/null
  cmp -s m1 ex || [ "$(size ex)" -lt "$(size m1)" ] ||
    fail "$what: ex has the source's size and differs ($(cmp m1 ex 2>&1))"
  note "$what: $(size ex) bytes left"
done
rm -f m1 ex

# ---- the source changes on the first read of its data ----

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
exit 0
