#!/bin/sh
# A --bwlimit without a unit is bytes a second, but rsync's --bwlimit of
# the same number is KiB: one below 1 MiB/s is warned of on standard
# error, naming the unit (issue 53); the copy goes on, exit 0.  With a
# unit, 0 (no limit) or 1 MiB/s and more, nothing is said.
. "${abs_top_srcdir:-.}/tests/init.sh"

printf data >f
expect 0 "cp8M: warning: --bwlimit=50000 is in bytes a second (48.8 KiB/s); rsync reads a bare number as KiB: write 50000K for that" \
  cp8M --bwlimit=50000 f g
cmp f g || fail "the warned copy differs"
for rate in 50000K 50K 1048576 0 2000000 1M; do
  expect 0 "" cp8M --bwlimit=$rate f g
done
# --pid gets the same warning (the limit sent is the number given);
# refused here, for the PID is no cp8M: only the warning is checked.
cp8M --bwlimit=1000 --pid=1 2>err
grep -q '^cp8M: warning: --bwlimit=1000 is in bytes a second (1.0 KiB/s)' err ||
  { cat err >&2; fail "--pid: no warning for a bare --bwlimit=1000"; }
