# Sourced by the differential testers (tests/differential.sh and
# tests/differential-shapes.sh) after init.sh: GNU cp (/bin/cp) and cp8M
# copy random trees (tests/treegen) under tables of option sets, and
# each pair of runs must give the same canonical digest of the
# destination (tests/treedigest), the same standard output, standard
# error and exit status.  Both tools run as "cp", from the same
# directory with the same command line, so that their messages can be
# compared byte for byte.  The known, intended differences are listed
# here, in known_difference, for both testers.
#
# Settings (environment) common to both testers:
#   DIFF_SEED=S     seed of the first tree; tree i has seed S+i (default
#                   fixed, so that every run tries the same trees)
#   DIFF_SETS='a b' only these option sets (names in the tables)
#   DIFF_JOBS=N     trees in parallel (default 2)
#   DIFF_TOOL=PROG  the program compared with GNU cp (default cp8M; an
#                   absolute name or one found in PATH).
#                   DIFF_TOOL=/bin/cp compares GNU cp with itself: it must
#                   find nothing, or the generator or the digest is not
#                   deterministic.
#   DIFF_SHOW=N     print the details of the first N differences (20)
#   DIFF_KEEP=1     keep the trees and both results of the first
#                   differences in /tmp/difftest-keep
# DIFF_TREES (how many trees) is read by each tester.

seed0=${DIFF_SEED:-8000}
jobs=${DIFF_JOBS:-2}
show=${DIFF_SHOW:-20}
tool=${DIFF_TOOL:-$CP8M}
treegen=$abs_top_builddir/tests/treegen
treedigest=$abs_top_builddir/tests/treedigest
[ -x "$treegen" ] && [ -x "$treedigest" ] ||
  fail "tests/treegen or tests/treedigest not built (make check builds them)"
tool_path=$(command -v "$tool") || fail "$tool not found"

# A copy that does not preserve times stamps the current time; the
# digest prints any time from now on as "now".  Generated times all lie
# before 2024.
now=$(date +%s)
[ "$now" -gt 1710000000 ] || skip "the clock is set before 2024"

umask 022
# Comparing GNU cp with itself (see known_difference).
tool_is_gnu=
[ "$tool_path" -ef "$GNU_CP" ] && tool_is_gnu=1

# make_bins DIR [copy]: DIR/bin-gnu/cp and DIR/bin-tool/cp, so that each
# tool is found as "cp" in PATH and its messages start with "cp:".  With
# "copy", the tool is copied there rather than linked to: a user other
# than root may not reach the build tree.
make_bins () {
  mkdir -p "$1/bin-gnu" "$1/bin-tool" &&
    ln -s "$GNU_CP" "$1/bin-gnu/cp" || fail "cannot set up $1/bin-gnu"
  if [ "$2" = copy ]; then
    "$GNU_CP" "$tool_path" "$1/bin-tool/cp" && chmod 755 "$1/bin-tool/cp"
  else
    ln -s "$tool_path" "$1/bin-tool/cp"
  fi || fail "cannot set up $1/bin-tool"
}

