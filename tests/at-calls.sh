#!/bin/sh
# tests/at-calls.sh [FILE.c...]: every *at () call in src/ (and each
# struct loc made there) names its file relative to its directory
# descriptor, or says why not.  With no FILE, all of src/**/*.c.
#
# "cp --parents /etc/fstab dir" once gave openat and linkat the name
# "/etc/fstab" with the target directory's descriptor: the kernel then
# ignores the descriptor, and the copy aimed at the source itself.  No
# grep can follow where a name comes from; this one makes sure that
# whoever writes such a call has said where its name comes from.
#
# How it decides.  It finds the calls of the functions listed in it
# (libc's and gnulib's *at () functions, and cp8M's own wrappers that
# take a descriptor and a name: add new ones there, with the places of
# their descriptor and name arguments), and the struct loc initialisers,
# in the code with comments and string contents set aside, across
# lines.
# For each (descriptor, name) pair in them, the pair passes when
#   1. the name is a string literal that does not start with '/'
#      ("", ".", ".."); or
#   2. they are one struct loc's fields, E->dirfd and E->rel (or
#      E.dirfd and E.rel): struct loc's own comment in src/cp/copy.h
#      says when REL may be absolute (only with AT_FDCWD), and must
#      say "absolute" for this rule to hold; or
#   3. the descriptor is not AT_FDCWD, and a comment on the lines of
#      the call, or ending at most 3 lines above its first line, or the
#      comment above the function that holds it (ending at most 3 lines
#      above the line that starts with the function's name), says
#      "relative" or "absolute": where the name comes from; or
#   4. the descriptor is AT_FDCWD, and a comment at the call (as in 3,
#      not above the function) says "absolute": why an absolute name is
#      meant there (an operand as the user gave it, /proc/self/fd/N).
# Everything else is listed as FILE:LINE: CALL: DESCRIPTOR, NAME, and
# the script exits 1.  A function definition (its name at the start of
# a line, GNU style) is not a call.
#
# Run from the top of the source tree (or through make check, which sets
# abs_top_srcdir):  sh tests/at-calls.sh

