#!/bin/sh
# --files-from=FILE and --null (issue 53): a list's names are operands as
# if given on the command line (compared with GNU cp given the same names
# as operands), into -t DIR or a final directory, with --parents and -r;
# bad entries are reported with the list's name and the entry's number,
# the others still copied, exit 1; the list is read as the copy goes, so
# 100,000 names take less memory than their text.
. "${abs_top_srcdir:-.}/tests/init.sh"

# same_tree A B: the trees A and B digest alike (new files' times are
# "now" in both: the test's start on).
same_tree () {
  (cd "$1" && treedigest -n "$digest_now" .) >"$1.digest" &&
    (cd "$2" && treedigest -n "$digest_now" .) >"$2.digest" ||
    fail "treedigest failed"
  cmp -s "$1.digest" "$2.digest" ||
    { diff "$1.digest" "$2.digest" >&2; fail "$2 differs from $1"; }
}

# 1. Names that a shell or a line-based list would get wrong: spaces, a
#    leading dash, a newline (--null only), a backslash, an absolute one.
mkdir -p src/sub 'src/with space'
printf a >src/a
printf b >'src/with space/b c'
printf d >src/-d
printf n >'src/new
line'
printf s >'src/back\slash'
printf t >src/sub/t
printf '%s\0' src/a 'src/with space/b c' src/-d 'src/new
line' 'src/back\slash' "$work/src/sub/t" >list0
mkdir gnu ours
xargs -0 "$GNU_CP" -v -t gnu <list0 >gnu.out 2>gnu.err || fail "GNU cp failed"
cp8M -v --null --files-from=list0 -t ours >ours.out 2>ours.err ||
  { cat ours.err >&2; fail "--null --files-from failed"; }
sed 's/^cp8M: //' ours.err >ours.err2
sed 's/^cp: //' gnu.err >gnu.err2
cmp -s gnu.err2 ours.err2 || { diff gnu.err2 ours.err2 >&2; fail "stderr differs from GNU cp's"; }
sed 's/gnu/ours/g' gnu.out >gnu.out2
cmp -s gnu.out2 ours.out || { diff gnu.out2 ours.out >&2; fail "-v lines differ from GNU cp's"; }
same_tree gnu ours

# The same list from standard input, into a final directory operand.
rm -rf ours && mkdir ours
cp8M --null --files-from=- ours <list0 || fail "--files-from=- failed"
same_tree gnu ours

# 2. Newline-ended names: a name may hold spaces and start with a dash;
#    the last name may lack its newline.
rm -rf ours && mkdir ours
printf 'src/a\nsrc/with space/b c\nsrc/-d' >list
cp8M --files-from=list -t ours || fail "a newline-ended list failed"
for f in a 'b c' -d; do
  [ -f "ours/$f" ] || fail "ours/$f was not copied"
done
[ "$(ls ours | wc -l)" -eq 3 ] || fail "more than the three names were copied"

# 3. Bad entries, each named by its number; the rest is copied; exit 1.
rm -rf ours && mkdir ours
printf 'src/a\n\nnosuch\nsrc/-d\n' >bad
printf 'x\0y\n' >>bad
printf 'src/sub/t\n' >>bad
expect 1 "cp8M: bad:2: invalid zero-length file name
cp8M: bad:3: cannot stat 'nosuch': No such file or directory
cp8M: bad:5: file name holds a null byte (is this a list for --null?)" \
  cp8M --files-from=bad ours
for f in a -d t; do
  [ -f "ours/$f" ] || fail "ours/$f was not copied beside the bad entries"
