#!/bin/sh
# Root copying into a directory other users can write (issue 51 §3): a
# symbolic link another user planted there in advance is not followed
# (src/cp/follow.h).  A link at the destination is followed only when
# its owner is the user cp8M runs as or the owner of the directory that
# holds it (Linux's protected_symlinks rule, in every directory, sticky
# or not); another's is refused with "not following symbolic link 'NAME'
# owned by another user", exit 1, the other files still copied, and the
# file or directory it leads to untouched (content, owner, mode, entries).
# The places a destination link is met: an existing file overwritten
# (also --atomic, --attributes-only, and written through dangling under
# POSIXLY_CORRECT), a directory merged under --keep-directory-symlink,
# the destination operand itself, and each directory --parents meets on
# the way.  -f replaces a refused link instead, as GNU cp -f replaces one
# the kernel will not follow.  Links of root's own, and of the
# directory's owner, are followed as GNU cp follows them.  Last, the
# open itself decides: a link swapped in (strace holds the open) after
# cp8M looked at an allowed one is refused.
. "${abs_top_srcdir:-.}/tests/init.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (links owned by other users)"
# Other users by number: nothing is run as them, their links are only
# given to them (chown -h), so no account needs to exist.
other=$(id -u nobody 2>/dev/null) || other=65534
third=4242

