# Sourced after init.sh by the tests of crash-safe destinations
# (kill-torture.sh, interrupt.sh, crash-faults.sh, crash-shim.sh,
# signals.sh, faults.sh) and the other tests of the fault shim.
#
# A new destination stays invisible until it is complete: it is written
# as an unnamed O_TMPFILE, or where that is refused (FUSE, NFS) under a
# hidden temporary name ".cp8M-XXXXXX" in the same directory.  So tests
# cannot wait for the destination's name to know that a copy has begun;
# they watch the process's I/O counters instead.

# wait_progress PID [BYTES]: until the process PID has written at least
# BYTES (default 1) bytes, at most 10 s; fail if it exits or never gets
# there.  /proc/PID/io counts every thread's writes.
wait_progress () {
  _want=${2:-1} _i=0
  while [ $_i -lt 1000 ]; do
    _w=$(sed -n 's/^wchar: //p' "/proc/$1/io" 2>/dev/null)
    [ -n "$_w" ] || fail "process $1 ended before it wrote $_want bytes"
    [ "$_w" -ge "$_want" ] && return 0
    sleep 0.01
    _i=$((_i + 1))
  done
  fail "process $1 wrote only $_w bytes in 10 s (waited for $_want)"
}

# find_cp8m JOB: set cp to the pid of the cp8M that the background job
# JOB (a shell, strace, env...) runs, once it has started; at most 10 s.
find_cp8m () {
  _i=0
  until cp=$(descendant "$1" cp8M); do
    _i=$((_i + 1))
    [ $_i -lt 1000 ] || fail "no cp8M started under job $1"
    sleep 0.01
  done
}

# stopped_at TRACE JOB: wait until every thread of the cp8M that the
# background job JOB runs under strace -f (writing to TRACE) has stopped
# (SIGSTOP, which strace injects, -e inject=CALL:signal=SIGSTOP:when=N,
# or the caller sends; TRACE then has a "stopped by SIGSTOP" line for
# each thread), at most 30 s; set cp to that cp8M's pid.  What the caller
# does meanwhile happens at that point of the copy, however busy the
# machine, until it sends SIGCONT.
stopped_at () {
  _i=0
  until cp=$(descendant "$2" cp8M) &&
        _n=$(ls "/proc/$cp/task" 2>/dev/null | wc -l) && [ "$_n" -gt 0 ] &&
        [ "$(grep -c 'stopped by SIGSTOP' "$1" 2>/dev/null)" -ge "$_n" ]; do
    _i=$((_i + 1))
    [ $_i -lt 3000 ] || fail "no cp8M stopped under job $2 in 30 s"
    sleep 0.01
  done
}

# hidden_temps DIR: the names of cp8M's hidden temporaries in DIR, one
# a line.  is_hidden_temp NAME: true for ".cp8M-" and six characters.
hidden_temps () {
  (cd "$1" && for _n in .cp8M-*; do
     [ -e "$_n" ] && is_hidden_temp "$_n" && echo "$_n"
   done)
}
is_hidden_temp () {
  case $1 in
    .cp8M-??????) case ${1#.cp8M-} in */*) return 1 ;; esac; return 0 ;;
  esac
  return 1
}

# o_tmpfile DIR: "yes" if DIR's filesystem takes O_TMPFILE, "no" if it
# refuses it (FUSE, NFS), "unknown" without python3 to ask.
o_tmpfile () {
  command -v python3 >/dev/null || { echo unknown; return; }
  if python3 -c 'import os, sys
os.open(sys.argv[1], os.O_TMPFILE | os.O_WRONLY, 0o600)' "$1" 2>/dev/null; then
    echo yes
  else
    echo no
  fi
}

# entries DIR: every name in DIR (hidden ones too), sorted, on one line.
entries () {
  # By globs, in C order (LC_ALL=C): the tortures call this after every
  # kill, and a pipe of four programs cost more than the check.
  _e=
  for _x in "$1"/..?* "$1"/.[!.]* "$1"/*; do
    [ -e "$_x" ] || [ -h "$_x" ] || continue
    _e="$_e${_e:+ }${_x##*/}"
  done
  echo "$_e"
}

# size FILE: its size in bytes.
size () {
  stat -c %s "$1"
}

# inode FILE
inode () {
  stat -c %i "$1"
}

# same FILE REF: FILE has REF's size and bytes (tests/sparsecmp reads
# only where one of them has data: the torture's sparse files are 1 GiB).
same () {
  [ -f "$1" ] && "$abs_top_builddir/tests/sparsecmp" "$1" "$2"
}

# Faults injected into a dynamically linked cp8M by tests/faultshim.so
# (LD_PRELOAD, driven by FAULTSHIM_* variables: see faultshim.c).
faultshim=$abs_top_builddir/tests/faultshim.so

# shim_preload PROGRAM: the LD_PRELOAD value that puts the shim into
# PROGRAM (a path, or a name found in PATH).  AddressSanitizer must come
# first in the list ("ASan runtime does not come first" otherwise): for a
# sanitizer build, the libasan that PROGRAM links goes in front.
shim_preload () {
  _asan= _prog=$(command -v "$1")
  if grep -q __asan_init "$_prog" 2>/dev/null; then
    _asan=$(ldd "$_prog" 2>/dev/null | awk '/libasan/ { print $3; exit }')
    [ -n "$_asan" ] || _asan=$(${CC:-gcc} -print-file-name=libasan.so)
  fi
  echo "${_asan:+$_asan:}$faultshim"
}

# shim_usable: true when the shim loads into cp8M.  It cannot into a
# static binary (make static-check), which ignores LD_PRELOAD; anything
# else that keeps it out is a failure.
shim_usable () {
  [ -f "$faultshim" ] || fail "tests/faultshim.so was not built"
  rm -f "$work/.shim-loaded"
  LD_PRELOAD=$(shim_preload "$CP8M") FAULTSHIM_LOADED=$work/.shim-loaded \
    "$CP8M" --version >/dev/null 2>"$work/.shim-err" ||
    fail "cp8M --version fails under the shim: $(cat "$work/.shim-err")"
  [ -e "$work/.shim-loaded" ] && return 0
  cp8M_static && return 1
  fail "tests/faultshim.so does not load into cp8M: $(cat "$work/.shim-err")"
}

# need_shim: skip the test (77) when the shim cannot load into cp8M (a
# static binary): the harness then counts its checks as skipped, where a
# pass would claim them.  The tests that need the shim are kept apart
# from those that do not (verify-shim.sh beside verify.sh...), so that a
# static build still runs the rest.
need_shim () {
  shim_usable ||
    skip "cp8M is statically linked: LD_PRELOAD cannot load tests/faultshim.so into it"
}

# fresh DIR: an empty DIR.
fresh () {
  rm -rf "$1" && mkdir "$1" || fail "cannot make $1"
}

# failed WHAT DEST: the last copy exited 1 ($status) and its standard error
# ($work/err) has a line "cp8M: ... 'DEST' ...: Input/output error" (or
# the cause in $cause).
failed () {
  libc_words "$work/err"
  [ "$status" -eq 1 ] || fail "$1: exit $status, expected 1 ($(cat "$work/err"))"
  grep -q "^cp8M: .*'$2'.*: ${cause:-Input/output error}\$" "$work/err" ||
    fail "$1: no message naming '$2' (got: $(cat "$work/err"))"
}
