#!/bin/sh
# --progress[=WHEN] and the status line on SIGUSR1 (issue 13).  Copies
# are made slow by their other end, never timed: a FIFO destination read
# slowly (so that a file's total is known), or a FIFO source that a
# writer feeds in pieces.  Terminals are pseudo-terminals (python's pty).
. "${abs_top_srcdir:-.}/tests/init.sh"
# The interpreter itself: a version manager's shim can take seconds a run.
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) ||
  skip "python3 is not installed"
unset COLUMNS
K=1024
M=1048576

# tty COLS COMMAND...: run COMMAND with stdin, stdout and stderr on a
# pseudo-terminal COLS columns wide; what it printed goes to stdout, raw.
cat >on_pty.py <<'EOF'
import fcntl, os, pty, struct, subprocess, sys, termios
cols = int(sys.argv[1])
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 24, cols, 0, 0))
child = subprocess.Popen(sys.argv[2:], stdin=slave, stdout=slave,
                         stderr=slave)
os.close(slave)
out = bytearray()
while True:
    try:
        piece = os.read(master, 65536)
    except OSError:
        break
    if not piece:
        break
    out += piece
sys.stdout.buffer.write(out)
sys.exit(child.wait())
EOF
tty () { "$PY" on_pty.py "$@"; }

# screen COLS <RAW: what a terminal COLS wide shows at the end, one line
# per line (a long line is kept whole, as if it had wrapped); "WIDE" when
# a progress line (one with "  files ") would not fit in the width.
cat >screen_of.py <<'EOF'
import sys
cols = int(sys.argv[1])
raw = sys.stdin.buffer.read().decode('utf-8', 'replace')
lines, row, col, i = [''], 0, 0, 0
while i < len(raw):
    c = raw[i]
    if raw.startswith('\033[K', i):
        lines[row] = lines[row][:col]
        i += 3
        continue
    if c == '\r':
        col = 0
    elif c == '\n':
        row += 1
        col = 0
        if row == len(lines):
            lines.append('')
    else:
        line = lines[row].ljust(col)
        lines[row] = line[:col] + c + line[col + 1:]
        col += 1
    i += 1
for line in lines:
    if line:
        print(line)
for piece in raw.replace('\r', '\n').split('\n'):
    if '  files ' in piece and len(piece.replace('\033[K', '')) >= cols:
        print('WIDE')
EOF

# slow_reader FIFO OUT: copy FIFO to OUT 64 KiB at a time, 20 ms apart.
slow_reader () {
  "$PY" -c '
import sys, time
with open(sys.argv[1], "rb") as f, open(sys.argv[2], "wb") as out:
    while True:
        piece = f.read(65536)
        if not piece:
            break
        out.write(piece)
        time.sleep(0.02)' "$@"
}

# feed FIFO FILE [FLAG]: write FILE into FIFO 64 KiB at a time, 40 ms
# apart; with FLAG, wait after the first half until FLAG exists.
feed () {
  "$PY" -c '
import os, sys, time
data = open(sys.argv[2], "rb").read()
flag = sys.argv[3] if len(sys.argv) > 3 else None
with open(sys.argv[1], "wb", buffering=0) as f:
    for at in range(0, len(data), 65536):
        if flag and at >= len(data) // 2:
            while not os.path.exists(flag):
                time.sleep(0.02)
            flag = None
        f.write(data[at:at + 65536])
        time.sleep(0.04)' "$@"
}

# 1. One large file on a terminal 120 columns wide, into a FIFO read
#    slowly (6 MiB: at least 1.9 s): the line is redrawn with bytes,
#    total, percent and the (shortened) name, never wider than the
#    terminal; the final line replaces it.  With -v and a small second
#    file after it, the second -v line comes while the progress line is
#    drawn: it must stand whole on its own line.  The FIFO is the
#    large file's destination in the target directory.
long=source-file-with-a-name-much-longer-than-the-terminal-is-wide.dat
head -c $((6*M)) /dev/urandom >"$long"
mkdir into
mkfifo pipe into/"$long"
echo tiny >tiny
slow_reader into/"$long" got &
reader=$!
tty 120 cp8M -v --progress --buffer-size=64K "$long" tiny into >raw ||
  fail "--progress into a FIFO failed: $(cat raw)"