# The victims, root's: a file, a directory with one entry, and a name
# that does not exist yet.
echo secret >victim && chmod 600 victim
mkdir victimdir && echo inside >victimdir/e && chmod 700 victimdir
touch -d '2000-01-01 00:00:00' victim victimdir
victims () {
  stat -c '%n %u:%g %a %s %.9Y' victim victimdir victimdir/*
  cat victim
  ls -A victimdir
  [ -e newvictim ] && echo "newvictim exists"
  :
}
victims >victims.0
untouched () { # untouched WHAT: the victims are as they were
  victims >victims.1
  cmp -s victims.0 victims.1 ||
    { diff victims.0 victims.1 >&2; fail "$1: a victim changed (above)"; }
}

mkdir -p src/d src/a/sub
echo new >src/f && echo gee >src/g && echo dd >src/d/x && echo af >src/a/sub/f

# plant DIR NAME TARGET OWNER: the symbolic link DIR/NAME -> TARGET, OWNER's.
plant () { ln -s "$3" "$1/$2" && chown -h "$4" "$1/$2" || fail "cannot plant $1/$2"; }

# fresh KIND: ./D, a directory others can write: "sticky" (1777, root's,
# as /tmp), "open" (0777, root's, not sticky), "owned" (0755, the other
# user's, not sticky).
fresh () {
  rm -rf D && mkdir D || fail "cannot make D"
  case $1 in
    sticky) chmod 1777 D ;;
    open) chmod 0777 D ;;
    owned) chown "$other" D ;;
  esac
}

refusal () { echo "cp8M: not following symbolic link '$1' owned by another user"; }

for kind in sticky open; do
  # An existing destination file, in a tree copied with -a: refused, the
  # rest copied.
  fresh $kind
  plant D f ../victim "$other"
  expect 1 "$(refusal D/./f)" cp8M -a src/. D/
  untouched "$kind: -a src/. D/"
  [ -L D/f ] || fail "$kind: the planted link is gone"
  [ "$(cat D/g)" = gee ] && [ "$(cat D/d/x)" = dd ] ||
    fail "$kind: the other files were not copied"

  # SOURCE DEST, --atomic, --attributes-only.
  for opt in "" --atomic --attributes-only "-p --preserve=links"; do
    fresh $kind
    plant D f ../victim "$other"
    # shellcheck disable=SC2086
    expect 1 "$(refusal D/f)" cp8M $opt src/f D/f
    untouched "$kind: cp8M $opt src/f D/f"
  done

  # -f replaces the link with a new file (what GNU cp -f does where the
  # kernel refuses to follow it); -n leaves it, as any existing file.
  fresh $kind
  plant D f ../victim "$other"
  expect 0 "" cp8M -f src/f D/f
  untouched "$kind: -f"
  [ ! -L D/f ] && [ "$(cat D/f)" = new ] || fail "$kind: -f did not replace the link"
  fresh $kind
  plant D f ../victim "$other"
  expect 0 "" cp8M -n src/f D/f
  untouched "$kind: -n"

  # Dangling: GNU's refusal as ever, and under POSIXLY_CORRECT (which
  # writes through a dangling link) the rule's.
  fresh $kind
  plant D f ../newvictim "$other"
  expect 1 "cp8M: not writing through dangling symlink 'D/f'" cp8M src/f D/f
  expect 1 "$(refusal D/f)" env POSIXLY_CORRECT=1 cp8M src/f D/f
  untouched "$kind: dangling"

  # A directory merged through a link (--keep-directory-symlink).
  fresh $kind
  plant D d ../victimdir "$other"
  expect 1 "$(refusal D/d)" cp8M -R --keep-directory-symlink src/d D/
  untouched "$kind: --keep-directory-symlink"

  # The destination operand itself: a target directory, or the DEST of
  # SOURCE DEST leading to one.
  fresh $kind
  plant D t ../victimdir "$other"
  expect 1 "$(refusal D/t)" cp8M src/f src/g D/t
  expect 1 "$(refusal D/t)" cp8M src/f D/t
  expect 1 "$(refusal D/t/)" cp8M -t D/t/ src/f
  untouched "$kind: the destination operand"

  # Every link met on the way to the destination operand, not only its
  # last component: one among DEST's directories, or before -t's ".".
  fresh $kind
  plant D sub ../victimdir "$other"
  expect 1 "$(refusal D/sub/.)" cp8M src/f D/sub/.
  expect 1 "$(refusal D/sub/x)" cp8M src/f D/sub/x
  expect 1 "$(refusal D/sub/.)" cp8M -t D/sub/. src/f
  expect 1 "$(refusal D/sub/new)" cp8M -r src/d D/sub/new
  untouched "$kind: a link among the destination's directories"

  # A followed link's text is walked the same way: root's own link
  # D/cfg -> conf/e, through the other user's D/conf -> victimdir.
  fresh $kind
  ln -s conf/e D/cfg && plant D conf ../victimdir "$other"
  expect 1 "$(refusal D/cfg)" cp8M src/f D/cfg
  untouched "$kind: a link among a followed link's directories"

  # --parents: the first directory on the way, and one further down.
  fresh $kind
  plant D src ../victimdir "$other"
  expect 1 "$(refusal D/src)" cp8M -a --parents src/a/sub/f D/
  fresh $kind
  mkdir D/src && chmod 1777 D/src && plant D/src a ../../victimdir "$other"
  expect 1 "$(refusal D/src/a)" cp8M -a --parents src/a/sub/f D/
  untouched "$kind: --parents"
done

# Links that are followed, as GNU cp follows them: root's own (cp8M's
# user) in any directory, and the directory owner's in their directory.
# A third user's link in that directory is still refused.
echo mine >mine && mkdir minedir minedir2
fresh sticky
ln -s ../mine D/f && ln -s ../minedir D/t && ln -s ../minedir2 D/d &&
  mkdir D/x && ln -s ../../minedir D/x/src || fail "cannot make root's links"
expect 0 "" cp8M src/f D/f
[ "$(cat mine)" = new ] || fail "root's own link was not followed"
expect 0 "" cp8M src/g D/t
[ "$(cat minedir/g)" = gee ] || fail "root's own link to a target directory was not followed"
expect 0 "" cp8M --parents src/a/sub/f D/x
[ -f minedir/a/sub/f ] || fail "--parents through root's own link: not followed"
expect 0 "" cp8M -R --keep-directory-symlink src/d D/
[ -f minedir2/x ] || fail "--keep-directory-symlink through root's own link: not followed"
echo mine >mine
fresh owned
plant D f ../mine "$other"
plant D v ../victim "$third"
expect 0 "" cp8M src/f D/f
[ "$(cat mine)" = new ] || fail "the directory owner's link was not followed"
expect 1 "$(refusal D/v)" cp8M src/f D/v
untouched "a third user's link in another's directory"

# The link checked is the link followed.  D/f is root's own link, which
# cp8M looks at and may follow; strace holds cp8M at the entry of the
# open of D/f, and meanwhile the other user's link to the victim is
# renamed over D/f.  The open must refuse it, though the look before
# found a link to follow.
if trace -f -o /dev/null -e trace=getpid -e inject=getpid:delay_enter=1 \
     true 2>/dev/null &&
   nr=$(trace -n -e trace=openat -o /dev/stdout true 2>/dev/null |
        sed -n '1s/^\[ *\([0-9]*\)\].*/\1/p') && [ -n "$nr" ]; then
  # race: the whole round; exit 0 when the swap came during the hold.
  race () {
    fresh sticky
    echo mine >mine
    ln -s ../mine D/f && plant D .evil ../victim "$other"
    rm -f pid
    # The rank of the open of D/f among the run's openat calls (the
    # shell's before exec count too, as strace's when= counts them).
    trace -o list -e trace=openat \
      sh -c 'echo $$ >pid; exec cp8M src/f D/f' >/dev/null 2>&1
    # (D/f: "f" in D's descriptor.)
    n=$(grep -n '"f", O_WRONLY' list | sed -n '1s/:.*//p')
    [ -n "$n" ] || fail "no open of D/f traced: $(cat list)"
    echo mine >mine
    rm -f pid
    trace -o /dev/null -e trace=openat \
      -e inject=openat:delay_enter=1000000:when="$n" \
      sh -c 'echo $$ >pid; exec cp8M src/f D/f' >race.out 2>&1 &
    copy=$!
    held=no
    while kill -0 $copy 2>/dev/null; do
      [ -s pid ] || continue
      read -r pid <pid
      s=
      read -r s args <"/proc/$pid/syscall" 2>/dev/null
      [ "$s" = "$nr" ] || continue
      # The same openat (same arguments) a moment later: the held one,
      # not one of the several cp8M makes on its way to D's "f" (a
      # swap during one of those is too early).
      sleep 0.1
      s2= args2=
      read -r s2 args2 <"/proc/$pid/syscall" 2>/dev/null
      [ "$s2" = "$nr" ] && [ "$args2" = "$args" ] || continue
      mv -T D/.evil D/f
      # Still held after the swap: it came during the hold (a passing
      # openat would long be over).
      s=
      read -r s _ <"/proc/$pid/syscall" 2>/dev/null
      [ "$s" = "$nr" ] && held=yes
      break
    done
    wait $copy
    status=$?
    [ $held = yes ]
  }
  tries=0
  until race; do
    tries=$((tries + 1))
    [ $tries -lt 5 ] || fail "the swap never came during the held open"
    untouched "the race (a swap outside the hold)"
  done
  [ $status -eq 1 ] && [ "$(cat race.out)" = "$(refusal D/f)" ] ||
    fail "the link swapped in during the open: exit $status, $(cat race.out)"
  untouched "the link swapped in during the open"
  [ "$(cat mine)" = mine ] || fail "the race: the first link's file was written"
else
  note "strace cannot hold a call here: the race is not tried"
fi
exit 0
