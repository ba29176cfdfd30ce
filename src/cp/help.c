/* --help text.  help2man turns it into man/cp8M.1, so keep GNU's layout:
   a Usage line, option lines indented by two spaces, descriptions from
   column 30.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>

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
Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY, moving file data\n\
in large aligned pieces (8 MiB by default) that bypass the page cache, so\n\
that big files copy at the speed of the device.\n\
\n\
Mandatory arguments to long options are mandatory for short options too.\n\
", stdout);
  fputs ("\
  -a, --archive                same as -dR --preserve=all\n\
      --attributes-only        don't copy the file data, just the attributes\n\
      --backup[=CONTROL]       make a backup of each existing destination file\
\n\
  -b                           like --backup but does not accept an argument\n\
      --copy-contents          copy contents of special files when recursive\n\
  -d                           same as --no-dereference --preserve=links\n\
      --debug                  explain how a file is copied.  Implies -v\n\
", stdout);
  fputs ("\
  -f, --force                  if an existing destination file cannot be\n\
                                 opened, remove it and try again (this option\n\
                                 is ignored when the -n option is also used)\n\
  -i, --interactive            prompt before overwrite (overrides a previous -n\
\n\
                                  option)\n\
  -H                           follow command-line symbolic links in SOURCE\n\
  -l, --link                   hard link files instead of copying\n\
  -L, --dereference            always follow symbolic links in SOURCE\n\
", stdout);
  fputs ("\
  -n, --no-clobber             (deprecated) silently skip existing files.\n\
                                 See also --update\n\
  -P, --no-dereference         never follow symbolic links in SOURCE\n\
  -p                           same as --preserve=mode,ownership,timestamps\n\
      --preserve[=ATTR_LIST]   preserve the specified attributes\n\
      --no-preserve=ATTR_LIST  don't preserve the specified attributes\n\
      --parents                use full source file name under DIRECTORY\n\
", stdout);
  fputs ("\
  -R, -r, --recursive          copy directories recursively\n\
      --reflink[=WHEN]         control clone/CoW copies. See below\n\
      --remove-destination     remove each existing destination file before\n\
                                 attempting to open it (contrast with --force)\
\n\
      --sparse=WHEN            control creation of sparse files. See below\n\
      --strip-trailing-slashes  remove any trailing slashes from each SOURCE\n\
                                 argument\n\
", stdout);
  fputs ("\
  -s, --symbolic-link          make symbolic links instead of copying\n\
  -S, --suffix=SUFFIX          override the usual backup suffix\n\
  -t, --target-directory=DIRECTORY  copy all SOURCE arguments into DIRECTORY\n\
  -T, --no-target-directory    treat DEST as a normal file\n\
      --update[=UPDATE]        control which existing files are updated;\n\
                                 UPDATE={all,none,none-fail,older(default)}\n\
  -u                           equivalent to --update[=older].  See below\n\
  -v, --verbose                explain what is being done\n\
", stdout);
  fputs ("\
      --keep-directory-symlink  follow existing symlinks to directories\n\
  -x, --one-file-system        stay on this file system\n\
  -Z                           set SELinux security context of destination\n\
                                 file to default type\n\
      --context[=CTX]          like -Z, or if CTX is specified then set the\n\
                                 SELinux or SMACK security context to CTX\n\
", stdout);
  printf ("\
\n\
cp8M's own options:\n\
      --buffer-size=SIZE       read and write SIZE bytes at a time (default\n\
                                 8M); SIZE takes K, M, G (powers of 1024),\n\
                                 KB, MB, GB (powers of 1000) or KiB, MiB, GiB,\n\
                                 is rounded up to a multiple of 4096 and may\n\
                                 be at most 1G\n\
      --direct[=WHEN]          bypass the page cache: WHEN is auto (the\n\
                                 default: files of at least one buffer whose\n\
                                 data is not already mostly cached), always\n\
                                 (also a bare --direct) or never\n\
      --queue-depth=N          keep N direct I/Os of one buffer each in\n\
                                 flight (1 to 64; default %u); buffers\n\
                                 take at most a quarter of the memory\n\
                                 free to this process (its cgroups,\n\
                                 MemAvailable), fewer or smaller if need be\n\
      --help        display this help and exit\n\
      --version     output version information and exit\n\
", CP8M_DEFAULT_QUEUE_DEPTH);
  fputs ("\
\n\
ATTR_LIST is a comma-separated list of attributes.  Attributes are 'mode'\n\
for permissions (including any ACL and xattr permissions), 'ownership' for\n\
user and group, 'timestamps' for file timestamps, 'links' for hard links,\n\
'context' for security context, 'xattr' for extended attributes, and 'all'\n\
for all attributes.\n\
\n\
By default, sparse SOURCE files are detected by a crude heuristic and the\n\
corresponding DEST file is made sparse as well.  That is the behavior\n\
selected by --sparse=auto.  Specify --sparse=always to create a sparse DEST\n\
file whenever the SOURCE file contains a long enough sequence of zero bytes.\n\
Use --sparse=never to inhibit creation of sparse files.\n\
\n\
UPDATE controls which existing files in the destination are replaced.\n\
'all' is the default operation when an --update option is not specified,\n\
and results in all existing files in the destination being replaced.\n\
'none' is like the --no-clobber option, in that no files in the\n\
destination are replaced, and skipped files do not induce a failure.\n\
'none-fail' also ensures no files are replaced in the destination,\n\
but any skipped files are diagnosed and induce a failure.\n\
'older' is the default operation when --update is specified, and results\n\
in files being replaced if they're older than the corresponding source file.\n\
", stdout);
  fputs ("\
\n\
Unlike GNU cp, cp8M makes a physical copy by default (--reflink=never): a\n\
backup must not share its blocks with the original.  With --reflink=auto it\n\
tries a lightweight copy, where the data blocks are copied only when\n\
modified, falling back to a standard copy if this is not possible; with\n\
--reflink[=always] it fails if that is not supported.\n\
\n\
The backup suffix is '~', unless set with --suffix or SIMPLE_BACKUP_SUFFIX.\n\
The version control method may be selected via the --backup option or\n\
through the VERSION_CONTROL environment variable.  Here are the values:\n\
\n\
  none, off       never make backups (even if --backup is given)\n\
  numbered, t     make numbered backups\n\
  existing, nil   numbered if numbered backups exist, simple otherwise\n\
  simple, never   always make simple backups\n\
\n\
As a special case, cp makes a backup of SOURCE when the force and backup\n\
options are given and SOURCE and DEST are the same name for an existing,\n\
regular file.\n\
\n\
A destination cp8M created is removed if its copy fails or is interrupted.\n\
Exit status is 0 when every file was copied and 1 otherwise.\n\
", stdout);
  printf ("\nReport bugs to: %s\n", PACKAGE_BUGREPORT);
  exit (status);
}
