#!/bin/sh
# cp8M (--direct=auto, always, never) beside GNU cp on real mounts: ext4,
# xfs and btrfs on loop devices, tmpfs, a bindfs direct_io mount (every
# program's I/O bypasses its cache, like forcedirectio or NFS) and the
# forcedirectio shim (O_DIRECT forced on every open under a prefix).
# Every copy must be identical to its source (GNU cp under the shim is
# expected to fail at an unaligned tail: recorded, not required), holes
# kept where the filesystem can, direct I/O where it is possible and
# reported where the filesystem caches anyway.  The summary table mount x
# tool x shape -> identical / I/O path / MiB of source and destination left
# in the page cache (fincore, the source evicted before each copy) goes to the
# log.
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/mounts-lib.sh"
need_fuse
shim=$abs_top_builddir/tests/forcedirectio.so
[ -f "$shim" ] || fail "the forcedirectio shim was not built"
LD_PRELOAD=$shim ASAN_OPTIONS=verify_asan_link_order=0 true ||
  fail "the forcedirectio shim does not load"

M=1048576
big=$((64*M + 511))
shapes="0 1 41 4095 4097 $((8*M - 1)) $((8*M + 1)) $big sparse-lead sparse-mid sparse-trail"
tools="auto always never gnu"

mount_loop ext4 400 ext4 || fail "cannot set up ext4"; m_ext4=$mp
mount_loop xfs 400 xfs || fail "cannot set up xfs"; m_xfs=$mp
mount_loop btrfs 400 btrfs || fail "cannot set up btrfs"; m_btrfs=$mp
mount_tmpfs 300 tmpfs || fail "cannot set up tmpfs"; m_tmpfs=$mp
mount_loop ext4 400 under-fuse || fail "cannot set up ext4 for bindfs"
m_under=$mp
mount_bindfs_direct "$mp" bindfs || fail "cannot set up bindfs"; m_bindfs=$mp
mount_loop ext4 400 shim || fail "cannot set up ext4 for the shim"; m_shim=$mp

summary=$work/summary
printf '%s\n' "mount tool shape identical I/O-path cached-MiB holes" >"$summary"

# cached_mib MOUNT SRC DST: MiB of SRC and DST resident in the page cache
# (for bindfs, of the files behind it, which its daemon reads and writes).
cached_mib () {
  if [ "$1" = bindfs ]; then
    set -- "$1" "$m_under/${2#"$m_bindfs"/}" "$m_under/${3#"$m_bindfs"/}"
  fi
  fincore --bytes --noheadings --output RES "$2" "$3" 2>/dev/null |
    awk '{ s += $1 } END { printf "%d\n", (s + 524288) / 1048576 }'
}

# run_tool TOOL MOUNT SRC DST: one copy; --debug output in $work/debug.
run_tool () {
  _pre=
  [ "$2" = shim ] && _pre="env LD_PRELOAD=$shim FORCEDIRECTIO_PREFIX=$m_shim ASAN_OPTIONS=verify_asan_link_order=0"
  case $1 in
    gnu) $_pre "$GNU_CP" "$3" "$4" >"$work/debug" 2>&1 ;;
    *) $_pre cp8M --debug --direct="$1" "$3" "$4" >"$work/debug" 2>&1 ;;
  esac
}

