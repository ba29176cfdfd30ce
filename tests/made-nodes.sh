#!/bin/sh
# Root copying into a directory another user (nobody) owns, while that
# user moves names at the worst moments (issue 51, section 3):
# 1. a node cp8M has just made (mkdirat, mknodat, symlinkat, and a
#    --parents directory) is swapped
#    for one of the user's, of the same type, before cp8M opens it to set
#    its metadata: cp8M must say it was replaced and leave the user's
#    node as it was (src/cp/node.c: the owner of a node made);
# 2. the top directory of a copy is swapped for a symbolic link to the
#    user's own tree between a hard-link group's first copy and its later
#    link: the later link must be to root's first copy, never to the
#    user's file of that name, and nothing may be linked into the user's
#    tree (src/cp/special.c: later links through a descriptor).  Under
#    `ulimit -n 32` no descriptor of the first copy is kept: the link is
#    then refused rather than made to the user's file;
# 3. on a mount that gives new nodes another owner (bindfs -u, as NFS's
#    root_squash does), cp8M learns that owner and copies as before.
# strace holds the call (delay_exit: the node exists; delay_enter: the
# link is not made yet) and tests/swapper moves the names meanwhile, so
# the window is open every time, whatever the machine's speed.
. "${abs_top_srcdir:-.}/tests/init.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (chown, another user's nodes)"
command -v strace >/dev/null || skip "strace missing"
command -v getfattr >/dev/null && command -v setfattr >/dev/null ||
  skip "getfattr or setfattr missing (attr)"
SWAPPER=$abs_top_builddir/tests/swapper
[ -x "$SWAPPER" ] || fail "tests/swapper is not built"
trace -f -o /dev/null -e trace=getpid -e inject=getpid:delay_enter=1 \
  true 2>/dev/null || skip "strace cannot delay calls here"
delay=${RACE_DELAY_US:-300000}

# run HOLD PREFIX ARGS...: cp8M ARGS with the system call HOLD ("call:
# delay_exit=N:when=K" as strace's inject= takes it) held, under the
# shell commands PREFIX; its pid in ./pid, its messages in ./err.
run () {
  _hold=$1 _prefix=$2
  shift 2
  trace -f -o /dev/null --seccomp-bpf -e "trace=${_hold%%:*}" \
    -e "inject=$_hold" \
    sh -c "echo \$\$ >pid; $_prefix exec cp8M \"\$@\"" sh "$@" 2>err
}

# held_swap CASE SETUP SWAP HOLD PREFIX ARGS...: the shell commands
# SETUP, then tests/swapper with the words SWAP (evaluated here) beside
# cp8M ARGS under PREFIX with the call HOLD held (strace's inject= text,
# HOLD_US standing for the hold); its status in $status.  The swapper
# sees the held call unless a loaded machine kept it from looking for
# the whole hold (it exits 2): then again, held longer.
held_swap () {
  _case=$1 _setup=$2 _swap=$3 _hold=$4 _prefix=$5
  shift 5
  for hold in $delay $((delay * 4)) $((delay * 16)); do
    eval "$_setup" || exit 99
    eval "\"\$SWAPPER\" $_swap" 2>swapper.err &
    swp=$!
    run "$(echo "$_hold" | sed "s/HOLD_US/$hold/")" "$_prefix" "$@"
    status=$?
    wait $swp
    sw=$?
    [ $sw -eq 2 ] || break
  done
  [ $sw -eq 0 ] || { cat swapper.err >&2; fail "$_case: the swapper failed ($sw)"; }
}

# A node's metadata as a copy would change it (not its ctime: the
# rename that swaps it in changes that).
meta () {
  stat -c '%n %u:%g %a %.9X %.9Y' "$1" && getfattr -h -d -m - "$1" 2>/dev/null
}

# 1. The node made, swapped for the user's own (with --parents, the
#    first directory on the way).  Sources root's, mode 600 or 700, with
#    an attribute and old times, so that -a changes everything.
mkdir src src/d && echo data >src/d/f || exit 99
mkfifo src/pipe && ln -s target src/lnk || exit 99
for n in d pipe; do setfattr -n trusted.made -v 1 "src/$n" || exit 99; done
chmod 600 src/pipe && chmod 700 src/d src || exit 99
touch -h -d '2001-02-03 04:05:06' src/pipe src/lnk src/d || exit 99
while IFS='|' read -r kind call name args make; do
  # shellcheck disable=SC2086
  held_swap "$kind" 'rm -rf out theirs pid && mkdir out && sh -c "$make" &&
      chown -h nobody:nogroup out theirs && chmod 755 out &&
      touch -h -d 2010-01-01 theirs &&
      meta theirs | sed "s/^theirs /NODE /" >before' \
    '--exchange pid "$call" out "$name" "$PWD/theirs"' \
    "$call:delay_exit=HOLD_US:when=1" "" $args out/
  meta "out/$name" | sed "s|^out/$name |NODE |" >after
  cmp -s before after || {
    diff before after >&2
    fail "$kind: the user's node swapped in was changed (exit $status: $(cat err))"
  }
  [ $status -eq 1 ] && grep -q "^cp8M: 'out/$name' was replaced while being copied$" err ||
    fail "$kind: exit $status, not refused: $(cat err)"
  note "$kind: the user's node was refused and left as it was"
done <<'EOF'
fifo|mknodat|pipe|-a src/pipe|mkfifo theirs && chmod 644 theirs
symlink|symlinkat|lnk|-a src/lnk|ln -s elsewhere theirs
directory|mkdirat|d|-a src/d|mkdir theirs && chmod 755 theirs
parents|mkdirat|src|-a --parents src/d/f|mkdir theirs && chmod 755 theirs
EOF

