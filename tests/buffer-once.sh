#!/bin/sh
# The 8 MiB buffer is allocated once per process, not once per file:
# copying 100 small files makes exactly one mapping of 8 MiB or more (of
# the buffer's size, where the memory budget, a quarter of what is free
# here, made it smaller: --debug says).
. "${abs_top_srcdir:-.}/tests/init.sh"
command -v strace >/dev/null || skip "strace is not installed"
strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here"

# large_maps LOG BYTES [MARKER]: how many mmap calls in LOG map BYTES or
# more, counting from the first line that matches MARKER (so that the
# huge reservations AddressSanitizer makes at start-up do not count).
# Maps at a fixed address are not allocations: AddressSanitizer maps its
# shadow of a new buffer so (8 MiB for a 64 MiB buffer aligned to 2 MiB).
large_maps () {
  awk -v marker="${3:-}" 'marker == "" || index($0, marker) { on = 1 } on' "$1" |
    grep -v MAP_FIXED |
    sed -n 's/^[0-9 ]*mmap([^,]*, \([0-9][0-9]*\),.*/\1/p' |
    awk -v b="$2" '$1 >= b { n++ } END { print n + 0 }'
}

mkdir small out
i=0
while [ $i -lt 100 ]; do
  printf 'file %d: forty-one bytes of payload....\n' $i | head -c 41 >small/f$i
  i=$((i + 1))
done
trace -f -e trace=mmap,openat,open -o log cp8M --debug small/* out >debug ||
  fail "cp8M failed"
for f in small/*; do
  cmp "$f" "out/${f#small/}" || fail "$f was not copied right"
done
debug_buffers debug
[ $buf_capped = yes ] || [ $buf_size -eq 8388608 ] ||
  fail "default buffers of $buf_text: $(cat debug)"
n=$(large_maps log $buf_size '"small/f')
[ "$n" -eq 1 ] || fail "100 files made $n mappings of $buf_text or more, not 1"

# A run that copies nothing allocates nothing.  (Not countable under
# AddressSanitizer, whose start-up reservations are huge.)
if ! sanitized; then
  trace -f -e trace=mmap -o log cp8M small out/missing-dir/ 2>/dev/null
  n=$(large_maps log $buf_size)
  [ "$n" -eq 0 ] || fail "a run that copied nothing made $n large mappings"
fi

# The detector sees a big mapping when there is one (the test can fail).
random_file big 1000
trace -f -e trace=mmap,openat,open -o log cp8M --debug --buffer-size=64M big \
  out/big >debug || fail "cp8M --buffer-size=64M failed"
debug_buffers debug
[ "$(large_maps log $buf_size '"big')" -eq 1 ] ||
  fail "no large mapping seen for a $buf_text buffer (64M asked for)"
exit 0