srcdir=${abs_top_srcdir:-.}
if [ $# -eq 0 ]; then
  set -- $(find "$srcdir/src" -name '*.c' | LC_ALL=C sort)
fi
[ $# -gt 0 ] || { echo "at-calls: no C files under $srcdir/src" >&2; exit 99; }

# Rule 2 holds only where struct loc says when its name may be absolute.
loc_rule=no
sed -n '/^struct loc$/,/^};/p' "$srcdir/src/cp/copy.h" 2>/dev/null |
  grep -qi absolute && loc_rule=yes

LC_ALL=C awk -v loc_rule="$loc_rule" -v srcdir="$srcdir/" '
BEGIN {
  # NAME: the (descriptor, name) argument pairs, "D,N" separated by ";".
  split("openat fstatat mkdirat mknodat mkfifoat unlinkat fchownat " \
        "fchmodat utimensat faccessat readlinkat areadlinkat " \
        "areadlinkat_with_size utimecmpat backup_file_rename " \
        "find_backup_file_name statx name_to_handle_at lchownat lchmodat " \
        "fdutimensat openat_safer", one)
  for (i in one) pairs[one[i]] = "1,2"
  pairs["symlinkat"] = "2,3"
  split("linkat renameat renameat2 renameatu same_nameat", two)
  for (i in two) pairs[two[i]] = "1,2;3,4"
  # cp8M'"'"'s own wrappers.
  pairs["parents_make"] = "2,4"
  pairs["node_open_seen"] = "2,3"
  pairs["node_init"] = "2,3"
  pairs["sync_dir_at"] = "1,2"
  pairs["sync_dirs_add"] = "2,3"
  pairs["sync_dirs_add_parent"] = "2,3"
  pairs["open_checked"] = "1,2"
  pairs["arm_removal"] = "1,2"
  pairs["dest_guard_backup"] = "1,2;1,3"
  pairs["warm"] = "2,3"
  pairs["follow_openat"] = "1,2"
  pairs["follow_allowed"] = "1,2"
  bad = 0
}

FNR == 1 {
  if (NR > 1)
    scan()
  file = FILENAME
  if (index(file, srcdir) == 1)
    file = substr(file, length(srcdir) + 1)
  code = ""; in_cmt = 0; in_fn = 0; cand = 0
  delete marked; delete fn_marked
}

# Split each line into code and comment.  A comment that says
# "relative" or "absolute" marks the line where it ends.  String and
# character literals are kept, less their contents past the first byte
# (enough to tell "" and "." from "/..."): the code that is left has
# no quote inside a literal, nor a comment.
{
  line = $0; out = ""
  while (line != "") {
    if (in_cmt) {
      e = index(line, "*/")
      if (!e) { ctext = ctext " " line; line = ""; break }
      ctext = ctext " " substr(line, 1, e - 1); line = substr(line, e + 2)
      in_cmt = 0
      mark(ctext)
      continue
    }
    if (!match(line, "/\\*|//|\"|\047")) { out = out line; break }
    tok = substr(line, RSTART, RLENGTH)
    out = out substr(line, 1, RSTART - 1)
    line = substr(line, RSTART + RLENGTH)
    if (tok == "//") {
      mark(line)
      break
    }
    if (tok == "/*") { in_cmt = 1; ctext = ""; continue }
    lit = ""
    while (line != "" && substr(line, 1, 1) != tok) {
      if (substr(line, 1, 1) == "\\") { lit = lit "x"; line = substr(line, 3) }
      else { lit = lit substr(line, 1, 1); line = substr(line, 2) }
    }
    # A character literal may hold a double quote: never kept.
    out = out tok (tok == "\"" ? substr(lit, 1, 1) : "c") tok
    line = substr(line, 2)
  }
  code = code out "\n"
  # GNU style: the name of a definition starts its line, and so do the
  # braces of its body.  The comment above it covers the calls there.
  if (out ~ /^[A-Za-z_]/ && out ~ /\(/) {
    cand = 0
    for (k = FNR - 3; k < FNR; k++)
      if (k in marked)
        cand = 1
  } else if (out ~ /^\{/)
    in_fn = cand
  else if (out ~ /^\}/)
    in_fn = 0
  if (in_fn)
    fn_marked[FNR] = 1
}

END { scan(); exit bad > 0 }

# A comment ending on this line says "absolute" (a), "relative" (r).
function mark(text,    m) {
  text = tolower(text); m = ""
  if (text ~ /absolute/) m = "a"
  if (text ~ /relative/) m = m "r"
  if (m != "") marked[FNR] = marked[FNR] m
}

function trim(s) {
  gsub(/[ \t\n]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s)
  return s
}

# Is the pair D, N one of the accepted kinds (see the header)?
function pair_ok(d, n, first, last,    k, e) {
  if (n ~ /^"/)
    return n !~ /^"\//
  if (loc_rule == "yes" && match(d, /(->|\.)dirfd$/)) {
    e = substr(d, 1, RSTART - 1)
    if (n == e substr(d, RSTART, RLENGTH - 5) "rel")
      return 1
  }
  # AT_FDCWD with a name that may be absolute: only a comment at the
  # call that says so.
  if (d == "AT_FDCWD") {
    for (k = first - 3; k <= last; k++)
      if ((k in marked) && marked[k] ~ /a/)
        return 1
    return 0
  }
  if (first in fn_marked)
    return 1
  for (k = first - 3; k <= last; k++)
    if (k in marked)
      return 1
  return 0
}

# The arguments of the call whose "(" is at offset P of CODE, into
# ARGS[1..]; return the offset of its ")".
function split_args(p, args,    depth, i, c, cur, n) {
  depth = 0; cur = ""; n = 0
  for (i = p; i <= length(code); i++) {
    c = substr(code, i, 1)
    if (c == "\"") {
      cur = cur c; i++
      while (i <= length(code) && substr(code, i, 1) != "\"") { cur = cur substr(code, i, 1); i++ }
      cur = cur "\""; continue
    }
    if (c == "(" || c == "{") { if (depth++ == 0) continue }
    if (c == ")" || c == "}") { if (--depth == 0) { args[++n] = trim(cur); return i } }
    if (c == "," && depth == 1) { args[++n] = trim(cur); cur = ""; continue }
    cur = cur c
  }
  return length(code)
}

function line_start(off,    i) {
  for (i = off; i > 1 && substr(code, i - 1, 1) != "\n"; i--)
    ;
  return i
}

function line_at(off) {
  return split(substr(code, 1, off), tmp_lines, "\n")
}

function check(what, off, close_off, args, spec,    np, ps, k, ij, d, n, first, last) {
  first = line_at(off); last = line_at(close_off)
  np = split(spec, ps, ";")
  for (k = 1; k <= np; k++) {
    split(ps[k], ij, ",")
    d = args[ij[1]]; n = args[ij[2]]
    if (d == "" || n == "")
      continue
    if (!pair_ok(d, n, first, last)) {
      printf "%s:%d: %s: %s, %s\n", file, first, what, d, n
      bad++
    }
  }
}

function scan(    rest, base, name, off, cl, args, tok) {
  rest = code; base = 0
  while (match(rest, /[A-Za-z_][A-Za-z0-9_]*[ \t\n]*\(|struct loc[ \t\n]+[A-Za-z_][A-Za-z0-9_]*[ \t\n]*=[ \t\n]*\{|\(struct loc\)[ \t\n]*\{/)) {
    off = base + RSTART; tok = substr(rest, RSTART, RLENGTH)
    base += RSTART + RLENGTH - 1; rest = substr(rest, RSTART + RLENGTH)
    if (tok ~ /^struct loc|^\(struct loc\)/) {
      delete args
      cl = split_args(base, args)
      check("struct loc", off, cl, args, "1,2")
      continue
    }
    name = tok; sub(/[ \t\n]*\($/, "", name)
    if (!(name in pairs))
      continue
    # A definition or declaration: its line starts at its first column.
    if (substr(code, line_start(off), 1) ~ /[A-Za-z_]/)
      continue
    delete args
    cl = split_args(base, args)
    check(name, off, cl, args, pairs[name])
  }
}
' "$@"
status=$?
[ $status -le 1 ] || { echo "at-calls: awk failed ($status)" >&2; exit 99; }
if [ $status -ne 0 ]; then
  [ "$loc_rule" = yes ] ||
    echo "at-calls: struct loc (src/cp/copy.h) does not say when its name may be absolute: its fields count as any other names" >&2
  echo "at-calls: each *at () call above needs a name known to be relative, or a comment saying where its name comes from (see tests/at-calls.sh)" >&2
fi
exit $status
