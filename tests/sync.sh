#!/bin/sh
# --sync: strace counts the flushes.  One per regular file written, after
# its data and before it is linked or renamed into place; one per
# destination directory changed, after its entries; one for the directory
# above the walk that got the operand's name; none without --sync, and
# none when nothing changed.  An injected EIO fails the file (exit 1, the
# message, no file under the new name), and so does one in the wait for a
# new file's data that comes before its name without --sync.
. "${abs_top_srcdir:-.}/tests/init.sh"
command -v strace >/dev/null || skip "strace is not installed"

here=$(pwd -P)
calls=fsync,fdatasync,syncfs,sync,linkat,renameat,renameat2,mkdirat,symlinkat,mknodat

# traced ARGS...: run cp8M ARGS under strace (-y: descriptors shown with
# their paths), the trace in ./log; the exit status is cp8M's.
traced () {
  trace -f -y -qq -o log -e trace=$calls cp8M "$@"
}

# syncs: the path of each flushed descriptor in ./log, in order.
syncs () {
  sed -n 's/^\([0-9]* *\)\{0,1\}\(fsync\|fdatasync\|syncfs\)([0-9]*<\([^>]*\)>.*/\3/p
          s/^\([0-9]* *\)\{0,1\}sync().*/(sync)/p' log
}

# count_syncs WANT_FILES DIR...: the flushes in ./log are WANT_FILES of
# files (anything but the DIRs, given relative to $here) and exactly one
# of each DIR ("." is $here itself).
count_syncs () {
  _want_files=$1
  shift
  syncs >synced
  _dirs=0
  : >dirs.want
  for _d; do
    case $_d in .) _p=$here ;; *) _p=$here/$_d ;; esac
    echo "$_p" >>dirs.want
    _dirs=$((_dirs + 1))
  done
  LC_ALL=C sort dirs.want >dirs.want.s
  grep -Fxf dirs.want.s synced | LC_ALL=C sort >dirs.got
  cmp -s dirs.want.s dirs.got ||
    { diff -u dirs.want.s dirs.got >&2; cat log >&2
      fail "directories flushed (above: wanted first)"; }
  _files=$(grep -cvFxf dirs.want.s synced)
  [ "$_files" -eq "$_want_files" ] ||
    { cat log >&2; fail "$_files files flushed, expected $_want_files"; }
}

# The tree: 4 directories (src and 3 below), 10 files, a symlink, a FIFO.
mkdir -p src/d1/d2 src/d3
for i in 0 1 2 3; do printf 'top %s\n' $i >src/f$i; done
for i in 0 1 2; do head -c $((i * 5000 + 1)) /dev/urandom >src/d1/g$i; done
: >src/d1/d2/empty
head -c 70000 /dev/urandom >src/d1/d2/h
echo last >src/d3/k
ln -s f0 src/link
mkfifo src/d3/fifo

# same_tree A B: same names, types, modes and links; same file contents.
same_tree () {
  (cd "$1" && find . -printf '%p|%y|%m|%l\n' | LC_ALL=C sort) >tree.a
  (cd "$2" && find . -printf '%p|%y|%m|%l\n' | LC_ALL=C sort) >tree.b
  cmp -s tree.a tree.b || { diff -u tree.a tree.b >&2; fail "$2 differs from $1"; }
  for f in $(cd "$1" && find . -type f); do
    cmp "$1/$f" "$2/$f" || fail "$2/$f differs"
  done
}

# A new tree: 10 files, the 4 new directories and the one that got 'dst'.
traced --sync -r src dst || fail "cp8M --sync -r failed ($(cat log))"
count_syncs 10 dst dst/d1 dst/d1/d2 dst/d3 .
same_tree src dst

