#!/bin/sh
# A disk that fills up part way through a copy of several files fails
# the same files as GNU cp's copy, with the same messages and exit
# status, and leaves only complete files (GNU cp leaves the one it was
# writing partial; cp8M never links a new file it could not finish).
# cp8M reserves a file's space (fallocate) before its data moves; no
# later file may take space that an earlier one needs.  Each case runs
# on a fresh 112 MiB ext4 left with a set amount free.
. "${abs_top_srcdir:-.}/tests/init.sh"
[ "$(id -u)" -eq 0 ] || skip "not root: cannot mount a loop device"
[ -e /dev/loop-control ] || skip "no /dev/loop-control"
. "$abs_top_srcdir/tests/mounts-lib.sh"

M=1048576
args="--direct=always --buffer-size=1M"

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
    # Destinations that exist already, empty; their inodes, to check
    # that each is overwritten in place, as GNU cp overwrites it.
    _inodes=
    for _e in ${existing-}; do
      : >"$mp/$_dir$_e" || exit 99
      _inodes="$_inodes $(stat -c %i "$mp/$_dir$_e")"
    done
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
    _now=
    for _e in ${existing-}; do _now="$_now $(stat -c %i "$mp/$_dir$_e")"; done
    [ "$_now" = "$_inodes" ] ||
      fail "$_label: $_side: an existing destination was replaced, not overwritten in place"
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

# 1. A tree of 14 MiB files.
cd "$work" || exit 99
mkdir big || exit 99
for f in f1 f2 f3 f4 f5 f6 f7 f8; do random_file "big/$f" $((14 * M)); done
full_disk full 0 big -r big

# 2. A sparse file first (its copy keeps its hole, so its space is not
#    reserved before its data is written): the next file must not take
#    that space early.  56 MiB of data and an 8 MiB file onto 60 MiB
#    free: GNU cp copies the first and fails the second.
mkdir sp || exit 99
truncate -s $((57 * M)) sp/sparse || exit 99
dd if=/dev/urandom of=sp/sparse bs=1M count=28 conv=notrunc 2>/dev/null &&
  dd if=/dev/urandom of=sp/sparse bs=1M seek=29 count=28 conv=notrunc 2>/dev/null ||
  exit 99
random_file sp/dense $((8 * M))
full_disk sparse-first 60 sp/ sp/sparse sp/dense

# 3. Files smaller than a buffer between two large ones: their space
#    must still be there when their turn comes.  With 8 MiB buffers, an
#    8 MiB file, seven of 7 MiB and an 8 MiB one onto 60 MiB free: GNU
#    cp copies all but the last.  (When cp8M wrote the next files ahead,
#    a destination made early for the last one, eighth in the queue,
#    took the space of the seventh.)
mkdir gap || exit 99
random_file gap/a $((8 * M))
for f in s1 s2 s3 s4 s5 s6 s7; do random_file "gap/$f" $((7 * M)); done
random_file gap/x $((8 * M))
saved_args=$args
args="--direct=always --buffer-size=8M"
full_disk small-between 60 gap/ gap/a gap/s1 gap/s2 gap/s3 gap/s4 gap/s5 \
  gap/s6 gap/s7 gap/x
args=$saved_args

# 4. An existing, empty destination between two new files: it is
#    overwritten in place, so its space is not reserved as a new file's
#    is, and the file after it must not take that space first.  16 MiB,
#    40 MiB and 40 MiB onto 62 MiB free, with the default 8 MiB buffers
#    (the case of issue 40, when cp8M still wrote the next files ahead):
#    GNU cp copies a and e, and fails b.
mkdir ab || exit 99
random_file ab/a $((16 * M))
random_file ab/e $((40 * M))
random_file ab/b $((40 * M))
args=
existing=e full_disk existing-between 62 ab/ ab/a ab/e ab/b
exit 0
