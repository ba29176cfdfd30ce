# Sourced by the mount tests after init.sh: loop-backed filesystems, tmpfs,
# ramfs, a bindfs direct_io mount and the forcedirectio shim, each
# registered for teardown (unmounted, loop detached, image deleted) when
# the test exits, whatever way it exits.

# need_mounts: skip (77) unless we can build mounts here.
need_mounts () {
  [ "$(id -u)" -eq 0 ] || skip "not root: cannot mount"
  [ -e /dev/loop-control ] || skip "no /dev/loop-control"
  for _c in losetup mount umount mkfs.ext4 mkfs.xfs mkfs.btrfs fincore; do
    command -v $_c >/dev/null || skip "$_c is missing (./install-deps)"
  done
}

# need_fuse: need_mounts, and a bindfs direct_io mount too.
need_fuse () {
  need_mounts
  [ -e /dev/fuse ] || skip "no /dev/fuse"
  command -v bindfs >/dev/null || skip "bindfs is missing (./install-deps)"
}

# The scratch area lives on the build tree's filesystem (images are big
# and sparse; /tmp may be tmpfs).
mounts_root=$(mktemp -d "$abs_top_builddir/cp8m-$test_name.XXXXXX") || exit 99
_mounts=""    # mount points, newest first
_loops=""     # loop devices

teardown_mounts () {
  cd /
  for _m in $_mounts; do
    umount "$_m" 2>/dev/null || umount -l "$_m" 2>/dev/null
  done
  for _l in $_loops; do
    losetup -d "$_l" 2>/dev/null
  done
  rm -rf "$mounts_root" "$work"
}
trap teardown_mounts EXIT

# Each mount_* function sets mp to the new mount point (no command
# substitution: the registries must stay in this shell).

# mount_loop FS SIZE_MIB NAME [MKFS_OPTIONS [MOUNT_OPTIONS]]: a
# loop-backed FS mounted at $mounts_root/NAME, the loop device with
# --direct-io=on so the image is not cached underneath.
mount_loop () {
  _img=$mounts_root/$3.img _mp=$mounts_root/$3
  truncate -s "${2}M" "$_img" || return 1
  _dev=$(losetup --direct-io=on -f --show "$_img") || return 1
  _loops="$_dev $_loops"
  # shellcheck disable=SC2086
  case $1 in
    ext4) mkfs.ext4 -q -F ${4-} "$_dev" ;;
    xfs) mkfs.xfs -q -f ${4-} "$_dev" ;;
    btrfs) mkfs.btrfs -q -f ${4-} "$_dev" >/dev/null ;;
  esac || return 1
  mkdir -p "$_mp" && mount ${5:+-o "$5"} "$_dev" "$_mp" || return 1
  _mounts="$_mp $_mounts"
  mp=$_mp
}

# mount_tmpfs SIZE_MIB NAME
mount_tmpfs () {
  _mp=$mounts_root/$2
  mkdir -p "$_mp" && mount -t tmpfs -o "size=${1}M" tmpfs "$_mp" || return 1
  _mounts="$_mp $_mounts"
  mp=$_mp
}

# mount_ramfs NAME: no size limit, and no extended attributes at all:
# setting a user.* xattr or an ACL fails with ENOTSUP (tmpfs takes user
# xattrs since Linux 6.6).
mount_ramfs () {
  _mp=$mounts_root/$1
  mkdir -p "$_mp" && mount -t ramfs ramfs "$_mp" || return 1
  _mounts="$_mp $_mounts"
  mp=$_mp
}

# mount_bindfs_direct DIR NAME: DIR seen through FUSE with direct_io, so
# every program's I/O bypasses the mount's page cache.
mount_bindfs_direct () {
  _mp=$mounts_root/$2
  mkdir -p "$_mp" && bindfs -o direct_io "$1" "$_mp" || return 1
  _mounts="$_mp $_mounts"
  mp=$_mp
}

# mount_disk_fuse SIZE_MIB: a loop-backed ext4 of SIZE_MIB at $disk and,
# over its directory under/, a bindfs direct_io mount at $fuse (FUSE
# refuses O_TMPFILE: new files go through hidden temporaries there).
mount_disk_fuse () {
  mount_loop ext4 "$1" disk || fail "cannot set up ext4"
  disk=$mp
  mkdir "$disk/under" || exit 99
  mount_bindfs_direct "$disk/under" fuse || fail "cannot set up bindfs"
  fuse=$mp
}

# make_shape NAME FILE: one of the test files.
make_shape () {
  _M=1048576
  case $1 in
    sparse-lead)
      truncate -s $((12*_M)) "$2"
      dd if=/dev/urandom of="$2" bs=1M seek=8 count=4 conv=notrunc status=none ;;
    sparse-mid)
      head -c $((4*_M)) /dev/urandom >"$2"
      truncate -s $((24*_M)) "$2"
      dd if=/dev/urandom of="$2" bs=1M seek=20 count=4 conv=notrunc status=none ;;
    sparse-trail)
      head -c $((4*_M)) /dev/urandom >"$2"
      truncate -s $((16*_M)) "$2" ;;
    *) head -c "$1" /dev/urandom >"$2" ;;
  esac
}
