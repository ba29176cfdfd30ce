#!/bin/sh
# bench/latfs.c, the latency mount bench/latency copies on (issue 52): it
# builds without warnings, mirrors its source directory (data, names,
# links, ownership, times, xattrs), refuses O_TMPFILE with EOPNOTSUPP,
# counts requests per kind, serves concurrent requests at once (16 slow
# lookups leave at least 8 in flight together: no clock is read), makes
# every read a request in direct_io mode, and writes its counters when
# unmounted.  Needs root, /dev/fuse, pkg-config and libfuse3-dev (skips
# without them).
. "${abs_top_srcdir:-.}/tests/init.sh"
[ "$(id -u)" -eq 0 ] || skip "not root: cannot mount"
[ -c /dev/fuse ] || skip "no /dev/fuse"
command -v pkg-config >/dev/null || skip "pkg-config is missing"
pkg-config --exists fuse3 || skip "libfuse3-dev is missing (./install-deps --tests)"
command -v python3 >/dev/null || skip "python3 is missing"

# shellcheck disable=SC2046
cc -O2 -Wall -Wextra -o latfs "$abs_top_srcdir/bench/latfs.c" \
  $(pkg-config --cflags --libs fuse3) -lpthread 2>cc.err ||
  fail "bench/latfs.c does not build: $(head -c 500 cc.err)"
[ ! -s cc.err ] || fail "bench/latfs.c builds with warnings: $(head -c 500 cc.err)"

mkdir src mnt
pid=
trap 'if [ -n "$pid" ]; then umount mnt; wait $pid; fi
      cd /; chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT

# mount_latfs OPTIONS: src at mnt, in the background ($pid).
mount_latfs () {
  ./latfs -f -o "stats=$work/stats,allow_other,default_permissions,$1" \
    src mnt &
  pid=$!
  _i=0
  until grep -q " $work/mnt fuse" /proc/mounts; do
    _i=$((_i + 1))
    [ $_i -lt 100 ] && kill -0 $pid 2>/dev/null || fail "latfs did not mount ($1)"
    sleep 0.1
  done
}
# unmount_latfs: umount, and latfs must exit 0 having written its counters.
unmount_latfs () {
  rm -f stats
  umount mnt || fail "cannot unmount latfs"
  wait $pid || fail "latfs exited with status $?"
  pid=
  [ -s stats ] || fail "latfs wrote no counters at unmount"
}
# counters: ask for the counters (SIGUSR1) and wait for them in ./stats.
counters () {
  rm -f stats
  kill -USR1 $pid
  _i=0
  until [ -e stats ]; do
    _i=$((_i + 1))
    [ $_i -lt 500 ] || fail "latfs wrote no counters on SIGUSR1"
    sleep 0.01
  done
}
count_of () { awk -v k="$1" '$1 == k { print $2 }' stats; }

# ---- a round trip, 2 ms a request ----
mount_latfs delay=2000
head -c 300000 /dev/urandom >data
cp data mnt/a || fail "cannot write through latfs"
cmp data src/a || fail "a file written through latfs differs in its source"
cmp data mnt/a || fail "a file read through latfs differs"
mkdir mnt/d && mv mnt/a mnt/d/b && ln mnt/d/b mnt/d/c && ln -s b mnt/d/s ||
  fail "mkdir, rename, link or symlink through latfs failed"
chown 1234:5678 mnt/d/b && chmod 4750 mnt/d/b &&
  touch -d '2001-02-03 04:05:06.123456789' mnt/d/b &&
  setfattr -n user.test -v 52 mnt/d/b || fail "setting metadata through latfs failed"
touch -d '2001-02-03 04:05:06.123456789' ref
[ "$(stat -c '%h %u %g %a %y' src/d/b)" = \
  "2 1234 5678 4750 $(stat -c %y ref)" ] ||
  fail "metadata set through latfs: $(stat -c '%h %u %g %a %y' src/d/b)"
[ "$(getfattr --only-values -n user.test src/d/c)" = 52 ] ||
  fail "an xattr set through latfs is not in its source"
[ "$(readlink mnt/d/s)" = b ] || fail "readlink through latfs"
rm mnt/d/c mnt/d/s && [ ! -e src/d/c ] || fail "unlink through latfs"

python3 - mnt <<'EOF' || fail "O_TMPFILE on latfs did not fail with EOPNOTSUPP"
import errno, os, sys
try:
    os.open(sys.argv[1], os.O_TMPFILE | os.O_WRONLY, 0o600)
except OSError as e:
    sys.exit(0 if e.errno == errno.EOPNOTSUPP else 1)
sys.exit(2)
EOF
python3 - mnt/d/b mnt/e <<'EOF' || fail "copy_file_range on latfs failed"
import os, sys
i = os.open(sys.argv[1], os.O_RDONLY)
o = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT, 0o600)
os.copy_file_range(i, o, 1000)
EOF

counters
for k in lookup create write read setattr setxattr mkdir rename link \
         symlink readlink unlink copy_file_range; do
  [ "$(count_of $k)" -gt 0 ] || fail "no $k request counted: $(cat stats)"
done
grep -q '^max_in_flight [0-9]' stats || fail "no max_in_flight: $(cat stats)"
unmount_latfs

# ---- 16 slow lookups at once, 200 ms each ----
i=0
while [ $i -lt 16 ]; do echo $i >src/f$i; i=$((i + 1)); done
mount_latfs delay=200000
counters   # a new period for max_in_flight
i=0 procs=
while [ $i -lt 16 ]; do
  stat mnt/f$i >/dev/null &
  procs="$procs $!" i=$((i + 1))
done
# shellcheck disable=SC2086
wait $procs || fail "stat through latfs failed"
counters
[ "$(count_of max_in_flight)" -ge 8 ] ||
  fail "16 concurrent requests, at most $(count_of max_in_flight) in flight at once"
unmount_latfs

# ---- direct_io: every read is a request ----
mount_latfs delay=100,direct_io
cat mnt/e >/dev/null
counters
r1=$(count_of read)
cat mnt/e >/dev/null
counters
[ "$(count_of read)" -gt "$r1" ] ||
  fail "direct_io: a second read of a file was not a request"
unmount_latfs
exit 0
