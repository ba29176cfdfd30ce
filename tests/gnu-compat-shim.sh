#!/bin/sh
# A destination removed between its stat and its open (issue 12), as
# tests/gnu-compat.sh compares the other cases: tests/faultshim.so
# (FAULTSHIM_VANISH) unlinks it there, under GNU cp and cp8M alike; both
# create it anew, with the same messages, status and result, for plain
# cp, -f, -p and --preserve=xattr.  The shim needs a dynamically linked
# cp8M: against a static one (make static-check) the test is skipped
# (77).
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
need_shim
. "$abs_top_srcdir/tests/compat-lib.sh"

# Each side's cp gets the shim its binary can take (a sanitizer build's
# libasan first: shim_preload), and says it loaded (FAULTSHIM_LOADED).
for opts in '' -f -p --preserve=xattr; do
  both vanish 'echo src >s && echo old-dest >d' \
    "FAULTSHIM_VANISH=\$PWD/d FAULTSHIM_LOADED=\$PWD/loaded LD_PRELOAD=\$(shim_preload cp) cp $opts s d" \
    'cat d; rm loaded && echo shim loaded'
  has vanish "exit status: 0"
  has vanish "src"
  has vanish "shim loaded"
done
exit 0
