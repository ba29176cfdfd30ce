#!/bin/sh
# Existing destinations: -f (an unwritable destination, as nobody), -i
# answered y and n (the prompt text; 9.2+ exits 1 on n), -n, -u and
# --update=older/none/none-fail/all (9.5+) and how they combine with -n and
# -i, --remove-destination (and its -v line), backups (-b, every --backup
# CONTROL, -S, VERSION_CONTROL, SIMPLE_BACKUP_SUFFIX, the -v "(backup: ...)"
# form, 'cp --force --backup a a'), same-file detection, "will not
# overwrite just-created", dangling destination symlinks (and
# POSIXLY_CORRECT), "cannot overwrite non-directory".  Where GNU 9.1 and
# 9.11 agree the result is compared with /bin/cp; elsewhere the 9.11
# behaviour is asserted.  Each check runs on its own, so the log lists
# every failing one.
. "${abs_top_srcdir:-.}/tests/init.sh"

failures=0
check () { ( "$@" ) || failures=$((failures + 1)); }
with_env () { export "$1"; shift; "$@"; }
out_is () {
  if [ -n "$1" ]; then printf '%s\n' "$1"; fi >"$work/.want-out"
  cmp -s "$work/.want-out" "$work/.out" ||
    { diff -u "$work/.want-out" "$work/.out" >&2; fail "stdout differs (above)"; }
}
content_is () { # content_is FILE TEXT
  [ "$(cat "$1" 2>/dev/null)" = "$2" ] ||
    fail "$1 holds '$(cat "$1" 2>/dev/null)', not '$2'"
}
# fresh: a scratch copy of ./tree in ./s, the working directory of the
# cp8M-only checks.
fresh () { rm -rf "$work/s" && "$GNU_CP" -a "$work/tree" "$work/s" || exit 99; }
# in_s CMD...: run CMD in ./s
in_s () { (cd "$work/s" && "$@"); }

mkdir tree tree/d tree/dd tree/s1 tree/s2 tree/s3 tree/dd/d
echo new >tree/a
echo other >tree/c
echo old >tree/b
echo older-dest >tree/older
echo newer-dest >tree/newer
echo same-age >tree/same
echo x1 >tree/s1/x
echo x2 >tree/s2/x
echo x3 >tree/s3/a-hard
echo in-dd >tree/dd/a
echo in-dd-d >tree/dd/d/f
echo in-d >tree/d/f
ln tree/a tree/a-hard
ln -s a tree/sym
ln -s nowhere tree/dangling
ln -s "$work/tree/a" tree/abs-sym
echo numbered-c >tree/c2
echo c2-1 >tree/c2.~1~
touch -d '2020-01-01 00:00:00' tree/a tree/c tree/same
touch -d '2010-01-01 00:00:00' tree/older
touch -d '2030-01-01 00:00:00' tree/newer tree/dd/a

# Plain overwrites, -f, --remove-destination.
for args in "a b" "-v a b" "-f a b" "-fv a b" "--remove-destination a b" \
            "--remove-destination -v a b" "--remove-destination a sym" \
            "--remove-destination -v a dangling" "-f a dangling" \
            "--remove-destination a dd" "-v a c dd" "a sym" "-f a sym" \
            "--remove-destination -v a c dd"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done

# -n: silent, exit 0 (9.1 and 9.5+ agree); -f is ignored with it.
for args in "-n a b" "-nv a b" "-n a c dd" "-nv a c dd" "-nf a b" \
            "-n --remove-destination a b" "-rn d dd" "-rnv s1 s2 dd" \
            "--no-clobber a b" "-n a a"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
# 9.2+: --debug says what was skipped.
fresh
check eval 'expect 0 "" in_s cp8M --debug -n a b && out_is "skipped '"'b'"'"'
fresh
check eval 'expect 0 "" in_s cp8M -n a b && out_is ""'
check in_s content_is b old

# -u / --update (older): skip when the destination is not older.
for args in "-u a newer" "-u a older" "-u a same" "-uv a newer" \
            "-uv a older" "-u a b c dd" "-ruv s1 dd" "--update a newer" \
            "--update a older" "-u a nonexistent" "-u -n a older" \
            "-n -u a older"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
# --update=WHEN is 9.3+ (none-fail 9.5+): assert the 9.11 behaviour.
fresh
check expect 0 "" in_s cp8M --update=older a newer
check in_s content_is newer newer-dest
check expect 0 "" in_s cp8M --update=older a older
check in_s content_is older new
fresh
check eval 'expect 0 "" in_s cp8M --debug --update=older a newer &&
  out_is "skipped '"'newer'"'"'
