#!/bin/sh
# The progress line as a terminal shows it (issue 41), in tmux at 40, 80
# and 200 columns: it never wraps; at 40 it keeps the percentage, rate
# and time left and has dropped the file name; at 200 it has everything
# (bytes, elapsed time, files, name); a terminal made narrower while the
# line is up is redrawn with no stale half line; the final line replaces
# it, and fits the width too (at 40, without the rate: issue 53).  Also --progress=numeric (one percentage a line; with --verify the
# copy itself counts half), and hard links counted once.  The copies are held back by --bwlimit, so
# the line is up whatever the machine's speed; every wait is for an
# event, with a generous bound that only ends a test that failed.
. "${abs_top_srcdir:-.}/tests/init.sh"

command -v tmux >/dev/null || skip "tmux is missing"
M=1048576
head -c $((24 * M)) /dev/urandom >big
long=a-datafile-with-a-long-name-to-show-how-names-are-shortened.dbf
cp big "$long"
sock=$work/tmux.sock
tm () { tmux -S "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null' EXIT

# pane: what the pane shows now, a line each (wrapped rows joined).
pane () { tm capture-pane -t t -p -J; }
# until_shown REGEX: wait until a row of the pane matches REGEX (60 s).
until_shown () {
  _i=0
  until pane | grep -Eq "$1"; do
    _i=$((_i + 1))
    [ $_i -lt 3000 ] || fail "never shown: $1; the pane: $(pane)"
    sleep 0.02
  done
}
# start WIDTH ARGS...: cp8M ARGS in a new tmux session WIDTH wide; it
# prints "END" when done.
start () {
  _w=$1
  shift
  tm kill-server 2>/dev/null
  rm -f out
  tm new-session -d -s t -x "$_w" -y 8 \
    "cd '$work' && PATH='$PATH' cp8M $* out; echo END; sleep 600"
}
# widest: the longest row the pane shows.
widest () { pane | awk '{ if (length > w) w = length } END { print w + 0 }'; }

for w in 40 80 200; do
  start $w --progress --bwlimit=8M "$long"
  until_shown '[0-9]+%  [0-9.]+ [KM]i?B/s.*ETA [0-9]+:[0-9][0-9]'
  row=$(pane | grep -E 'ETA' | head -n 1)
  [ ${#row} -lt $w ] || fail "$w columns: a line of ${#row}: $row"
  case $w in
    40) case $row in *dbf*|*files*) fail "40 columns kept the name: $row" ;; esac ;;
    200) echo "$row" | grep -Eq '^[0-9.]+ [KM]i?B / 24.0 MiB  [0-9]+%  .*/s  \(limit 8.00 MiB/s\)  [0-9]+:[0-9][0-9] elapsed  ETA [0-9]+:[0-9][0-9]  files 0/1  a-datafile-with-a-long-name-to-show-how-names-are-shortened.dbf$' ||
           fail "200 columns: $row" ;;
  esac
  until_shown '^END$'
  pane | grep -q 'ETA' && fail "$w columns: the line stayed: $(pane)"
  # The final line fits too: in 40 columns without the rate (issue 53).
  case $w in
    40) final='^copied 24.0 MiB, 1 file in [0-9]*\.[0-9] s$' ;;
    *) final='^copied 24.0 MiB in [0-9]*\.[0-9] s (.*/s), 1 file$' ;;
  esac
  pane | grep -q "$final" || fail "$w columns: no final line: $(pane)"
  [ "$(widest)" -lt $w ] || fail "$w columns: a final line too wide: $(pane)"
  cmp big out || fail "$w columns: the copy differs"
  note "$w columns: $row"
done

# A terminal made narrower under the line: redrawn whole, nothing of the
# old line left on screen (tmux rewraps it onto several rows, and keeps
# them in view when output stands above the line: with nothing above,
# it scrolls them away by itself).
tm kill-server 2>/dev/null
rm -f out
tm new-session -d -s t -x 120 -y 8 \
  "cd '$work' && seq 3 && PATH='$PATH' cp8M --progress --bwlimit=4M $long out; echo END; sleep 600"
until_shown 'elapsed.*files 0/1  a-datafile'
tm resize-window -t t -x 40
until_shown '^[0-9]+%  [0-9.]+ [KM]i?B/s  ETA'
sleep 0.6   # two redraws more: a stale row would still be there
pane | grep -Eq 'elapsed|files|datafile|shortened' &&
  fail "a stale part of the wide line: $(pane)"
[ "$(widest)" -lt 40 ] || fail "a line as wide as the narrowed pane: $(pane)"
until_shown '^END$'

# --progress=numeric: whole percentages, one a line, rising, ending at
# 100; with --verify the copy alone goes to 50 at most, the reading back
# being the other half.
cp8M --progress=numeric --bwlimit=8M big out2 2>nums || fail "numeric failed"
awk 'BEGIN { last = -1 } !/^[0-9]+$/ || $1 < last || $1 > 100 { exit 1 }
     { last = $1 } END { exit last != 100 || NR < 2 }' nums ||
  fail "--progress=numeric printed: $(cat nums)"
rm -f out2
cp8M --progress=numeric --verify --bwlimit=8M big out2 2>nums ||
  fail "numeric --verify failed"
[ "$(tail -n 1 nums)" = 100 ] && [ "$(head -n 1 nums)" -le 50 ] ||
  fail "--progress=numeric --verify printed: $(cat nums)"
# Links made instead of copies move no data: no total to count towards,
# and a script's gauge still gets its 100 at the end.
cp8M -l --progress=numeric big big.link 2>nums || fail "numeric -l failed"
[ "$(cat nums)" = 100 ] || fail "--progress=numeric -l printed: $(cat nums)"
# The final line counts the files copied, not one that failed (past
# ulimit -f here).
mkdir fz
echo small >small
(ulimit -f 1024; exec cp8M --progress=always big small fz/) 2>plain &&
  fail "a copy past ulimit -f succeeded"
[ "$(tail -n 1 plain | sed 's/.*, //')" = "1 file" ] ||
  fail "the final line after a failed file: $(tail -n 1 plain)"
# Hard links kept as links (-a) count once in the totals, as they are
# copied once: the line's "files 0/2" and the final "2 files" agree.
mkdir -p tree
head -c $((8 * M)) big >tree/f
ln tree/f tree/f2
ln tree/f tree/f3
echo small >tree/g
cp8M -a --progress=always --bwlimit=4M tree tree.copy 2>plain ||
  fail "-a --progress=always failed"
grep -q 'files [0-9]/2  ' plain && ! grep -q 'files [0-9]/[34]' plain ||
  fail "hard links counted apart: $(cat plain)"
tail -n 1 plain | grep -q ', 2 files$' || fail "final line: $(tail -n 1 plain)"
[ "$(stat -c %h tree.copy/f)" = 3 ] || fail "the links were not kept"
exit 0