# ---------------------------------------------------------------------
# The known, intended differences, all in this one place.  For option
# set $1 (its name in either tester's table; $where tells the
# differential-shapes scenario, empty in differential.sh),
# known_difference lists what to normalise or leave out, each with its
# reason:
#   normalise GLOB SED
#                   a sed command run over both standard outputs and
#                   errors before they are compared (so both sides read
#                   alike: delete a line only one prints, or rewrite one
#                   text into the other); GLOB, a shell pattern, matches
#                   every line SED may change (the others are copied by
#                   the shell: no sed for them)
#   ignore PART     PART (status, stdout, stderr or tree) not compared
#   declined_fails  GNU cp 9.1's exit status counts as 1 when it
#                   declined an overwrite (as 9.2 and later exit)
# Adjustments of 9.1's output apply to every side that runs 9.1: both
# when DIFF_TOOL is GNU cp itself, so that self-comparison stays exact.
#
# Not listed because they cannot show here:
#  - cp8M's --reflink default is "never" where GNU cp 9.x has "auto".
#    The trees are on ext4 (differential.sh: /tmp; differential-shapes:
#    a loop device) and the other destinations on tmpfs and ramfs, none
#    of which can clone, so GNU cp copies too; and a clone has the same
#    contents and holes, which is all the digest sees.
#  - GNU cp 9.1 copies data with copy_file_range where cp8M reads and
#    writes; the digest compares contents and whether a file has holes,
#    not the extent layout, and GNU cp against itself
#    (DIFF_TOOL=/bin/cp) shows the block classes are deterministic.
#  - GNU cp 9.1 fails "cp --parents" with -p, -a or --preserve=mode for
#    an absolute operand: it looks up the sources of the directories it
#    made by their names less the leading '/', from the working
#    directory, and says "No such file or directory" (9.4 fixed it; cp8M
#    follows 9.11).  The option sets that do this (SETUP abs) run from
#    /, where those names lead to the same directories, so 9.1 copies as
#    9.11 does.
known_difference () {
  kd_sed= kd_globs= kd_skip= kd_declined=
  # Every option set.  GNU cp 9.5 and later (so 9.11, which cp8M
  # follows) name the source too: "cannot overwrite directory 'D' with
  # non-directory 'S'"; 9.1, our /bin/cp, stops after "non-directory".
  normalise 'cp: cannot overwrite directory * with non-directory *' \
    "s/^\(cp: cannot overwrite directory .* with non-directory\) .*/\1/"
  # Every option set.  When GNU cp cannot read an attribute it prints
  # the attribute's name twice ("getting attribute 'user.a' of
  # 'user.a'"): libattr asks coreutils to quote the name and the file in
  # turn, and its quoting reuses one buffer.  cp8M names the file.
  normalise "cp: getting attribute '*' of *" \
    "s/^\(cp: getting attribute '[^']*' of \).*\(: [^:]*\)\$/\1FILE\2/"
  # Every option set.  GNU cp 9.1's gnulib (as Debian 12's, which cp8M
  # patches: gl/lib/quotearg.c.diff) quotes a name that holds a single
  # quote and ends in a byte written as $'\NNN' with two quotes too many
  # at its start ('''src/a'\''b$'\376' for 'src/a'\''b$'\376'); a
  # correct quoting never has three quotes before a character other
  # than a quote or '$'.
  normalise "*'''*" \
    "s/\\(^\\|[ (]\\)'''\\([^'\$]\\)/\\1'\\2/g"
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
  kd_globs="$kd_globs${kd_globs:+
}$1"
  kd_sed="$kd_sed${kd_sed:+
}$2"
}

ignore () {
  kd_skip="$kd_skip $1"
}

# ---------------------------------------------------------------------
# Running one option set.  The caller sets, for each tree and scenario:
#   tree     the tree's top, the working directory of every run
#   dstdir   where "dst" is made: empty for the tree's top (named "dst"),
#            else an absolute directory (on another file system)
#   run_owner  with run_as, the USER:GROUP it runs as: the empty
#            destination is made for it by install(1), a process less
#            than "$run_as mkdir" (the same directory: umask 022)
#   run_as   empty, or a command prefix (setpriv ...) that every step
#            of the run goes through: the setup, the copy
#   run_env  empty, or a command prefix (env VAR=VALUE...) for the copy
#            alone
#   bins     the directory of bin-gnu/ and bin-tool/ (make_bins)
#   wdir     the worker's own directory for results

