#!/bin/sh
# The copy matrix of tests/mounts.sh (tests/mounts-matrix.sh) under the
# forcedirectio shim, tests/forcedirectio.so: O_DIRECT forced on every
# open under a prefix, as on a Solaris forcedirectio mount.  cp8M must
# copy every shape identically and read the big one directly; GNU cp
# under the shim is expected to fail at an unaligned tail (recorded in
# the summary, not required).  LD_PRELOAD cannot load the shim into a
# statically linked cp8M (make static-check): the test is skipped (77)
# there, where its copies would run without the shim and pass untested.
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"
. "$abs_top_srcdir/tests/mounts-matrix.sh"
[ -f "$shim" ] || fail "the forcedirectio shim was not built"
if cp8M_static; then
  skip "cp8M is statically linked: LD_PRELOAD cannot load tests/forcedirectio.so into it"
fi
LD_PRELOAD=$shim ASAN_OPTIONS=verify_asan_link_order=0 true ||
  fail "the forcedirectio shim does not load"

mount_loop ext4 400 shim || fail "cannot set up ext4 for the shim"; m_shim=$mp
copy_matrix shim
matrix_end
