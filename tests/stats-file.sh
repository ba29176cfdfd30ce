#!/bin/sh
# --stats-file=FILE (issue 41): the JSON of --stats=json, byte for byte
# (issue 53), with what a backup script needs (exit status, each failed
# file's names, message and errno name, what --verify and --sync found,
# the start and end times), always written: after a
# clean run, after failed files, and after a failure before the first
# copy (a missing target directory).  A file that cannot be written is
# known before anything is copied.  FILE is replaced whole (a temporary
# beside it, renamed), so a reader never sees half of it.
. "${abs_top_srcdir:-.}/tests/init.sh"

command -v perl >/dev/null && perl -MJSON::PP -e 1 2>/dev/null ||
  skip "perl with JSON::PP is missing"
# field FILE EXPR: the perl expression EXPR on the decoded object $j.
field () {
  perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die;
    my $j = decode_json (<$f>); my $v = eval $ARGV[1]; die $@ if $@;
    print ref $v ? JSON::PP->new->canonical->encode ($v) : $v, "\n"' "$1" "$2"
}

echo data >a
mkdir d out

# 1. A clean run, with --verify and --sync.
cp8M --stats-file=ok.json --verify --sync a out/a || fail "a clean run failed"
[ "$(field ok.json '$j->{exit_status}')" = 0 ] || fail "exit_status: $(cat ok.json)"
[ "$(field ok.json '$j->{files}')" = 1 ] || fail "files: $(cat ok.json)"
[ "$(field ok.json '$j->{failures}')" = "[]" ] || fail "failures: $(cat ok.json)"
[ "$(field ok.json '$j->{verify}')" = '{"asked":true,"checked":1,"differed":0,"not_checked":0}' ] ||
  fail "verify: $(field ok.json '$j->{verify}')"
[ "$(field ok.json '$j->{sync}')" = '{"asked":true,"failed":0}' ] ||
  fail "sync: $(field ok.json '$j->{sync}')"
ls -A | grep -q '^\.cp8M-' && fail "a temporary was left"

# 2. Failed files: each with its names and the message printed; the
#    copies that could be made are made.
cp8M --stats-file=bad.json a nope d out 2>err && fail "a run with failures exited 0"
[ "$(field bad.json '$j->{exit_status}')" = 1 ] || fail "exit_status: $(cat bad.json)"
[ "$(field bad.json '$j->{errors}')" = 2 ] || fail "errors: $(cat bad.json)"
[ "$(field bad.json '$j->{failures}')" = \
  '[{"destination":"out/nope","errno":"ENOENT","message":"cannot stat '"'nope'"': No such file or directory","source":"nope"},{"destination":"out/d","errno":null,"message":"-r not specified; omitting directory '"'d'"'","source":"d"}]' ] ||
  fail "failures: $(field bad.json '$j->{failures}')"
# The messages are those on stderr, word for word.
field bad.json 'join "\n", map { "cp8M: $_->{message}" } @{$j->{failures}}' >msgs
cmp msgs err || fail "the kept messages differ from stderr: $(cat err)"
# A warning is no failure.
cp8M --stats-file=warn.json a a out 2>/dev/null
[ "$(field warn.json '$j->{failures}')" = "[]" ] || fail "a warning listed: $(cat warn.json)"

# 3. A failure before the first copy: the file is there all the same.
expect 1 "cp8M: target 'nodir/': No such file or directory" \
  cp8M --stats-file=early.json a d nodir/
[ "$(field early.json '$j->{exit_status} . " " . $j->{files}')" = "1 0" ] ||
  fail "early: $(cat early.json)"
[ "$(field early.json '$j->{failures}[0]{message}')" = "target 'nodir/': No such file or directory" ] ||
  fail "early failures: $(cat early.json)"

# 4. FILE cannot be written: said first, nothing copied.
expect 1 "cp8M: cannot create statistics file 'nodir/s.json': No such file or directory" \
  cp8M --stats-file=nodir/s.json a new
[ ! -e new ] || fail "a copy was made although the stats file could not be"

# 5. --stats=json on stderr is the same object, byte for byte, with the
#    run's start and end as RFC 3339 times; an old FILE is replaced whole.
cp8M --stats=json --stats-file=ok.json a out/a2 2>json || fail "--stats=json failed"
cmp json ok.json || fail "the two objects differ: $(cat json ok.json)"
start=$(field ok.json '$j->{start}') && end=$(field ok.json '$j->{end}') ||
  fail "no start or end: $(cat ok.json)"
s=$(date -d "$start" +%s%3N) && e=$(date -d "$end" +%s%3N) ||
  fail "start or end not a date: $start $end"
[ "$s" -le "$e" ] || fail "start after end: $start $end"
# And with failures: the same, each failure with its errno name.
cp8M --stats=json --stats-file=bad2.json a nope out 2>err2 && fail "nope copied"
tail -n 1 err2 | cmp - bad2.json || fail "the objects differ: $(cat err2 bad2.json)"
exit 0