# expand_args ARG...: the option set's words, one a line in $expanded
# (no operand name holds a newline; built in this shell: a $(...) per
# option set costs a fork), with
#   ALL     the operands "src1 src2 f1 f2 l1 l2"
#   SOME    the same without f2 (in one tree in eight larger than 8 MiB:
#           the option sets whose point is elsewhere spare the time of
#           copying it)
#   DUPS    dup1/n0..n3 then dup2/n0..n3, whose copies collide
#   @NAME   NAME's absolute name (@DUPS: each of DUPS)
#   dst     the destination where $dstdir puts it (also dst/...)
expand_args () {
  expanded=
  for _a; do
    case $_a in
      ALL) add_arg src1 src2 f1 f2 l1 l2 ;;
      SOME) add_arg src1 src2 f1 l1 l2 ;;
      DUPS|@DUPS)
        _p=
        [ "$_a" = @DUPS ] && _p=$tree/
        for _d in dup1 dup2; do
          for _n in n0 n1 n2 n3; do add_arg "$_p$_d/$_n"; done
        done ;;
      @*) add_arg "$tree/${_a#@}" ;;
      dst|dst/*) add_arg "$dst${_a#dst}" ;;
      *) add_arg "$_a" ;;
    esac
  done
}
add_arg () {
  for _w; do
    expanded="$expanded${expanded:+
}$_w"
  done
}

# run_side SIDE SETUP ARGS...: in $tree, make the destination as SETUP
# says, run "cp ARGS" with SIDE's cp, and write everything to compare to
# $wdir/SIDE.res; then remove the destination.  SETUP is
#   new      no destination
#   empty    an empty directory
#   pre      a copy of the tree's pre/, whose entries collide with the
#            operands'
#   pre2     as pre, and the command runs twice (numbered backups)
#   inplace  a copy of the tree's ip/, and the command runs in it
#   abs      an empty directory, and the command runs from / with an
#            absolute "dst" (for --parents with absolute operands: see
#            "Not listed" above known_difference); the digest leaves out
#            the times of the directories above the tree's copy
#            (above_tree)
# Thousands of runs: every process spared counts, hence the few here.
run_side () {
  _side=$1 _setup=$2
  shift 2
  _r=$wdir/$_side
  # The setup is GNU cp's, the same for both sides; as another user, or
  # onto a file system without ACLs, it may fail on some entries alike.
  case $_setup in
    empty|abs)
      if [ -n "$run_owner" ]; then
        install -d -m 755 -o "${run_owner%:*}" -g "${run_owner#*:}" "$dst"
      else
        mkdir "$dst"
      fi && { [ "$_setup" = empty ] || cd /; } ;;
    pre*) $run_as "$GNU_CP" -a pre "$dst" 2>/dev/null || [ -d "$dst" ] ;;
    inplace)
      { $run_as "$GNU_CP" -a ip "$dst" 2>/dev/null || [ -d "$dst" ]; } &&
        cd "$dst" ;;
  esac || fail "cannot set up $dst ($_setup)"
  : >"$_r.out"
  : >"$_r.err"
  run_cp "$@"
  _st=$?
  if [ "$_setup" = pre2 ]; then
    run_cp "$@"
    _st="$_st $?"
  fi
  [ "$_side" = tool ] && libc_words "$_r.err"
  case $_setup in inplace|abs) cd "$tree" ;; esac
  # A copy through a symlink "../dupt" from a destination elsewhere
  # lands beside it, out of the digest's sight.
  if [ -n "$dstdir" ] && { [ -e "$dstdir/dupt" ] || [ -h "$dstdir/dupt" ]; }; then
    echo "(made $dstdir/dupt, outside the destination)" >>"$_r.err"
    rm -rf "$dstdir/dupt"
  fi
  if [ -n "$kd_declined" ] && { [ "$_side" = gnu ] || [ -n "$tool_is_gnu" ]; } &&
     grep -q "^cp: overwrite .*? " "$_r.err"; then
    _st=1
  fi
  case $kd_skip in *status*) _st="(not compared)" ;; esac
  case $kd_skip in *stdout*) echo "(not compared)" >"$_r.out" ;; esac
  case $kd_skip in *stderr*) echo "(not compared)" >"$_r.err" ;; esac
  {
    echo "exit status: $_st"
    echo "--- stdout"
    # The program name: cp8M's messages may call it "cp8M".  Most runs
    # print nothing or a few lines that need no rewriting: no sed for
    # them (plain_text).
    if [ ! -s "$_r.out" ] && [ ! -s "$_r.err" ]; then
      echo "--- stderr"
    elif plain_text "$_r.out" "$_r.err"; then
      printf '%s' "$plain"
    else
      echo "--- stderr" >>"$_r.out"
      sed -e "s/cp8M: /cp: /g; s/'cp8M --help'/'cp --help'/g" \
          ${kd_sed:+-e "$kd_sed"} "$_r.out" "$_r.err"
    fi
    echo "--- tree"
  } >"$_r.res"
  if [ -n "$keep_this" ]; then
    mkdir -p "$keep_this" && "$GNU_CP" -a "$dst" "$keep_this/$_side" 2>/dev/null
  fi
  case $kd_skip:$_setup in
    *tree*) echo "(not compared)" >>"$_r.res"; rm -rf "$dst" ;;
    *:abs) "$treedigest" -r -n "$now" "$dst" 2>&1 | above_tree >>"$_r.res" ;;
    *) "$treedigest" -r -n "$now" "$dst" >>"$_r.res" 2>&1 ;;
  esac
  # Not chmod first: with -l, dst's files are the sources'.
  [ ! -e "$dst" ] && [ ! -h "$dst" ] ||
    rm -rf "$dst" 2>/dev/null || { chmod -R u+rwx "$dst"; rm -rf "$dst"; } ||
    fail "cannot remove $dst"
}

# plain_text OUT ERR: set plain to OUT's lines, "--- stderr", ERR's lines,
# read by the shell, and return 0; return 1 when a line may need the
# rewriting of run_side's sed (it names cp8M or matches a GLOB of
# normalise), or when there are more than 40 (the shell reads a byte
# at a time: sed is cheaper then).
plain_text () {
  plain= _n=0 _rc=0 _oifs=$IFS
  set -f
  IFS='
'
  for _file in "$1" "$2"; do
    [ "$_file" = "$2" ] && plain="$plain--- stderr
"
    while IFS= read -r _l || [ -n "$_l" ]; do
      _n=$((_n + 1))
      [ $_n -le 40 ] || _rc=1
      case $_l in *cp8M*) _rc=1 ;; esac
      for _g in $kd_globs; do
        case $_l in $_g) _rc=1 ;; esac
      done
      [ $_rc -eq 0 ] || break 2
      plain="$plain$_l
"
    done <"$_file"
  done
  IFS=$_oifs
  set +f
  return $_rc
}

# run_cp ARGS...: "cp ARGS" with $_side's cp, as $run_as with $run_env,
# its output added to $_r.out and $_r.err; returns its status.  A tool
# that waits on a FIFO or loops must not hang make check: the worker's
# watchdog (below) kills a copy that runs for a minute.  (Not timeout(1):
# a process more in every run, and the testers make thousands.)
run_cp () {
  PATH=$bins/bin-$_side:$PATH $run_as $run_env cp "$@" \
    </dev/null >>"$_r.out" 2>>"$_r.err" &
  echo $! >"$wdir/running"
  wait $!
  _rc=$?
  : >"$wdir/running"
  return $_rc
}

# watchdog: in the background, every 5 seconds, the copy in
# $wdir/running; one seen there 12 times running is killed (status 137,
# which the comparison shows).
watchdog () {
  _seen= _times=0
  while sleep 5; do
    read -r _pid <"$wdir/running" 2>/dev/null || _pid=
    if [ -n "$_pid" ] && [ "$_pid" = "$_seen" ]; then
      _times=$((_times + 1))
      if [ $_times -ge 12 ]; then
        echo "(watchdog: killed cp, pid $_pid, after a minute)" >&2
        kill -KILL "$_pid" 2>/dev/null
      fi
    else
      _seen=$_pid _times=1
    fi
  done </dev/null >/dev/null
}

# above_tree: the digest of $dst on standard input, less the times of
# the directories above the tree's copy ($dst$tree): --parents -p with
# absolute operands gives them those of /tmp or the build tree and of
# their other parents, which other processes change at any time, even
# between the two runs.  Their other attributes are compared.
above_tree () {
  awk -v dst="$dst" -v copy="$dst$tree" '
    $1 != dst && $1 != copy && index(copy "/", $1 "/") == 1 {
      sub(/ mt=[^ ]*/, " mt=(above the tree)")
    }
    { print }'
}