check expect 0 "" in_s cp8M --update=none a b
check in_s content_is b old
check expect 0 "" in_s cp8M --update=none -v a b
check in_s content_is b old
check expect 0 "" in_s cp8M --update=none a new-file
check in_s content_is new-file new
check expect 1 "cp8M: not replacing 'b'" in_s cp8M --update=none-fail a b
check in_s content_is b old
check expect 0 "" in_s cp8M --update=none-fail a new-file2
fresh
# none-fail goes on with the other operands.
check expect 1 "cp8M: not replacing 'dd/a'" in_s cp8M --update=none-fail a c dd
check in_s content_is dd/a in-dd
check in_s content_is dd/c other
check expect 0 "" in_s cp8M --update=all a newer
check in_s content_is newer new
fresh
check expect 0 "" in_s cp8M --update=none -r d dd
check in_s content_is dd/d/f in-dd-d
check expect 1 "cp8M: not replacing 'dd/d/f'" in_s cp8M --update=none-fail -r d dd
# -n wins over any --update, in either order (9.5+).
fresh
check expect 0 "" in_s cp8M -n --update=all a b
check in_s content_is b old
check expect 0 "" in_s cp8M --update=all -n a b
check in_s content_is b old
check expect 0 "" in_s cp8M -n --update=none-fail a b
check expect 0 "" in_s cp8M --update=none-fail -n a b
check expect 0 "" in_s cp8M --update=older -n a older
check in_s content_is older older-dest
check expect 0 "" in_s cp8M -u --update=all a newer
check in_s content_is newer new
fresh
check expect 0 "" in_s cp8M --update=all -u a newer
check in_s content_is newer newer-dest
# --update=none with a directory source still merges the directory.
check expect 0 "" in_s cp8M --update=none -r d dd
check in_s content_is dd/d/f in-dd-d

# -i: the prompt goes to stderr, without a newline.
run_as=
prompt () { # prompt ANSWER STATUS ERR CP8M-ARGS...: run in ./s, by $run_as
  _answer=$1 _status=$2 _err=$3
  shift 3
  (cd "$work/s" && printf '%s\n' "$_answer" | $run_as cp8M "$@" >"$work/.out" 2>"$work/.err"
   echo $? >"$work/.status")
  printf '%s' "$_err" >"$work/.want"
  cmp -s "$work/.want" "$work/.err" ||
    { diff -u "$work/.want" "$work/.err" >&2; fail "stderr of 'cp8M $*' (answer $_answer) differs (above)"; }
  [ "$(cat "$work/.status")" = "$_status" ] ||
    fail "'cp8M $*' (answer $_answer) exited $(cat "$work/.status"), expected $_status"
}
fresh
check prompt y 0 "cp8M: overwrite 'b'? " -i a b
check in_s content_is b new
fresh
# 9.2+: declining exits 1 (9.1 exits 0).
check prompt n 1 "cp8M: overwrite 'b'? " -i a b
check in_s content_is b old
check prompt n 1 "cp8M: overwrite 'b'? " -iv a b
check out_is ""
check eval 'prompt n 1 "cp8M: overwrite '"'b'"'? " --debug -i a b && out_is "skipped '"'b'"'"'
check prompt "" 1 "cp8M: overwrite 'b'? " -i a b
check prompt yes 0 "cp8M: overwrite 'b'? " -i -v c b
check out_is "'c' -> 'b'"
fresh
# The last of -i and -n wins.
check prompt n 0 "" -i -n a b
check prompt y 0 "cp8M: overwrite 'b'? " -n -i a b
check in_s content_is b new
fresh
# With --update the update test comes first (9.6+: -i is not cancelled).
check prompt y 0 "" -i --update=none a b
check in_s content_is b old
check prompt y 1 "cp8M: not replacing 'b'
" -i --update=none-fail a b
check prompt y 0 "" -i -u a newer
check in_s content_is newer newer-dest
check prompt n 1 "cp8M: overwrite 'older'? " -i -u a older
check in_s content_is older older-dest
check prompt y 0 "cp8M: overwrite 'older'? " -u -i a older
check in_s content_is older new
check prompt n 1 "cp8M: overwrite 'newer'? " --update=all -i a newer
fresh
check prompt y 0 "cp8M: overwrite 'dd/a'? " -i a c dd
check in_s content_is dd/c other
# Answered y, 9.1 and 9.11 agree: compare with GNU (both read "y" lines).
for args in "-i a b" "-iv a b" "-i a c dd" "-fi a b" "-i --backup a b" \
            "-ri d dd" "-i a nonexistent"; do
  # shellcheck disable=SC2086
  check eval "yes | same_as_gnu $args"
done

