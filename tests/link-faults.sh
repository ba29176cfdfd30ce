#!/bin/sh
# A new copy gets its name last: an unnamed O_TMPFILE linked into place
# (src/cp/dest.c).  That link can fail, and it must not fail silently.
# strace makes linkat fail on demand:
# - every linkat with EEXIST (a name that appeared meanwhile): "cannot
#   create regular file 'x': File exists", exit 1, and nothing under the
#   name (the copy is lost with its unnamed file, as it must be);
# - every linkat with EIO, with --backup: the destination that was moved
#   to its backup name is put back, with its old contents;
# - only the first linkat (AT_EMPTY_PATH), with ENOENT, as kernels before
#   6.10 refuse it without CAP_DAC_READ_SEARCH: the link through
#   /proc/self/fd gives the name, exit 0, a correct copy.
. "${abs_top_srcdir:-.}/tests/init.sh"
command -v strace >/dev/null || skip "strace is not installed"

echo payload >f
mkdir d

# The directory must take O_TMPFILE, or no linkat is made at all.
trace -f -o "$work/calls" -e trace=linkat cp8M f d/probe ||
  fail "a plain copy failed"
grep -q 'linkat(.*AT_EMPTY_PATH' "$work/calls" ||
  skip "no O_TMPFILE link here ($(cat "$work/calls"))"
rm -f d/probe

# links ERRNO WHEN ARGS...: cp8M ARGS with linkat failing with ERRNO at
# the calls WHEN (strace's syntax).
links () {
  _err=$1 _when=$2
  shift 2
  trace -f -o /dev/null -e trace=linkat \
    -e inject=linkat:error="$_err":when="$_when" cp8M "$@"
}

expect 1 "cp8M: cannot create regular file 'd/x': File exists" \
  links EEXIST 1+ f d/x
[ -z "$(ls -A d)" ] || fail "EEXIST: left $(ls -A d)"

echo old >d/y
expect 1 "cp8M: cannot create regular file 'd/y': Input/output error" \
  links EIO 1+ --backup=simple f d/y
[ "$(ls -A d)" = y ] || fail "EIO with --backup: left $(ls -A d | tr '\n' ' ')"
[ "$(cat d/y)" = old ] || fail "EIO with --backup: d/y does not hold its old contents"
rm -f d/y

expect 0 "" links ENOENT 1 f d/z
cmp f d/z || fail "ENOENT on the first link: the copy differs"
[ "$(ls -A d)" = z ] || fail "ENOENT on the first link: left $(ls -A d | tr '\n' ' ')"
exit 0
