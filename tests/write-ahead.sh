#!/bin/sh
# Writing ahead across files (predest.h, engine_lookahead's DSTS): while
# one file is copied, the destinations of the next few are made early
# as unnamed O_TMPFILEs, and what is read ahead of those files is
# written into them beside the copy under way.  Checked here, on ext4
# with and without online discard (which changes how files are
# preallocated and ordered, prealloc.h):
#   - trees and operands copied so are the same as GNU cp's (treedigest,
#     access times too), with -r, -rp and -a, and it happens (--debug's
#     "written ahead"), early: a next file is written before the file
#     before it is linked into place (strace);
#   - the files made early are made as GNU cp makes a new file: mode
#     less the umask, a read-only file, the group of a set-group-ID
#     directory, a directory's default ACL;
#   - a next file in which a hole is punched after it was written ahead
#     is copied as it is at the end, as GNU cp copies it (read-ahead-shim.sh
#     cuts or grows one at its first read, which writing ahead follows);
#   - none is written ahead where the copy would not take it: --verify,
#     --sparse=always, an existing destination;
#   - a disk that fills up fails the same files as GNU cp's copy, with
#     the same message, and leaves only complete files, also when the
#     file before is sparse (its space is not reserved ahead of its data)
#     or files smaller than a buffer come between;
#   - SIGKILL at random moments leaves no file that looks complete and
#     is not (kill-torture.sh kills trees too; here, many small rounds on
#     a tree where writing ahead is sure to happen).
. "${abs_top_srcdir:-.}/tests/init.sh"
[ "$(id -u)" -eq 0 ] || skip "not root: cannot mount a loop device"
[ -e /dev/loop-control ] || skip "no /dev/loop-control"
. "$abs_top_srcdir/tests/mounts-lib.sh"
. "$abs_top_srcdir/tests/crash-lib.sh"
command -v strace >/dev/null || skip "strace is not installed"

M=1048576
args="--direct=always --buffer-size=1M"

# make_tree DIR: files of a few 1 MiB buffers (one with a tail), a
# read-only one, a small one and a symlink between them, a subdirectory.
make_tree () {
  mkdir "$1" "$1/sub" || exit 99
  random_file "$1/a" $((3 * M))
  random_file "$1/b" $((2 * M + 4097))
  random_file "$1/c" $((4 * M))
  random_file "$1/ro" $((2 * M))
  chmod 444 "$1/ro"
  random_file "$1/d" $((3 * M))
  random_file "$1/tiny" 100
  random_file "$1/e" $((2 * M))
  ln -s a "$1/lnk"
  random_file "$1/sub/f" $((3 * M))
  random_file "$1/sub/g" $((2 * M))
  find "$1" -type f -exec touch -a -d 2001-02-03 {} + || exit 99
}