# Backups.
for args in "-b a b" "--backup a b" "-bv a b" "--backup=numbered -v a b" \
            "--backup=numbered a c2" "--backup=existing -v a b" \
            "--backup=existing -v a c2" "--backup=simple -v a c2" \
            "--backup=never a c2" "--backup=none -v a b" "--backup=off -v a b" \
            "--backup=t -v a b" "--backup=nil -v a c2" "--backup=nil -v a b" \
            "-S .bak -v a b" "--suffix=.orig -v a b" "-b -S .bak a b" \
            "--backup=numbered -S .bak a b" "-bv a nonexistent" \
            "-rbv d dd" "-rb --backup=numbered s1/x s2/x d" "-bv a c dd" \
            "--backup=foo a b" "--backup=n a b" "--backup=ni a b" \
            "-b --remove-destination -v a b" "-bf a b" "--backup=nev a b" \
            "-b a sym" "-bv a dangling" "-b --backup=numbered -v c2 c2.~1~" \
            "-bv a dd/a" "--backup=numbered -v a dd/a" "-bv s1/x s2/x" \
            "-b -S .bak -v c d/f" "-fbv dd/a dd/a" "-bv -T a dd/a"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
check with_env VERSION_CONTROL=numbered same_as_gnu -bv a b
check with_env VERSION_CONTROL=numbered same_as_gnu --backup=simple -v a b
check with_env VERSION_CONTROL=existing same_as_gnu -bv a c2
check with_env VERSION_CONTROL=none same_as_gnu -bv a b
check with_env VERSION_CONTROL=never same_as_gnu -v --backup a b
check with_env VERSION_CONTROL=bogus same_as_gnu -b a b
check with_env VERSION_CONTROL=numbered same_as_gnu -v a b
check with_env SIMPLE_BACKUP_SUFFIX=.orig same_as_gnu -bv a b
check with_env SIMPLE_BACKUP_SUFFIX=.orig same_as_gnu -bv -S .s a b
check with_env SIMPLE_BACKUP_SUFFIX=/x same_as_gnu -bv a b
check with_env SIMPLE_BACKUP_SUFFIX=.orig same_as_gnu --backup=numbered -v a b
fresh
check eval 'expect 0 "" in_s cp8M -bv a b && out_is "'"'a' -> 'b' (backup: 'b~')"'"'
check in_s content_is b~ old
check expect 0 "" in_s cp8M --backup=numbered a b
check expect 0 "" in_s cp8M --backup=numbered c b
check in_s content_is b.~1~ new
check in_s content_is b.~2~ new
check in_s content_is b other
# cp --force --backup A A backs A up and copies it onto itself.
for args in "--force --backup a a" "-fbv a a" "-f --backup=numbered -v a a" \
            "--backup a a" "-f --backup=numbered c2 c2" "-fb -S .x -v a a" \
            "-fb d d" "-fb a ./a" "-fb sym sym"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
# 9.5+: --backup with -n or --update=none-fail is refused; 9.11 refuses
# --update=none too (its tests/cp/cp-i.sh), whatever the order, even
# with --backup=none, and -u after it takes it back.
excl="cp8M: --backup is mutually exclusive with -n or --update=none-fail
Try 'cp8M --help' for more information."
fresh
check expect 1 "$excl" in_s cp8M -b -n a b
check expect 1 "$excl" in_s cp8M -n --backup=numbered a b
check expect 1 "$excl" in_s cp8M -S .x -n a b
check expect 1 "$excl" in_s cp8M --update=none-fail -b a b
check expect 1 "$excl" in_s cp8M -b --update=all -n a b
check expect 1 "$excl" in_s cp8M --backup --update=none a b
check expect 1 "$excl" in_s cp8M --update=none -b a b
check expect 1 "$excl" in_s cp8M --backup=none --update=none a b
check in_s content_is b old
[ ! -e s/b~ ] || { note "--backup --update=none made a backup"; failures=$((failures + 1)); }
check expect 0 "" in_s cp8M -b --update=none -u a b

# Same-file detection.
for args in "a a" "a ./a" "a a-hard" "a sym" "sym a" "a d/../a" "-f a a" \
            "-f a a-hard" "-b a a-hard" "-bv a sym" "-P sym a" "-d sym a" \
            "-f a sym" "--remove-destination a a-hard" \
            "--remove-destination a sym" "-b a a" "a abs-sym" "abs-sym a" \
            "-v a-hard a" "-fbv a a-hard" "-n a sym"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
