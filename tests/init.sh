# Sourced by every shell test.  Gives the test a private scratch directory
# (removed on exit) as its working directory, and helpers.  Tests run with
# the cp8M under test first in PATH (Makefile.am sets it) and LC_ALL=C.

: "${abs_top_builddir:?run this test through make check}"
: "${abs_top_srcdir:?run this test through make check}"

# A runner may start us with standard input closed: the first file a
# test or a copy opens would then take descriptor 0, and descriptor
# counts (tests/few-fds.sh) would be off by one.
if [ -d /proc/$$/fd ] && [ ! -e /proc/$$/fd/0 ]; then exec </dev/null; fi

test_name=$(basename "$0" .sh)
CP8M=$(command -v cp8M) || { echo "cp8M not found in PATH" >&2; exit 99; }
GNU_CP=/bin/cp

work=$(mktemp -d "${TMPDIR:-/tmp}/cp8m-$test_name.XXXXXX") || exit 99
trap 'cd /; chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$work" || exit 99
# The digests of same_as_gnu print a time from the test's start on as
# "now": one the copies stamped themselves, which differs between runs.
digest_now=$(date +%s)

fail () { echo "FAIL: $test_name: $*" >&2; exit 1; }
skip () { echo "SKIP: $test_name: $*" >&2; exit 77; }
# cp8M_static: cp8M is statically linked, so LD_PRELOAD cannot load a
# shim into it.
cp8M_static () { ldd "$CP8M" 2>&1 | grep -q 'not a dynamic executable'; }
note () { echo "$test_name: $*"; }

# libc_words FILE...: the system errors of messages in FILE, as glibc
# words them.  cp8M built with another C library (make musl-check) says
# what that library says ("I/O error"), as GNU cp built with it does; the
# tests' messages are glibc's, and GNU cp's here are.  Only the texts
# that differ, and only those a copy can meet.  ($cp8m_libc comes from
# configure through make check.)
libc_words () {
  [ "${cp8m_libc:-glibc}" = glibc ] && return 0
  sed -i -e 's/: I\/O error$/: Input\/output error/' \
    -e 's/: Out of memory$/: Cannot allocate memory/' \
    -e 's/: Resource busy$/: Device or resource busy/' \
    -e 's/: Cross-device link$/: Invalid cross-device link/' \
    -e 's/: No file descriptors available$/: Too many open files/' \
    -e 's/: Not a tty$/: Inappropriate ioctl for device/' \
    -e 's/: Invalid seek$/: Illegal seek/' \
    -e 's/: Result not representable$/: Numerical result out of range/' \
    -e 's/: Filename too long$/: File name too long/' \
    -e 's/: Symbolic link loop$/: Too many levels of symbolic links/' \
    -e 's/: Value too large for data type$/: Value too large for defined data type/' \
    -e 's/: Illegal byte sequence$/: Invalid or incomplete multibyte or wide character/' \
    -e 's/: Not supported$/: Operation not supported/' \
    -e 's/: Operation timed out$/: Connection timed out/' \
    -e 's/: Quota exceeded$/: Disk quota exceeded/' "$@"
}

# expect STATUS STDERR COMMAND...: run COMMAND; its exit status must be
# STATUS and its standard error exactly STDERR (one string, may hold
# newlines; empty for none).  Its standard output is left in $work/.out.
expect () {
  _want_status=$1 _want_err=$2
  shift 2
  "$@" >"$work/.out" 2>"$work/.err"
  _status=$?
  libc_words "$work/.err"
  if [ -n "$_want_err" ]; then printf '%s\n' "$_want_err"; fi >"$work/.want"
  if ! cmp -s "$work/.want" "$work/.err"; then
    diff -u "$work/.want" "$work/.err" >&2
    fail "stderr of '$*' differs (above)"
  fi
  [ "$_status" -eq "$_want_status" ] ||
    fail "'$*' exited $_status, expected $_want_status"
}

