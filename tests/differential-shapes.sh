#!/bin/sh
# Differential test, the shapes tests/differential.sh does not reach:
# the same random trees (tests/treegen) copied by GNU cp and by cp8M,
# compared the same way (tests/difflib.sh), but
#   - across file systems: the trees on a loop-backed ext4, destinations
#     on a tmpfs, and symlinks in the trees (l1 and l2 among them) that
#     point to a directory on the tmpfs (treegen -f);
#   - onto a file system without xattrs (ramfs: user.* xattrs and ACLs
#     fail with ENOTSUP), with --preserve=xattr, -a, --attributes-only;
#   - as an unprivileged user (nobody), over the same trees once they
#     belong to it (read-only files with xattrs among them);
#   - onto pre-existing destinations whose names are symlinks that
#     dangle, loop, point to a directory or to the very source copied
#     there, and names a backup would take (treegen's pre/);
#   - with operands whose copies collide in the destination (dup1/n0
#     and dup2/n0: a file through a just-created symlink, a directory
#     onto a file...);
#   - in place, where a backup's name is the source ("cp -b bk~ bk");
#   - with destinations that vanish between the copy's stat and its
#     open, as on NFS (the fault shim, tests/faultshim.so, unlinks each
#     existing destination file just before it is opened for writing).
#
# Each option set runs in some of these scenarios (WHERE in the table):
#   L  as root, the destination in the tree's top (same file system)
#   X  as root, the destination on the tmpfs (another device)
#   Z  as root, the destination on the ramfs (no xattrs, another device)
#   N  as nobody, the destination in the tree's top
#   M  as nobody, the destination on the ramfs
#   V  as root, the destination in the tree's top, vanishing files (the
#      shim, through LD_PRELOAD: left out for a static cp8M)
# The root scenarios run first; then the tree is given to nobody (chown
# -R, which also clears set-user-ID bits; src2 and f1 made read-only)
# and the nobody ones run.
#
# Settings (environment), besides those of tests/difflib.sh:
#   DIFF_SHAPE_TREES=N  trees to try (default 12, what make check runs);
#                   without it, DIFF_TREES=N sets it to N/2 (the ratio of
#                   the defaults: 12 here for differential.sh's 24)
#   DIFF_WHERE=LXZNMV   only these scenarios
#
# make check's 12 trees take about 2 minutes on two cores, 98 runs a
# tree (55 as root, 43 as nobody).  Long mode: DIFF_TREES=2000 (1,000
# trees here), about three hours:
#   DIFF_TREES=2000 make check TESTS=tests/differential-shapes.sh
# One tree, one option set, one scenario again, as printed with a
# difference:
#   DIFF_SEED=S DIFF_SHAPE_TREES=1 DIFF_SETS=NAME DIFF_WHERE=W \
#     make check TESTS=tests/differential-shapes.sh
. "${abs_top_srcdir:-.}/tests/init.sh"
# Skips (77) unless root with loop devices; before mounts-lib, which
# makes its directory in the build tree.
[ "$(id -u)" -eq 0 ] || skip "not root: cannot mount"
[ -e /dev/loop-control ] || skip "no /dev/loop-control"
. "$abs_top_srcdir/tests/mounts-lib.sh"
for c in losetup mkfs.ext4 setpriv chown; do
  command -v $c >/dev/null || fail "$c is missing (./install-deps)"
done
. "$abs_top_srcdir/tests/difflib.sh"

if [ -n "$DIFF_SHAPE_TREES" ]; then
  trees=$DIFF_SHAPE_TREES
elif [ -n "$DIFF_TREES" ]; then
  trees=$((DIFF_TREES / 2))
  [ "$trees" -gt 0 ] || trees=1
else
  trees=12
fi
as_nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups"

