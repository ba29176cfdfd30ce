#!/bin/sh
# A node cp8M has just made (a FIFO, a symbolic link) is refused when the
# name holds, by the time cp8M opens it, a hard link to another file of
# the same type: one link more than a new node has (src/cp/node.c,
# open_made; issue 51 §6a).  Root copies into a directory another user
# can write; the user removes cp8M's new FIFO and links root's own FIFO
# in under its name.  Root's FIFO and link must keep their owner, mode
# and times, whatever cp8M does.
#
# No race to win: strace makes cp8M's removal of the old name and its
# mknodat / symlinkat report success without doing them (inject
# retval=0), so the name still holds the hard link made beforehand,
# exactly what the user's swap leaves.
. "${abs_top_srcdir:-.}/tests/init.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (files of two owners)"
command -v strace >/dev/null || skip "strace missing"
trace -f -o /dev/null -e trace=getpid -e inject=getpid:retval=0 true \
  2>/dev/null || skip "strace cannot inject here"

# The user's sources, and root's files that the user links in.
mkdir src out
mkfifo src/pipe && ln -s nowhere src/lnk || fail "cannot make the sources"
chown -h nobody:nogroup src/pipe src/lnk src out
chmod 644 src/pipe
touch -h -d '2001-02-03 04:05:06' src/pipe src/lnk
mkfifo victim && chmod 600 victim && ln -s /etc/shadow vlink &&
  touch -h -d '2000-01-01 00:00:00' victim vlink ||
  fail "cannot make the victims"
ln victim out/pipe && ln vlink out/lnk || fail "cannot link the victims"
victims () { stat -c '%n %u:%g %a %h %.9X %.9Y %.9Z' victim vlink; }
victims >victims.0

trace -f -o trace.out -e trace=unlinkat,mknodat,symlinkat \
  -e inject=unlinkat,mknodat,symlinkat:retval=0 \
  cp8M -a src/pipe src/lnk out/ >cp.out 2>cp.err
status=$?
cat cp.out cp.err

# The test holds only if each node was "made" (so that cp8M checked a
# node it believes its own).
for call in 'mknodat(3, "pipe"' 'symlinkat("nowhere", 3, "lnk")'; do
  grep -F "$call" trace.out | grep -q INJECTED ||
    fail "no injected $call: cp8M made its nodes otherwise (trace.out)"
done

victims >victims.1
if ! cmp -s victims.0 victims.1; then
  diff victims.0 victims.1 >&2
  fail "root's FIFO or link changed through the hard link (above)"
fi
printf '%s\n' "cp8M: 'out/pipe' was replaced while being copied" \
  "cp8M: 'out/lnk' was replaced while being copied" >want.err
cmp -s want.err cp.err ||
  { diff want.err cp.err >&2; fail "messages differ (above: expected first)"; }
[ "$status" -eq 1 ] || fail "exit status $status, expected 1"
exit 0