# Order: each file is flushed just before its name is given (the last
# flush of the thread that links or renames it is of the very descriptor
# it links: many files are in flight, each on one thread); a directory
# is flushed after every entry made in it.
awk '
  # fds (LINE): the "N<path>" arguments of LINE, in FD[1..n]; return n.
  function fds(line,   n) {
    n = 0
    while (match(line, /[0-9]+<[^>]*>/)) {
      fd[++n] = substr(line, RSTART, RLENGTH)
      line = substr(line, RSTART + RLENGTH)
    }
    return n }
  { t = $1 ~ /^[0-9]+$/ ? $1 : "" }
  /^([0-9]+ +)?(fsync|fdatasync)\(/ {
    fds($0); last[t] = fd[1]
    p = fd[1]; sub(/^[0-9]+</, "", p); sub(/>$/, "", p); done[p] = 1
    next }
  /^([0-9]+ +)?(linkat|renameat2?)\(/ {
    fds($0)
    if (fd[1] != last[t]) { print "not flushed before: " $0; bad = 1 }
    last[t] = "" }
  /^([0-9]+ +)?(linkat|renameat2?|mkdirat|symlinkat|mknodat)\(/ {
    # the directory the entry goes in: the last descriptor argument
    d = fd[fds($0)]; sub(/^[0-9]+</, "", d); sub(/>$/, "", d)
    if (d in done) { print "entry after its directory was flushed: " $0; bad = 1 } }
  END { exit bad }' log >order || { cat order log >&2; fail "order"; }

# Without --sync: no flush at all.
rm -rf dst
traced -r src dst || fail "cp8M -r failed"
count_syncs 0
same_tree src dst

# Nothing to do (-n onto the copy): no flush.
traced --sync -rnT src dst || fail "cp8M --sync -rnT failed"
count_syncs 0

# One file: the file, and the directory that got its name.
echo data >a
traced --sync a b || fail "cp8M --sync a b failed"
count_syncs 1 .
cmp a b || fail "b differs"
# Rewritten in place: no entry changed, only the file is flushed.
traced --sync a b || fail "cp8M --sync a b (existing) failed"
count_syncs 1
# Attributes only, onto an existing file: its metadata changed.
traced --sync -p --attributes-only a b || fail "--attributes-only failed"
count_syncs 1
# Several operands into a directory: it is flushed once, at the end.
mkdir into
traced --sync a b src/f1 into || fail "cp8M --sync a b f1 into failed"
count_syncs 3 into
# A backup renames an entry: the directory is flushed.
traced --sync --backup=numbered a into/b || fail "--backup failed"
count_syncs 1 into
[ -f into/b.~1~ ] || fail "no backup made"
# --parents: each directory made, and the one each was made in.
traced --sync --parents src/d1/d2/h into || fail "--parents failed"
count_syncs 1 into into/src into/src/d1 into/src/d1/d2
cmp src/d1/d2/h into/src/d1/d2/h || fail "--parents copy differs"

# A pipe or /dev/null has nothing to make durable (fsync says EINVAL).
expect 0 '' cp8M --sync a /dev/null

# A failed flush: the file is not copied, and gets no name.
expect 1 "cp8M: error syncing 'c': Input/output error" \
  trace -f -o /dev/null -e trace=fsync -e inject=fsync:error=EIO:when=1 \
  cp8M --sync a c
[ ! -e c ] && [ ! -L c ] || fail "a file that failed to flush got its name"
ls -A | grep -q '^\.cp8M-' && fail "a temporary was left"
# The directory's flush fails: the file is there, the status says 1.
expect 1 "cp8M: error syncing directory '.', which holds 'c': Input/output error" \
  trace -f -o /dev/null -e trace=fsync -e inject=fsync:error=EIO:when=2 \
  cp8M --sync a c
cmp a c || fail "c differs"
# A directory the user may write but not read (0333) cannot be opened
# to be flushed: the message says it was the directory, and which file's
# name it holds; the file is copied, the status says 1.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  chmod 755 "$work"
  mkdir nb wo
  cp "$CP8M" nb/cp8M
  chmod 644 a
  chown nobody wo
  chmod 0333 wo
  expect 1 "cp8M: error syncing directory 'wo', which holds 'wo/a': Permission denied" \
    as_nobody env PATH="$work/nb:$PATH" cp8M --sync a wo/a
  cmp a wo/a || fail "the file in the 0333 directory differs"
  mkdir wo2
  chown nobody wo2
  chmod 0333 wo2
  expect 1 "cp8M: error syncing directory 'wo2', which holds 'wo2/a': Permission denied" \
    as_nobody env PATH="$work/nb:$PATH" cp8M --sync a wo2
fi
# A file of a tree (the first flushed): it is missing, the others are
# copied, the status says 1.  (strace counts each thread's calls apart,
# so that with files in flight each thread's first flush would fail:
# one thread here.)
rm -rf dst
trace -f -o /dev/null -e trace=fsync -e inject=fsync:error=EIO:when=1 \
  cp8M --sync --files-in-flight=1 -r src dst 2>err
st=$?
libc_words err
[ $st -eq 1 ] || fail "a tree with a failed flush: exit status $st"
failed=$(sed -n "s/^cp8M: error syncing '\(dst\/.*\)': Input\/output error$/\1/p" err)
[ -n "$failed" ] && [ "$(wc -l <err)" -eq 1 ] || fail "messages: $(cat err)"
[ ! -e "$failed" ] || fail "$failed got its name"
cp "src${failed#dst}" "$failed" && same_tree src dst

# Without --sync too, a new file's data is written out and waited for
# before it is named (src/cp/dest.c): a failure there is the file's, and
# it gets no name.
rm -f c
expect 1 "cp8M: error writing 'c': Input/output error" \
  trace -f -o /dev/null -e trace=sync_file_range \
  -e inject=sync_file_range:error=EIO:when=1 cp8M a c
[ ! -e c ] && [ ! -L c ] || fail "a file whose data failed to reach the disk got its name"
ls -A | grep -q '^\.cp8M-' && fail "a temporary was left"
exit 0
