#!/bin/sh
# ./configure --help lists cp8M's own options first, under a heading of
# their own, and the options of automake, libtool and gnulib after them
# under another (configure.ac declares ours before anything that brings
# options of its own): in each of "Optional Features" and "Optional
# Packages", every option configure.ac declares comes before the first
# option of the others.
. "${abs_top_srcdir:-.}/tests/init.sh"

"$abs_top_srcdir/configure" --help >help 2>err || fail "configure --help failed: $(cat err)"

# Our options: those configure.ac declares with AC_ARG_ENABLE/AC_ARG_WITH.
ours=$(sed -n 's/^AC_ARG_\(ENABLE\|WITH\)(\[\([a-z0-9-]*\)\].*/\1 \2/p' \
  "$abs_top_srcdir/configure.ac" |
  awk '{ print ($1 == "ENABLE" ? "--enable-" : "--with-") $2 }')
[ "$(printf '%s\n' "$ours" | wc -l)" -ge 6 ] ||
  fail "found only these options in configure.ac: $ours"

# check SECTION OTHER: in SECTION, the heading "cp8M's own:", then each of
# ours, then the others' heading, then OTHER (one of theirs).
check () {
  sed -n "/^$1:/,/^[A-Z]/p" help >section
  own=$(grep -n "^  cp8M's own:\$" section | cut -d: -f1)
  theirs=$(grep -n '^  Of ' section | head -n 1 | cut -d: -f1)
  [ -n "$own" ] || fail "$1: no 'cp8M's own:' heading"
  [ -n "$theirs" ] || fail "$1: no heading for the others' options"
  [ "$own" -lt "$theirs" ] || fail "$1: the others' heading comes first"
  other=$(grep -n -e "^  $2[[ =]" section | head -n 1 | cut -d: -f1)
  [ -n "$other" ] || fail "$1: $2 is not listed"
  [ "$other" -gt "$theirs" ] || fail "$1: $2 is listed before the others' heading"
  for o in $ours; do
    case $o in
      --enable-*) [ "$1" = "Optional Features" ] || continue ;;
      *) [ "$1" = "Optional Packages" ] || continue ;;
    esac
    at=$(grep -n -e "^  $o\([[ =]\|\$\)" section | head -n 1 | cut -d: -f1)
    [ -n "$at" ] || fail "$1: $o is not listed"
    [ "$at" -gt "$own" ] && [ "$at" -lt "$theirs" ] ||
      fail "$1: $o is not among cp8M's own (line $at; own $own, others $theirs)"
  done
}
check "Optional Features" --enable-shared
check "Optional Packages" --with-openssl
exit 0
