#!/bin/sh
# cp8M (--direct=auto, always, never) beside GNU cp on real mounts: ext4,
# xfs and btrfs on loop devices, tmpfs and a bindfs direct_io mount
# (every program's I/O bypasses its cache, like forcedirectio or NFS);
# the forcedirectio shim's mount is tests/mounts-shim.sh.  Every copy
# must be identical to its source, holes kept where the filesystem can,
# direct I/O where it is possible and reported where the filesystem
# caches anyway (tests/mounts-matrix.sh); then a block device as
# destination, and strace's count of O_DIRECT opens and 8 MiB reads.
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"
need_fuse
. "$abs_top_srcdir/tests/mounts-matrix.sh"

mount_loop ext4 400 ext4 || fail "cannot set up ext4"; m_ext4=$mp
mount_loop xfs 400 xfs || fail "cannot set up xfs"; m_xfs=$mp
mount_loop btrfs 400 btrfs || fail "cannot set up btrfs"; m_btrfs=$mp
mount_tmpfs 300 tmpfs || fail "cannot set up tmpfs"; m_tmpfs=$mp
mount_loop ext4 400 under-fuse || fail "cannot set up ext4 for bindfs"
m_under=$mp
mount_bindfs_direct "$mp" bindfs || fail "cannot set up bindfs"; m_bindfs=$mp

for mount in ext4 xfs btrfs tmpfs bindfs; do
  copy_matrix $mount
done

# A block device as destination: holes of the source must be written as
# zeros there, or the device keeps what it held.
truncate -s 8M "$mounts_root/dev.img"
dev=$(losetup -f --show "$mounts_root/dev.img") || fail "cannot attach a loop device"
_loops="$dev $_loops"
tr '\000' '\377' </dev/zero | head -c $((8*M)) >"$dev"
truncate -s $((8*M)) "$work/sparse8"
printf start | dd of="$work/sparse8" conv=notrunc status=none
printf end | dd of="$work/sparse8" bs=1 seek=$((8*M - 3)) conv=notrunc status=none
for mode in auto always never; do
  cp8M --direct=$mode --sparse=always "$work/sparse8" "$dev" ||
    fail "copy of a sparse file to a block device failed"
  cmp "$work/sparse8" "$dev" || fail "sparse file copied to a block device (--direct=$mode) differs"
  tr '\000' '\377' </dev/zero | head -c $((8*M)) >"$dev"
done
cp8M "$work/sparse8" "$dev" && cmp "$work/sparse8" "$dev" ||
  fail "sparse file copied to a block device (defaults) differs"

# strace: O_DIRECT opens and 8 MiB I/Os where direct is possible.
for mount in ext4 xfs btrfs bindfs; do
  eval "dir=\$m_$mount"
  behind "$mount" "$dir/big"
  make_shape $big "$file"
  rm -rf "$work/trace" && mkdir "$work/trace"
  trace -ff -s 0 -o "$work/trace/log" cp8M --direct=always "$dir/big" "$dir/big.copy" ||
    fail "cp8M under strace on $mount"
  opens=$(cat "$work/trace"/log.* | grep -c '^open\(at\)\{0,1\}(.*O_DIRECT[|)]')
  reads=$(cat "$work/trace"/log.* | grep -c '^pread64(.*, 8388608, [0-9]*) *= 8388608$')
  echo "strace on $mount: $opens O_DIRECT opens, $reads reads of 8388608 bytes"
  check '[ $opens -eq 2 ] && [ $reads -eq 8 ]' "$mount: strace shows $opens O_DIRECT opens and $reads 8 MiB reads"
  rm -f "$dir/big" "$dir/big.copy"
done


matrix_end