# run_both TREE ARGS...: copy ./TREE to ./gnu and ./ours and run "cp ARGS"
# in each: GNU cp, then cp8M, both invoked by the name "cp" so that
# messages start alike.  Each run first does the shell commands in
# $RUN_SETUP (in the copy) and goes through the command $RUN_PREFIX (say
# "as_nobody" or "timeout 10"; word-split), when set.  Standard output,
# standard error and exit status must match.
run_both () {
  _tree=$1
  shift
  # The tests call this hundreds of times, and on this kind of machine
  # every process costs milliseconds: none is spent that can be spared.
  [ -e "$work/bin-gnu/cp" ] ||
    { mkdir -p "$work/bin-cp8m" "$work/bin-gnu" &&
      ln -sf "$CP8M" "$work/bin-cp8m/cp" &&
      ln -sf "$GNU_CP" "$work/bin-gnu/cp"; } || fail "cannot set up bin-gnu"
  # Both copies first: a command that writes through a symlink out of
  # its copy (into ./TREE itself: abs-sym in tests/cp-existing.sh) must
  # not change what the other side starts from.
  for _side in gnu ours; do
    rm -rf "$work/$_side" && "$GNU_CP" -a "$work/$_tree" "$work/$_side" ||
      fail "cannot set up $_side"
  done
  for _side in gnu ours; do
    _bin=$work/bin-gnu
    [ "$_side" = ours ] && _bin=$work/bin-cp8m
    (cd "$work/$_side" && eval "${RUN_SETUP:-:}" &&
     if [ -n "$RUN_PREFIX" ]; then
       $RUN_PREFIX env PATH="$_bin:$PATH" cp "$@"
     else
       PATH="$_bin:$PATH" exec cp "$@"
     fi >"$work/.$_side.out" 2>"$work/.$_side.err")
    eval "_st_$_side=\$?"
  done
  libc_words "$work/.ours.err"
  # Both copy directories in inode order, and the two copies of TREE
  # have different inode numbers: standard output and standard error are
  # compared as sets of lines (tests/cp-recursive.sh checks the order on
  # one shared tree).
  for _f in "$work/.gnu.out" "$work/.gnu.err" "$work/.ours.out" "$work/.ours.err"; do
    [ ! -s "$_f" ] || LC_ALL=C sort -o "$_f" "$_f"
  done
  for _f in out err; do
    if ! cmp -s "$work/.gnu.$_f" "$work/.ours.$_f"; then
      diff -u "$work/.gnu.$_f" "$work/.ours.$_f" >&2
      fail "'cp $*'${RUN_PREFIX:+ (through $RUN_PREFIX)}: $_f differs from GNU cp (above: GNU first)"
    fi
  done
  echo "$_st_gnu" >"$work/.gnu.status"
  echo "$_st_ours" >"$work/.ours.status"
  [ "$_st_gnu" = "$_st_ours" ] ||
    fail "'cp $*'${RUN_PREFIX:+ (through $RUN_PREFIX)}: exit status $_st_ours, GNU cp's $_st_gnu"
}

# same_as_gnu ARGS...: run_both on ./tree; the resulting trees must match
# too: their digests (tests/treedigest: names, types, modes, owners,
# sizes, contents, hard-link groups, link targets, xattrs and ACLs, and
# mtimes, a time at or after the test's start as "now").
same_as_gnu () {
  run_both tree "$@"
  (cd "$work/gnu" && treedigest -n "$digest_now" .) >"$work/.gnu.tree"
  (cd "$work/ours" && treedigest -n "$digest_now" .) >"$work/.ours.tree"
  if ! cmp -s "$work/.gnu.tree" "$work/.ours.tree"; then
    diff -u "$work/.gnu.tree" "$work/.ours.tree" >&2
    fail "'cp $*'${RUN_PREFIX:+ (through $RUN_PREFIX)}: the resulting trees differ (above: GNU first)"
  fi
}

# same_copy GNU OURS: the two copies (GNU cp's and cp8M's, in the current
# directory) digest alike (treedigest), access times of files too; the
# digests and listings are left in the current directory.
same_copy () {
  now=$(date +%s)
  (cd "$1" && treedigest -n "$now" .) >gnu.digest &&
    (cd "$2" && treedigest -n "$now" .) >ours.digest ||
    fail "treedigest failed"
  cmp -s gnu.digest ours.digest ||
    { diff gnu.digest ours.digest >&2; fail "$2 differs from GNU cp's $1"; }
  (cd "$1" && find . -type f -exec stat -c '%n %X' {} + | sort) >gnu.atime &&
    (cd "$2" && find . -type f -exec stat -c '%n %X' {} + | sort) >ours.atime
  cmp -s gnu.atime ours.atime ||
    { diff gnu.atime ours.atime >&2; fail "$2: access times differ from GNU cp's"; }
}