# 2. Later hard links.  Root's two names of one secret file; the user's
#    tree has a file under each name.
rm -rf src out shared && mkdir src shared usertree || exit 99
echo secret >src/h1 && ln src/h1 src/h2 && chmod 600 src/h1 || exit 99
echo theirs1 >usertree/h1 && echo theirs2 >usertree/h2 || exit 99
chown -R nobody:nogroup shared usertree || exit 99
ls -i usertree >usertree.before
# check CASE WANT: after a copy to shared/z whose z was swapped for the
# link (the real z is shared/.swapped): no file of the user's in root's
# copy, nothing of root's in the user's tree; WANT=linked: both names
# are one file; WANT=refused: exit 1, the later link refused.
check () {
  ls -i usertree | cmp -s usertree.before - ||
    fail "$1: the user's tree changed: $(ls -li usertree)"
  for f in usertree/h1 usertree/h2; do
    [ "$(stat -c %h "$f")" = 1 ] ||
      fail "$1: the user's $f got another link (root's copy is one of its names)"
  done
  for f in shared/.swapped/*; do
    [ -e "$f" ] || continue
    cmp -s src/h1 "$f" || fail "$1: $f in root's copy is not root's file: $(cat "$f")"
  done
  case $2 in
    linked)
      [ $status -eq 0 ] || fail "$1: exit $status: $(cat err)"
      [ "$(stat -c %i shared/.swapped/h1)" = "$(stat -c %i shared/.swapped/h2)" ] ||
        fail "$1: the two names are not one file: $(ls -li shared/.swapped)" ;;
    refused)
      [ $status -eq 1 ] &&
        grep -q "^cp8M: cannot create hard link 'shared/z/h[12]' to 'shared/z/h[12]': No such file or directory$" err ||
        fail "$1: exit $status, not refused: $(cat err)" ;;
  esac
}
# swap_top WHEN PREFIX: cp8M -a src shared/z under PREFIX, z swapped for
# a link to the user's tree while the WHENth linkat is held; its status
# in $status.
swap_top () {
  held_swap "link $1 ($2)" 'rm -rf shared/z shared/.swapped pid' \
    'pid linkat shared z "$PWD/usertree"' \
    "linkat:delay_enter=HOLD_US:when=$1" "$2" -a src shared/z
}
# The swap while the first copy is made (the link that names it: the
# first linkat), and while the later link is made (the second): with a
# descriptor of the first copy kept, the link is made either way.
for when in 1 2; do
  swap_top $when ""
  check "swapped at link $when" linked
done
# No descriptor kept (ulimit -n 32): the earlier copy is looked up by
# its name, which now leads to the user's file: refused.
swap_top 1 "ulimit -n 32 &&"
check "ulimit -n 32" refused
note "later hard links: root's first copy, or refused; never the user's file"

# 2b. The first copy itself (shared/y/h1) swapped, right after the
#    link that names it, for a symbolic link to it (the swapper leaves
#    the copy as shared/y/.swapped): GNU cp links the later name to
#    whatever the first name is then; cp8M must not take that link for
#    the first copy (its later name would be a link of the user's, who
#    can point it anywhere): the later name is root's file, or refused.
mkdir -p shared/y && chown nobody:nogroup shared/y || exit 99
held_swap "first copy swapped" 'rm -rf shared/y/* shared/y/.swapped pid' \
  'pid linkat shared/y h1 "$PWD/shared/y/.swapped"' \
  "linkat:delay_exit=HOLD_US:when=1" "" -a src/h1 src/h2 shared/y
[ -L shared/y/h1 ] || fail "first copy swapped: the swap did not happen"
if [ -L shared/y/h2 ]; then
  fail "first copy swapped: the later name is the swapped-in link: $(ls -li shared/y)"
elif [ -e shared/y/h2 ]; then
  [ "$(stat -c %i shared/y/h2)" = "$(stat -c %i shared/y/.swapped)" ] ||
    fail "first copy swapped: the later name is not root's copy: $(ls -lia shared/y)"
else
  [ $status -eq 1 ] &&
    grep -q "^cp8M: cannot create hard link 'shared/y/h2' to 'shared/y/h1': No such file or directory$" err ||
    fail "first copy swapped: exit $status, not refused: $(cat err)"
fi
note "first copy swapped for a link to it: the later name never the link"

# 3. A mount that gives every node another owner: the owner of the nodes
#    cp8M makes there is learnt, and the copy goes on as GNU cp's does.
if command -v bindfs >/dev/null && command -v fusermount >/dev/null &&
   [ -c /dev/fuse ]; then
  rm -rf src && mkdir back mnt src src/d || exit 99
  mkfifo src/p && ln -s x src/l && echo f >src/d/f || exit 99
  if bindfs -u nobody -g nogroup back mnt 2>/dev/null; then
    cp8M -a src mnt/ 2>err
    status=$?
    $GNU_CP -a src mnt/gnu 2>gnu.err
    gnu_status=$?
    ours=$(cd mnt/src && find . -printf '%p %y %u %m\n' | sort)
    gnus=$(cd mnt/gnu && find . -printf '%p %y %u %m\n' | sort)
    fusermount -u mnt
    [ $status -eq $gnu_status ] && cmp -s err gnu.err ||
      fail "bindfs -u nobody: exit $status ($(cat err)), GNU's $gnu_status ($(cat gnu.err))"
    [ "$ours" = "$gnus" ] ||
      fail "bindfs -u nobody: the copies differ: $ours / $gnus"
    [ -z "$(ls -A back/src | grep '^\.cp8M-')" ] ||
      fail "bindfs -u nobody: a hidden file was left behind"
    note "bindfs -u nobody: copied as GNU cp copies"
  else
    note "bindfs cannot mount here: its part skipped"
  fi
fi
exit 0
