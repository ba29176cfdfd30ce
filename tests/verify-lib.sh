# Sourced after init.sh and crash-lib.sh by tests/verify.sh and
# tests/verify-shim.sh: how this build checks a copy (with xxh3 hashes or
# byte by byte; its re-read direct or not), which --debug names, and the
# two sources both tests copy.

M=1048576
if grep -q '^#define HAVE_LIBXXHASH 1' "$abs_top_builddir/config.h"; then
  xxh=yes how=xxh3
else
  xxh=no how='byte by byte (built without libxxhash)'
fi
note "built with libxxhash: $xxh"
# How this build switches direct I/O on (the stand-in builds have no
# O_DIRECT), and so what --debug says of a re-read that is not refused.
if grep -q '^#define HAVE_DECL_O_DIRECT 1' "$abs_top_builddir/config.h"; then
  reread=direct
elif grep -q '^#define HAVE_DIRECTIO 1' "$abs_top_builddir/config.h"; then
  reread=direct
else
  reread='buffered (direct I/O refused: Invalid argument; the page cache may have answered)'
fi
linux=yes
grep -q '^#define HAVE_DECL_O_DIRECT 1' "$abs_top_builddir/config.h" ||
  linux=no
note "the re-read is $reread"

random_file a $((3*M + 1234))
random_file big $((9*M + 5))

# debug_says WHAT PATTERN: the last run's stdout has a line PATTERN.
debug_says () {
  grep -qx "$2" "$work/.out" ||
    fail "$1: --debug did not say '$2' (got: $(grep verify "$work/.out"))"
}
