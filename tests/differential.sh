#!/bin/sh
# Differential test: random trees copied by GNU cp (/bin/cp) and by cp8M
# under a table of option sets must give the same result: the same
# canonical digest of the destination tree (tests/treedigest), the same
# standard output, standard error and exit status.
#
# Trees come from tests/treegen, one per seed.  Both tools run as "cp",
# from the same directory with the same command line, so that their
# messages can be compared byte for byte.
#
# Settings (environment):
#   DIFF_TREES=N    trees to try (default 200, what make check runs)
#   DIFF_SEED=S     seed of the first tree; tree i has seed S+i (default
#                   fixed, so that every run tries the same trees)
#   DIFF_SETS='a b' only these option sets (names in option_sets below)
#   DIFF_JOBS=N     trees in parallel (default 2)
#   DIFF_TOOL=PROG  the program compared with GNU cp (default cp8M; an
#                   absolute name or one found in PATH).
#                   DIFF_TOOL=/bin/cp compares GNU cp with itself: it must
#                   find nothing, or the generator or the digest is not
#                   deterministic.
#   DIFF_SHOW=N     print the details of the first N differences (20)
#   DIFF_KEEP=1     keep the trees and both results of the first
#                   differences in /tmp/difftest-keep
#
# Long mode: 2,000 trees, about 25 minutes on two cores (make check's
# 200 take about 2):
#   DIFF_TREES=2000 make check TESTS=tests/differential.sh
# One tree and one option set again, as printed with a difference:
#   DIFF_SEED=S DIFF_TREES=1 DIFF_SETS=NAME make check TESTS=tests/differential.sh
. "${abs_top_srcdir:-.}/tests/init.sh"

trees=${DIFF_TREES:-200}
seed0=${DIFF_SEED:-8000}
jobs=${DIFF_JOBS:-2}
show=${DIFF_SHOW:-20}
tool=${DIFF_TOOL:-$CP8M}
treegen=$abs_top_builddir/tests/treegen
treedigest=$abs_top_builddir/tests/treedigest
[ -x "$treegen" ] && [ -x "$treedigest" ] ||
  fail "tests/treegen or tests/treedigest not built (make check builds them)"

# A copy that does not preserve times stamps the current time; the
# digest prints any time from now on as "now".  Generated times all lie
# before 2024.
now=$(date +%s)
[ "$now" -gt 1710000000 ] || skip "the clock is set before 2024"

umask 022
# Each tool is found as "cp" in PATH, so its messages start with "cp:".
mkdir bin-gnu bin-tool && ln -s "$GNU_CP" bin-gnu/cp &&
  ln -s "$(command -v "$tool")" bin-tool/cp || fail "cannot set up bin dirs"
# Comparing GNU cp with itself (see known_difference).
tool_is_gnu=
[ bin-tool/cp -ef "$GNU_CP" ] && tool_is_gnu=1

# The option sets: NAME SETUP ARGUMENTS.  SETUP says what "dst" is
# before the copy: "new" (absent), "empty" (an empty directory), "pre"
# (a copy of the tree's pre/, whose entries collide with the operands')
# or "pre2" (as pre, and the command runs twice, e.g. for numbered
# backups).  In ARGUMENTS, ALL stands for the operands "src1 src2 f1 f2
# l1 l2", SOME for the same without f2 (in one tree in eight larger
# than 8 MiB: the option sets whose point is elsewhere spare the time
# of copying it), and @NAME for NAME's absolute name.  Runs from the
# tree's top.
option_sets () {
  cat <<'EOF'
plain          empty  ALL dst
plain-new      new    f1 dst
r              empty  -r ALL dst
r-new          new    -r src1 dst
a              empty  -a ALL dst
a-new          new    -a src1 dst
a-no-links     empty  -a --no-preserve=links SOME dst
r-xattr        empty  -r --preserve=xattr SOME dst
rp             empty  -rp ALL dst
rL             empty  -rL ALL dst
rH             empty  -rH ALL dst
d              empty  -d SOME dst
parents        empty  -R --parents src1/d src2 f1 l2 dst
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
t              empty  -r -t dst SOME
preserve-all   empty  -r --preserve=all SOME dst
EOF
}

