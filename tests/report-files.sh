#!/bin/sh
# Report files never destroy anything (issue 51 §1): --stats-file and
# --checksum-file write into a device, FIFO or symbolic link as the
# shell's '>' would, and '-' is standard output; a report that is a
# source, the destination, the copy of a source, or inside a tree being
# copied is refused before any copy, nothing touched; a directory or an
# empty name is refused at once; the statistics file says "running"
# from the start, and "killed" with the signal when one ends the run
# (after SIGKILL it still says "running"); its JSON is UTF-8 for every
# name, with each name's exact bytes in base64 beside it where they are
# not UTF-8; the checksum list names each copy by its real path.
. "${abs_top_srcdir:-.}/tests/init.sh"

command -v python3 >/dev/null || skip "python3 is missing"
command -v sha256sum >/dev/null || skip "sha256sum is missing"

# py FILE EXPR...: each EXPR must be true, with j the JSON object in FILE
# decoded strictly (the bytes as UTF-8, then JSON).
py () {
  python3 - "$@" <<'EOF' || fail "$(cat "$1")"
import base64, json, sys
j = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
b64 = base64.b64decode
for e in sys.argv[2:]:
    if not eval(e):
        sys.exit("false: " + e)
EOF
}

echo data >a
mkdir out

# ---- 1. Written into, as '>' would; only a regular file is replaced.
# A symbolic link to a file: the link stays, the file holds the report.
echo old >target.json
ln -s target.json link
cp8M --stats-file=link a out/1 || fail "into a link: the copy failed"
[ -L link ] || fail "the symbolic link was replaced"
py target.json 'j["state"] == "finished" and j["exit_status"] == 0'
# A dangling link: the file it names is made, as '>' makes it.
ln -s made.json dangling
cp8M --stats-file=dangling a out/2 || fail "into a dangling link failed"
[ -L dangling ] && py made.json 'j["files"] == 1'
# A link to standard output (as /dev/stdout is).
ln -s /proc/self/fd/1 my-stdout
cp8M --checksum-file=my-stdout a out/3 >listed || fail "into my-stdout failed"
[ -L my-stdout ] || fail "the link to standard output was replaced"
[ "$(cat listed)" = "$(sha256sum <a | cut -c1-64)  out/3" ] ||
  fail "the list on standard output: $(cat listed)"
# '-' is standard output; no file '-' is made.
cp8M --stats-file=- a out/4 >on-stdout || fail "--stats-file=- failed"
[ ! -e ./- ] || fail "a file named '-' was made"
py on-stdout 'j["state"] == "finished"'
# A descriptor that is a pipe, as a process substitution gives.
cp8M --stats-file=/dev/fd/3 a out/5 3>&1 >/dev/null | cat >piped ||
  fail "into /dev/fd/3 failed"
py piped 'j["state"] == "finished" and j["files"] == 1'
# A FIFO: its reader gets the report, and the FIFO stays.
mkfifo fifo
cat fifo >from-fifo &
reader=$!
cp8M --stats-file=fifo a out/6
if [ ! -p fifo ]; then
  kill $reader
  fail "the FIFO was replaced"
fi
wait $reader
py from-fifo 'j["state"] == "finished"'
# A device node (a private /dev/null), where this file system allows
# opening devices.
if [ "$(id -u)" -eq 0 ] && mknod null c 1 3 && (: >null) 2>/dev/null; then
  cp8M --stats-file=null --checksum-file=null a out/7 ||
    fail "into a device failed"
  [ -c null ] || fail "the device node was replaced: $(ls -l null)"
else
  note "no device node here: that case is left out"
fi
ls -A | grep '^\.cp8M-' && fail "a temporary was left"

# ---- 2. A report that is a file the run reads or writes: refused first.
# refused STATUS MESSAGE COMMAND...: as expect, and then FILE 'keep' still
# holds "keep", and no copy 'made' was made.
refused () {
  expect "$@"
  [ "$(cat keep)" = keep ] || fail "'keep' was changed by: $*"
  [ ! -e made ] && [ ! -e made-dir/keep ] || fail "a copy was made by: $*"
}
echo keep >keep
ln -s keep keep-link
refused 1 "cp8M: statistics file 'keep' is the source 'keep'" \
  cp8M --stats-file=keep keep made
refused 1 "cp8M: checksum file 'keep' is the source 'keep'" \
  cp8M --checksum-file=keep a keep made
refused 1 "cp8M: statistics file 'keep' is the source 'keep-link'" \
  cp8M --stats-file=keep keep-link made
refused 1 "cp8M: checksum file 'made' is the destination 'made'" \
  cp8M --checksum-file=made a made
refused 1 "cp8M: statistics file './keep' is the destination 'keep'" \
  cp8M --stats-file=./keep a keep
mkdir made-dir
refused 1 "cp8M: statistics file 'made-dir/keep' is the copy of 'keep'" \
  cp8M --stats-file=made-dir/keep keep made-dir/
