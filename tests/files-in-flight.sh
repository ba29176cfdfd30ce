#!/bin/sh
# Many files in flight (src/cp/jobs.c): a tree's small files are copied
# by a pool of threads while the walk goes on, and nothing a user sees
# may tell.  Checked here:
#   - as an unprivileged user, over a tree with unreadable files, a
#     read-only directory, old directory times, a FIFO, a symbolic link,
#     a hard link across directories and a file too big for a job: the
#     -v lines and the messages come in the walk's order, each stream
#     exactly GNU cp's, with its exit status, and the copy digests as
#     GNU's does (so each directory's own attributes were set after its
#     entries were done);
#   - the same with --files-in-flight=1 (the serial copy), and that the
#     default really runs files on several threads while 1 runs none;
#   - a destination that fills up: every name left is a complete copy,
#     the exit status is 1, and what was printed (both streams in one
#     file) names the files in the walk's order;
#   - --files-in-flight's values: 1 to 256, GNU-style refusals.
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"
need_mounts
command -v strace >/dev/null || skip "strace is not installed"
chmod 755 "$work"

# The tree: 4 directories of small files (1-16 KiB, fixed sizes).
mkdir -p tree/a tree/b/c tree/ro tree/z || exit 99
awk 'BEGIN { srand(52); split("a b b/c ro", d, " ")
  for (i = 1; i <= 160; i++) printf "%s %d\n", d[1 + i % 4], 1 + int(rand() * 16384) }' \
  >sizes
i=0
while read -r d n; do
  i=$((i + 1))
  head -c "$n" /dev/urandom >"tree/$d/f$i" || exit 99
done <sizes
random_file tree/a/big $((300 * 1024))
ln -s ../a/big tree/z/link && mkfifo tree/z/fifo &&
  ln tree/a/big tree/b/c/hard || exit 99
# Unreadable to nobody: a job's failure, in the middle of the others.
chmod 000 tree/b/f9 tree/b/c/f22 tree/ro/f99 || exit 99
# Set after their entries, or the entries could not be made (ro) and the
# times would be those of the last entry made (b, tree).
chmod 555 tree/ro || exit 99
touch -d 2001-02-03 tree/ro tree/b tree/b/c tree || exit 99

mkdir out && chmod 777 out || exit 99
mkdir -p bin-gnu bin-cp8m &&
  ln -s "$GNU_CP" bin-gnu/cp && ln -s "$CP8M" bin-cp8m/cp || exit 99
# as_cp SIDE NAME ARGS...: "cp ARGS" as nobody, GNU's or ours, into
# out/NAME; its streams in NAME.out and NAME.err, status in NAME.st,
# out/NAME written as X so that the two sides' lines compare.
as_cp () {
  _bin=$work/bin-$1 _name=$2
  shift 2
  # Each copy reads the sources, which moves their access times: the
  # same ones for each copy to preserve.
  find tree -type f -exec touch -a -d 2001-02-03 {} + || exit 99
  as_nobody env PATH="$_bin:$PATH" cp "$@" tree "out/$_name" \
    >"$_name.raw" 2>"$_name.rawerr"
  echo $? >"$_name.st"
  sed "s|out/$_name|out/X|g" "$_name.raw" >"$_name.out"
  sed "s|out/$_name|out/X|g" "$_name.rawerr" >"$_name.err"
}
as_cp gnu gnu -av
as_cp cp8m ours -av
as_cp cp8m one -av --files-in-flight=1
[ "$(cat gnu.st)" = 1 ] || fail "GNU cp exited $(cat gnu.st), not 1: the test is wrong"
[ "$(wc -l <gnu.err)" = 3 ] || fail "GNU cp printed $(wc -l <gnu.err) messages, not 3"
for side in ours one; do
  for f in out err st; do
    cmp -s "gnu.$f" "$side.$f" ||
      { diff -u "gnu.$f" "$side.$f" >&2; fail "$side: standard $f differs from GNU cp's (above)"; }
  done
done
same_copy out/gnu out/ours
same_copy out/gnu out/one

# Several threads copied files by default, and none but the walk with 1:
# the threads that opened a source file to read it.
readers () {
  rm -rf out/t
  trace -f -qq -e trace=openat -o reads.trace cp8M -a "$@" tree out/t 2>/dev/null
  sed -n "s|^\([0-9]*\) *openat(AT_FDCWD, \"tree/.*/f[0-9]*\", O_RDONLY.*|\1|p;
          s|^\([0-9]*\) *openat([0-9]*, \"f[0-9]*\", O_RDONLY.*|\1|p" reads.trace |
    sort -u | wc -l
}
n=$(readers --files-in-flight=32)
[ "$n" -ge 2 ] || fail "--files-in-flight=32: the files were read by $n thread(s)"
n=$(readers --files-in-flight=1)
[ "$n" -eq 1 ] || fail "--files-in-flight=1: the files were read by $n threads"
n=$(readers -r)
[ "$n" -ge 2 ] || fail "by default the files were read by $n thread(s)"

# A destination that fills up while many files are in flight.
mount_tmpfs 1 full || fail "cannot mount a tmpfs"; full=$mp
rm -rf out/big
cp8M -rv --files-in-flight=1 tree out/big >walk.out || fail "cannot copy the tree"
sed "s|^'\([^']*\)'.*|\1|" walk.out >walk.order
cp8M -rv tree "$full/x" >full.both 2>&1
st=$?
[ $st = 1 ] || fail "into a full tmpfs: exit status $st, not 1"
grep -q 'No space left on device' full.both ||
  fail "into a full tmpfs: no message says so"
(cd "$full/x" && find . -type f) | while read -r f; do
  cmp -s "$full/x/$f" "tree/$f" ||
    fail "into a full tmpfs: $f is left with $(stat -c %s "$full/x/$f") bytes, not the source's $(stat -c %s "tree/$f")"
done || exit 1
# Each line's first name, as a source name: its place in the walk's
# order never goes back (a failed file's -v line and message share one).
sed "s|^[^']*'\([^']*\)'.*|\1|; s|^$full/x|tree|" full.both |
  awk 'NR == FNR { at[$0] = FNR; next }
       !($0 in at) { print "not in the walk: " $0; exit 1 }
       at[$0] < last { print "out of order: " $0; exit 1 }
       { last = at[$0] }' walk.order - >order.err ||
  { cat full.both >&2; fail "into a full tmpfs: $(cat order.err)"; }

# The option.
echo x >a
for v in 0 257 x -1 ''; do
  expect 1 "cp8M: invalid number of files in flight '$v' (1 to 256)
Try 'cp8M --help' for more information." cp8M --files-in-flight="$v" a b
done
expect 0 "" cp8M --files-in=256 a b
cmp -s a b || fail "--files-in=256: the copy differs"
exit 0