# The known, intended differences, all in this one place.  For option
# set $1, known_difference lists what to normalise or leave out, each
# with its reason:
#   normalise SED   a sed command run over both standard outputs and
#                   errors before they are compared (so both sides read
#                   alike: delete a line only one prints, or rewrite one
#                   text into the other)
#   ignore PART     PART (status, stdout, stderr or tree) not compared
#   declined_fails  GNU cp 9.1's exit status counts as 1 when it
#                   declined an overwrite (as 9.2 and later exit)
# Adjustments of 9.1's output apply to every side that runs 9.1: both
# when DIFF_TOOL is GNU cp itself, so that self-comparison stays exact.
#
# Not listed because they cannot show here:
#  - cp8M's --reflink default is "never" where GNU cp 9.x has "auto".
#    $work is on ext4 (/tmp), which cannot clone, so GNU cp copies too;
#    and a clone has the same contents and holes, which is all the
#    digest sees.
#  - GNU cp 9.1 copies data with copy_file_range where cp8M reads and
#    writes; the digest compares contents and whether a file has holes,
#    not the extent layout, and GNU cp against itself
#    (DIFF_TOOL=/bin/cp) shows the block classes are deterministic.
known_difference () {
  kd_sed= kd_skip= kd_declined=
  # Every option set.  GNU cp 9.5 and later (so 9.11, which cp8M
  # follows) name the source too: "cannot overwrite directory 'D' with
  # non-directory 'S'"; 9.1, our /bin/cp, stops after "non-directory".
  normalise "s/^\(cp: cannot overwrite directory .* with non-directory\) .*/\1/"
  case $1 in
    ri)
      # -i with every answer "no" (stdin is /dev/null): GNU cp 9.2 and
      # later exit 1 when an overwrite was declined; 9.1 exits 0.  So
      # GNU's status counts as 1 whenever it asked.
      declined_fails ;;
    # -n needs nothing: 9.1 and 9.11 both skip silently with status 0
    # (9.2 to 9.4 failed; Debian's later packages add a warning that
    # upstream never printed).
  esac
}

# A 9.1 side's status becomes 1 when it declined an overwrite.
declined_fails () {
  kd_declined=1
}

normalise () {
  kd_sed="$kd_sed${kd_sed:+
}$1"
}

ignore () {
  kd_skip="$kd_skip $1"
}

# ---------------------------------------------------------------------

# expand_args ARG...: the option set's words with ALL and @NAME
# expanded, one a line (no operand name holds a newline).
expand_args () {
  for _a; do
    case $_a in
      ALL) printf '%s\n' src1 src2 f1 f2 l1 l2 ;;
      SOME) printf '%s\n' src1 src2 f1 l1 l2 ;;
      @*) printf '%s\n' "$tree/${_a#@}" ;;
      *) printf '%s\n' "$_a" ;;
    esac
  done
}

# run_side SIDE SETUP ARGS...: in $tree, make dst as SETUP says, run
# "cp ARGS" with SIDE's cp, and write everything to compare to
# $wdir/SIDE.res; then remove dst.  Thousands of runs: every process
# spared counts, hence the few here.
run_side () {
  _side=$1 _setup=$2
  shift 2
  _r=$wdir/$_side
  case $_setup in
    empty) mkdir dst ;;
    pre*) "$GNU_CP" -a pre dst ;;
  esac || fail "cannot set up dst ($_setup)"
  # A tool that waits on a FIFO or loops must not hang make check.
  PATH=$work/bin-$_side:$PATH timeout -k 5 60 cp "$@" \
    </dev/null >"$_r.out" 2>"$_r.err"
  _st=$?
  if [ "$_setup" = pre2 ]; then
    PATH=$work/bin-$_side:$PATH timeout -k 5 60 cp "$@" \
      </dev/null >>"$_r.out" 2>>"$_r.err"
    _st="$_st $?"
  fi
  if [ -n "$kd_declined" ] && { [ "$_side" = gnu ] || [ -n "$tool_is_gnu" ]; } &&
     grep -q "^cp: overwrite .*? " "$_r.err"; then
    _st=1
  fi
  case $kd_skip in *status*) _st="(not compared)" ;; esac
  case $kd_skip in *stdout*) echo "(not compared)" >"$_r.out" ;; esac
  case $kd_skip in *stderr*) echo "(not compared)" >"$_r.err" ;; esac
  echo "--- stderr" >>"$_r.out"
  {
    echo "exit status: $_st"
    echo "--- stdout"
    # The program name: cp8M's messages may call it "cp8M".
    sed -e "s/cp8M: /cp: /g; s/'cp8M --help'/'cp --help'/g" \
        ${kd_sed:+-e "$kd_sed"} "$_r.out" "$_r.err"
    echo "--- tree"
  } >"$_r.res"
  if [ -n "$keep_this" ]; then
    mkdir -p "$keep_this" && "$GNU_CP" -a dst "$keep_this/$_side" 2>/dev/null
  fi
  case $kd_skip in
    *tree*) echo "(not compared)" >>"$_r.res"; rm -rf dst ;;
    *) "$treedigest" -r -n "$now" dst >>"$_r.res" 2>&1 ;;
  esac
  # Not chmod first: with -l, dst's files are the sources'.
  [ ! -e dst ] && [ ! -h dst ] ||
    rm -rf dst 2>/dev/null || { chmod -R u+rwx dst; rm -rf dst; } ||
    fail "cannot remove dst"
}