refused 1 "cp8M: statistics file 'r.json' is the checksum file 'r.json'" \
  cp8M --stats-file=r.json --checksum-file=r.json a made
[ ! -e r.json ] || fail "r.json was written"
# The list would land where the copy of s/db/SUMS goes (the issue's case).
mkdir -p s/db d/db
echo sums >s/db/SUMS
echo x >s/db/f
expect 1 "cp8M: checksum file 'd/db/SUMS' is the copy of 's/db/SUMS'" \
  cp8M -a --checksum-file=d/db/SUMS s/db d/
[ ! -e d/db/f ] && [ ! -e d/db/SUMS ] || fail "copied although refused"
# ... and a name there that the copy does not write is fine.
cp8M -a --checksum-file=d/db/OTHER s/db d/ || fail "d/db/OTHER refused"
# Inside a tree being copied, which the walk would read.
expect 1 "cp8M: cannot write statistics file 's/db/st.json' inside 's', which is being copied" \
  cp8M -r --stats-file=s/db/st.json s d2
[ ! -e d2 ] && [ ! -e s/db/st.json ] || fail "copied although in the tree"

# ---- 3. A directory or an empty name: refused at once.
mkdir adir
ln -s adir adir-link
expect 1 "cp8M: cannot create statistics file 'adir': Is a directory" \
  cp8M --stats-file=adir a out/d1
expect 1 "cp8M: cannot create checksum file 'adir-link': Is a directory" \
  cp8M --checksum-file=adir-link a out/d2
expect 1 "cp8M: cannot create statistics file '': No such file or directory" \
  cp8M --stats-file= a out/d3
expect 1 "cp8M: cannot create checksum file '': No such file or directory" \
  cp8M --checksum-file= a out/d4
for f in d1 d2 d3 d4; do
  [ ! -e out/$f ] || fail "out/$f was copied although the report was refused"
done

# ---- 4. A killed run leaves no success report.  The copy waits in a read
# of a FIFO that this shell holds open at both ends.
mkfifo slow
exec 7<>slow
for sig in TERM KILL; do
  echo '{"schema":"cp8M-stats","version":1,"exit_status":0}' >k.json
  "$CP8M" --stats-file=k.json slow out/k-$sig 7>&- &
  pid=$!
  i=0
  until grep -q '"state":"running"' k.json || [ $i -ge 1000 ]; do
    sleep 0.01
    i=$((i + 1))
  done
  if ! grep -q '"state":"running"' k.json; then
    kill -KILL $pid
    fail "never said running: $(cat k.json)"
  fi
  py k.json 'j["state"] == "running" and "exit_status" not in j'
  kill -$sig $pid
  wait $pid
  status=$?
  if [ $sig = TERM ]; then
    [ $status -eq 143 ] || fail "SIGTERM: exit status $status"
    py k.json 'j["state"] == "killed" and j["signal"] == 15 and j["exit_status"] == 143'
  else
    [ $status -eq 137 ] || fail "SIGKILL: exit status $status"
    py k.json 'j["state"] == "running" and "exit_status" not in j'
  fi
done
exec 7>&-

# ---- 5. Valid UTF-8 JSON whatever the names; their bytes in base64.
bad=$(printf 'bad\377name')
over=$(printf 'over\300\257long')
good=$(printf 'caf\303\251')
cp8M --stats-file=u.json "$bad" "$over" "$good" out/ 2>/dev/null &&
  fail "missing sources did not fail"
py u.json 'len(j["failures"]) == 3' \
  'b64(j["failures"][0]["source_base64"]) == b"bad\xffname"' \
  'b64(j["failures"][0]["destination_base64"]) == b"out/bad\xffname"' \
  'j["failures"][0]["source"] == "bad\ufffdname"' \
  'b64(j["failures"][1]["source_base64"]) == b"over\xc0\xaflong"' \
  'j["failures"][1]["source"] == "over\ufffd\ufffdlong"' \
  'j["failures"][2]["source"] == "caf\u00e9" and "source_base64" not in j["failures"][2]' \
  '[b64(f["source_base64"]) if "source_base64" in f else f["source"].encode() for f in j["failures"]] == [b"bad\xffname", b"over\xc0\xaflong", b"caf\xc3\xa9"]'

# ---- 6. The list names the real copy: link/../g is real/g.
mkdir -p real/x
ln -s real/x rlink
cp8M --checksum-file=S a rlink/../g || fail "the copy to rlink/../g failed"
[ -f real/g ] || fail "the copy is not real/g"
sha256sum --quiet -c S || fail "sha256sum -c from the list's directory: $(cat S)"
# A list reached through the link lists from its real directory.
cp8M --checksum-file=rlink/../S2 a rlink/../g2 || fail "S2's copy failed"
(cd real && sha256sum --quiet -c S2) || fail "sha256sum -c S2: $(cat real/S2)"
[ "$(cut -c67- real/S2)" = g2 ] || fail "S2: $(cat real/S2)"
# ---- 7. The report under another name: a name ending in '/', a backup,
# a link deep in the destination, -L, a bind mount, another user's link.
expect 1 "cp8M: cannot create checksum file 'nodir/': Is a directory" \
  cp8M --checksum-file=nodir/ a out/n1
