#!/bin/sh
# --help against the option parser: every option that src/cp/options.c
# accepts (its gnu_options[] and own_options[] and SHORT_OPTIONS) is
# listed at an option position, with the right argument form, and every
# option listed is one the parser accepts.  Also: --help exits 0 and
# writes nothing to standard error, keeps GNU's columns (descriptions from
# column 32, continuation lines from 34, nothing past column 79), and ends
# with a true "Report bugs" line: it names the README's section on
# reporting problems, which must exist, and no placeholder address.
. "${abs_top_srcdir:-.}/tests/init.sh"

options_c=$abs_top_srcdir/src/cp/options.c
[ -r "$options_c" ] || fail "cannot read $options_c"

cp8M --help >help 2>err
status=$?
[ "$status" -eq 0 ] || fail "--help exited $status"
[ ! -s err ] || fail "--help wrote to standard error: $(cat err)"
[ -s help ] || fail "--help printed nothing"

# --- What the parser accepts. ---------------------------------------------

# gnu_options[] and own_options[] (getopt_long reads the two together):
# one "NAME HAS_ARG" line per entry.  An entry may span lines, so the
# tables are joined and split again at each '{'.
sed -n '/^static struct option const \(gnu\|own\)_options\[\] =/,/^};/p' \
    "$options_c" | tr '\n' ' ' | tr '{' '\n' |
  sed -n 's/^ *"\([^"]*\)", *\([a-z_]*\),.*/\1 \2/p' >parser-long
[ "$(wc -l <parser-long)" -ge 40 ] ||
  fail "found only $(wc -l <parser-long) long options in $options_c"

# The optstring: one "LETTER ARG" line per short option (ARG: none,
# required or optional).
sed -n 's/^static char const SHORT_OPTIONS\[\] = "\([^"]*\)".*/\1/p' \
  "$options_c" >optstring
[ "$(wc -l <optstring)" -eq 1 ] ||
  fail "expected one SHORT_OPTIONS optstring in $options_c, found $(wc -l <optstring)"
awk '{
  s = $0
  sub(/^[-+]/, "", s)   # leading "+" or "-" only sets getopt modes
  sub(/^:/, "", s)      # so does a leading ":"
  for (i = 1; i <= length(s); i++) {
    c = substr(s, i, 1)
    if (c == ":") continue
    arg = "none"
    if (substr(s, i + 1, 2) == "::") arg = "optional"
    else if (substr(s, i + 1, 1) == ":") arg = "required"
    print c, arg
  }
}' optstring >parser-short
[ "$(wc -l <parser-short)" -ge 10 ] ||
  fail "found only $(wc -l <parser-short) short options in the optstring"

# --- What --help lists. ---------------------------------------------------

# An option line starts with two spaces and "-" (short option first) or
# six spaces and "--" (long option only); its option field runs up to two
# spaces.  Each item of the field becomes "NAME ARG LINE": "-a none 12",
# "--backup optional 14".  ARG is the argument form the line shows.
awk '
/^  -/ || /^      --/ {
  line = $0
  sub(/^ +/, "", line)
  field = line
  sub(/  .*/, "", field)
  n = split(field, items, ", ")
  arg = "none"
  for (i = 1; i <= n; i++)
    if (index(items[i], "[=")) arg = "optional"
    else if (index(items[i], "=")) arg = "required"
  for (i = 1; i <= n; i++) {
    name = items[i]
    sub(/\[.*/, "", name)
    sub(/=.*/, "", name)
    print name, arg, NR
  }
}' help >help-items
[ -s help-items ] || fail "found no option lines in --help"
bad=$(grep -v -E '^(-[A-Za-z]|--[a-z][a-z0-9-]*) ' help-items)
[ -z "$bad" ] || fail "malformed option items in --help (name, form, line): $bad"

# Every long option of the parser is listed, with its argument form.
while read -r name has_arg; do
  case $has_arg in
    no_argument) form=none ;;
    required_argument) form=required ;;
    optional_argument) form=optional ;;
    *) fail "long option entry --$name has has_arg '$has_arg'" ;;
  esac
  got=$(awk -v n="--$name" '$1 == n { print $2 }' help-items)
  [ -n "$got" ] || fail "--help does not list --$name"
  [ "$(printf '%s\n' "$got" | wc -l)" -eq 1 ] ||
    fail "--help lists --$name more than once"
  [ "$got" = "$form" ] ||
    fail "--help shows --$name with argument form '$got'; the parser has $has_arg"
