#!/bin/sh
# Differential test: random trees copied by GNU cp (/bin/cp) and by cp8M
# under a table of option sets must give the same result: the same
# canonical digest of the destination tree (tests/treedigest), the same
# standard output, standard error and exit status.  Trees come from
# tests/treegen, one per seed; tests/difflib.sh runs and compares, and
# lists the known, intended differences (known_difference).
#
# Here everything runs as root, on one file system, into a fresh or a
# pre-populated destination.  tests/differential-shapes.sh runs over the
# same kind of trees across file systems, onto one without xattrs, as an
# unprivileged user, with colliding operands and copies in place.
#
# Settings (environment), besides those of tests/difflib.sh:
#   DIFF_TREES=N    trees to try (default 24, what make check runs;
#                   differential-shapes.sh takes half as many)
#
# Long mode: 2,000 trees, about 2 hours and a half on two cores when it
# was last timed, before the savings of tests/README's "Processes are
# the cost" (make check's 24 take a minute and a half under make -j2):
#   DIFF_TREES=2000 make check TESTS=tests/differential.sh
# One tree and one option set again, as printed with a difference:
#   DIFF_SEED=S DIFF_TREES=1 DIFF_SETS=NAME make check TESTS=tests/differential.sh
. "${abs_top_srcdir:-.}/tests/init.sh"
. "$abs_top_srcdir/tests/difflib.sh"

trees=${DIFF_TREES:-24}
make_bins "$work"
bins=$work
dstdir= run_as= run_owner= run_env=

# The option sets: NAME SETUP ARGUMENTS.  SETUP says what "dst" is
# before the copy (run_side in tests/difflib.sh: new, empty, pre, pre2,
# inplace, abs); ARGUMENTS are the command's, with ALL, SOME, DUPS and
# @NAME for operands (expand_args there).  Runs from the tree's top
# (from / for SETUP abs).  Some sets name operands from the root
# (@NAME), alone or among relative ones: the destination's name
# relative to the target directory must not keep an operand's leading
# '/' (cp --parents /etc/fstab dir aimed its *at () calls at /etc/fstab
# itself).
option_sets () {
  cat <<'EOF'
plain          empty  src1 @src2 f1 @f2 l1 @l2 dst
plain-new      new    f1 dst
r              empty  -r ALL dst
abs-r-new      new    -r @src1 dst
a              empty  -a ALL dst
a-new          new    -a src1 dst
a-no-links     empty  -a --no-preserve=links SOME dst
r-xattr        empty  -r --preserve=xattr SOME dst
rp             empty  -rp ALL dst
rL             empty  -rL ALL dst
rH             empty  -rH ALL dst
d              empty  -d SOME dst
parents        empty  -R --parents src1/d @src2 f1 @l2 dst
abs-parents-a  abs    -a --parents @src1/d @src2 @f1 @l2 dst
rl             empty  -rl ALL dst
rl-pre         pre    -rl ALL dst
rs             empty  -rs @src1 @src2 @f1 @l1 @l2 dst
rs-relative    empty  -rs src1 f1 dst
ru             pre    -ru ALL dst
au             pre    -au ALL dst
rn             pre    -rn ALL dst
ri             pre    -ri ALL dst
backup         pre2   -r --backup=numbered ALL dst
rb             pre    -rb ALL dst
rb-suffix      pre    -r -b -S .bak SOME dst
attr-only      pre    -r --attributes-only ALL dst
a-attr-only    empty  -a --attributes-only ALL dst
sparse-always  empty  -r --sparse=always ALL dst
sparse-never   empty  -r --sparse=never ALL dst
a-no-mode      empty  -a --no-preserve=mode SOME dst
rv             pre    -rv ALL dst
rf             pre    -rf SOME dst
remove-dest    pre    -r --remove-destination ALL dst
rT             pre    -rT src1 dst/src1
abs-t          empty  -r -t dst @src1 src2 @f1 l1 @l2
preserve-all   empty  -r --preserve=all SOME dst
EOF
}

how_to_replay () {
  _rs=$1 _rn=$2
  shift 2
  echo "  cd $run_dir && cp $*   (TREE: treegen $_rs TREE)"
  echo "  again: DIFF_SEED=$_rs DIFF_TREES=1 DIFF_SETS=$_rn"
}

# one_tree SEED: every option set over the tree of SEED.
one_tree () {
  _seed=$1
  chmod -R u+rwx "$tree" 2>/dev/null
  rm -rf "$tree"
  "$treegen" "$_seed" "$tree" || fail "treegen $_seed failed"
  cd "$tree" || fail "cannot enter $tree"
  sources_before
  compare_sets "$_seed" "$work/option-sets"
  sources_after
  cd "$work" || fail "cannot enter $work"
}

# worker J: trees J, J+jobs, J+2*jobs... in $work/jJ.
worker () {
  wdir=$work/j$1
  tree=$wdir/tree
  ndiff=0
  mkdir -p "$wdir" && echo 0 >"$wdir/count" && : >"$wdir/sets"
  _i=$1
  while [ "$_i" -lt "$trees" ]; do
    one_tree $((seed0 + _i))
    echo "$ndiff" >"$wdir/count"
    _i=$((_i + jobs))
  done
  echo done >"$wdir/done"
}

note "$trees trees from seed $seed0, $jobs at a time: GNU cp ($GNU_CP)" \
  "against $tool"
option_sets | while read -r name rest; do
  case " ${DIFF_SETS:-$name} " in *" $name "*) echo "$name $rest" ;; esac
done >"$work/option-sets"
[ -s "$work/option-sets" ] || fail "no option set named in DIFF_SETS"
run_workers "$trees trees, $(wc -l <"$work/option-sets") option sets"
exit 0
