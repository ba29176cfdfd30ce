#!/bin/sh
# Attribute preservation: -p, --preserve (bare and with each of mode,
# ownership, timestamps, links, xattr, all), --no-preserve, -a; nanosecond
# timestamps and symlink timestamps; ownership as root (files owned by
# nobody) and as nobody (files owned by root: silently not preserved);
# setuid/setgid bits; umask 0, 022 and 077; user xattrs; POSIX ACLs (access
# and default); SELinux options on a kernel without SELinux; and
# --attributes-only.  Results are compared with GNU cp on name, type, mode,
# owner, size, contents, hard links, mtimes (a time the copy stamped
# itself counts as "now"), xattrs and ACLs.  Each check runs on its own,
# so the log lists every failing one.
. "${abs_top_srcdir:-.}/tests/init.sh"

failures=0
check () { ( "$@" ) || failures=$((failures + 1)); }
with_umask () { umask "$1"; shift; "$@"; }
root=false
[ "$(id -u)" -eq 0 ] && root=true

# The checks are same_as_gnu's (tests/init.sh): its digests
# (tests/treedigest) compare name, type, mode, owner, size, contents,
# hard links, xattrs, ACLs and mtimes to the nanosecond (a time the copy
# stamped itself as "now").

mkdir tree tree/dir tree/dir/sub tree/dd
echo alpha >tree/a
echo beta >tree/dir/b
echo gamma >tree/dir/sub/c
echo old-content >tree/existing
printf 'x' >tree/exec
chmod 755 tree/exec
chmod 600 tree/a
chmod 750 tree/dir/sub
chmod 444 tree/dir/b
ln -s a tree/lnk
ln tree/dir/b tree/dir/b-hard
touch -d '2020-01-02 03:04:05.123456789' tree/a tree/exec
touch -d '2019-05-06 07:08:09.987654321' tree/dir/b tree/dir/sub/c
touch -h -d '2018-01-01 00:00:00.000000001' tree/lnk
touch -d '2017-03-04 05:06:07.5' tree/dir/sub tree/dir
if $root; then
  chown nobody:nogroup tree/a tree/dir/b tree/dir
  chown -h nobody:nogroup tree/lnk
  chown root:nogroup tree/dir/sub/c
fi

# -p and the --preserve forms, into a new name and into an existing
# directory (whose own mtime the copy changes: "now" on both sides).
for opts in "-p" "--preserve" "--preserve=mode" "--preserve=ownership" \
            "--preserve=timestamps" "--preserve=links" "--preserve=all" \
            "--preserve=mode,timestamps" "-p --no-preserve=mode" \
            "-p --no-preserve=timestamps" "-p --no-preserve=ownership" \
            "--preserve=all --no-preserve=all" "-a --no-preserve=mode" \
            "-a --no-preserve=all" "-a" "-a --no-preserve=links" \
            "--preserve=xattr" "--no-preserve=mode" "-p --preserve=links"; do
  case $opts in
    *"-a"*) r= ;;
    *) r=-r ;;
  esac
  # shellcheck disable=SC2086
  check same_as_gnu $r $opts dir out
  # shellcheck disable=SC2086
  check same_as_gnu $opts a new
  # shellcheck disable=SC2086
  check same_as_gnu $opts a existing
  # shellcheck disable=SC2086
  check same_as_gnu $r $opts a lnk dir dd
done
# Without -p the mtimes are the copy's own (the digest's "now").
for args in "-r dir out" "a new" "a existing" "-r a lnk dir dd" "-P lnk l2" \
            "-rd dir out" "-r --preserve=links dir out"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done

# Nanosecond timestamps, files and symlinks.
same_time () { # same_time A B: A and B have the same mtime
  [ "$(stat -c %y "$1")" = "$(stat -c %y "$2")" ] ||
    fail "mtime of $2 is $(stat -c %y "$2"), not $(stat -c %y "$1")"
}
"$GNU_CP" -a tree/a tree/lnk tree/dir .
check expect 0 "" cp8M -p a a-copy
check same_time a a-copy
check expect 0 "" cp8M --preserve=timestamps a a-copy2
check same_time a a-copy2
check expect 0 "" cp8M -P -p lnk lnk-copy
check same_time lnk lnk-copy
check expect 0 "" cp8M -a lnk lnk-copy2
check same_time lnk lnk-copy2
check expect 0 "" cp8M -a dir dir-copy
check same_time dir dir-copy
check same_time dir/sub dir-copy/sub
check same_time dir/sub/c dir-copy/sub/c
[ "$(stat -c %y dir-copy/sub/c)" != "$(stat -c %y dir/sub/c | sed 's/\.[0-9]*/.000000000/')" ] ||
  { note "nanoseconds truncated"; failures=$((failures + 1)); }