# difference SEED NAME ARGS...: report one.  The tester defines
# how_to_replay SEED NAME ARGS..., which prints how to run it again
# (from $run_dir: TREE, or / for SETUP abs).
difference () {
  _seed=$1 _name=$2
  shift 2
  ndiff=$((ndiff + 1))
  echo "$_name" >>"$wdir/sets"
  if [ "$ndiff" -le "$show" ]; then
    echo "DIFFERENCE: seed $_seed, option set $_name:"
    how_to_replay "$_seed" "$_name" "$@"
    diff -u --label "GNU cp" --label "$tool" "$wdir/gnu.res" \
      "$wdir/tool.res" | head -n 80
  else
    echo "DIFFERENCE: seed $_seed, option set $_name"
  fi
}

# compare_sets SEED SETS LABEL: every option set in the file SETS (lines
# "NAME SETUP ARGS...") over the tree in $tree; LABEL names the scenario
# in reports (empty: none).
compare_sets () {
  _seed=$1 _sets=$2 _scen=$3
  while read -r _name _setup _args; do
    # From / (SETUP abs), "dst" in the tree's top is named from the root.
    dst=dst run_dir=TREE
    [ "$_setup" = abs ] && dst=$tree/dst run_dir=/
    [ -n "$dstdir" ] && dst=$dstdir/dst
    # The option set's words, split on white space on purpose.
    set -f; set -- $_args; set +f
    _ifs=$IFS IFS='
'
    expand_args "$@"
    set -f; set -- $expanded; set +f
    IFS=$_ifs
    known_difference "$_name"
    _label=$_scen$_name
    keep_this=
    [ -n "$DIFF_KEEP" ] && [ "$ndiff" -lt "$show" ] &&
      keep_this=$wdir/keep/$_seed-$(echo "$_label" | tr / -)
    run_side gnu "$_setup" "$@"
    run_side tool "$_setup" "$@"
    if cmp -s "$wdir/gnu.res" "$wdir/tool.res"; then
      [ -z "$keep_this" ] || rm -rf "$keep_this"
    else
      difference "$_seed" "$_label" "$@"
      [ -z "$keep_this" ] || "$GNU_CP" -a "$tree" "$keep_this/tree"
    fi
  done <"$_sets"
}

