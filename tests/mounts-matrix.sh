# The copy matrix of tests/mounts.sh and tests/mounts-shim.sh, sourced
# after tests/mounts-lib.sh: each shape copied on one mount by cp8M
# (--direct=auto, always, never) and GNU cp, with what must hold, and a
# summary table mount x tool x shape -> identical / I/O path / MiB of
# source and destination left in the page cache (fincore, the source
# evicted before each copy) / holes.

M=1048576
big=$((64*M + 511))
shapes="0 1 41 4095 4097 $((8*M - 1)) $((8*M + 1)) $big sparse-lead sparse-mid sparse-trail"
tools="auto always never gnu"
shim=$abs_top_builddir/tests/forcedirectio.so

summary=$work/summary
printf '%s\n' "mount tool shape identical I/O-path cached-MiB holes" >"$summary"

# behind MOUNT FILE: set file to the name of FILE that the test makes,
# evicts, measures and compares itself: for bindfs, the file behind the
# mount (the same bytes: bindfs passes them through; and its daemon's
# page cache is the one that fills).  Through the mount, with direct_io,
# every read of a 64 MiB cmp went to the bindfs daemon: a third of the
# test's CPU went to cmp and bindfs.
behind () {
  file=$2
  [ "$1" = bindfs ] && file=$m_under/${2#"$m_bindfs"/}
  :
}

# cached_mib SRC DST: MiB of SRC and DST resident in the page cache (the
# files behind the mount: behind).
cached_mib () {
  fincore --bytes --noheadings --output RES "$1" "$2" 2>/dev/null |
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

# copy_matrix MOUNT: every tool on every shape on $m_MOUNT.
copy_matrix () {
  mount=$1
  eval "dir=\$m_$mount"
  mkdir -p "$dir/src"
  for shape in $shapes; do
    behind "$mount" "$dir/src/$shape"
    make_shape "$shape" "$file" || fail "cannot make $shape on $mount"
  done
  for tool in $tools; do
    for shape in $shapes; do
      src=$dir/src/$shape dst=$dir/copy
      behind "$mount" "$src"; src_file=$file
      behind "$mount" "$dst"; dst_file=$file
      rm -f "$dst"
      # Cold: the source's own pages.
      case $mount in
        tmpfs) ;;
        *) evict "$src_file" ;;
      esac || fail "cannot evict $src"
      run_tool "$tool" "$mount" "$src" "$dst"
      status=$?
      growth=$(cached_mib "$src_file" "$dst_file")
      same=no
      cmp -s "$src_file" "$dst_file" 2>/dev/null && same=yes
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
}

# matrix_end: the summary table, and the test's verdict.
matrix_end () {
  echo "Summary (cached-MiB: source and destination pages left in the page cache"
  echo "after the copy, the source evicted before it; holes: sparse shapes)"
  column -t "$summary"
  [ $failures -eq 0 ] || fail "$failures checks failed (above)"
  exit 0
}
