#!/bin/sh
# Every diagnostic of the foundation issue: exact text, exit status, and
# the other operands still copied.  Where GNU cp has the same case, cp8M
# invoked as "cp" must print exactly what GNU cp prints.
. "${abs_top_srcdir:-.}/tests/init.sh"

echo hello >a
mkdir d
expect 1 "cp8M: cannot stat 'x': No such file or directory" cp8M x y
expect 1 "cp8M: cannot stat 'a/': Not a directory" cp8M a/ y
expect 1 "cp8M: -r not specified; omitting directory 'd'" cp8M d e
expect 1 "cp8M: 'a' and 'a' are the same file" cp8M a a
expect 1 "cp8M: 'a' and './a' are the same file" cp8M a ./a
ln a hard
expect 1 "cp8M: 'a' and 'hard' are the same file" cp8M a hard
ln -s a sym
expect 1 "cp8M: 'sym' and 'a' are the same file" cp8M sym a
expect 1 "cp8M: 'a' and 'd/../a' are the same file" cp8M a d/../a
# GNU 9.5 and later name the source too (9.1 does not).
expect 1 "cp8M: cannot overwrite directory 'd' with non-directory 'a'" \
  cp8M -T a d
mkdir -p d2/a
expect 1 "cp8M: cannot overwrite directory 'd2/a' with non-directory 'a'" \
  cp8M a d2
ln -s nowhere dangling
expect 1 "cp8M: not writing through dangling symlink 'dangling'" \
  cp8M a dangling
[ ! -e nowhere ] || fail "wrote through a dangling symlink"
expect 1 "cp8M: cannot create regular file 'b/': Not a directory" cp8M a b/
expect 1 "cp8M: cannot create regular file 'nodir/x': No such file or directory" \
  cp8M a nodir/x

# Operand errors.
expect 1 "cp8M: target 'nodir': No such file or directory" cp8M a a nodir
expect 1 "cp8M: target 'a': Not a directory" cp8M a a a
expect 1 "cp8M: target directory 'nodir': No such file or directory" \
  cp8M -t nodir a
expect 1 "cp8M: target directory 'a': Not a directory" cp8M -t a a
expect 1 "cp8M: missing file operand
Try 'cp8M --help' for more information." cp8M
expect 1 "cp8M: missing file operand
Try 'cp8M --help' for more information." cp8M -t d
expect 1 "cp8M: missing destination file operand after 'a'
Try 'cp8M --help' for more information." cp8M a
expect 1 "cp8M: extra operand 'c'
Try 'cp8M --help' for more information." cp8M -T a b c
expect 1 "cp8M: cannot combine --target-directory (-t) and --no-target-directory (-T)" \
  cp8M -t d -T a
expect 1 "cp8M: multiple target directories specified" cp8M -t d -t d a
expect 1 "cp8M: invalid option -- 'Y'
Try 'cp8M --help' for more information." cp8M -Y a b
expect 1 "cp8M: unrecognized option '--frobnicate'
Try 'cp8M --help' for more information." cp8M --frobnicate a b
expect 1 "cp8M: option requires an argument -- 't'
Try 'cp8M --help' for more information." cp8M -t

# A failure does not stop the other operands.
echo one >s1
echo two >s2
mkdir out
expect 1 "cp8M: cannot stat 'missing': No such file or directory
cp8M: -r not specified; omitting directory 'd'" cp8M s1 missing d s2 out
cmp s1 out/s1 && cmp s2 out/s2 || fail "other operands were not copied"

# Unprivileged: an unwritable directory and an unreadable source.
if [ "$(id -u)" -eq 0 ] && ! command -v setpriv >/dev/null; then
  skip "root without setpriv cannot test as an unprivileged user"
fi
chmod 755 "$work"
mkdir nb ro
cp "$CP8M" nb/cp8M
chmod 555 ro
echo secret >unreadable
chmod 000 unreadable
chmod 644 a
nb_path=$work/nb:$PATH
expect 1 "cp8M: cannot create regular file 'ro/x': Permission denied" \
  as_nobody env PATH="$nb_path" cp8M a ro/x
expect 1 "cp8M: cannot open 'unreadable' for reading: Permission denied" \
  as_nobody env PATH="$nb_path" cp8M unreadable ro/y
# 'b' exists and belongs to someone else: GNU says "create" here too.
echo old >b
chmod 444 b
[ "$(id -u)" -eq 0 ] &&
  expect 1 "cp8M: cannot create regular file 'b': Permission denied" \
    as_nobody env PATH="$nb_path" cp8M a b

# The same cases against GNU cp, with awkward names: same stderr, same
# standard output, same status.
mkdir tree
echo x >"tree/it's"
printf 'x' >"tree/new
line"
echo x >"tree/sp ace"
mkdir tree/dir
ln -s nowhere tree/dangling
# GNU 9.5 and later also name the source here; 9.1 does not.
cp -a tree t9 && cd t9 &&
  expect 1 "cp8M: cannot overwrite directory 'dir' with non-directory \"it's\"" \
    cp8M -T "it's" dir && cd .. || fail "-T it's dir"
for args in "x y" "dir e" "it's it's" "sp*ace ./sp*ace" \
            "it's dangling" "it's sp*ace nodir" "-t nodir it's" \
            "" "it's" "-T a b c" "-t dir -T a" "new*line missing dir" \
            "-v it's copy" "-v it's sp*ace dir"; do
  # shellcheck disable=SC2086
  set -f; set -- $args; set +f
  for arg; do
    shift
    case $arg in
      *'*'*) arg=$(printf '%s' "$arg" | sed 's/\*/ /') ;;
    esac
    case $arg in
      new' 'line) arg="new
line" ;;
    esac
    set -- "$@" "$arg"
  done
  same_as_gnu "$@"
done
exit 0
