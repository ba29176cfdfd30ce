#!/bin/sh
# SOURCE DEST, SOURCE... DIRECTORY, -t and -T put files where GNU cp puts
# them, with the same verbose output.
. "${abs_top_srcdir:-.}/tests/init.sh"

mkdir tree tree/dir tree/dir2
echo alpha >tree/a
echo beta >tree/b
head -c 20000 /dev/urandom >"tree/with space"
echo old-and-longer-content >tree/existing
ln -s a tree/link-to-a
ln -s dir tree/link-to-dir
ln -s existing tree/link-to-existing

for args in "a c" "a dir" "a dir/" "a b dir" "a b dir/" "-t dir a b" \
            "--target-directory=dir a" "-T a c" "-T a existing" \
            "a existing" "link-to-a c" "a link-to-dir" "a link-to-existing" \
            "-v a b dir2" "-v -t dir a" "--verbose a link-to-existing" \
            "a ./dir/../c" "a b link-to-dir" "--no-target-directory a dir2/x"; do
  # shellcheck disable=SC2086
  same_as_gnu $args
done
same_as_gnu "with space" dir
same_as_gnu -v "with space" "a" dir2

# Long options may be abbreviated, as with GNU getopt.
same_as_gnu --verb --target-d=dir a
same_as_gnu --no-t a c

# A destination that cannot seek (a pipe) gets the data in order, whatever
# --direct says.
head -c 20000000 /dev/urandom >big
for mode in auto always never; do
  cp8M --direct=$mode big /dev/stdout | cmp - big ||
    fail "copy to a pipe (--direct=$mode) differs"
done

# sysfs files claim 4096 bytes and hold fewer: copied to their real end.
for f in /sys/class/net/lo/address /sys/kernel/mm/transparent_hugepage/enabled; do
  [ -r "$f" ] || continue
  cp8M "$f" sysfile || fail "cannot copy $f"
  cat "$f" | cmp - sysfile || fail "copy of $f differs"
  rm -f sysfile
done

# POSIXLY_CORRECT stops option parsing at the first operand.
mkdir -- dir3
echo x >./-v
POSIXLY_CORRECT=1 cp8M a -v dir3 2>/dev/null
# 'a' does not exist here, but '-v' is an operand: it must have been copied.
[ -f dir3/-v ] || fail "POSIXLY_CORRECT: -v after an operand was not an operand"
exit 0