done <parser-long

# Every short option of the parser is listed; a letter that takes an
# argument shares its line with the long form that shows the argument,
# and one that takes none is not on a line whose long form needs one.
while read -r letter arg; do
  got=$(awk -v n="-$letter" '$1 == n { print $2 }' help-items)
  [ -n "$got" ] || fail "--help does not list -$letter"
  [ "$(printf '%s\n' "$got" | wc -l)" -eq 1 ] ||
    fail "--help lists -$letter more than once"
  case $arg:$got in
    required:required | optional:optional | none:none | none:optional) ;;
    *) fail "--help shows -$letter with argument form '$got'; the optstring has $arg" ;;
  esac
done <parser-short

# Every option listed is accepted: it is in the table or the optstring,
# and getopt_long knows it (a probe with no operands must not say
# "unrecognized", "invalid" or "ambiguous" option).
while read -r name form line; do
  case $name in
    --*) grep -q "^${name#--} " parser-long ||
           fail "--help line $line lists $name, which gnu_options[] and own_options[] lack" ;;
    -?)  grep -q "^${name#-} " parser-short ||
           fail "--help line $line lists $name, which the optstring lacks" ;;
  esac
  cp8M "$name" </dev/null >probe.out 2>probe.err
  if grep -q -e 'unrecognized option' -e 'invalid option' \
       -e 'is ambiguous' probe.err; then
    fail "--help lists $name, but the parser says: $(cat probe.err)"
  fi
done <help-items

# --- Layout. ---------------------------------------------------------------

long=$(awk 'length > 79 { print NR ": " length " columns" }' help)
[ -z "$long" ] || fail "--help lines wider than 79 columns: $long"
! grep -q "$(printf '\t')" help || fail "--help contains a tab"

# As in GNU cp's --help, descriptions start at column 32 (31 characters
# in) unless the option field reaches past column 29 (then two spaces
# after it); continuation lines are indented by 33 spaces; other lines by
# 0, 2 (usage, the backup table) or 6.
layout=$(awk '
/^  -/ || /^      --/ {
  indent = match($0, /[^ ]/) - 1
  rest = substr($0, indent + 1)
  fieldlen = index(rest, "  ") - 1
  if (fieldlen < 0) { print NR ": no description"; next }
  desc = substr(rest, fieldlen + 1)
  col = indent + fieldlen + (match(desc, /[^ ]/) - 1) + 1
  if (indent + fieldlen <= 29 && col != 32)
    print NR ": description at column " col
  if (indent + fieldlen > 29 && col != indent + fieldlen + 3)
    print NR ": description not two spaces after a long option field"
  next
}
/^ / {
  indent = match($0, /[^ ]/) - 1
  if (indent != 2 && indent != 6 && indent != 33)
    print NR ": indented by " indent
}' help)
[ -z "$layout" ] || fail "--help layout: $layout"

# --- Where to report problems. --------------------------------------------

! grep -q 'example\.invalid' help ||
  fail "--help still names the placeholder address: $(grep 'example\.invalid' help)"
last=$(tail -n 1 help)
# help2man makes a REPORTING BUGS section of a paragraph that starts so.
case $last in
  "Report bugs "*) ;;
  *) fail "--help does not end with a 'Report bugs' line: $last" ;;
esac
case $last in
  *"Reporting problems"*"README"*) ;;
  *) fail "the Report line does not point to the README's section: $last" ;;
esac
grep -qx 'Reporting problems' "$abs_top_srcdir/README" ||
  fail "the README has no 'Reporting problems' section for --help to point to"
exit 0