wait $reader
cmp "$long" got || fail "the FIFO got other data"
line="[0-9.]* [KM]i*B / 6.00 MiB  [0-9]*%  .*/s  [0-9]*:[0-9][0-9] elapsed  ETA [0-9]*:[0-9][0-9]"
name='source-f.*\.\.\..*-wide\.dat'
grep -q "$(printf '\r')$line  files 0/2  $name" raw ||
  fail "no line with bytes, total, percent, name: $(od -c raw | head)"
"$PY" screen_of.py 120 <raw >shown
grep -q WIDE shown && fail "a line wider than the terminal: $(cat shown)"
grep -q '^copied 6.00 MiB in [0-9.]* s ([0-9.]* [KM]iB/s), 2 files$' shown ||
  fail "no final line: $(cat shown)"
grep -qx "'$long' -> 'into/$long'" shown &&
  grep -qx "'tiny' -> 'into/tiny'" shown ||
  fail "-v's lines garbled: $(cat shown)"
[ "$(wc -l <shown)" -eq 3 ] || fail "more than three lines: $(cat shown)"
# The same with COLUMNS when the terminal says nothing: a file, 50.
COLUMNS=50 cp8M --progress=always --buffer-size=64K "$long" pipe 2>plain &
copy=$!
slow_reader pipe got
wait $copy || fail "--progress=always into a FIFO failed"
awk 'length > 49 { bad = 1 } END { exit !bad }' plain &&
  fail "a plain line wider than COLUMNS: $(cat plain)"

# 2. A tree, and an error at the end, on one terminal: the message
#    stands whole on its own line, the progress line having been cleared
#    before it.  The tree's FIFO is read as data (--copy-contents) while
#    a writer feeds it.
mkdir -p tree/sub
echo one >tree/a
echo two >tree/sub/b
mkfifo tree/sub/fifo
head -c $((3*M)) /dev/urandom >data
feed tree/sub/fifo data &
writer=$!
mkdir copy
tty 100 cp8M -r --copy-contents --progress tree missing copy >raw &&
  fail "a missing operand did not fail the copy"
wait $writer
cmp data copy/tree/sub/fifo || fail "the FIFO's contents were not copied"
grep -q "$(printf '\r').*/s  .* elapsed  .*files [0-9]/2  tree/sub/fifo" raw ||
  fail "no progress line during the tree copy: $(od -c raw | head -20)"
"$PY" screen_of.py 100 <raw >shown
cat >want <<'EOF'
cp8M: cannot stat 'missing': No such file or directory
EOF
grep -v '^copied ' shown | sort >got-lines
sort want | diff - got-lines >&2 ||
  fail "the message was garbled by the progress line"
grep -q '^copied 3.00 MiB in .*, 3 files$' shown ||
  fail "no final line after the tree: $(cat shown)"

# 3. Without a terminal --progress says nothing, even for a slow copy;
#    --progress=always prints plain lines, then the final line.
rm -rf copy
mkfifo src
feed src data &
cp8M --progress src out 2>err || fail "--progress from a FIFO failed"
wait
cmp data out || fail "wrong copy from a FIFO"
[ ! -s err ] || fail "--progress wrote to a file: $(cat err)"
feed src data &
cp8M --progress=always src out 2>err || fail "--progress=always failed"
wait
tr -d '\n' <err | grep -q "$(printf '[\r\033]')" &&
  fail "--progress=always drew on a file: $(od -c err | head)"
grep -q '^[0-9.]* [KM]i*B  .*/s  [0-9]*:[0-9][0-9] elapsed  files 0/0  src$' err ||
  fail "--progress=always printed no plain line: $(cat err)"
[ "$(tail -n 1 err | cut -c1-14)" = "copied 3.00 Mi" ] ||
  fail "--progress=always did not end with the final line: $(cat err)"

