#!/bin/sh
# A failed write to standard output is an error, as in GNU cp.
. "${abs_top_srcdir:-.}/tests/init.sh"
[ -w /dev/full ] || skip "/dev/full is missing"

echo data >a
expect 1 "cp8M: write error: No space left on device" sh -c 'cp8M -v a b >/dev/full'
cmp a b || fail "the copy itself must still be made"
expect 1 "cp8M: write error: No space left on device" \
  sh -c 'cp8M --debug a c >/dev/full'
# Without -v nothing is written to standard output: no error.
expect 0 "" sh -c 'cp8M a d >/dev/full'

# Same message and status as GNU cp, both invoked as "cp".
mkdir gnu-bin our-bin
ln -s "$GNU_CP" gnu-bin/cp
ln -s "$CP8M" our-bin/cp
for side in gnu our; do
  PATH=$work/$side-bin:$PATH cp -v a "copy-$side" >/dev/full 2>"$side.err"
  echo $? >>"$side.err"
done
cmp gnu.err our.err || { diff gnu.err our.err >&2; fail "differs from GNU cp"; }
exit 0