# The option sets: NAME WHERE SETUP ARGUMENTS; SETUP and ARGUMENTS as in
# tests/differential.sh (run_side and expand_args in tests/difflib.sh).
# Names shared with differential.sh's table share its known differences.
# make check's time goes to the runs that copy whole trees: those are
# kept to the scenarios where they tell something new; the runs over
# dup1/dup2 and ip/ copy a few small files and are many.
option_sets () {
  cat <<'EOF'
# Operands whose copies collide: dup1/nK then dup2/nK onto dst/nK.
dups-dR        LXN    empty    -dR DUPS dst
dups-rL        LX     empty    -rL DUPS dst
dups-plain     LN     empty    DUPS dst
dups-f         LXN    empty    -rf DUPS dst
dups-a         XN     empty    -a DUPS dst
dups-backup    LN     empty    -r --backup=numbered DUPS dst
dups-n         LN     empty    -rn DUPS dst
dups-remove    LN     empty    -r --remove-destination DUPS dst
dups-rl        LXN    empty    -rl DUPS dst
dups-rs        LX     empty    -rs @DUPS dst
# In place in a copy of ip/: the backup of bk would be the source.
ip-simple      LXN    inplace  --backup=simple bk~ bk
ip-b           LN     inplace  -b bk~ bk
ip-fb          LN     inplace  -f --backup=simple bk~ bk
ip-rb          LN     inplace  -r --backup=simple bk~ bk
ip-suffix      LN     inplace  -S .~1~ --backup=simple bk.~1~ bk
ip-numbered    LN     inplace  --backup=numbered bk.~1~ bk
ip-lb          LN     inplace  -l --backup=simple bk~ bk
ip-sb          LN     inplace  -s --backup=simple bk~ bk
ip-rev         LN     inplace  --backup=simple bk bk~
# Onto pre/'s shapes: loops, links to the source, to directories...
pre-r          XNV    pre      -r SOME dst
pre-f          XNV    pre      -rf SOME dst
pre-a          XZNV   pre      -a SOME dst
pre-rsf        LXN    pre      -rsf @src1 @src2 @f1 @l1 @l2 dst
pre-dsf        LXN    pre      -dsf @f1 @l1 @l2 dst
pre-rb         N      pre      -rb SOME dst
pre-backup     XN     pre2     -r --backup=numbered SOME dst
pre-u          N      pre      -ru SOME dst
pre-n          N      pre      -rn SOME dst
pre-rl         XN     pre      -rl SOME dst
pre-attr       ZN     pre      -r --attributes-only SOME dst
pre-rL         X      pre      -rL SOME dst
# Fresh destinations: across devices (-l fails, -L follows links onto
# the tmpfs, -x stays), onto ramfs, and as nobody; some operands named
# from the root (@NAME: see differential.sh).
r              XN     empty    -r src1 @src2 f1 @f2 l1 @l2 dst
a-t            XZNM   empty    -a -t dst @src1 src2 @f1 l1 @l2
rL             XN     empty    -rL SOME dst
rLx            LX     empty    -rLx SOME dst
parents        N      empty    -R --parents src1/d @src2 f1 @l2 dst
abs-parents-a  N      abs      -a --parents @src1/d @src2 @f1 @l2 dst
# One operand, for now: when an operand's parent directory exists at the
# destination already, GNU leaves the directories on its way as they
# are, and cp8M gives them their sources' attributes again; off the
# tree's file system, the tree's copy shows that.
abs-parents-a1 XZ     abs      -a --parents @src1/d dst
rl             XN     empty    -rl SOME dst
rs-relative    XN     empty    -rs src1 f1 dst
rp             ZN     empty    -rp SOME dst
r-xattr        ZNM    empty    -r --preserve=xattr SOME dst
preserve-all   ZN     empty    -r --preserve=all SOME dst
a-attr-only    ZNM    empty    -a --attributes-only SOME dst
attr-xattr     ZN     empty    -r --attributes-only --preserve=xattr SOME dst
EOF
}

# The file systems.  The trees' ext4 holds ten trees or so at once; the
# tmpfs and the ramfs hold a destination per worker at a time.
chmod 755 "$mounts_root" || fail "cannot open $mounts_root to nobody"
mount_loop ext4 512 trees || fail "cannot set up the trees' ext4"
# Its name as getcwd sees it (the shim compares absolute names).
m_trees=$(cd "$mp" && pwd -P) || fail "cannot enter $mp"
mount_tmpfs 512 tmpfs || fail "cannot set up the tmpfs"; m_tmpfs=$mp
mount_ramfs ramfs || fail "cannot set up the ramfs"; m_ramfs=$mp
$as_nobody test -x "$m_trees" ||
  fail "nobody cannot reach $m_trees (a parent directory is closed to it)"

# make_foreign DIR: what the trees' symlinks across devices point to: a
# file with an xattr, a directory (with a link back to its own file), and
# nothing.  One per worker: a worker's -l copies onto the tmpfs give
# these files more names for a while, which the other worker's digests
# would see as a source changed under it (h=+).
make_foreign () {
  mkdir "$1" "$1/dir" && echo foreign >"$1/file" &&
    echo inside >"$1/dir/a" && ln -s a "$1/dir/link" &&
    setfattr -n user.origin -v tmpfs "$1/file" ||
    fail "cannot set up $1"
}

make_bins "$m_trees/bin" copy
bins=$m_trees/bin

# The vanishing destinations (V) need the shim in both tools; a static
# binary ignores LD_PRELOAD, which the shim's FAULTSHIM_LOADED shows.
shim=$abs_top_builddir/tests/faultshim.so
[ -f "$shim" ] || fail "tests/faultshim.so was not built"
vanish_env="env LD_PRELOAD=$shim ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
$vanish_env FAULTSHIM_LOADED="$work/shim-gnu" "$bins/bin-gnu/cp" --version >/dev/null &&
  $vanish_env FAULTSHIM_LOADED="$work/shim-tool" "$bins/bin-tool/cp" --version >/dev/null ||
  fail "cp --version fails with the shim"