# The operands and everything else a copy must leave as it was (a write
# through a symlink, a link count left behind...).  The tester may add
# to it.
source_names="src1 src2 f1 f2 l1 l2 pre dup1 dup2 dupt ip"

# sources_before, sources_after LABEL: digest the sources in $tree, and
# report a difference if they changed since.
sources_before () {
  (cd "$tree" && "$treedigest" $source_names) >"$wdir/src-before" ||
    fail "treedigest failed on seed $_seed"
}
sources_after () {
  (cd "$tree" && "$treedigest" $source_names) >"$wdir/src-after"
  if ! cmp -s "$wdir/src-before" "$wdir/src-after"; then
    ndiff=$((ndiff + 1))
    echo "${1:+$1/}source-changed" >>"$wdir/sets"
    echo "DIFFERENCE: seed $_seed: the sources changed during the ${1:+$1 }copies:"
    diff -u "$wdir/src-before" "$wdir/src-after" | head -n 40
  fi
}

# run_workers TREES: the tester's worker J (a function it defines) takes
# trees J, J+jobs, J+2*jobs... below $trees; then the summary, and the
# test fails on any difference.
run_workers () {
  start=$(date +%s)
  j=0 workers= watchdogs=
  while [ "$j" -lt "$jobs" ]; do
    # From /: the watchdog's sleep may outlive it by a few seconds, and
    # must not keep a test's mount busy.
    (wdir=$work/j$j && mkdir -p "$wdir" && : >"$wdir/running" && cd / &&
      watchdog) 2>"$work/watchdog$j" &
    watchdogs="$watchdogs $!"
    worker "$j" >"$work/log$j" 2>&1 &
    workers="$workers $!"
    j=$((j + 1))
  done
  wait $workers
  kill $watchdogs 2>/dev/null

  total=0 j=0
  while [ "$j" -lt "$jobs" ]; do
    cat "$work/log$j" "$work/watchdog$j"
    [ -f "$work/j$j/done" ] || fail "worker $j stopped early (above)"
    n=$(cat "$work/j$j/count")
    total=$((total + n))
    j=$((j + 1))
  done
  note "$1, $(($(date +%s) - start)) s: $total differences"
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
}