for mount in plain discard; do
  mount_loop ext4 256 "$mount" "" "$([ $mount = discard ] && echo discard)" ||
    fail "cannot set up ext4 ($mount)"
  cd "$mp" || exit 99
  make_tree tree

  # 1. Trees: the same as GNU cp's, and written ahead.
  for opt in -r -rp -a; do
    rm -rf gnu ours
    "$GNU_CP" $opt tree gnu || fail "GNU cp $opt failed"
    find tree -type f -exec touch -a -d 2001-02-03 {} + || exit 99
    # shellcheck disable=SC2086
    cp8M $opt --debug $args tree ours >debug.out 2>debug.err ||
      fail "$mount: cp8M $opt failed: $(cat debug.err)"
    [ -s debug.err ] && fail "$mount: cp8M $opt: $(cat debug.err)"
    if [ $opt = -r ]; then
      # Times are the copies' own: contents, types and modes.
      diff -r --no-dereference gnu ours >&2 || fail "$mount: -r: contents differ"
      (cd gnu && find . -printf '%p %y %m %s\n' | sort) >gnu.list
      (cd ours && find . -printf '%p %y %m %s\n' | sort) >ours.list
      cmp -s gnu.list ours.list ||
        { diff gnu.list ours.list >&2; fail "$mount: -r: modes or sizes differ"; }
    else
      same_copy gnu ours
    fi
    find tree -type f -exec touch -a -d 2001-02-03 {} + || exit 99
    n=$(grep -c 'written ahead' debug.out)
    [ "$n" -ge 3 ] ||
      { cat debug.out >&2; fail "$mount: $opt: $n files written ahead, expected 3 or more"; }
    note "$mount: $opt: same as GNU cp; $n files written ahead"
  done

  # 2. Early: a next file's data is written (to its unnamed file) before
  #    the file before it is linked into place.  strace -y names the
  #    files (unnamed ones as "#inode"), the links name them too.
  rm -rf ours
  # shellcheck disable=SC2086
  trace -f -y -o trace -e trace=pwrite64,linkat cp8M -r $args tree ours ||
    fail "$mount: cp8M -r under strace failed"
  awk '/pwrite64\(/ && !/resumed/ { match ($0, /#[0-9]+>/)
         f = substr ($0, RSTART, RLENGTH); if (!(f in first)) first[f] = links + 0 }
       /linkat\(/ { match ($0, /#[0-9]+>/); order[substr ($0, RSTART, RLENGTH)] = ++links }
       # Written before the file linked before it was: ahead.
       END { m = 0; for (f in first) if (f in order && first[f] < order[f] - 1) m++
             exit !(m >= 2) }' trace ||
    { grep -E 'pwrite64|linkat' trace | grep -v resumed | cut -c1-120 >&2; fail "$mount: no file was written before the one before it was linked"; }
  diff -r tree ours >/dev/null || fail "$mount: -r under strace: wrong copies"
  cd "$work" || exit 99
done

# 2b. How far ahead: destinations are made early for the next two files,
#     and for more (eight at most) while those made hold less than the
#     queue's worth of chunks (predest.h).  With 1 MiB buffers and 24 in
#     flight, 24 MiB: a tree of 2 MiB files has a file written three or
#     more files ahead of the one being linked; a tree of 13 MiB files,
#     two of which hold 26 MiB already, never more than two.  Each link
#     is held back 0.3 s, so that reading ahead goes as far as it may.
#     ahead_by TRACE: the most files linked between a file's first write
#     and its own link.
ahead_by () {
  awk '/pwrite64\(/ && !/resumed/ { match ($0, /#[0-9]+>/)
         f = substr ($0, RSTART, RLENGTH); if (!(f in first)) first[f] = links + 0 }
       /linkat\(/ { match ($0, /#[0-9]+>/); order[substr ($0, RSTART, RLENGTH)] = ++links }
       END { m = 0; for (f in first) if (f in order && order[f] - 1 - first[f] > m)
               m = order[f] - 1 - first[f]; print m }' "$1"
}
main_mp=$mp
mount_loop ext4 512 window || fail "cannot set up ext4 (window)"
cd "$mp" || exit 99
mkdir small large || exit 99
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do random_file "small/f$i" $((2 * M)); done
for i in 1 2 3 4 5 6 7; do random_file "large/f$i" $((13 * M)); done
for t in small large; do
  # shellcheck disable=SC2086
  trace -f -y -o trace -e trace=pwrite64,linkat \
    -e inject=linkat:delay_exit=300000 cp8M -r $args --queue-depth=24 $t $t.copy ||
    fail "window: cp8M -r $t under strace failed"
  diff -r $t $t.copy >/dev/null || fail "window: $t: wrong copies"
  n=$(ahead_by trace)
  case $t in
    small) [ "$n" -ge 3 ] ||
             fail "window: 2 MiB files: written at most $n files ahead, expected 3 or more" ;;
    large) [ "$n" -le 2 ] ||
             fail "window: 13 MiB files: written $n files ahead, expected 2 at most" ;;
  esac
  note "window: $t files: written up to $n files ahead"
done
mp=$main_mp

cd "$mp" || exit 99

# 3. Made as GNU cp makes a new file: a umask, a set-group-ID directory
#    owned by another group, a default ACL.
mkdir perm perm/sgid perm/acl || exit 99
chgrp nogroup perm/sgid && chmod 2775 perm/sgid || exit 99
setfacl -d -m u:nobody:rw,g::r,o::- perm/acl || skip "no ACLs here"
for f in a b c; do random_file "perm/$f" $((2 * M)); done
chmod 640 perm/b
chmod 444 perm/c
for side in gnu ours; do
  rm -rf "$side-dst"
  mkdir "$side-dst" "$side-dst/sgid" "$side-dst/acl" || exit 99
  chgrp nogroup "$side-dst/sgid" && chmod 2775 "$side-dst/sgid" || exit 99
  setfacl -d -m u:nobody:rw,g::r,o::- "$side-dst/acl" || exit 99
done
for dir in sgid acl; do
  for um in 022 077 002; do
    for side in gnu ours; do
      rm -f "$side-dst/$dir/"*
      if [ $side = gnu ]; then
        (umask $um && exec "$GNU_CP" perm/a perm/b perm/c "$side-dst/$dir/") ||
          fail "GNU cp into $dir failed"
      else
        # shellcheck disable=SC2086
        (umask $um && exec cp8M --debug $args perm/a perm/b perm/c "$side-dst/$dir/") \
          >debug.out || fail "cp8M into $dir failed"
      fi
      (cd "$side-dst/$dir" && for f in a b c; do
         stat -c '%n %a %U %G %s' "$f"; getfacl -cp "$f"; done) >"$side.perm"
    done
    cmp -s gnu.perm ours.perm ||
      { diff gnu.perm ours.perm >&2; fail "$dir, umask $um: made otherwise than GNU cp's"; }
    for f in a b c; do cmp "perm/$f" "ours-dst/$dir/$f" || fail "$dir: $f differs"; done
    grep -q 'written ahead' debug.out ||
      { cat debug.out >&2; fail "$dir, umask $um: nothing written ahead"; }
  done
done
note "mode, umask, set-group-ID directory, default ACL: as GNU cp's"

# 4. The next file changes after it was written ahead.  Cut or grown at
#    its first read (the read-ahead's, whose chunks are then written
#    ahead): read-ahead-shim.sh's checks, where b is written ahead.
# A hole punched in the next file after its chunks were written ahead:
# strace stops cp8M (SIGSTOP) as a is linked (its first link), and the
# hole is punched in c then, while c waits, written ahead, for its own
# copy.  b and c are written ahead by then (9 MiB written in all, which
# /proc/PID/io shows), or the run is made again: the threads that read
# and write ahead may lag behind a's copy on a busy machine.
rm -rf hsrc hdst
mkdir hsrc || exit 99
for f in a b c; do random_file "hsrc/$f" $((3 * M)); done
if fallocate -p -o $M -l $M hsrc/c 2>/dev/null; then
  # Holes can be punched here: give c its data back whole, and punch
  # the hole again while the copy runs.
  random_file hsrc/c $((3 * M))
  tries=0
  while :; do
    rm -rf hdst "$work/linkat.trace"
    # shellcheck disable=SC2086
    trace -f -o "$work/linkat.trace" -e trace=linkat \
      -e inject=linkat:signal=SIGSTOP:when=1 cp8M -r $args hsrc hdst &
    pid=$!
    stopped_at "$work/linkat.trace" $pid
    written=$(sed -n 's/^wchar: //p' "/proc/$cp/io")
    [ "$written" -ge $((9 * M)) ] && break
    kill -CONT "$cp"
    wait $pid || fail "cp8M -r hsrc hdst failed"
    tries=$((tries + 1))
    [ $tries -lt 5 ] ||
      fail "c was not written ahead by the time a was linked, in 5 runs: the test would lose its point"
  done
  fallocate -p -o $M -l $M hsrc/c ||
    { kill -CONT "$cp"; fail "cannot punch a hole"; }
  kill -CONT "$cp"
  wait $pid || fail "cp8M -r with a hole punched meanwhile failed"
  cmp hsrc/c hdst/c || fail "a hole punched after c was written ahead: the copy is not c as it is now"
  note "next file with a hole punched meanwhile: copied as it is now"
fi

# 5. None written ahead where it would not be taken: --verify,
#    --sparse=always, destinations that exist.
for opt in --verify --sparse=always; do
  rm -rf ours
  # shellcheck disable=SC2086
  cp8M -r --debug $opt $args tree ours >debug.out || fail "cp8M -r $opt failed"
  grep -q 'written ahead' debug.out && { cat debug.out >&2; fail "$opt: written ahead"; }
  diff -r tree ours >/dev/null || fail "$opt: wrong copies"
done
# shellcheck disable=SC2086
cp8M -r --debug $args tree/. ours/ >debug.out || fail "cp8M -r onto a copy failed"
grep -q 'written ahead' debug.out && { cat debug.out >&2; fail "onto a copy: written ahead"; }
note "--verify, --sparse=always, existing destinations: nothing written ahead"

# full_disk LABEL FREE_MIB DIR ARGS...: copy ARGS (sources, then DIR/)
# with GNU cp and with cp8M, each onto a new 112 MiB ext4 left with
# FREE_MIB free (root may use the reserved blocks too: free, not
# available; 0: as made), into DIR there; the same exit status, the same
# messages and the same files complete (GNU cp keeps a partial file,
# cp8M none: only complete files are compared, and cp8M must leave no
# other).
full_disk () {
  _label=$1 _free=$2 _dir=$3
  shift 3
  for _side in gnu ours; do
    mount_loop ext4 112 "$_label-$_side" || fail "cannot set up a small ext4"
    if [ "$_free" -gt 0 ]; then
      _avail=$(($(stat -f -c '%f * %S' "$mp")))
      fallocate -l $((_avail - _free * M)) "$mp/filler" || exit 99
    fi
    case $_dir in */) mkdir "$mp/$_dir" || exit 99 ;; esac
    if [ $_side = gnu ]; then
      "$GNU_CP" "$@" "$mp/$_dir" 2>"$_side.err"; echo $? >"$_side.status"
    else
      # shellcheck disable=SC2086
      cp8M $args "$@" "$mp/$_dir" 2>"$_side.err"; echo $? >"$_side.status"
    fi
    sed "s|$mp|MP|g; s|^[^:]*: ||" "$_side.err" >"$_side.msg"
    (cd "$mp/$_dir" && for _f in *; do
       cmp -s "$_f" "$work/$_dir/$_f" && echo "$_f"; done) >"$_side.complete"
    ls "$mp/$_dir" >"$_side.names"
  done
  cmp -s gnu.status ours.status ||
    fail "$_label: exit $(cat ours.status), GNU's $(cat gnu.status)"
  cmp -s gnu.msg ours.msg ||
    { diff gnu.msg ours.msg >&2; fail "$_label: messages differ from GNU cp's"; }
  cmp -s gnu.complete ours.complete ||
    { diff gnu.complete ours.complete >&2; fail "$_label: other files complete than GNU cp's"; }
  cmp -s ours.complete ours.names ||
    { diff ours.complete ours.names >&2; fail "$_label: an incomplete file was left"; }
  note "$_label: $(tr '\n' ' ' <ours.complete)complete, as GNU cp's; $(tr '\n' ' ' <ours.msg)"
}

# 6. A disk that fills up, with a tree of 14 MiB files.
cd "$work" || exit 99
mkdir big || exit 99
for f in f1 f2 f3 f4 f5 f6 f7 f8; do random_file "big/$f" $((14 * M)); done
full_disk full 0 big -r big

# 6b. The same with a sparse file first (its copy keeps its hole, so its
#     space is not reserved before its data is written): the next file
#     must not take that space early.  56 MiB of data and an 8 MiB file
#     onto 60 MiB free (of which more than 8 MiB and the 32 MiB writing
#     ahead keeps free are available to all): GNU cp copies the first and
#     fails the second.
mkdir sp || exit 99
truncate -s $((57 * M)) sp/sparse || exit 99
dd if=/dev/urandom of=sp/sparse bs=1M count=28 conv=notrunc 2>/dev/null &&
  dd if=/dev/urandom of=sp/sparse bs=1M seek=29 count=28 conv=notrunc 2>/dev/null ||
  exit 99
random_file sp/dense $((8 * M))
full_disk sparse-first 60 sp/ sp/sparse sp/dense

# 6c. Files smaller than a buffer (none made early for them) between the
#     copy under way and a file that could be written ahead: their space
#     must still be there when their turn comes.  With 8 MiB buffers, an
#     8 MiB file, seven of 7 MiB and an 8 MiB one onto 60 MiB free: GNU
#     cp copies all but the last.  (A destination made early for the
#     last one, eighth in the queue, took the space of the seventh.)
mkdir gap || exit 99
random_file gap/a $((8 * M))
for f in s1 s2 s3 s4 s5 s6 s7; do random_file "gap/$f" $((7 * M)); done
random_file gap/x $((8 * M))
saved_args=$args
args="--direct=always --buffer-size=8M"
full_disk small-between 60 gap/ gap/a gap/s1 gap/s2 gap/s3 gap/s4 gap/s5 \
  gap/s6 gap/s7 gap/x
args=$saved_args

# 7. SIGKILL at random moments during a tree copy that writes ahead:
#    every file under its name is complete.
mount_loop ext4 256 kill || fail "cannot set up ext4 (kill)"
cd "$mp" || exit 99
mkdir ksrc || exit 99
i=0
while [ $i -lt 16 ]; do random_file "ksrc/f$i" $((6 * M + i * 4096)); i=$((i + 1)); done
sync
# Moments drawn over the bytes the copy writes, not over its time (a busy
# machine slows a copy, a warm cache speeds it up: moments drawn over a
# first copy's time all fell after the copies here had ended): each copy
# is killed once /proc/PID/io shows that many bytes written.
total=0
for f in ksrc/*; do total=$((total + $(stat -c %s "$f"))); done
states=
r=0
while [ $r -lt 12 ]; do
  rm -rf kdst
  at=$(($(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % total + 1))
  # shellcheck disable=SC2086
  cp8M -r $args ksrc kdst &
  pid=$!
  while w=$(sed -n 's/^wchar: //p' "/proc/$pid/io" 2>/dev/null) &&
        [ -n "$w" ] && [ "$w" -lt $at ]; do
    sleep 0.005
  done
  kill -KILL $pid 2>/dev/null
  wait $pid 2>/dev/null
  n=0
  for f in kdst/*; do
    [ -e "$f" ] || continue
    cmp -s "$f" "ksrc/${f#kdst/}" || fail "killed copy: $f is under its name and not complete"
    n=$((n + 1))
  done
  states="$states $n"
  r=$((r + 1))
done
note "killed 12 times over $((total / M)) MiB written: complete files under their names each time:$states"
exit 0
