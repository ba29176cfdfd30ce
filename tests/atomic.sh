#!/bin/sh
# --atomic (issue 41): an existing regular file is replaced only by a
# complete copy, renamed over it.  Killed at random moments by SIGTERM,
# SIGINT or SIGKILL, or failing part way, the name holds the complete
# old file or the complete new one, never a part of either; the old
# file's mode and owner are kept as a rewrite in place keeps them, a
# hard link to it keeps the old data, --verify and --sync run before the
# rename, and a symbolic link is written through as without --atomic.
# A running program's file is replaced (it is never opened for
# writing), and the old file's ACL and attributes are kept as a rewrite
# in place keeps them.
# Any moment is a good one to kill it: the copy is slowed by --bwlimit
# so that most fall inside it, and the test accepts either file, so a
# busy machine cannot fail it.
. "${abs_top_srcdir:-.}/tests/init.sh"

head -c 24M /dev/urandom >new
head -c 16M /dev/urandom >old

# 1. Kills at random moments: 24 MiB at 64 MiB/s takes 0.4 s.
rounds=${ATOMIC_ROUNDS:-15}
olds=0 news=0 i=0
while [ $i -lt $rounds ]; do
  case $((i % 3)) in 0) sig=TERM ;; 1) sig=INT ;; *) sig=KILL ;; esac
  cp old dst
  cp8M --atomic --bwlimit=64M new dst &
  copy=$!
  ms=$(od -An -N2 -tu2 /dev/urandom | awk '{ print $1 % 450 }')
  sleep "$(printf '0.%03d' "$ms")"
  kill -$sig $copy 2>/dev/null
  wait $copy
  if cmp -s old dst; then
    olds=$((olds + 1))
  elif cmp -s new dst; then
    news=$((news + 1))
  else
    fail "killed by SIG$sig after $ms ms: dst is neither file ($(stat -c %s dst) bytes)"
  fi
  # Only SIGKILL, between the hidden name and the rename, may leave one.
  if [ $sig != KILL ] && ls -A | grep -q '^\.cp8M-'; then
    fail "SIG$sig after $ms ms left a hidden file: $(ls -A | grep '^\.cp8M-')"
  fi
  rm -f .cp8M-*
  i=$((i + 1))
done
note "killed $rounds times: the old file $olds times, the new one $news"

# 2. A copy that fails part way (the second write says EIO) leaves the
#    old file, and nothing else.
cp old dst
expect 1 "cp8M: error writing 'dst': Input/output error" \
  trace -f -o /dev/null -e trace=pwrite64,pwritev2 \
  -e inject=pwrite64,pwritev2:error=EIO:when=2 cp8M --atomic new dst
cmp old dst || fail "a failed --atomic copy changed the old file"
ls -A | grep -q '^\.cp8M-' && fail "a failed --atomic copy left a hidden file"

# 3. The old file's mode (not the source's, without -p) and owner; a
#    hard link keeps the old data; -p gives the source's mode.
cp old dst
chmod 640 dst
chmod 755 new
chown nobody dst
ln dst dst.hard
cp8M --atomic new dst || fail "--atomic onto a linked file failed"
cmp new dst || fail "the replacement differs"
cmp old dst.hard || fail "the hard link lost the old data"
[ "$(stat -c '%a %U %h' dst)" = "640 nobody 1" ] ||
  fail "mode, owner, links of the replacement: $(stat -c '%a %U %h' dst)"
cp8M --atomic -p new dst && [ "$(stat -c %a dst)" = 755 ] ||
  fail "--atomic -p: mode $(stat -c %a dst)"

# 4. --verify and --sync, then the rename; --debug says how.
cp old dst
cp8M --atomic --verify --sync --debug new dst >out ||
  fail "--atomic --verify --sync failed"
cmp new dst || fail "--atomic --verify --sync: the copy differs"
grep -q "^destination: existing file, replaced by a new one when complete (--atomic)$" out ||
  fail "--debug: $(grep destination out)"
