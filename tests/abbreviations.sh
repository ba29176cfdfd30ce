#!/bin/sh
# Abbreviated long options mean what they mean to GNU cp 9.11 (issue 51):
# every abbreviation that selects one of GNU's options selects it in cp8M
# too, silently, even where one of cp8M's own options starts the same way
# (--b is --backup, not --buffer-size or --bwlimit); one that is ambiguous
# among GNU's options gets GNU's message, which lists GNU's options only.
# cp8M's own options answer to the abbreviations no GNU option shares.
#
# The cases are made from GNU cp 9.11's option table below, by getopt's
# rule, not written out one by one: for each option, its shortest
# abbreviation, bare and with =VALUE (and, taking an argument, with the
# argument as the next word, and with none at all), must act exactly as
# the full name does in cp8M, and as the same words do in GNU cp (/bin/cp,
# 9.1 here) wherever GNU cp's full name acts as cp8M's (not --help,
# --version, nor what 9.1 lacks: --debug, --keep-directory-symlink,
# --update=WHEN); and each shorter, ambiguous abbreviation must give
# getopt's message, built from the table and checked against /bin/cp
# where 9.1 has all the candidates.
. "${abs_top_srcdir:-.}/tests/init.sh"

mkdir -p bin-gnu bin-cp8m && ln -s "$GNU_CP" bin-gnu/cp &&
  ln -s "$CP8M" bin-cp8m/cp || fail "cannot set up bin dirs"

# GNU cp 9.11's long options (long_opts[] of its src/cp.c), in its order:
# NAME, ARG (none, optional or required), ACTION (two entries with the same
# ARG and ACTION are one option to getopt: --parents and --path), a VALUE
# for =VALUE, and the OPERANDS of a run that shows what the option does.
gnu_table='archive none a - d e
attributes-only none attributes-only - a b
backup optional b numbered a b
copy-contents none copy-contents - a e
debug none debug - a e
dereference none L - l e
force none f - a b
interactive none i - a b
link none l - a e
no-clobber none n - a b
no-dereference none P - l e
no-preserve required no-preserve mode a e
no-target-directory none T - a b
one-file-system none x - -R d e
parents none parents - d/f d2
path none parents - d/f d2
preserve optional preserve mode a e
recursive none R - d e
remove-destination none remove-destination - a b
sparse required sparse always a e
reflink optional reflink never a e
strip-trailing-slashes none strip-trailing-slashes - a e
suffix required S .bak a b
symbolic-link none s - a e
target-directory required t d2 a
update optional u older a b
verbose none v - a e
keep-directory-symlink none keep-directory-symlink - -R d e
context optional Z x a e
help none help -
version none version -'

# cp8M's own options whose runs can be compared (not --stats, whose
# figures change from run to run), in the same form.
own_table='buffer-size required buffer-size 1M a e
direct optional direct never a e
queue-depth required queue-depth 2 a e
progress optional progress never a e
verify none verify - a e
sync none sync - a e
bwlimit required bwlimit 0 a e
atomic none atomic - a b'

# getopt's rule, on TABLE, for each option (lines "ok NAME ARG VALUE
# PREFIX OPERANDS": PREFIX is the shortest abbreviation that selects it,
# this entry and not another that acts the same (--pat, not --pa, for
# --path: getopt names the entry it took in its messages);
# with EXCLUDE, also one no option of EXCLUDE starts with) and for each
# shorter abbreviation that several options fit (lines "amb PREFIX
# CANDIDATES LIST": CANDIDATES, every option it fits, comma-separated;
# LIST, getopt's list: the first one and each that acts otherwise).
abbreviations () {
  printf '%s\n' "$1" | awk -v exclude="$2" '
    function resolve(p,   i, first, amb) {
      for (i = 1; i <= n; i++) if (name[i] == p) return i
      first = 0; amb = 0
      for (i = 1; i <= n; i++)
        if (index(name[i], p) == 1) {
          if (!first) first = i
          else if (key[i] != key[first]) amb = 1
        }
      return amb ? -1 : first
    }
    function shared(p,   i, m, ex) {
      m = split(exclude, ex, " ")
      for (i = 1; i <= m; i++) if (index(ex[i], p) == 1) return 1
      return 0
    }
    { n++; name[n] = $1; arg[n] = $2; key[n] = $2 " " $3; value[n] = $4
      ops = ""; for (f = 5; f <= NF; f++) ops = ops " " $f; operands[n] = ops }
    END {
      for (i = 1; i <= n; i++) {
        for (l = 1; l <= length(name[i]); l++) {
          p = substr(name[i], 1, l)
          r = resolve(p)
          if (r == i && !shared(p)) break
          if (r < 0 && !(p in seen)) {
            seen[p] = 1; cands = ""; list = ""; first = 0
            for (j = 1; j <= n; j++)
              if (index(name[j], p) == 1) {
                cands = cands (cands == "" ? "" : ",") name[j]
                if (!first) first = j
                if (j == first || key[j] != key[first])
                  list = list " '\''--" name[j] "'\''"
              }
            print "amb", "-" p, cands, list
          }
        }
        print "ok", name[i], arg[i], value[i], p operands[i]
      }
    }'
}

