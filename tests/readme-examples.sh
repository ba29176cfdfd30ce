#!/bin/sh
# Every example in the README's "Everyday use" section runs as shown.
#
# How the README is read (its markup, kept simple so that a new example
# is picked up without touching this test):
#   - a section is a title line followed by a line of dashes; only
#     "Everyday use" holds examples (Quick start's two commands are run
#     by CI, .ci/run, as written);
#   - an example is a block of lines indented by four spaces; prose ends
#     it;
#   - in a block, a line that starts with "cp8M:" is output: the block's
#     standard output and standard error together must be exactly those
#     lines, in order (a PID in "PID N" may differ); every other line is
#     a command, run by bash with set -e and pipefail, so that a command
#     that fails (a wrong option, a missing file) fails the test;
#   - a block whose first line is "# Not run by tests/readme-examples.sh:
#     REASON" (the reason may go on in further "#" lines) is only
#     checked for its syntax, and for its reason: one must be given, and
#     a "make TARGET" it names must be a target of Makefile.am.
# The examples name absolute paths (/data/db, /backup...): each is moved
# under a scratch root here (/dev, /proc and /sys excepted), where the
# sources below are made first; the host's own directories are never
# touched.  A new example that reads another path adds it to the tree
# below.  A command that ends with "&" runs in the background: it is
# stopped once under way (so that the next line finds it running however
# slow the machine is), continued at the end of its block, and must exit
# 0.
. "${abs_top_srcdir:-.}/tests/init.sh"

command -v bash >/dev/null || skip "bash missing"
command -v sha256sum >/dev/null || skip "sha256sum missing"
readme=$abs_top_srcdir/README

# --- The scratch tree the examples start from. -----------------------------
root=$work/root
mkdir -p "$root/u01/oradata" "$root/mnt/backup" \
  "$root/var/lib/postgresql/15/main/base/1" \
  "$root/var/lib/postgresql/15/main/global" \
  "$root/data/db/sub" "$root/backup/pg" || fail "cannot make the tree"
head -c 24M /dev/urandom >"$root/u01/oradata/users01.dbf" &&
  echo 15 >"$root/var/lib/postgresql/15/main/PG_VERSION" &&
  head -c 64K /dev/urandom >"$root/var/lib/postgresql/15/main/base/1/1259" &&
  head -c 8K /dev/urandom >"$root/var/lib/postgresql/15/main/global/pg_control" &&
  head -c 64M /dev/urandom >"$root/data/db/big.dat" &&
  head -c 300K /dev/urandom >"$root/data/db/sub/small.dat" &&
  echo 'a name with spaces' >"$root/data/db/sub/with space" ||
  fail "cannot fill the tree"

# --- The examples, one file per block: ex/N. -------------------------------
mkdir ex || fail "cannot make ex"
awk -v dir=ex '
  /^-+$/ && prev != "" { section = prev }
  { prev = $0 }
  section == "Everyday use" && /^    / {
    if (!inblock) { n++; inblock = 1 }
    print substr($0, 5) >(dir "/" n)
    next
  }
  { inblock = 0 }
' "$readme" || fail "cannot read $readme"
blocks=$(ls ex | sort -n)
[ -n "$blocks" ] || fail "no example found under 'Everyday use' in the README"

# The script that runs a block: the helpers, then its commands.
cat >prelude.bash <<'EOF'
set -e -o pipefail
readme_bg=
# A block that fails part way leaves no copy stopped behind.
trap 'for p in $readme_bg; do kill -CONT "$p" 2>/dev/null || :; done' EXIT
# readme_started PID: a command put in the background is under way (it
# holds its --bwlimit notice, or has written) and stopped, until the end.
readme_started () {
  local i=0
  while kill -0 "$1" 2>/dev/null; do
    if ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'memfd:cp8M-bwlimit' ||
       [ "$(awk '/^wchar/ { print $2 }' "/proc/$1/io" 2>/dev/null)" -gt 0 ]
    then
      kill -STOP "$1"
      readme_bg="$readme_bg $1"
      return 0
    fi
    [ $i -lt 3000 ] || { echo "readme: $1 never got under way" >&2; exit 1; }
    sleep 0.01; i=$((i + 1))
  done
  echo "readme: the background command $1 ended before it could be stopped" >&2
  exit 1
}
readme_finish () {
  local p
  for p in $readme_bg; do
    kill -CONT "$p"
    wait "$p" || { echo "readme: background command $p failed" >&2; exit 1; }
  done
}
EOF

ran=0 skipped=0
for n in $blocks; do
  b=ex/$n
  first=$(head -n 1 "$b")
  case $first in
    "# Not run by tests/readme-examples.sh:"*)
      reason=$(sed -n '1s/^# Not run by tests\/readme-examples.sh://p
        2,${/^#/!q;s/^# *//p}' "$b" | tr '\n' ' ' | sed 's/^ *//; s/ *$//')
      [ -n "$reason" ] || fail "example $n is not run, and gives no reason"
      for t in $(printf '%s\n' "$reason" | sed -n 's/.*make \([a-z][a-z-]*\).*/\1/p'); do
        grep -q "^$t:" "$abs_top_srcdir/Makefile.am" ||
          fail "example $n is not run in favour of 'make $t', which Makefile.am lacks"
      done
      bash -n "$b" 2>syntax.err ||
        fail "example $n (not run) is not valid shell: $(cat syntax.err)"
      note "example $n not run: $reason"
      skipped=$((skipped + 1))
      continue ;;
  esac
  grep '^cp8M:' "$b" | sed -E 's/PID [0-9]+/PID N/g' >want.$n
  # The commands, their absolute paths moved under the root, each command
  # sent to the background followed by readme_started.
  grep -v '^cp8M:' "$b" | sed -E \
    -e 's#(^|[ =(])/(dev|proc|sys)/#\1@SYSTEM@\2/#g' \
    -e "s#(^|[ =(])/([A-Za-z0-9_])#\\1$root/\\2#g" \
    -e 's#@SYSTEM@#/#g' \
    -e 's/(^|[^&])&[ ]*$/&\nreadme_started $!/' >cmds.$n
  { cat prelude.bash cmds.$n; echo readme_finish; } >script.$n
  (cd "$root" && exec bash "$work/script.$n") >out.$n 2>&1
  status=$?
  sed -E -e "s#$root##g" -e 's/PID [0-9]+/PID N/g' out.$n >got.$n
  if [ "$status" -ne 0 ]; then
    sed 's/^/  /' "$b" >&2
    fail "example $n (above) exited $status: $(cat got.$n)"
  fi
  if ! cmp -s want.$n got.$n; then
    sed 's/^/  /' "$b" >&2
    diff -u want.$n got.$n >&2
    fail "example $n (above) printed other lines than the README shows (diff above)"
  fi
  ran=$((ran + 1))
done
note "$ran examples run, $skipped not run"
# Today four run: fewer means the markup broke, not that all is well.
[ $ran -ge 4 ] || fail "only $ran examples ran (the README's markup changed?)"

# What the examples leave: spot checks that the copies are where the
# README says (a path rewritten wrongly would copy somewhere else).
cmp "$root/u01/oradata/users01.dbf" "$root/mnt/backup/users01.dbf" ||
  fail "the datafile's copy differs"
cmp "$root/data/db/big.dat" "$root/backup/db/big.dat" ||
  fail "the database's copy differs"
[ -s "$root/backup/SHA256SUMS" ] && [ -s "$root/backup/copy.json" ] ||
  fail "no checksum list or report in /backup"
[ -f "$root/backup/pg/main/PG_VERSION" ] || fail "no copy of main in /backup/pg"
exit 0