# Into itself: how much is copied first depends on inode numbers (see
# tests/cp-recursive.sh), so only the messages and status are compared.
check run_both tree -r d d/../d
fresh
check expect 1 "cp8M: 'a' and 'a-hard' are the same file" in_s cp8M a a-hard
check expect 1 "cp8M: 'a' and 'sym' are the same file" in_s cp8M a sym
# -n and --update=none skip the check (9.5+ and 9.1 alike for -n).
check expect 0 "" in_s cp8M --update=none a a

# "will not overwrite just-created", which GNU keys by name: d/a-hard,
# made a link to d/a (just created) by the second operand, is not itself
# just-created, and the third operand replaces it.
for args in "s1/x s2/x dd" "-v s1/x s2/x dd" "-r s1/x s2/x dd" \
            "-b s1/x s2/x dd" "-r s1/. s2/. dd" "-f s1/x s2/x dd" \
            "--preserve=links a a-hard s3/a-hard d"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
fresh
check expect 1 "cp8M: will not overwrite just-created 'dd/x' with 's2/x'" \
  in_s cp8M s1/x s2/x dd
check in_s content_is dd/x x1

# Dangling destination symlinks, and POSIXLY_CORRECT writing through them.
for args in "a dangling" "-v a dangling" "-r a dangling" "a c dangling"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
check with_env POSIXLY_CORRECT=1 same_as_gnu a dangling
check with_env POSIXLY_CORRECT=1 same_as_gnu -v a dangling
fresh
check expect 1 "cp8M: not writing through dangling symlink 'dangling'" \
  in_s cp8M a dangling
[ ! -e s/nowhere ] || { note "wrote through a dangling symlink"; failures=$((failures + 1)); }
check with_env POSIXLY_CORRECT=1 expect 0 "" in_s cp8M a dangling
check in_s content_is nowhere new
[ -L s/dangling ] || { note "POSIXLY_CORRECT: the symlink was replaced"; failures=$((failures + 1)); }

# File and directory mismatches.
for args in "-r d b" "-rT d b" "-r d sym" "-rv s1 d b dd" "-r d a-hard"; do
  # shellcheck disable=SC2086
  check same_as_gnu $args
done
fresh
check expect 1 "cp8M: cannot overwrite non-directory 'b' with directory 'd'" \
  in_s cp8M -rT d b

# -f as nobody: an unwritable destination is removed and replaced.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  chmod 755 "$work"
  mkdir -p bin-gnu bin-cp8m
  ln -sf "$GNU_CP" bin-gnu/cp
  ln -sf "$CP8M" bin-cp8m/cp
  mkdir tree/nb
  echo ro >tree/nb/ro
  echo ro >tree/nb/rootro
  chmod 444 tree/nb/ro tree/nb/rootro
  # A dangling symlink in a directory nobody cannot write: the symlink
  # is what GNU reports, not the directory's permissions.
  mkdir tree/rootdir
  ln -s nowhere tree/rootdir/dangling
  chmod 644 tree/a tree/c
  chown nobody:nogroup tree/nb tree/nb/ro
  nobody_same () { # nobody_same ARGS...: same_as_gnu, both as nobody
    RUN_PREFIX=as_nobody
    same_as_gnu "$@"
    RUN_PREFIX=
  }
  for args in "a nb/ro" "-f a nb/ro" "-fv a nb/ro" "--remove-destination -v a nb/ro" \
              "-f a nb/rootro" "-bf a nb/ro" "-n a nb/ro" "-u a nb/ro" \
              "a rootdir/dangling"; do
    # shellcheck disable=SC2086
    check nobody_same $args
  done
  # -i on an unwritable destination asks differently; y is the same in
  # 9.1 and 9.11, n exits 1 from 9.2 on.
  check eval 'yes | nobody_same -i a nb/ro'
  check eval 'yes | nobody_same -fi a nb/ro'
  fresh
  chmod 755 s
  chown nobody:nogroup s/nb s/nb/ro
  run_as=as_nobody
  check prompt n 1 "cp8M: unwritable 'nb/ro' (mode 0444, r--r--r--); try anyway? " -i a nb/ro
  check in_s content_is nb/ro ro
  check prompt n 1 "cp8M: replace 'nb/ro', overriding mode 0444 (r--r--r--)? " -fi a nb/ro
  check in_s content_is nb/ro ro
  check prompt y 0 "cp8M: replace 'nb/ro', overriding mode 0444 (r--r--r--)? " -fi a nb/ro
  check in_s content_is nb/ro new
  run_as=
  fresh
  chmod 755 s
  check expect 0 "" as_nobody env PATH="$work/bin-cp8m:$PATH" sh -c 'cd s && exec cp -f a nb/ro'
  check in_s content_is nb/ro new
else
  note "no root or no setpriv: unprivileged checks skipped"
fi

[ "$failures" -eq 0 ] || fail "$failures check(s) failed (above)"
exit 0