# The tree each run starts from.
mkdir tmpl && (cd tmpl && mkdir -p d/sub d2 && printf aaaa >a && printf b >b &&
  printf ffffff >d/f && ln -s a l) || fail "cannot set up a tree"

# run NAME SIDE WORD...: in a fresh copy of the tree, "cp WORD..." with
# SIDE's cp (gnu or cp8m) first in PATH; its exit status, output,
# messages and the tree after it (tests/treedigest) go to the file NAME.
# --debug's memory budget is the machine's, and its times are the
# moment's: both differ from run to run.
run () {
  _out=$work/$1 _side=$2
  shift 2
  rm -rf "$work/t" && "$GNU_CP" -a "$work/tmpl" "$work/t" ||
    fail "cannot set up a tree"
  (cd "$work/t" && PATH=$work/bin-$_side:$PATH &&
   cp "$@" </dev/null >"$work/.o" 2>"$work/.e"
   echo "exit status: $?"
   [ "$_side" = gnu ] || libc_words "$work/.e"
   echo "--- stdout"; grep -Ev '^(memory budget|time): ' "$work/.o"
   echo "--- stderr"; cat "$work/.e"
   echo "--- tree"; treedigest -n "$digest_now" .) >"$_out" 2>&1
}

# gnu_lacks NAME: /bin/cp does not know --NAME (9.1: --debug...).
gnu_lacks () {
  "$GNU_CP" "--$1" </dev/null 2>&1 | grep -q 'unrecognized option'
}

failures=0
: >with-gnu
: >without-gnu
bad () { echo "$*" >&2; failures=$((failures + 1)); }

# same A B WHAT: the runs A and B went alike.
same () {
  cmp -s "$work/$1" "$work/$2" && return 0
  diff -u "$work/$2" "$work/$1" >&2
  bad "$3 (above)"
  return 1
}

# forms ARG VALUE SPELLING OPERANDS: the command lines to try, one a line,
# '@' standing for the option as spelt.
forms () {
  case $1 in
    none) echo "@ $3"; echo "@=x $3" ;;
    optional) echo "@ $3"; echo "@=$2 $3" ;;
    required) echo "@ $2 $3"; echo "@=$2 $3"; echo "$3 @" ;;
  esac
}

# --- Each of GNU's options by its shortest abbreviation. -------------------

abbreviations "$gnu_table" "" >gnu-cases
[ "$(grep -c '^ok ' gnu-cases)" -eq 31 ] || fail "not 31 options: $(cat gnu-cases)"
# The five of issue 51 are among them.
for p in backup:b attributes-only:at preserve:pr strip-trailing-slashes:st \
         symbolic-link:sy; do
  grep -q "^ok ${p%:*} [a-z]* [^ ]* ${p#*:}\( \|$\)" gnu-cases ||
    fail "the table does not make --${p#*:} the abbreviation of --${p%:*}"
done

grep '^ok ' gnu-cases | while read -r _ name arg value prefix operands; do
  lacks=no
  gnu_lacks "$name" && lacks=yes
  forms "$arg" "$value" "$operands" | while read -r form; do
    short=$(printf '%s\n' "$form" | sed "s/@/--$prefix/")
    full=$(printf '%s\n' "$form" | sed "s/@/--$name/")
    # shellcheck disable=SC2086
    { run ours-short cp8m $short; run ours-full cp8m $full; }
    same ours-short ours-full "cp8M: 'cp $short' differs from 'cp $full'" ||
      continue
    [ $lacks = no ] || { echo "$full" >>without-gnu; continue; }
    # shellcheck disable=SC2086
    run gnu-short gnu $short
    if cmp -s "$work/ours-short" "$work/gnu-short"; then
      echo "$short" >>with-gnu
      continue
    fi
    # Different: allowed only where the full names differ too (--help,
    # --version...), and GNU cp must read its abbreviation as the full
    # name (else this test's rule is wrong).
    # shellcheck disable=SC2086
    run gnu-full gnu $full
    same gnu-short gnu-full "GNU cp: 'cp $short' differs from 'cp $full'" &&
      if cmp -s "$work/gnu-full" "$work/ours-full"; then
        same ours-short gnu-short "'cp $short' differs from GNU cp's"
      else
        echo "$full" >>without-gnu
      fi
  done
