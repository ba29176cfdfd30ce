#!/bin/sh
# Root copying into a directory another user can write: no metadata call
# may follow a name that user swaps for a symbolic link (src/cp/node.h).
# For each kind of node cp8M makes or changes (FIFO, socket, character
# device, directory new and existing, symbolic link, regular file new and
# existing, --attributes-only, a --parents chain), list the metadata
# calls the copy makes (strace), then for each call in turn: hold exactly
# that call at its entry (strace's delay_enter), and meanwhile let
# tests/swapper exchange the node's name with a symbolic link to a file
# or directory of root's.  The victims' owner, mode, times (ctime too:
# any change at all) and attributes must never change, whatever cp8M
# then reports.  Prints a table: case, call, whether the name was
# swapped, victim unchanged or CHANGED.  RACE_DELAY_US sets the hold
# (200000 by default).
. "${abs_top_srcdir:-.}/tests/init.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (chown, mknod, trusted.* attributes)"
command -v strace >/dev/null || skip "strace missing"
command -v setfacl >/dev/null && command -v getfattr >/dev/null ||
  skip "setfacl or getfattr missing (acl, attr)"
SWAPPER=$abs_top_builddir/tests/swapper
[ -x "$SWAPPER" ] || fail "tests/swapper is not built"
trace -f -o /dev/null -e trace=getpid -e inject=getpid:delay_enter=1 \
  true 2>/dev/null || skip "strace cannot delay calls here"
delay=${RACE_DELAY_US:-200000}

# The calls that change metadata, as far as this strace knows them.
calls=
for c in chmod fchmod fchmodat chown lchown fchown fchownat utimes \
         futimesat utimensat setxattr lsetxattr fsetxattr removexattr \
         lremovexattr fremovexattr; do
  strace -o /dev/null -e trace="$c" true 2>/dev/null && calls=$calls${calls:+,}$c
done

# The sources, all nobody's, with times, attributes and a default ACL, so
# that every kind of metadata call is made.  Modes without u+w on the
# directories: their copies are made writable for their contents first.
mkdir src src/d src/p src/p/q
mkfifo src/pipe
"$SWAPPER" --socket src/sock || fail "cannot make a socket"
mknod src/chr c 1 3
ln -s nowhere src/lnk
echo data >src/f && echo data >src/d/f && echo data >src/p/q/f
setfacl -d -m u:nobody:rx src/d
for n in pipe sock chr d f p p/q; do setfattr -n trusted.race -v 1 "src/$n"; done
setfattr -n user.race -v 1 src/f
chown -hR nobody:nogroup src
touch -h -d '2001-02-03 04:05:06' src/* src/d/f src/p/q src/p/q/f
chmod 555 src/d src/p src/p/q

# The victims, root's: a file and a directory, each with an attribute.
echo secret >victim && chmod 600 victim && setfattr -n user.v -v 1 victim
mkdir victimdir && chmod 700 victimdir && setfattr -n user.v -v 1 victimdir
touch -d '2000-01-01 00:00:00' victim victimdir
victims () {
  stat -c "%n %u:%g %a %.9X %.9Y %.9Z" victim victimdir
  getfattr -h -d -m - victim victimdir 2>/dev/null
}
victims >victims.0

# The cases: name | what exists in out/ first | cp8M's arguments | the
# node swapped (under out/) | the victim its link points to.
cat >cases <<'EOF'
fifo|-|-a src/pipe out/|pipe|victim
socket|-|-a src/sock out/|sock|victim
char-device|-|-a src/chr out/|chr|victim
dir-new|-|-a src/d out/|d|victimdir
dir-existing|mkdir out/d|-a src/d out/|d|victimdir
symlink|-|-a src/lnk out/|lnk|victim
file-new|-|-a src/f out/|f|victim
file-existing|echo old >out/f|-a src/f out/|f|victim
attributes-only|echo old >out/f|-a --attributes-only src/f out/|f|victim
parents-inner|-|-a --parents src/p/q/f out/|src/p/q|victimdir
parents-outer|-|-a --parents src/p/q/f out/|src/p|victimdir
EOF

# fresh SETUP: an empty out/ that nobody can write (the attacker's
# directory), with SETUP run in it first.
fresh () {
  rm -rf out pid && mkdir out || fail "cannot reset out/"
  [ "$1" = - ] || sh -c "$1" || fail "setup '$1' failed"
  chown nobody:nogroup out
}

# run ARGS...: cp8M ARGS through strace ARGS (before --) and record its
# pid in ./pid.
run () {
  _targs=
  while [ "$1" != -- ]; do _targs="$_targs $1"; shift; done
  shift
  # shellcheck disable=SC2086
  trace -f -o trace.out $_targs sh -c 'echo $$ >pid; exec cp8M "$@"' sh "$@" \
    >cp.out 2>&1
}

changed=0 swapped=0 rows=0
printf '%-16s %-14s %-10s %s\n' case call swapped victim >table
while IFS='|' read -r name setup args node target; do
  # The calls this case makes, in order, each with its rank among its
  # namesakes (strace's when=N counts them that way).
  fresh "$setup"
  # shellcheck disable=SC2086
  run -e "trace=$calls" -- $args
  pid=$(cat pid)
  sed -n "s/^$pid  *\([a-z0-9_]*\)(.*/\1/p" trace.out |
    awk '{ print $1, ++n[$1] }' >list
  [ -s list ] || fail "$name: no metadata call traced (cp8M $args)"
  while read -r call nth; do
    fresh "$setup"
    "$SWAPPER" pid "$call" out "$node" "$PWD/$target" 2>swapper.err &
    swp=$!
    # shellcheck disable=SC2086
    run --seccomp-bpf -e "trace=$call" \
      -e "inject=$call:delay_enter=$delay:when=$nth" -- $args
    wait $swp
    case $? in
      0) how=yes swapped=$((swapped + 1)) ;;
      2) how=no-name ;;
      *) cat swapper.err >&2; fail "$name: the swapper failed" ;;
    esac
    victims >victims.1
    if cmp -s victims.0 victims.1; then
      verdict=unchanged
    else
      verdict=CHANGED changed=$((changed + 1))
      diff victims.0 victims.1 | sed "s/^/$name $call#$nth: /" >&2
      cat cp.out >&2
      # Put the victims back for the next case.
      chown root:root victim victimdir && chmod 600 victim &&
        chmod 700 victimdir && setfacl -b victim victimdir &&
        setfacl -k victimdir
      for x in trusted.race user.race; do
        setfattr -x "$x" victim 2>/dev/null
        setfattr -x "$x" victimdir 2>/dev/null
      done
      touch -d '2000-01-01 00:00:00' victim victimdir
      victims >victims.0
    fi
    rows=$((rows + 1))
    printf '%-16s %-14s %-10s %s\n' "$name" "$call#$nth" "$how" "$verdict" >>table
  done <list
done <cases
cat table

[ "$swapped" -gt 0 ] || fail "no name was ever swapped: the test proves nothing"
[ "$changed" -eq 0 ] || fail "$changed of $rows held calls changed a victim through a swapped name"
exit 0