# Ownership as root: kept by -p, -a and --preserve=ownership only.
if $root; then
  owner_is () { # owner_is FILE USER:GROUP
    [ "$(stat -c %U:%G "$1")" = "$2" ] ||
      fail "$1 is owned by $(stat -c %U:%G "$1"), not $2"
  }
  check expect 0 "" cp8M -p a own-p
  check owner_is own-p nobody:nogroup
  check expect 0 "" cp8M a own-plain
  check owner_is own-plain root:root
  check expect 0 "" cp8M --preserve=ownership a own-o
  check owner_is own-o nobody:nogroup
  check expect 0 "" cp8M -a lnk own-lnk
  check owner_is own-lnk nobody:nogroup
  check expect 0 "" cp8M -a --no-preserve=ownership a own-no
  check owner_is own-no root:root
fi

# setuid, setgid and sticky bits, as root.
mkdir tree/special
printf 'x' >tree/special/suid
printf 'x' >tree/special/sgid
printf 'x' >tree/special/both
mkdir tree/special/sticky tree/special/sgdir
chmod 4755 tree/special/suid
chmod 2755 tree/special/sgid
chmod 6711 tree/special/both
chmod 1777 tree/special/sticky
chmod 2775 tree/special/sgdir
$root && chown nobody:nogroup tree/special/suid tree/special/both &&
  chown root:nogroup tree/special/sgid tree/special/sgdir
for opts in "-r" "-rp" "-a" "-r --preserve=mode" "-r --preserve=ownership" \
            "-a --no-preserve=mode" "-a --no-preserve=ownership"; do
  # shellcheck disable=SC2086
  check same_as_gnu $opts special out
  # shellcheck disable=SC2086
  check same_as_gnu $opts special/suid special/sgid special/both dd
done
# A setgid destination directory: new subdirectories inherit the bit.
mkdir tree/sgparent
chmod 2755 tree/sgparent
for opts in "-r" "-r --no-preserve=mode" "-rp" "-a --no-preserve=mode"; do
  # shellcheck disable=SC2086
  check same_as_gnu $opts dir sgparent
done

# umask: new files get the source mode less the umask, existing ones keep
# their mode; -p ignores the umask.
chmod 666 tree/existing
mkdir tree/um
printf 'x' >tree/um/rw
printf 'x' >tree/um/rwx
chmod 777 tree/um/rwx
chmod 666 tree/um/rw
chmod 777 tree/um
for mask in 0 022 077 0777; do
  for args in "um/rw new" "um/rwx new" "um/rw existing" "-r um out" \
              "-rp um out" "-a um out" "-r --no-preserve=mode um out" \
              "-a --no-preserve=mode um out" "--parents um/rwx dd"; do
    # shellcheck disable=SC2086
    check with_umask $mask same_as_gnu $args
  done
done

# As nobody: -p on files owned by someone else does not preserve the
# owner, silently; the setuid/setgid bits are then dropped as GNU does.
if $root && command -v setpriv >/dev/null; then
  chmod 755 "$work"
  mkdir -p bin-gnu bin-cp8m
  ln -sf "$GNU_CP" bin-gnu/cp
  ln -sf "$CP8M" bin-cp8m/cp
  nobody_same () { # nobody_same ARGS...: same_as_gnu, both run as nobody
    RUN_PREFIX=as_nobody RUN_SETUP='chown nobody:nogroup . dd'
    same_as_gnu "$@"
    RUN_PREFIX= RUN_SETUP=
  }
  printf 'r' >tree/rootfile
  chmod 644 tree/rootfile
  for args in "-p rootfile copy" "-p special/suid special/sgid special/both dd" \
              "-a special dd" "--preserve=ownership rootfile copy" \
              "-p a copy" "rootfile copy" "-a dir dd" "-rp special out" \
              "--preserve=all rootfile copy"; do
    # shellcheck disable=SC2086
    check nobody_same $args
  done
  rm tree/rootfile
else
  note "no root or no setpriv: unprivileged checks skipped"
fi

# User xattrs: -a and --preserve=xattr copy them, plain cp and -p do not.
if command -v setfattr >/dev/null && setfattr -n user.color -v red tree/a 2>/dev/null; then
  setfattr -n user.shape -v round tree/dir
  setfattr -n user.empty tree/dir/sub/c
  for args in "-a dir out" "-r dir out" "-rp dir out" "a new" "-a a new" \
              "--preserve=xattr a new" "-r --preserve=xattr dir out" \
              "-a --no-preserve=xattr dir out" "-p a existing" \
              "--preserve=xattr a existing" "--attributes-only -a a existing"; do
    # shellcheck disable=SC2086
    check same_as_gnu $args
  done
  "$GNU_CP" -a tree/a xa
  xattr_of () { getfattr -h --only-values -n user.color "$1" 2>/dev/null; }
  check expect 0 "" cp8M -a xa xa-a
  [ "$(xattr_of xa-a)" = red ] || { note "-a dropped user.color"; failures=$((failures + 1)); }
  check expect 0 "" cp8M --preserve=xattr xa xa-x
  [ "$(xattr_of xa-x)" = red ] || { note "--preserve=xattr dropped user.color"; failures=$((failures + 1)); }
  check expect 0 "" cp8M xa xa-plain
  [ -z "$(xattr_of xa-plain)" ] || { note "plain cp copied user.color"; failures=$((failures + 1)); }