done 2>>failures.log
cat failures.log >&2
[ ! -s failures.log ] || failures=$((failures + 1))
note "compared with GNU cp: $(wc -l <with-gnu) command lines"
note "compared with the full name only: $(tr '\n' ',' <without-gnu)"
# Most must have been held to GNU cp itself.
[ "$(wc -l <with-gnu)" -ge 50 ] ||
  bad "only $(wc -l <with-gnu) command lines were compared with GNU cp"

# --- Abbreviations several of GNU's options fit. ---------------------------

# getopt_long's message, GNU's options only: a GNU script gets GNU's
# words.  The candidates it lists never include cp8M's own (--s is not
# offered as --stats), and nothing is made.
run before cp8m --version
grep '^amb ' gnu-cases | while read -r _ prefix cands list; do
  prefix=${prefix#-}
  # The empty abbreviation only as "--=x" ("--" ends the options).
  for suffix in "" =x; do
    [ -n "$prefix$suffix" ] || continue
    arg=--$prefix$suffix
    printf "%s\n" "exit status: 1" "--- stdout" "--- stderr" \
      "cp: option '$arg' is ambiguous; possibilities: $list" \
      "Try 'cp --help' for more information." >want
    run got cp8m "$arg" a e
    sed '/^--- tree$/,$d' "$work/got" >got-head
    cmp -s want got-head || { diff -u want got-head >&2; bad "cp $arg a e"; }
    sed '1,/^--- tree$/d' "$work/got" >got-tree
    sed '1,/^--- tree$/d' "$work/before" >before-tree
    cmp -s before-tree got-tree || bad "cp $arg a e changed the tree"
    # Held to GNU cp where 9.1 has every candidate.
    all=yes
    for c in $(echo "$cands" | tr , ' '); do
      gnu_lacks "$c" && all=no
    done
    if [ $all = yes ]; then
      run gnu gnu "$arg" a e
      sed '/^--- tree$/,$d' "$work/gnu" >gnu-head
      cmp -s want gnu-head ||
        { diff -u want gnu-head >&2; bad "GNU cp $arg: not the message this test builds"; }
    fi
  done
done 2>>failures2.log
cat failures2.log >&2
[ ! -s failures2.log ] || failures=$((failures + 1))
[ "$(grep -c '^amb ' gnu-cases)" -ge 15 ] ||
  fail "only $(grep -c '^amb ' gnu-cases) ambiguous abbreviations"

# --- cp8M's own options: full names, and abbreviations GNU's leave free. ---

gnu_names=$(printf '%s\n' "$gnu_table" | cut -d' ' -f1 | tr '\n' ' ')
abbreviations "$own_table" "$gnu_names" | grep '^ok ' |
while read -r _ name arg value prefix operands; do
  forms "$arg" "$value" "$operands" | while read -r form; do
    short=$(printf '%s\n' "$form" | sed "s/@/--$prefix/")
    full=$(printf '%s\n' "$form" | sed "s/@/--$name/")
    # shellcheck disable=SC2086
    { run ours-short cp8m $short; run ours-full cp8m $full; }
    same ours-short ours-full "cp8M: 'cp $short' differs from 'cp $full'"
  done
done 2>>failures3.log
cat failures3.log >&2
[ ! -s failures3.log ] || failures=$((failures + 1))
# --sync is --syn: --sy is GNU's --symbolic-link.
abbreviations "$own_table" "$gnu_names" | grep -q '^ok sync none - syn ' ||
  bad "--sync's abbreviation is not --syn"

# --- Which words are options: getopt_long's walk. ---------------------------

# An option's argument, "--" and what follows, and (with POSIXLY_CORRECT)
# the words after the first operand are not options, even when they
# look like abbreviations; the others are.
for words in "-S --b a b" "--suffix --b a b" "--su --b a b" "-bS --b a b" \
             "-S--b a b" "-vS --st a b" "-t d2 --b a" "--ta d2 --b a" \
             "--target-directory d2 --sy a" "a -- --b" "--st -- a --sy" \
             "a d2 --b" "-Sx --b a b" "--no-p mode --b a b" \
             "--no-preserve=mode --pr=mode a e" "--su=x --st -v a b"; do
  # shellcheck disable=SC2086
  { run gnu gnu $words; run ours cp8m $words; }
  same ours gnu "'cp $words' differs from GNU cp's"
done
for words in "a b --b" "a e --sy" "-v a e --st"; do
  # shellcheck disable=SC2086
  (export POSIXLY_CORRECT=1; run gnu gnu $words; run ours cp8m $words)
  same ours gnu "POSIXLY_CORRECT=1 'cp $words' differs from GNU cp's"
done

[ "$failures" -eq 0 ] || fail "$failures checks failed (above)"
exit 0
