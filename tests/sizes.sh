#!/bin/sh
# Copies of every interesting size are byte-identical to the source, and
# get the same mode as GNU cp gives its copy, new or overwritten.
. "${abs_top_srcdir:-.}/tests/init.sh"

M=1048576
sizes="0 1 41 4095 4096 4097 $((8*M - 1)) $((8*M)) $((8*M + 1)) $((100*M + 511))"
modes="644 600 755 444 4755 2750 1777 0"

i=0
for size in $sizes; do
  random_file src "$size"
  # Rotate through the modes so every size meets a different one.
  set -- $modes
  shift $((i % $#))
  mode=$1
  i=$((i + 1))
  chmod "$mode" src
  rm -f ours gnu
  cp8M src ours || fail "cp8M failed at size $size"
  "$GNU_CP" src gnu || fail "GNU cp failed at size $size"
  chmod u+r src ours gnu
  cmp src ours || fail "copy of $size bytes differs from its source"
  [ "$(stat -c %s ours)" -eq "$size" ] || fail "copy of $size has wrong size"
  chmod "$mode" src
  [ "$(stat -c %a ours)" = "$(stat -c %a gnu)" ] ||
    fail "mode $(stat -c %a ours) after copying a $mode source; GNU cp gives $(stat -c %a gnu)"
done

# Modes under another umask, and an existing destination: truncated and
# rewritten in place, its own mode kept.
random_file src 5000
for mode in 644 777 4755 600; do
  chmod "$mode" src
  rm -f ours gnu
  (umask 077 && cp8M src ours && "$GNU_CP" src gnu) || fail "umask 077 copy"
  [ "$(stat -c %a ours)" = "$(stat -c %a gnu)" ] ||
    fail "umask 077, mode $mode: $(stat -c %a ours) vs GNU's $(stat -c %a gnu)"
done
chmod 644 src
random_file ours $((3*M))
random_file gnu $((3*M))
chmod 606 ours gnu
ln ours ours.link
ino=$(stat -c %i ours)
cp8M src ours && "$GNU_CP" src gnu || fail "overwrite failed"
cmp src ours || fail "overwritten copy differs"
[ "$(stat -c %i ours)" = "$ino" ] || fail "destination replaced, not overwritten"
cmp ours ours.link || fail "hard link to the destination not updated"
[ "$(stat -c %a ours)" = "$(stat -c %a gnu)" ] && [ "$(stat -c %a ours)" = 606 ] ||
  fail "overwritten destination's mode changed"

# A FIFO source without -r is read like any stream, as GNU cp does.
random_file data $((3*M + 17))
mkfifo fifo
cat data >fifo &
cp8M fifo fromfifo || fail "copy from a FIFO failed"
wait
cmp data fromfifo || fail "copy from a FIFO differs"
exit 0
