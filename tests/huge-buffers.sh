#!/bin/sh
# The data buffers are asked for as transparent huge pages when they come
# in whole huge pages (src/engine/buffers.c): with scattered 4 KiB pages
# each I/O reached the device in twice as many requests, and the copy ran
# at 0.7 of the rate.  A copy is held mid-way (its source a
# FIFO that stays open) while its memory map is read.
. "${abs_top_srcdir:-.}/tests/init.sh"
[ -r /proc/self/smaps ] || skip "no /proc/PID/smaps"
grep -q '^VmFlags:' /proc/self/smaps || skip "smaps shows no VmFlags"
[ -e /sys/kernel/mm/transparent_hugepage/enabled ] ||
  skip "no transparent huge pages in this kernel"
grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled &&
  skip "transparent huge pages are turned off (never)"
[ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size)" = 2097152 ] ||
  skip "huge pages here are not of 2 MiB"

# regions ARGS...: copy a FIFO with cp8M ARGS, holding it open once the
# copy has read most of a first MiB (all but what the pipe holds: its
# buffer exists by then); print the running copy's mappings of at least
# 2 MiB and those flagged for huge pages, each as "START SIZE_KIB
# FLAGS...".
regions () {
  rm -f fifo out written
  mkfifo fifo || fail "cannot make a FIFO"
  # The writer's sleep is killed below; it only keeps the FIFO open.
  sh -c 'head -c 1048576 /dev/urandom && : >written && exec sleep 60' >fifo &
  writer=$!
  # One buffer in flight: the smallest budget that still gives it its
  # full size.
  cp8M --queue-depth=1 "$@" fifo out &
  copier=$!
  i=0
  until [ -e written ]; do
    [ $i -lt 200 ] || { kill "$writer" "$copier"; fail "cp8M $* did not read its FIFO"; }
    sleep 0.05
    i=$((i + 1))
  done
  awk '/^[0-9a-f]+-[0-9a-f]+ / { split ($1, r, "-"); start = r[1] }
       /^Size:/ { size = $2 }
       /^VmFlags:/ { if (size >= 2048 || / hg( |$)/) { $1 = ""; print start, size, $0 } }' \
    "/proc/$copier/smaps" >regions.txt
  kill "$writer"
  wait "$copier" || fail "cp8M $* fifo out failed"
  wait "$writer" 2>/dev/null
  cat regions.txt
}

# Where the first buffer lies: flagged for huge pages ("hg"), starting on
# a 2 MiB boundary, and at least the buffer's size.
regions >default.txt
awk '/ hg( |$)/ && $2 >= 8192 && $1 ~ /[02468ace]00000$/ { ok = 1 }
     END { exit !ok }' default.txt || {
  cat default.txt >&2
  fail "no 8 MiB buffer asked for as huge pages"
}
note "buffer regions: $(grep -c ' hg' default.txt) flagged hg"

# 4 MiB buffers are whole huge pages too; 1 MiB and 3 MiB ones are not
# (nothing is flagged for them).
regions --buffer-size=4M >4m.txt
grep -q ' hg' 4m.txt || { cat 4m.txt >&2; fail "4 MiB buffers are not asked for as huge pages"; }
for size in 1M 3M; do
  regions --buffer-size=$size >$size.txt
  ! grep -q ' hg' $size.txt || {
    cat $size.txt >&2
    fail "--buffer-size=$size: a region was asked for as huge pages"
  }
done
exit 0
