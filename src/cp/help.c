/* --help text.  help2man turns it into man/cp8M.1, so it keeps the layout
   GNU users know: the Usage lines, option lines indented by two spaces
   with their descriptions from column 32 and continuation lines from
   column 34, paragraphs after the options, and nothing wider than 79
   columns (tests/help.sh checks the widths and that every option the
   parser takes is listed).  The option names and the usage lines are
   GNU cp's interface; the words are cp8M's own.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "engine/engine.h"
#include "jobs.h"
#include "options.h"
#include "progname.h"

void
cp8m_usage (int status)
{
  if (status != EXIT_SUCCESS)
    {
      fprintf (stderr, "Try '%s --help' for more information.\n",
               program_name);
      exit (status);
    }

  printf ("\
Usage: %s [OPTION]... [-T] SOURCE DEST\n\
  or:  %s [OPTION]... SOURCE... DIRECTORY\n\
  or:  %s [OPTION]... -t DIRECTORY SOURCE...\n",
          program_name, program_name, program_name);
  fputs ("\
Copy the file SOURCE to the name DEST, or put a copy of each SOURCE into\n\
DIRECTORY under its own name.  File data moves in large aligned pieces\n\
(8 MiB unless --buffer-size says otherwise), past the page cache where that\n\
helps: big files copy at the speed of the device and leave the machine's\n\
memory as it was.\n\
\n\
When a long option below needs an argument, its short form needs it too.\n\
\n\
", stdout);
  fputs ("\
  -a, --archive                like -dR --preserve=all, except that failing\n\
                                 to copy extended attributes is no error\n\
      --attributes-only        copy no file data: a new destination is made\n\
                                 empty, an existing one keeps its data, and\n\
                                 only attributes are copied\n\
      --backup[=CONTROL]       before replacing an existing destination, move\n\
                                 it aside to a backup name (CONTROL: below)\n\
  -b                           short for --backup, taking no argument\n\
      --copy-contents          with -R, read FIFOs and device files as data\n\
                                 and copy what they hold into regular files,\n\
                                 instead of making new FIFOs and devices\n\
  -d                           short for -P --preserve=links\n\
      --debug                  also say how each file's data was copied\n\
                                 (clone, offload, direct or buffered I/O,\n\
                                 holes) and, once, the memory budget;\n\
                                 implies -v\n\
", stdout);
  fputs ("\
  -f, --force                  when an existing destination cannot be opened\n\
                                 for writing, delete it and try once more;\n\
                                 with -l or -s, replace existing\n\
                                 destinations; no effect with -n\n\
  -i, --interactive            ask before replacing an existing destination;\n\
                                 any answer but yes skips it and makes the\n\
                                 exit status 1 (cancels an earlier -n)\n\
  -H                           follow the symbolic links named as SOURCE\n\
                                 operands, but not those found while\n\
                                 copying a directory\n\
  -l, --link                   create hard links to the source files in\n\
                                 place of copies; directories, with -R, are\n\
                                 still made\n\
  -L, --dereference            follow every symbolic link in the sources and\n\
                                 copy the file it points to\n\
", stdout);
  fputs ("\
  -n, --no-clobber             deprecated: leave every existing destination\n\
                                 alone, silently; same as --update=none, but\n\
                                 wins over any --update and an earlier -i\n\
  -P, --no-dereference         copy symbolic links in the sources as links;\n\
                                 the default with -R (unless -l is given),\n\
                                 while without -R links are followed\n\
  -p                           short for --preserve=mode,ownership,timestamps\n\
      --preserve[=ATTR_LIST]   give each copy these attributes of its source\n\
                                 (mode,ownership,timestamps if no list)\n\
      --no-preserve=ATTR_LIST  do not copy these attributes, even when an\n\
                                 earlier -a, -p or --preserve asked for them\n\
      --parents                append each SOURCE name as given, directories\n\
                                 included, to DIRECTORY, and make whichever\n\
                                 of those directories are missing\n\
      --path                   old name of --parents\n\
", stdout);
  fputs ("\
  -R, -r, --recursive          copy each directory and all it contains\n\
      --reflink[=WHEN]         share data blocks with the source instead of\n\
                                 copying them (WHEN: below)\n\
      --remove-destination     delete each existing destination before the\n\
                                 copy instead of writing into it (-f deletes\n\
                                 it only if it cannot be opened)\n\
      --sparse=WHEN            which parts of a copy are left as holes\n\
                                 (WHEN: below)\n\
      --strip-trailing-slashes  drop the slashes at the end of each SOURCE\n\
", stdout);
  fputs ("\
  -s, --symbolic-link          create symbolic links to the source files in\n\
                                 place of copies; unless SOURCE is an\n\
                                 absolute name, DEST must be in the current\n\
                                 directory\n\
  -S, --suffix=SUFFIX          name simple backups with SUFFIX instead of\n\
                                 '~'; implies -b\n\
  -t, --target-directory=DIRECTORY  copy every SOURCE into DIRECTORY\n\
  -T, --no-target-directory    never read DEST as a directory to copy into:\n\
                                 it is the name of the copy itself\n\
      --update[=UPDATE]        choose which existing destinations are\n\
                                 replaced: UPDATE is all, none, none-fail or\n\
                                 older (a bare --update); see below\n\
  -u                           short for --update=older\n\
  -v, --verbose                print each copy as 'SOURCE' -> 'DEST', and\n\
                                 each destination deleted to make room\n\
", stdout);
  fputs ("\
      --keep-directory-symlink  when the destination of a directory is a\n\
                                 symbolic link to a directory, copy into\n\
                                 the directory it points to\n\
  -x, --one-file-system        do not copy what is on another file system:\n\
                                 a mount point inside a tree becomes an\n\
                                 empty directory\n\
  -Z                           give each copy the default SELinux context of\n\
                                 its place (see the SELinux note below)\n\
      --context[=CTX]          like -Z, or with CTX, set each copy's SELinux\n\
                                 context to CTX\n\
", stdout);
  printf ("\
\n\
cp8M's own options:\n\
      --atomic                 replace an existing regular file whole: the\n\
                                 copy is made beside it and renamed over it\n\
                                 once complete (verified and synced if asked),\n\
                                 so the name never holds part of a file;\n\
                                 it keeps the old file's mode, owner, ACL\n\
                                 and extended attributes\n\
      --files-from=FILE        copy the files FILE names too, one a line\n\
                                 ('-': standard input), into the DIRECTORY\n\
                                 of -t or the last operand, as if each\n\
                                 were an operand; a bad entry is reported\n\
                                 by its number, the others are copied\n\
      --null                   names in --files-from's FILE end with a\n\
                                 null byte, as find -print0 writes them\n\
      --checksum-file=FILE     write a line per regular file copied to FILE,\n\
                                 its hash taken as the data was read, for\n\
                                 'sha256sum -c FILE' (or 'xxhsum -c') run\n\
                                 in FILE's directory; written at the end\n\
      --checksum=ALGO          the hash of --checksum-file: sha256 (the\n\
                                 default) or xxh3 (with libxxhash)\n\
      --bwlimit=RATE           write at most RATE bytes a second, all files\n\
                                 together (0, the default: no limit); RATE\n\
                                 takes the suffixes of SIZE below (a bare\n\
                                 number is bytes, not rsync's KiB: below\n\
                                 1M it is warned of); direct, buffered\n\
                                 and stream copies all keep it\n\
      --pid=PID                with --bwlimit and no file operands: give\n\
                                 the cp8M copy running as PID the new limit\n\
                                 RATE, and copy nothing (see below)\n\
      --buffer-size=SIZE       move data SIZE bytes at a time (default 8M);\n\
                                 SIZE takes the suffix K, M or G (powers of\n\
                                 1024), KB, MB or GB (powers of 1000), or\n\
                                 KiB, MiB or GiB; it is rounded up to a\n\
                                 multiple of 4096 and may be at most 1G\n\
      --direct[=WHEN]          whether data bypasses the page cache: WHEN is\n\
                                 auto (the default: yes for files of one\n\
                                 buffer or more whose data is not already\n\
                                 mostly cached), always (a bare --direct),\n\
                                 or never\n\
      --queue-depth=N          keep up to N direct I/Os of one buffer each\n\
                                 in flight, 1 to %d (default %d); all\n\
                                 buffers together take at most a quarter of\n\
                                 the memory still free to this process (its\n\
                                 cgroups' limits, MemAvailable), so there\n\
                                 may be fewer or smaller ones\n\
      --files-in-flight=N      copy up to N small files at once, 1 to %d\n\
                                 (default %d; 1: one after another); what\n\
                                 is printed keeps the order of the walk\n\
      --progress[=WHEN]        show how far the copy has got, on stderr:\n\
                                 WHEN is auto (a bare --progress: one line\n\
                                 kept up to date on a terminal, nothing\n\
                                 elsewhere), always (plain lines, one a\n\
                                 second, into files and pipes too), numeric\n\
                                 (the percentage done alone, a line each,\n\
                                 for scripts) or never (the default)\n\
      --stats[=FORMAT]         at the end, tell on stderr what was copied and\n\
                                 how: FORMAT is text (a bare --stats) or\n\
                                 json (one object on one line; its fields\n\
                                 are listed in the manual)\n\
      --stats-file=FILE        write --stats=json's report to FILE at the end,\n\
                                 with the exit status, each failure's files\n\
                                 and message, and what --verify and --sync\n\
                                 found; also when cp8M fails early\n\
      --verify                 read each regular file's copy back, past the\n\
                                 page cache where the file system allows,\n\
                                 and check it against what was read from the\n\
                                 source; a copy that differs is an error\n\
      --sync                   get each file's data and metadata, and the\n\
                                 directory entries made, onto stable storage\n\
                                 before going on: exit status 0 then means\n\
                                 the copies survive a power loss\n\
      --help                   print this text and exit\n\
      --version                print the version and license, and exit\n\
", (int) ENGINE_MAX_DEPTH, (int) CP8M_DEFAULT_QUEUE_DEPTH,
          (int) JOBS_MAX, (int) JOBS_DEFAULT);
  fputs ("\
\n\
ATTR_LIST is a list of attribute names separated by commas: 'mode'\n\
(permission bits and ACLs), 'ownership' (owner and group), 'timestamps'\n\
(access and modification times), 'links' (files that are hard links to\n\
each other in the sources stay so in the copy), 'context' (the SELinux\n\
context; see below), 'xattr' (extended attributes), and 'all' (every one\n\
of these but 'context').\n\
\n\
WHEN for --sparse: 'auto', the default, keeps the holes of a source that\n\
has any (it takes less disk space than its size), found with SEEK_DATA and\n\
SEEK_HOLE.  'always' also makes a hole of every block of data (4 KiB, or\n\
the device's alignment if larger) that holds only zero bytes, so the copy\n\
may take less space than its source.  'never' writes every byte, so the\n\
copy has no holes.  Holes are made only in a regular-file destination.\n\
", stdout);
  fputs ("\
\n\
UPDATE decides the fate of an existing destination that is not a\n\
directory.  'all' (what happens without --update) replaces it.  'none'\n\
keeps it, without a message, and the exit status stays 0: what -n does.\n\
'none-fail' keeps it too, but says so in an error and makes the exit\n\
status 1.  'older' (what -u and a bare --update mean) replaces it only if\n\
its modification time is earlier than its source's.\n\
\n\
WHEN for --reflink: 'never', cp8M's default (GNU cp's is 'auto'), always\n\
copies the data, so that a backup shares no disk blocks with the file it\n\
protects.  'auto' clones each file where the file system can (the copy\n\
then shares the source's blocks until one of them changes), else may let\n\
the kernel copy the data (copy_file_range), else copies as usual.\n\
'always', or a bare --reflink, clones or fails; it needs --sparse=auto.\n\
", stdout);
  fputs ("\
\n\
A backup is named after the destination, with '~' appended, or the suffix\n\
given by --suffix or else by the SIMPLE_BACKUP_SUFFIX environment\n\
variable.  CONTROL, or else the VERSION_CONTROL environment variable, or\n\
else 'existing', picks the kind of backup:\n\
\n\
  none, off       no backup at all, even with --backup or -b\n\
  numbered, t     a numbered backup: DEST.~1~, then DEST.~2~, and so on\n\
  existing, nil   numbered if DEST has numbered backups already, else simple\n\
  simple, never   a simple backup: DEST~ (or DEST with the suffix)\n\
\n\
With --force and a backup asked for, SOURCE and DEST may name the same\n\
existing regular file: the file is then copied to its backup name and\n\
itself left as it is.\n\
", stdout);
  fputs ("\
\n\
cp8M has no SELinux support: where SELinux is off, -Z does nothing and\n\
--context=CTX is ignored with a warning (--preserve=context is refused);\n\
where it is on, -Z and --context are refused.\n\
\n\
If a copy fails or is interrupted by a signal (any that ends a process\n\
by default: INT, TERM, HUP, QUIT, PIPE...), nothing is left under the\n\
name of a new destination file, which appears only once its copy is\n\
complete, and a backup made by --backup is put back.  An existing file\n\
is rewritten in place, as GNU cp does (and may then be left part\n\
written), unless --atomic is given.  A pipe, FIFO or device is copied to\n\
its destination's name as it is read.\n\
\n\
A symbolic link at the destination (an existing DEST or file in it, the\n\
target directory, a directory --parents meets) is followed only when it\n\
belongs to the user cp8M runs as or to the owner of its directory, the\n\
rule of Linux's protected_symlinks applied in every directory: another\n\
user's link is refused ('not following symbolic link'), or replaced with\n\
-f.  GNU cp follows them all.\n\
\n\
A long option may be shortened as GNU cp allows: a prefix that fits one of\n\
GNU cp's options alone means that option, as it does there (--sy is\n\
--symbolic-link, --b is --backup).  cp8M's own options are known by their\n\
full names and by prefixes that no GNU option starts with (--syn: --sync).\n\
\n\
A copy under way can be given another limit without starting again:\n\
'cp8M --bwlimit=50M --pid=PID' sets 50 MiB/s for the cp8M whose process ID\n\
is PID (its own user, or root, may do so), and --bwlimit=0 lifts the limit.\n\
The signal that carries it goes only to a process proven to be a cp8M copy\n\
(through a pidfd and /proc: Linux 5.3 or later); anything else is refused.\n\
--progress, the status line and --stats show the limit in force.\n\
\n\
Sending cp8M the signal USR1 (kill -USR1 PID) makes it print one line on\n\
stderr on how far it has got, and carry on with the copy.\n\
\n\
Exit status: 0 if all went well; 1 if a file could not be copied, was\n\
declined at a -i prompt, or was kept by --update=none-fail.\n\
", stdout);
  printf ("\nReport bugs to %s.\n", PACKAGE_BUGREPORT);
  exit (status);
}

/* After version_etc's paragraphs: a packager (or a user filing a bug)
   learns here which optional libraries this binary has, since a static
   or musl build may lack some and then behaves differently (--verify
   compares byte by byte without libxxhash, -p copies no ACLs without
   libacl).  */
void
cp8m_print_build (void)
{
  char const *xxh = engine_hash_library (ENGINE_HASH_XXH3);
  char const *dio = engine_dio_method ();
  printf ("\nBuilt with:\n");
#if USE_ACL
  printf ("  ACLs (-p, -a, --preserve=mode): copied (libacl)\n");
#else
  printf ("  ACLs (-p, -a, --preserve=mode): not copied (no libacl)\n");
#endif
  printf ("  --verify: %s\n",
          xxh ? "XXH3 hashes (libxxhash)" : "byte-by-byte comparison");
  printf ("  --checksum: sha256 (%s)%s\n",
          engine_hash_library (ENGINE_HASH_SHA256),
          xxh ? ", xxh3 (libxxhash)" : "");
  printf ("  direct I/O: %s\n", dio ? dio : "none");
#ifdef __GLIBC__
  printf ("  C library: glibc %d.%d", __GLIBC__, __GLIBC_MINOR__);
#else
  printf ("  C library: not glibc");
#endif
  printf (", linked %s\n", CP8M_STATIC ? "statically" : "dynamically");
}