else
  note "no user xattrs here: xattr checks skipped"
fi

# ACLs: -p (mode) copies the access ACL and a directory's default ACL.
# A cp8M built without ACL support (configure --without-acl, musl)
# copies permission bits only.
if [ "${cp8m_acl:-yes}" = no ]; then
  note "cp8M is built without ACL support: ACL checks skipped"
elif command -v setfacl >/dev/null && setfacl -m u:nobody:r tree/exec 2>/dev/null; then
  mkdir tree/acld tree/acld/inner
  echo in >tree/acld/file
  setfacl -m u:nobody:rwx,g::r-x tree/acld
  setfacl -d -m u:nobody:r-x tree/acld
  setfacl -m u:nobody:rw tree/acld/file
  for args in "-p exec new" "exec new" "-a acld out" "-r acld out" \
              "-rp acld out" "--preserve=mode exec new" "-p exec existing" \
              "-r --no-preserve=mode acld out" "exec acld" "-p exec acld" \
              "-a --no-preserve=mode acld out" "--preserve=xattr exec new"; do
    # shellcheck disable=SC2086
    check same_as_gnu $args
  done
  "$GNU_CP" -a tree/acld acl-src
  check expect 0 "" cp8M -rp acl-src acl-copy
  has_acl () { # has_acl FILE ENTRY
    getfacl -c -p "$1" 2>/dev/null | grep -qx -- "$2" ||
      fail "$1 lacks the ACL entry $2"
  }
  check has_acl acl-copy user:nobody:rwx
  check has_acl acl-copy default:user:nobody:r-x
  check has_acl acl-copy/file user:nobody:rw-
else
  note "no ACL support here: ACL checks skipped"
fi

# SELinux options on a kernel without SELinux.
if [ ! -e /sys/fs/selinux ]; then
  check expect 1 "cp8M: cannot preserve security context without an SELinux-enabled kernel" \
    cp8M --preserve=context tree/a ctx1
  [ ! -e ctx1 ] || { note "--preserve=context still copied"; failures=$((failures + 1)); }
  check expect 0 "" cp8M -Z tree/a ctx2
  check expect 0 "cp8M: warning: ignoring --context; it requires an SELinux-enabled kernel" \
    cp8M --context=system_u:object_r:tmp_t:s0 tree/a ctx3
  check expect 0 "" cp8M -a tree/a ctx4
  for args in "--preserve=context a new" "-Z a new" "--context=x a new" \
              "-a --preserve=context a new" "-Z --preserve=context a new" \
              "--context a new" "-aZ dir out" "--preserve=all a new" \
              "--no-preserve=context -a dir out"; do
    # shellcheck disable=SC2086
    check same_as_gnu $args
  done
else
  note "SELinux is present: context checks skipped"
fi

# --attributes-only: an existing destination keeps its data; a new one is
# empty but has the attributes.
for args in "--attributes-only a existing" "--attributes-only -p a existing" \
            "--attributes-only a new" "--attributes-only -p a new" \
            "--attributes-only -a dir out" "--attributes-only -r dir out" \
            "--attributes-only --preserve=mode exec existing"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
printf 'old data\n' >ao-existing
chmod 644 ao-existing
"$GNU_CP" -a tree/a ao-src
check expect 0 "" cp8M --attributes-only -p ao-src ao-existing
[ "$(cat ao-existing)" = "old data" ] ||
  { note "--attributes-only changed the data"; failures=$((failures + 1)); }
[ "$(stat -c %a ao-existing)" = 600 ] ||
  { note "--attributes-only -p: mode $(stat -c %a ao-existing), not 600"; failures=$((failures + 1)); }
check same_time ao-src ao-existing
check expect 0 "" cp8M --attributes-only -p ao-src ao-new
[ -f ao-new ] && [ ! -s ao-new ] ||
  { note "--attributes-only: new file not empty"; failures=$((failures + 1)); }
[ "$(stat -c %a ao-new)" = 600 ] ||
  { note "--attributes-only -p: new mode $(stat -c %a ao-new), not 600"; failures=$((failures + 1)); }
check same_time ao-src ao-new

[ "$failures" -eq 0 ] || fail "$failures check(s) failed (above)"
exit 0