expect 1 "cp8M: cannot create statistics file 'nodir2/': Is a directory" \
  cp8M --stats-file=nodir2/ a out/n2
[ ! -e out/n1 ] && [ ! -e out/n2 ] || fail "copied although 'nodir/' refused"
# A simple backup would take the report's name: refused, nothing moved.
echo new >bk
for bak in '-b:bk-dst~' '--backup=simple -S .bak:bk-dst.bak'; do
  echo OLD >bk-dst
  expect 1 "cp8M: statistics file '${bak#*:}' is the backup of 'bk-dst'" \
    cp8M ${bak%%:*} --stats-file="${bak#*:}" bk bk-dst
  [ "$(cat bk-dst)" = OLD ] && [ ! -e "${bak#*:}" ] ||
    fail "backup into the report: $(cat bk-dst ${bak#*:})"
done
# ... and deep in a tree, where it is seen when the backup is made.
mkdir -p bs/x bd/bs/x
echo new >bs/x/f
echo OLD >bd/bs/x/f
expect 1 "cp8M: statistics file 'bd/bs/x/f~' is the backup of 'bd/bs/x/f'" \
  cp8M -r -b --stats-file=bd/bs/x/f~ bs bd
[ "$(cat bd/bs/x/f)" = OLD ] || fail "bd/bs/x/f was backed up over the report"
py bd/bs/x/f~ 'j["state"] == "finished" and j["exit_status"] == 1'
# A link in the destination's tree leads to the report: not written.
mkdir -p ds/x dd/ds/x cs/x cd/cs/x other
echo SRC >ds/x/f
echo SRC >cs/x/g
echo old >other/file
echo old >other/sums
ln -s "$PWD/other/file" dd/ds/x/f
ln -s "$PWD/other/sums" cd/cs/x/g
expect 1 "cp8M: statistics file 'other/file' is the destination 'dd/ds/x/f'" \
  cp8M -r --stats-file=other/file ds dd
py other/file 'j["state"] == "finished" and j["exit_status"] == 1'
expect 1 "cp8M: checksum file 'other/sums' is the destination 'cd/cs/x/g'" \
  cp8M -r --checksum-file=other/sums cs cd
! grep -q SRC other/sums || fail "the copy went into other/sums"
[ -L dd/ds/x/f ] && [ -L cd/cs/x/g ] || fail "the links were replaced"
# -L reads the report through a link in a source tree: not read.
mkdir lsrc
ln -s "$PWD/other/file" lsrc/f
expect 1 "cp8M: statistics file 'other/file' is the source 'lsrc/f'" \
  cp8M -rL --stats-file=other/file lsrc ld
[ ! -e ld/f ] || fail "the report was copied"

if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
   unshare -m true 2>/dev/null; then
  # The destination seen through a bind mount of its directory.
  mkdir bind bind2
  unshare -m sh -c 'mount --bind bind bind2 &&
    exec cp8M a bind/ --stats-file=bind2/a' 2>bind.err
  echo $? >bind.rc
  [ "$(cat bind.rc)" = 1 ] &&
    [ "$(cat bind.err)" = "cp8M: statistics file 'bind2/a' is the destination 'bind/a'" ] ||
    fail "through a bind mount: $(cat bind.rc bind.err)"
  py bind/a 'j["state"] == "finished" and j["exit_status"] == 1'
else
  note "no mount namespace: the bind mount case is left out"
fi

# Root and a link another user planted at the report's name.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  chmod 755 "$work"
  mkdir shared
  chmod 777 shared
  echo victim >victim
  as_nobody ln -s "$PWD/victim" shared/stats.json
  as_nobody ln -s "$PWD/root-made" shared/sums
  expect 1 "cp8M: not following symbolic link 'shared/stats.json' owned by another user" \
    cp8M --stats-file=shared/stats.json a out/p1
  expect 1 "cp8M: not following symbolic link 'shared/sums' owned by another user" \
    cp8M --checksum-file=shared/sums a out/p2
  [ "$(cat victim)" = victim ] && [ ! -e root-made ] ||
    fail "a planted link was followed"
  [ ! -e out/p1 ] && [ ! -e out/p2 ] || fail "copied although refused"
  # Root's own links still lead where they say: /dev/stdout, /dev/fd/N.
  cp8M --stats-file=/dev/stdout a out/p3 >p3.json || fail "/dev/stdout"
  py p3.json 'j["state"] == "finished"'
  cp8M --checksum-file=/dev/fd/3 a out/p4 3>p4.sums || fail "/dev/fd/3"
  [ "$(cut -c1-64 p4.sums)" = "$(sha256sum <a | cut -c1-64)" ] ||
    fail "/dev/fd/3: $(cat p4.sums)"
else
  note "not root: the planted link case is left out"
fi
exit 0
