#!/bin/sh
# The lowest descriptor limits: cp8M copies wherever GNU cp copies, with
# the same messages, status and tree.  GNU cp 9.1 copies a tree with two
# descriptors free (`ulimit -n 5`; `-n 6` into an existing directory,
# whose descriptor it holds), and below that makes the directories but
# no files.  Too few for cp8M to hold a directory level, it holds none
# (src/cp/dirfds.c); the engine's second descriptor of a file for direct
# I/O is then done without.
. "${abs_top_srcdir:-.}/tests/init.sh"

# Levels below levels, files of one byte to past 8 MiB (direct I/O with
# a buffered tail), a symlink, a hard link, an empty file, a directory
# of mode 0750 and one its owner cannot write.
mkdir -p tree/src/a/b/c/d tree/src/e tree/into || exit 99
random_file tree/src/f1 3
random_file tree/src/a/f2 100000
random_file tree/src/a/b/big $((8 * 1024 * 1024 + 4097))
random_file tree/src/a/b/c/f4 5000
random_file tree/src/a/b/c/d/f5 1
: >tree/src/e/empty
ln -s f1 tree/src/link
ln tree/src/a/f2 tree/src/e/hard
chmod 750 tree/src/a/b
chmod 555 tree/src/a/b/c/d

# lim N COMMAND...: COMMAND under `ulimit -n N`, with only 0, 1 and 2
# open, whatever the caller left open: a parent's descriptors count
# against the limit, and cp8M holds fewer levels when it sees them (the
# test must not pass only because a terminal or a CI runner left some
# open).  bash -c, as only bash closes descriptors above 9 by number,
# and a script's own would be among them.
cat >lim <<'EOF2' || exit 99
#!/bin/sh
exec bash -c 'n=$1
shift
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  [ "$fd" -gt 2 ] && eval "exec $fd>&-"
done
ulimit -n "$n" && exec "$@"' lim "$@"
EOF2
chmod 755 lim "$work" || exit 99

RUN_SETUP='evict src/a/b/big'

# zero_free: with no descriptor free at all (-n 4 into an existing
# directory, whose descriptor both hold), both make the directory and
# fail at its source; GNU cp then gives it its attributes by name, which
# cp8M never does (a node it made is changed only through a descriptor
# of it: src/cp/node.h), so it also says it cannot, and the trees differ
# by that directory's mode and times.  The same status, GNU's messages
# among cp8M's, and that one more.
zero_free () {
  ( RUN_PREFIX="$work/lim 4" same_as_gnu -a src into ) 2>/dev/null && return
  cmp -s "$work/.gnu.status" "$work/.ours.status" ||
    fail "-a src into under ulimit -n 4: exit $(cat "$work/.ours.status")"
  printf '%s\n' "cp: cannot access 'into/src': Too many open files" |
    cat - "$work/.gnu.err" | LC_ALL=C sort >"$work/.want.err"
  cmp -s "$work/.want.err" "$work/.ours.err" ||
    { diff -u "$work/.want.err" "$work/.ours.err" >&2;
      fail "-a src into under ulimit -n 4: messages (above)"; }
}

for n in 4 5 6 8 10; do
  exits=
  for args in "-r src copy" "-a src copy" "-a src into"; do
    if [ "$n" = 4 ] && [ "$args" = "-a src into" ]; then
      zero_free
    else
      # shellcheck disable=SC2086
      RUN_PREFIX="$work/lim $n" same_as_gnu $args
    fi
    exits="$exits $(cat "$work/.gnu.status")"
  done
  note "ulimit -n $n: -r, -a, -a into a directory as GNU cp, exits$exits"
done
RUN_PREFIX="$work/lim 5" same_as_gnu --preserve=all -R src copy
# --parents: its directories too reached by name under the target.
# And a directory walked under the one --parents made, whose descriptor
# is held all along: one fewer for the walk.
for n in 5 6 8; do
  RUN_PREFIX="$work/lim $n" same_as_gnu -a --parents src/a/b/c/f4 src/f1 into
done
for n in 8 9 10 12; do
  RUN_PREFIX="$work/lim $n" same_as_gnu -a --parents src/a/b src/e into
done

# As nobody, whose copies cannot keep the owner.
[ "$(id -u)" -eq 0 ] && chown -R nobody:nogroup tree
RUN_PREFIX="as_nobody $work/lim 6" same_as_gnu -a src copy
note "ulimit -n 6 as nobody: -a as GNU cp"

# At -n 5 the engine cannot open a second descriptor of either side for
# direct I/O: it goes on through the one it has.
probe=$(mktemp probe.XXXXXX)
if dd if=/dev/zero of="$probe" bs=4096 count=1 oflag=direct status=none 2>/dev/null
then
  evict tree/src/a/b/big
  "$work/lim" 5 cp8M --debug --direct=always tree/src/a/b/big big >out 2>&1 ||
    fail "--direct=always under ulimit -n 5: $(cat out)"
  cmp -s tree/src/a/b/big big || fail "--direct=always under ulimit -n 5: the copy differs"
  grep -q '^direct I/O: yes' out ||
    fail "--direct=always under ulimit -n 5: not direct: $(cat out)"
  note "ulimit -n 5: $(grep '^direct I/O' out)"
else
  note "this file system refuses O_DIRECT: no direct I/O under ulimit -n 5"
fi
exit 0