# difference SEED NAME ARGS...: report one.
difference () {
  _seed=$1 _name=$2
  shift 2
  ndiff=$((ndiff + 1))
  echo "$_name" >>"$wdir/sets"
  if [ "$ndiff" -le "$show" ]; then
    echo "DIFFERENCE: seed $_seed, option set $_name:"
    echo "  cd TREE && cp $*   (TREE: treegen $_seed TREE)"
    echo "  again: DIFF_SEED=$_seed DIFF_TREES=1 DIFF_SETS=$_name"
    diff -u --label "GNU cp" --label "$tool" "$wdir/gnu.res" \
      "$wdir/tool.res" | head -n 80
  else
    echo "DIFFERENCE: seed $_seed, option set $_name"
  fi
}

# one_tree SEED: every option set over the tree of SEED.
one_tree () {
  _seed=$1
  chmod -R u+rwx "$tree" 2>/dev/null
  rm -rf "$tree"
  "$treegen" "$_seed" "$tree" || fail "treegen $_seed failed"
  cd "$tree" || fail "cannot enter $tree"
  "$treedigest" src1 src2 f1 f2 l1 l2 pre >"$wdir/src-before" ||
    fail "treedigest failed on seed $_seed"
  while read -r _name _setup _args; do
    # The option set's words, split on white space on purpose.
    set -f; set -- $_args; set +f
    _ifs=$IFS IFS='
'
    set -- $(expand_args "$@")
    IFS=$_ifs
    known_difference "$_name"
    keep_this=
    [ -n "$DIFF_KEEP" ] && [ "$ndiff" -lt "$show" ] &&
      keep_this=$wdir/keep/$_seed-$_name
    run_side gnu "$_setup" "$@"
    run_side tool "$_setup" "$@"
    if cmp -s "$wdir/gnu.res" "$wdir/tool.res"; then
      [ -z "$keep_this" ] || rm -rf "$keep_this"
    else
      difference "$_seed" "$_name" "$@"
      [ -z "$keep_this" ] || "$GNU_CP" -a "$tree" "$keep_this/tree"
    fi
  done <"$work/option-sets"
  # Neither tool may change its sources (a write through a symlink, a
  # link count left behind...).
  "$treedigest" src1 src2 f1 f2 l1 l2 pre >"$wdir/src-after"
  if ! cmp -s "$wdir/src-before" "$wdir/src-after"; then
    ndiff=$((ndiff + 1))
    echo source-changed >>"$wdir/sets"
    echo "DIFFERENCE: seed $_seed: the source tree changed during the copies:"
    diff -u "$wdir/src-before" "$wdir/src-after" | head -n 40
  fi
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
start=$(date +%s)
j=0
while [ "$j" -lt "$jobs" ]; do
  worker "$j" >"$work/log$j" 2>&1 &
  j=$((j + 1))
done
wait

total=0 j=0
while [ "$j" -lt "$jobs" ]; do
  cat "$work/log$j"
  [ -f "$work/j$j/done" ] || fail "worker $j stopped early (above)"
  n=$(cat "$work/j$j/count")
  total=$((total + n))
  j=$((j + 1))
done
note "$trees trees, $(wc -l <"$work/option-sets") option sets," \
  "$(($(date +%s) - start)) s: $total differences"
if [ "$total" -gt 0 ]; then
  note "differences by option set:"
  cat "$work"/j*/sets | sort | uniq -c | sort -rn
  if [ -n "$DIFF_KEEP" ]; then
    rm -rf /tmp/difftest-keep && mkdir /tmp/difftest-keep &&
      for d in "$work"/j*/keep; do
        [ -d "$d" ] && "$GNU_CP" -a "$d"/. /tmp/difftest-keep/
      done
    note "kept in /tmp/difftest-keep"
  fi
  fail "$total differences from GNU cp (seeds $seed0 to $((seed0 + trees - 1)))"
fi
exit 0
