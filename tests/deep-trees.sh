#!/bin/sh
# Deep trees under descriptor limits: cp8M keeps the descriptors of the
# nearest directory levels only (src/cp/dirfds.c), so it copies what GNU
# cp copies under `ulimit -n 32`, 2000 levels deep, and with names longer
# than PATH_MAX; trees compared with GNU cp's copies.
. "${abs_top_srcdir:-.}/tests/init.sh"

# make_deep DIR LEVELS NAME: a chain of LEVELS directories NAME-0/NAME-1/...
# (NAME/NAME/... when $same_names is set) under DIR, with a file every 50
# levels, a symlink and a FIFO at level 7, a mode-0500 directory at level
# 3 and a file at the bottom.
make_deep () {
  mkdir -p "$1" && (
    cd "$1" || exit 1
    i=0
    while [ $i -lt "$2" ]; do
      # One level at a time down to level 9, then by one mkdir and one cd
      # down to the next multiple of 50: each cd walks the whole path in
      # the kernel, and a cd per level took minutes at 2000 levels.
      _to=$i
      [ $i -ge 10 ] && _to=$(( (i + 49) / 50 * 50 ))
      [ $_to -ge "$2" ] && _to=$(($2 - 1))
      _p=
      while [ $i -le $_to ]; do
        _n=$3-$i
        [ -n "${same_names:-}" ] && _n=$3
        _p=${_p:+$_p/}$_n i=$((i + 1))
      done
      # -P: a logical cd (dash's) asks chdir for the whole absolute
      # name, which is refused past PATH_MAX.
      mkdir -p "$_p" && cd -P "$_p" || exit 1
      i=$_to
      [ $i -eq 3 ] && level3=$PWD
      [ $((i % 50)) -eq 0 ] && echo "data $i" >"file-$i"
      if [ $i -eq 7 ]; then
        ln -s "file-$i" link && mkfifo fifo && echo 7 >"file-$i"
      fi
      i=$((i + 1))
    done
    echo bottom >bottom
    chmod 0500 "$level3"
  ) || fail "cannot make $1"
}

# tar_digest DIR: the names, types, modes, owners, sizes, times and
# contents of the tree DIR (any depth, any name length), as a checksum of
# its archive; the listing goes to DIR.list, to show what differs.
tar_digest () {
  (cd "$1" && tar --sort=name --numeric-owner --full-time -cvvf - . |
     md5sum) 2>"$1.list" || fail "tar failed on $1"
}

# compare TREE ARGS...: copy TREE with GNU cp and with cp8M (under the
# descriptor limit $nofile) and compare the copies with treedigest.
compare () {
  _tree=$1
  shift
  rm -rf gnu ours
  _now=$(date +%s)
  "$GNU_CP" "$@" "$_tree" gnu 2>gnu.err || fail "GNU cp $* $_tree failed: $(cat gnu.err)"
  (ulimit -n "$nofile" && exec cp8M "$@" "$_tree" ours) 2>ours.err ||
    fail "cp8M $* $_tree (ulimit -n $nofile) failed: $(head -c 300 ours.err)"
  [ -s ours.err ] && fail "cp8M $* $_tree: $(head -c 300 ours.err)"
  # Times the copies stamp themselves (-r) print as "now".
  (cd gnu && treedigest -n "$_now" .) >gnu.digest &&
    (cd ours && treedigest -n "$_now" .) >ours.digest || fail "treedigest failed"
  cmp -s gnu.digest ours.digest ||
    { diff gnu.digest ours.digest | head -20 >&2; fail "cp8M $* $_tree differs from GNU cp (ulimit -n $nofile)"; }
  note "$* $_tree, ulimit -n $nofile: same as GNU cp ($(wc -l <gnu.digest) lines)"
}

# 300 levels with two descriptors each would need 600; 32 are allowed.
make_deep t300 300 level
nofile=32
compare t300 -a
compare t300 -r
# The same tree into an existing copy (directories merged, not created).
(ulimit -n 32 && exec cp8M -a t300/. ours/) || fail "merge into an existing tree failed"

# 2000 levels with the usual default limit, 1024 (one-letter names:
# treedigest's paths stay under PATH_MAX).
nofile=1024
same_names=1
make_deep t2000 2000 d
same_names=
# AddressSanitizer doubles each level's stack (about 3.3 KiB a level, so
# 2000 levels come near the usual 8 MiB): give it room there.
[ -n "${ASAN_OPTIONS:-}" ] && ulimit -s 16384
compare t2000 -a

# Names past PATH_MAX: 120 levels of 60-byte names (7 KiB of path).  GNU
# cp 9.1 stats whole names and fails here ("File name too long"): the
# copy is compared with its source instead.
long=0123456789012345678901234567890123456789012345678901234567
make_deep tlong 120 "$long"
rm -rf ours
(ulimit -n 32 && exec cp8M -a tlong ours) 2>ours.err ||
  fail "cp8M -a tlong (ulimit -n 32) failed: $(head -c 300 ours.err)"
[ "$(tar_digest tlong)" = "$(tar_digest ours)" ] ||
  { diff tlong.list ours.list | head >&2; fail "cp8M -a tlong differs from its source"; }
note "-a tlong (names past PATH_MAX), ulimit -n 32: same as the source"

# A directory reached through a symbolic link (-L): its ".." is not the
# level above it, which is then opened again by name.
make_deep outside 60 o
mkdir -p tlink && (
  cd tlink && i=0 &&
  while [ $i -lt 30 ]; do mkdir "l-$i" && cd "l-$i" || exit 1; i=$((i + 1)); done &&
  ln -s "$work/outside" via && echo here >here
) || fail "cannot make tlink"
nofile=32
compare tlink -rL

# Deeper than the stack allows (about a kilobyte a level; here 4 MiB):
# the entry past the limit is refused with GNU's message for names too
# long, the rest is copied, exit 1, never a crash.
mkdir t6000 && (
  cd t6000 || exit 1
  chunk=d$(printf '/d%.0s' $(seq 999))
  for i in 1 2 3 4 5 6; do mkdir -p "$chunk" && cd -P "$chunk" || exit 1; done
) || fail "cannot make t6000"
(ulimit -s 4096 && exec cp8M -r t6000 ours6000) 2>err6000
status=$?
libc_words err6000
[ $status -eq 1 ] || fail "6000 levels under ulimit -s 4096: exit $status (a crash?)"
[ "$(wc -l <err6000)" -eq 1 ] && grep -q "^cp8M: cannot stat 't6000/d/d/.*': File name too long$" err6000 ||
  fail "6000 levels under ulimit -s 4096: $(head -c 300 err6000)"
levels=$(cd ours6000 && find . -type d | awk -F/ '{ if (NF > m) m = NF } END { print m - 1 }')
note "6000 levels under ulimit -s 4096: refused past level $levels"
exit 0