# io_path TOOL: how the last copy moved its data, from --debug.
io_path () {
  [ "$1" = gnu ] && { echo buffered; return; }
  sed -n 's/^direct I\/O: //p' "$work/debug" | sed '
    s/^yes (\([^,]*\),.*but \(.*\)$/direct(\1),cached:\2/
    s/^yes (\([^,]*\),.*/direct(\1)/
    s/^no (\([^)]*\)).*/buffered:\1/
    s/^partly.*/direct-then-buffered/' | tr ' ' '_'
}

failures=0
check () {
  if ! eval "$1"; then
    echo "FAIL: $2" >&2
    failures=$((failures + 1))
  fi
}

for mount in ext4 xfs btrfs tmpfs bindfs shim; do
  eval "dir=\$m_$mount"
  mkdir -p "$dir/src"
  for shape in $shapes; do
    make_shape "$shape" "$dir/src/$shape" || fail "cannot make $shape on $mount"
  done
  for tool in $tools; do
    for shape in $shapes; do
      src=$dir/src/$shape dst=$dir/copy
      rm -f "$dst"
      # Cold: the source's own pages (bindfs: the file behind it).
      case $mount in
        bindfs) evict "$m_under/src/$shape" ;;
        tmpfs) ;;
        *) evict "$src" ;;
      esac || fail "cannot evict $src"
      run_tool "$tool" "$mount" "$src" "$dst"
      status=$?
      growth=$(cached_mib "$mount" "$src" "$dst")
      same=no
      cmp -s "$src" "$dst" 2>/dev/null && same=yes
      path=$(io_path "$tool")
      holes=-
      case $shape in
        sparse-*)
          if [ "$same" = yes ] && [ "$(holemap "$src")" = "$(holemap "$dst")" ]; then
            holes=kept
          else
            holes=filled
          fi ;;
      esac
      echo "$mount $tool $shape $same $path $growth $holes" >>"$summary"

      # What must hold.
      if [ "$tool" = gnu ]; then
        [ "$mount" = shim ] || check '[ "$same" = yes ]' "GNU cp on $mount, $shape: copy differs"
        continue
      fi
      check '[ $status -eq 0 ] && [ "$same" = yes ]' \
        "cp8M --direct=$tool on $mount, $shape: exit $status, identical: $same ($(cat "$work/debug"))"
      case $mount.$shape.$tool in
        ext4.$big.auto|xfs.$big.auto|ext4.$big.always|xfs.$big.always)
          check '[ "$path" = "direct(O_DIRECT)" ]' "$mount $tool $shape: not direct: $path"
          check '[ $growth -le 2 ]' "$mount $tool $shape: page cache grew by $growth MiB" ;;
        bindfs.$big.always|shim.$big.always|btrfs.$big.always)
          check 'case $path in direct*) true ;; *) false ;; esac' "$mount $tool $shape: not direct: $path" ;;
        tmpfs.$big.always)
          check '[ "$path" = "direct(O_DIRECT),cached:tmpfs_caches_anyway" ]' "tmpfs: --debug does not report its caching: $path" ;;
      esac
      case $mount.$shape.$tool in
        btrfs.$big.always)
          check '[ "$path" = "direct(O_DIRECT),cached:btrfs_caches_checksummed_files" ]' \
            "btrfs: --debug does not report its caching: $path" ;;
        ext4.sparse-*|xfs.sparse-*|btrfs.sparse-*|tmpfs.sparse-*)
          check '[ "$holes" = kept ]' "$mount $tool $shape: holes not kept" ;;
      esac
    done
  done
  rm -rf "$dir/src" "$dir/copy"
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
  make_shape $big "$dir/big"
  rm -rf "$work/trace" && mkdir "$work/trace"
  trace -ff -s 0 -o "$work/trace/log" cp8M --direct=always "$dir/big" "$dir/big.copy" ||
    fail "cp8M under strace on $mount"
  opens=$(cat "$work/trace"/log.* | grep -c '^open\(at\)\{0,1\}(.*O_DIRECT[|)]')
  reads=$(cat "$work/trace"/log.* | grep -c '^pread64(.*, 8388608, [0-9]*) *= 8388608$')
  echo "strace on $mount: $opens O_DIRECT opens, $reads reads of 8388608 bytes"
  check '[ $opens -eq 2 ] && [ $reads -eq 8 ]' "$mount: strace shows $opens O_DIRECT opens and $reads 8 MiB reads"
  rm -f "$dir/big" "$dir/big.copy"
done

echo "Summary (cached-MiB: source and destination pages left in the page cache"
echo "after the copy, the source evicted before it; holes: sparse shapes)"
column -t "$summary"
[ $failures -eq 0 ] || fail "$failures checks failed (above)"
exit 0