done
# With --null the numbers count names, as GNU du's --files0-from does.
rm -rf ours && mkdir ours
printf 'src/a\0\0nosuch\0' | {
  expect 1 "cp8M: -:2: invalid zero-length file name
cp8M: -:3: cannot stat 'nosuch': No such file or directory" \
    cp8M --null --files-from=- -t ours; }
[ -f ours/a ] || fail "the good name of a --null list was not copied"
# A list that cannot be read: nothing is copied.
rm -rf ours && mkdir ours
expect 1 "cp8M: cannot open 'nolist' for reading: No such file or directory" \
  cp8M src/a --files-from=nolist ours
[ ! -e ours/a ] || fail "an operand was copied though the list could not be opened"
mkdir listdir
expect 1 "cp8M: listdir:1: read error: Is a directory" \
  cp8M --files-from=listdir ours

# 4. Usage, in GNU's words where GNU has them.
printf 'src/a\n' >one
expect 1 "cp8M: target 'src/a': Not a directory" cp8M --files-from=one src/a
expect 1 "cp8M: missing destination file operand
Try 'cp8M --help' for more information." cp8M --files-from=one
expect 1 "cp8M: cannot combine --files-from and --no-target-directory (-T)" \
  cp8M -T --files-from=one ours
expect 1 "cp8M: --null needs --files-from=FILE
Try 'cp8M --help' for more information." cp8M --null src/a ours
expect 1 "cp8M: --files-from=- and --interactive (-i) would both read standard input" \
  cp8M -i --files-from=- ours </dev/null
# Operands and a list together: the operands first, then the list.
rm -rf ours && mkdir ours
cp8M -v src/-d --files-from=one ours >out || fail "operands and a list failed"
printf "'src/-d' -> 'ours/-d'\n'src/a' -> 'ours/a'\n" >want
cmp -s want out || { diff want out >&2; fail "operands and list out of order"; }
# A report file must not overwrite the list.
expect 1 "cp8M: statistics file 'one' is the source 'one'" \
  cp8M --files-from=one --stats-file=one ours
[ "$(cat one)" = src/a ] || fail "the list was overwritten"

# The list in a file is read by --progress's scan too: its total is
# known.  (A limited copy of 3 MiB at 1 MiB/s: plain lines come once a
# second, a slow machine only makes more of them.)
rm -rf ours && mkdir ours
head -c 3145728 /dev/zero >three
printf 'three\n' >tlist
cp8M --progress=always --bwlimit=1M --files-from=tlist -t ours 2>prog ||
  fail "--progress with a list failed"
grep -q ' / 3[.0]* MiB ' prog || { cat prog >&2; fail "--progress with a list file: no total"; }

# A list on a pipe is read once, by the copy alone: --progress's scan
# must not open it again and take names from it.
rm -rf ours && mkdir ours
mkfifo fifo || fail "mkfifo failed"
printf 'src/a\nsrc/-d\nsrc/sub/t\n' >fifo &
cp8M --progress=always --files-from=fifo ours 2>prog ||
  { cat prog >&2; fail "a list on a FIFO failed"; }
wait
[ "$(ls ours | wc -l)" -eq 3 ] || { ls ours >&2; fail "names of a FIFO list were lost"; }

# 5. --parents keeps the tree's shape; -r copies the directories listed;
#    names twice and names that meet in the target: as GNU cp.
mkdir -p tree/x/y tree/z
printf 1 >tree/x/y/f
printf 2 >tree/z/f
printf 3 >tree/z/g
printf 'tree/x/y/f\ntree/z\n' >plist
rm -rf gnu ours && mkdir gnu ours
"$GNU_CP" -r --parents tree/x/y/f tree/z gnu || fail "GNU cp --parents failed"
cp8M -r --parents --files-from=plist ours || fail "--parents --files-from failed"
same_tree gnu ours
mkdir -p tree2/z
printf 4 >tree2/z/f
printf 'tree/z/f\ntree/z/f\ntree2/z/f\ntree/z\n' >dups
mkdir t t/out2 && cp -a tree tree2 t/
RUN_SETUP='mkdir out' run_both t -rv tree/z/f tree/z/f tree2/z/f tree/z out
gnu_status=$(cat "$work/.gnu.status")
(cd t && cp8M -rv --files-from=../dups out2) >dups.out 2>dups.err
[ $? -eq "$gnu_status" ] || fail "a list with repeated names: status differs from GNU cp's"
sed 's/out2/out/g; s/^cp8M: /cp: /' dups.out >dups.out2
sort dups.out2 | cmp -s - "$work/.gnu.out" || fail "repeated names: -v lines differ from GNU cp's"
sed 's/out2/out/g; s/^cp8M: /cp: /' dups.err | sort | cmp -s - "$work/.gnu.err" ||
  { cat dups.err >&2; fail "repeated names: messages differ from GNU cp's"; }

# 6. 100,000 names: the list is not held, and what is kept of each name
#    (marks.h) is smaller than the name.  Peak memory is compared with a
#    run of 1,000 names; the sanitizers' allocators make it meaningless.
if sanitized || [ ! -x /usr/bin/time ]; then
  note "the memory check needs GNU time and a build without sanitizers"
  exit 0
fi
mkdir many && (cd many && seq -f 'datafile number %06g.dbf' 100000 |
  xargs -d '\n' touch) || fail "cannot make 100,000 files"
seq -f 'many/datafile number %06g.dbf' 100000 >big
head -n 1000 big >small
peak () {
  rm -rf into && mkdir into &&
    /usr/bin/time -f %M -o rss cp8M --files-from="$1" into ||
    fail "copying the list $1 failed"
  cat rss
}
small_kib=$(peak small)
big_kib=$(peak big)
[ "$(ls into | wc -l)" -eq 100000 ] || fail "not every name was copied"
text=$(wc -c <big)
grown=$(( (big_kib - small_kib) * 1024 ))
note "100,000 names ($text bytes): peak memory grew by $grown bytes"
[ "$grown" -le "$text" ] ||
  fail "100,000 names took $grown bytes more than 1,000, more than their $text bytes of text"