# With --sync the rename itself is made durable: the directory is
# flushed after it (without that a power loss may bring the old file
# back, though the exit status said the copy was on stable storage).
if command -v strace >/dev/null; then
  cp old dst
  trace -f -y -o calls -e trace=fsync,renameat,renameat2 \
    cp8M --atomic --sync new dst || fail "--atomic --sync under strace failed"
  awk -v d="<$(pwd -P)>" '/rename/ { r = 1 }
    r && /fsync\(/ && index($0, d ")") { ok = 1 } END { exit !ok }' calls ||
    fail "--atomic --sync: no flush of the directory after the rename: $(cat calls)"
fi

# 5. A symbolic link is written through, in place, as without --atomic;
#    a new destination is made as ever.
cp old target
ln -s target link
cp8M --atomic --debug new link >out || fail "--atomic through a symlink failed"
[ -L link ] && cmp new target || fail "the symlink was replaced, or its target differs"
grep -q "^destination: existing file, overwritten in place$" out ||
  fail "--debug through a symlink: $(grep destination out)"
cp8M --atomic new fresh && cmp new fresh || fail "--atomic onto nothing failed"

# 6. A running program's file is replaced as install replaces it (an open
#    for writing says "Text file busy"): exit 0, the new content under
#    the name, the running program unharmed (it still has the old file).
cp /bin/sleep exe && chmod 755 exe || exit 99
./exe 300 &
sleeper=$!
# Until it runs exe, not the shell that forked it.
i=0
until [ "$(readlink "/proc/$sleeper/exe" 2>/dev/null)" = "$PWD/exe" ] ||
      [ $i -ge 1000 ]; do sleep 0.01; i=$((i + 1)); done
cp8M --atomic new exe 2>err
status=$?
kill -0 $sleeper 2>/dev/null
alive=$?
kill $sleeper 2>/dev/null
wait $sleeper 2>/dev/null
[ $status -eq 0 ] || fail "--atomic over a running program: exit $status: $(cat err)"
cmp new exe || fail "--atomic over a running program: not the new content"
[ $alive -eq 0 ] || fail "--atomic over a running program: the program died"

# 7. What a rewrite in place keeps of the old file, --atomic keeps: its
#    ACL and extended attributes (the source's, when preserved, go over
#    them, as over a file rewritten in place).  /bin/cp in place is the
#    reference.
if command -v setfacl >/dev/null && command -v getfattr >/dev/null &&
   : >probe && setfacl -m u:nobody:r probe 2>/dev/null &&
   setfattr -n user.probe -v 1 probe 2>/dev/null; then
  attrs () {
    getfacl -c "$1" | grep -v '^$' && getfattr -d -m - "$1" 2>/dev/null |
      grep -v '^#' | grep -v '^$'
  }
  for opts in "" "--preserve=xattr" "-p"; do
    for how in gnu ours; do
      cp old "$how" && chmod 640 "$how" && setfacl -m u:nobody:rw "$how" &&
        setfattr -n user.old -v kept "$how" || exit 99
    done
    echo data >src && setfattr -n user.src -v 1 src && chmod 604 src ||
      exit 99
    # shellcheck disable=SC2086
    $GNU_CP $opts src gnu || fail "/bin/cp $opts in place failed"
    # shellcheck disable=SC2086
    cp8M --atomic $opts src ours || fail "--atomic $opts failed"
    attrs gnu >gnu.attrs && attrs ours | sed 's/ours$/gnu/' >ours.attrs
    cmp -s gnu.attrs ours.attrs || {
      diff -u gnu.attrs ours.attrs >&2
      fail "--atomic $opts: the ACL or attributes differ from /bin/cp's in place"
    }
    grep -q user.old ours.attrs ||
      fail "--atomic $opts: the old file's attribute was lost"
    rm -f src
  done
else
  note "no ACLs or user.* attributes here: their part skipped"
fi
exit 0