where_all=LXZNMV
if [ ! -f "$work/shim-tool" ] || [ ! -f "$work/shim-gnu" ]; then
  note "$tool does not load LD_PRELOAD's shim (static): no V scenario"
  where_all=LXZNM
fi

how_to_replay () {
  _rs=$1 _rn=$2
  shift 2
  echo "  cd $run_dir && cp $*"
  echo "  (TREE: treegen -f $foreign $_rs TREE; scenario ${_rn%%/*} above)"
  echo "  again: DIFF_SEED=$_rs DIFF_SHAPE_TREES=1 DIFF_SETS=${_rn#*/} DIFF_WHERE=${_rn%%/*}"
}

# scenario W: the destination, the user and the environment of
# scenario W.
scenario () {
  run_env=
  case $1 in
    L|N) dstdir= ;;
    V) dstdir= run_env="$vanish_env FAULTSHIM_VANISH=$tree/dst/" ;;
    X) dstdir=$m_tmpfs/$(basename "$wdir") ;;
    Z|M) dstdir=$m_ramfs/$(basename "$wdir") ;;
  esac
  case $1 in
    [LXZV]) run_as= run_owner= ;;
    *) run_as=$as_nobody run_owner=nobody:nogroup ;;
  esac
}

# one_tree SEED: every scenario and option set over the tree of SEED.
one_tree () {
  _seed=$1
  rm -rf "$tree"
  "$treegen" -f "$foreign" "$_seed" "$tree" || fail "treegen $_seed failed"
  cd "$tree" || fail "cannot enter $tree"
  run_as= run_owner=
  sources_before
  for w in L X Z V; do
    scenario $w
    compare_sets "$_seed" "$work/sets-$w" "$w/"
  done
  sources_after root
  # For nobody, src2 and f1 become read-only too (chmod a-w, as backups
  # of read-only data go): the xattrs of a file nobody cannot write must
  # be set while the copy can still write it.
  chown -hR nobody:nogroup "$tree" && chmod -R a-w src2 f1 ||
    fail "cannot give $tree to nobody"
  sources_before
  for w in N M; do
    scenario $w
    compare_sets "$_seed" "$work/sets-$w" "$w/"
  done
  sources_after nobody
  cd "$wdir" || fail "cannot enter $wdir"
}

# worker J: trees J, J+jobs, J+2*jobs...: the tree in $m_trees/jJ,
# results in $work/jJ, destinations elsewhere in the mounts' jJ.
worker () {
  wdir=$work/j$1
  tree=$m_trees/j$1/tree
  ndiff=0
  foreign=$m_tmpfs/j$1/foreign
  mkdir -p "$wdir" "$m_trees/j$1" "$m_tmpfs/j$1" "$m_ramfs/j$1" &&
    chown nobody:nogroup "$m_trees/j$1" "$m_ramfs/j$1" &&
    echo 0 >"$wdir/count" && : >"$wdir/sets" || fail "cannot set up worker $1"
  make_foreign "$foreign"
  source_names="$source_names $foreign"
  _i=$1
  while [ "$_i" -lt "$trees" ]; do
    one_tree $((seed0 + _i))
    echo "$ndiff" >"$wdir/count"
    _i=$((_i + jobs))
  done
  rm -rf "$tree"
  echo done >"$wdir/done"
}

note "$trees trees from seed $seed0, $jobs at a time: GNU cp ($GNU_CP)" \
  "against $tool"
option_sets >"$work/all-sets"
nsets=0 runs=0
for w in L X Z V N M; do
  while read -r name where rest; do
    case $name in '#'*) continue ;; esac
    case " ${DIFF_SETS:-$name} " in *" $name "*) ;; *) continue ;; esac
    case ${DIFF_WHERE:-$w}:$where_all in *$w*:*$w*) ;; *) continue ;; esac
    case $where in *$w*) echo "$name $rest" ;; esac
  done <"$work/all-sets" >"$work/sets-$w"
  runs=$((runs + $(wc -l <"$work/sets-$w")))
done
[ "$runs" -gt 0 ] || fail "no option set named in DIFF_SETS runs in DIFF_WHERE"
root_runs=$(cat "$work/sets-L" "$work/sets-X" "$work/sets-Z" "$work/sets-V" | wc -l)
run_workers "$trees trees, $(grep -vc '^#' "$work/all-sets") option sets in $runs runs a tree ($root_runs as root, $((runs - root_runs)) as nobody)"
exit 0