# 4. A quick copy, over before any line is drawn, still ends with the
#    final line on a terminal (and nothing else); =always, in a file too.
echo small >small
tty 80 cp8M --progress small small2 >raw || fail "quick --progress failed"
"$PY" screen_of.py 80 <raw >shown
grep -q '^copied 6 B in [0-9.]* s (.*/s), 1 file$' shown &&
  [ "$(wc -l <shown)" -eq 1 ] || fail "a quick copy on a terminal: $(cat raw)"
cp8M --progress=always small small3 2>err || fail "quick =always failed"
grep -q '^copied 6 B in [0-9.]* s (.*/s), 1 file$' err ||
  fail "quick =always: $(cat err)"

# 5. SIGUSR1, without --progress and into a file: one status line at
#    once; the copy goes on and completes.  The writer waits after half
#    the data until the line is seen, so the signal lands mid-copy.
rm -f out err go
feed src data go &
writer=$!
cp8M src out 2>err &
copy=$!
i=0
while [ ! -s out ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done
kill -USR1 $copy
i=0
while ! grep -q written err && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done
touch go
wait $copy || fail "the copy failed after SIGUSR1: $(cat err)"
wait $writer
cmp data out || fail "wrong copy after SIGUSR1"
status="[0-9.]* [KM]iB written in [0-9.]* s, [0-9.]* [KM]*i*B/s on average, [0-9.]* [KM]*i*B/s now"
grep -q "^cp8M: $status, copying 'src'$" err ||
  fail "no status line: $(cat err)"
[ "$(wc -l <err)" -eq 1 ] || fail "more than one line on stderr: $(cat err)"

# 6. The scan and the copy share a small descriptor limit: a few nested
#    directories with files at each level, under ulimit -n 32.
d=deep
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
  d=$d/level$i
  mkdir -p "$d"
  echo "$i" >"$d/f"
  head -c $((i*K)) /dev/urandom >"$d/g"
done
(ulimit -n 32 && exec cp8M -r --progress=always deep deep2 2>err) ||
  fail "--progress -r under ulimit -n 32 failed: $(cat err)"
diff -r deep deep2 || fail "the tree copied under ulimit -n 32 differs"
grep -q '^copied .*, 24 files$' err || fail "final line: $(cat err)"

# 7. The clocks show time that has passed (issue 53): each plain line's
#    "M:SS elapsed" is at most the whole seconds since the test started
#    cp8M, as the line is read (after cp8M printed it); the status
#    line's "in T s" and the final line's at most the tenths.  The limit
#    makes the copy last 2.5 s at least, so that lines come past whole
#    seconds; a slower machine only gives the clocks more room.
head -c $((10*M)) /dev/urandom >clock
cat >clocks.py <<'EOF'
import re, signal, subprocess, sys, time
start = time.monotonic()
cp = subprocess.Popen(sys.argv[1:], stderr=subprocess.PIPE, text=True)
asked = False
bad = 0
for line in cp.stderr:
    now = time.monotonic() - start
    line = line.rstrip("\n")
    m = re.search(r"  (\d+):(\d\d) elapsed  ", line)
    if m:
        shown = int(m.group(1)) * 60 + int(m.group(2))
        print("%.3f s: %s" % (now, line))
        bad += shown > int(now)
        if not asked:
            cp.send_signal(signal.SIGUSR1)
            asked = True
        continue
    m = re.search(r"written in (\d+\.\d) s|^copied .* in (\d+\.\d) s", line)
    if m:
        if line.startswith("copied"):
            cp.wait()
            now = time.monotonic() - start
        shown = float(m.group(1) or m.group(2))
        print("%.3f s: %s" % (now, line))
        bad += shown > int(now * 10) / 10 + 1e-9
sys.exit(cp.wait() or bad)
EOF
"$PY" clocks.py "$CP8M" --progress=always --bwlimit=4M clock clock.copy \
  >clocks || fail "a clock ahead of the time gone by: $(cat clocks)"
grep -q " elapsed " clocks && grep -q " written in " clocks &&
  grep -q "^[0-9.]* s: copied " clocks || fail "lines missing: $(cat clocks)"
cmp clock clock.copy || fail "the timed copy differs"
exit 0