# tree_listing DIR: name, type, mode, size and link target of everything
# under DIR, one line each, sorted.
tree_listing () {
  find "$work/$1" -printf './%P|%y|%m|%s|%l\n' | LC_ALL=C sort
}

# as_nobody COMMAND...: run COMMAND as an unprivileged user, with a copy of
# cp8M it can execute.  Without root, run it as ourselves.
as_nobody () {
  if [ "$(id -u)" -ne 0 ]; then
    "$@"
    return
  fi
  command -v setpriv >/dev/null || skip "setpriv missing"
  setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

# trace ARGS...: strace ARGS.  LeakSanitizer cannot run under ptrace, so
# a sanitizer build keeps ASan's other checks and drops only that one.
trace () {
  env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace "$@"
}

# sanitized: true when cp8M is built with AddressSanitizer or
# ThreadSanitizer, whose allocators replace malloc's (so mappings cannot
# be counted) and which take SIGSEGV for a crash of their own.
sanitized () {
  grep -q '__asan_init\|__tsan_init' "$CP8M"
}

# wait_for FILE: until FILE exists (the copy has begun), at most 10 s.
wait_for () {
  _i=0
  while [ ! -e "$1" ] && [ $_i -lt 1000 ]; do sleep 0.01; _i=$((_i + 1)); done
  [ -e "$1" ] || fail "$1 never appeared"
}

# descendant PID NAME: the pid of a process called NAME somewhere below
# PID (a background job: shell, env, strace, then the program).
descendant () {
  for _c in $(pgrep -P "$1"); do
    if [ "$(cat "/proc/$_c/comm" 2>/dev/null)" = "$2" ]; then
      echo "$_c"
      return 0
    fi
    descendant "$_c" "$2" && return 0
  done
  return 1
}

# debug_buffers FILE: the buffers a run of cp8M --debug was granted, from
# the "memory budget:" line it wrote to FILE: sets buf_depth, buf_size
# (in bytes), buf_text (as printed: "8 MiB") and buf_capped ("yes" when
# the budget made them fewer or smaller than asked for, or than the
# defaults).  The budget is a quarter of what this machine, or its
# cgroup, has free: a test that counts I/Os takes their size from here,
# and holds cp8M to its defaults only where nothing was capped.
debug_buffers () {
  _l=$(grep -m 1 '^memory budget: .*; buffers: up to ' "$1") ||
    fail "no memory budget line in $1: $(cat "$1")"
  _l=${_l##*; buffers: up to }
  buf_depth=${_l%% x *}
  buf_text=${_l#* x } buf_text=${buf_text%% (*}
  case $buf_text in
    *" GiB") buf_size=$((${buf_text% GiB} * 1073741824)) ;;
    *" MiB") buf_size=$((${buf_text% MiB} * 1048576)) ;;
    *" KiB") buf_size=$((${buf_text% KiB} * 1024)) ;;
    *" bytes") buf_size=${buf_text% bytes} ;;
    *) fail "no buffer size in '$_l'" ;;
  esac
  case $_l in
    *", capped by the budget)") buf_capped=yes ;;
    *) buf_capped=no ;;
  esac
}

# random_file NAME SIZE: SIZE bytes of random data.
random_file () {
  head -c "$2" /dev/urandom >"$1" || fail "cannot make $1"
  [ "$(stat -c %s "$1")" -eq "$2" ] || fail "$1 has the wrong size"
}

# evict FILE...: FILE's pages written back and dropped from the page
# cache, so that a copy of it starts cold.  Per file, never the global
# drop_caches: that would also take away what tests running beside this
# one (make -j check) keep cached on purpose.
evict () {
  for _f; do
    dd of="$_f" oflag=nocache conv=notrunc,fdatasync count=0 status=none &&
      dd if="$_f" iflag=nocache count=0 status=none || return 1
  done
}

# evict_tree DIR...: evict every regular file under DIR.
evict_tree () {
  find "$@" -type f | while IFS= read -r _f; do evict "$_f" || exit 1; done
}
