/* --help text.  help2man turns it into man/cp8M.1, so keep GNU's layout:
   a Usage line, option lines indented by two spaces, descriptions from
   column 30.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "iosizes.h"
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
Copy SOURCE to DEST, or several SOURCEs into DIRECTORY, moving the data in\n\
large aligned pieces (8 MiB by default) so that copies of big files run at\n\
the speed of the device.\n\
\n\
Mandatory arguments to long options are mandatory for short options too.\n\
", stdout);
  printf ("\
      --buffer-size=SIZE       read and write SIZE bytes at a time (default\n\
                                 8M); SIZE takes K, M, G (powers of 1024),\n\
                                 KB, MB, GB (powers of 1000) or KiB, MiB, GiB,\n\
                                 is rounded up to a multiple of 4096 and may\n\
                                 be at most 1G\n\
      --debug                  explain how each file is copied; implies -v\n\
      --direct[=WHEN]          bypass the page cache: WHEN is auto (the\n\
                                 default: files of at least one buffer whose\n\
                                 data is not already mostly cached), always\n\
                                 (also a bare --direct) or never\n\
      --queue-depth=N          keep N direct I/Os of one buffer each in\n\
                                 flight (1 to 64; default %u)\n\
      --reflink[=WHEN]         clone or offload the data when the filesystem\n\
                                 can: WHEN is never (the default in cp8M: a\n\
                                 backup is a physical copy), auto, or always\n\
                                 (also a bare --reflink: fail if no clone)\n\
      --sparse=WHEN            keep holes: auto (default: where the source\n\
                                 has them), always (also all-zero blocks),\n\
                                 never\n\
  -t, --target-directory=DIRECTORY  copy all SOURCE arguments into DIRECTORY\n\
  -T, --no-target-directory    treat DEST as a normal file, never as a\n\
                                 directory to copy into\n\
  -v, --verbose                print the name of each file as it is copied\n\
      --help        display this help and exit\n\
      --version     output version information and exit\n\
", CP8M_DEFAULT_QUEUE_DEPTH);
  fputs ("\
\n\
A new destination file gets the mode of its source less the umask; an\n\
existing one is truncated and rewritten in place, keeping its mode.  A\n\
destination cp8M created is removed if its copy fails or is interrupted.\n\
Directories are not copied yet (there is no -r).\n\
\n\
Exit status is 0 when every file was copied and 1 otherwise.\n\
", stdout);
  printf ("\nReport bugs to: %s\n", PACKAGE_BUGREPORT);
  exit (status);
}
