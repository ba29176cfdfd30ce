/* Option parsing.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "options.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>

#include "c-ctype.h"
#include "error.h"
#include "iosizes.h"
#include "quote.h"
#include "version-etc.h"
#include "xstrtol.h"

/* Long-only options get values outside the char range.  */
enum
{
  BUFFER_SIZE_OPTION = CHAR_MAX + 1,
  DEBUG_OPTION,
  HELP_OPTION,
  VERSION_OPTION
};

/* version_etc prints this with "(C)" and gnulib's year; the year here is
   cp8M's own, so the second argument goes unused.  */
char const version_etc_copyright[] = "Copyright %s 2026 The cp8M authors.";

static struct option const long_options[] =
{
  { "buffer-size", required_argument, NULL, BUFFER_SIZE_OPTION },
  { "debug", no_argument, NULL, DEBUG_OPTION },
  { "no-target-directory", no_argument, NULL, 'T' },
  { "target-directory", required_argument, NULL, 't' },
  { "verbose", no_argument, NULL, 'v' },
  { "help", no_argument, NULL, HELP_OPTION },
  { "version", no_argument, NULL, VERSION_OPTION },
  { NULL, 0, NULL, 0 }
};

bool
cp8m_parse_size (char const *arg, size_t *size)
{
  /* xstrtoumax would read a bare "M" as 1M; a size starts with a digit.  */
  if (!c_isdigit (arg[0]))
    return false;
  uintmax_t n;
  /* "0" lets a second suffix letter follow the first: KiB, MB...  */
  strtol_error e = xstrtoumax (arg, NULL, 10, &n, "kKmMgGtTpPeEzZyY0");
  if (e != LONGINT_OK || n == 0 || n > CP8M_MAX_BUFFER_SIZE)
    return false;
  *size = n;
  return true;
}

int
cp8m_parse_options (int argc, char **argv, struct cp8m_options *o)
{
  *o = (struct cp8m_options) { .buffer_size = CP8M_DEFAULT_BUFFER_SIZE };

  int c;
  while ((c = getopt_long (argc, argv, "t:Tv", long_options, NULL)) != -1)
    {
      switch (c)
        {
        case 't':
          if (o->target_directory)
            error (EXIT_FAILURE, 0, "multiple target directories specified");
          o->target_directory = optarg;
          break;
        case 'T':
          o->no_target_directory = true;
          break;
        case 'v':
          o->verbose = true;
          break;
        case BUFFER_SIZE_OPTION:
          if (!cp8m_parse_size (optarg, &o->buffer_size))
            error (EXIT_FAILURE, 0, "invalid buffer size %s", quote (optarg));
          break;
        case DEBUG_OPTION:
          /* As in GNU cp, --debug reports each file, so it implies -v.  */
          o->debug = o->verbose = true;
          break;
        case HELP_OPTION:
          cp8m_usage (EXIT_SUCCESS);
        case VERSION_OPTION:
          version_etc (stdout, "cp8M", PACKAGE_NAME, PACKAGE_VERSION,
                       "the cp8M authors", (char *) NULL);
          exit (EXIT_SUCCESS);
        default:
          cp8m_usage (EXIT_FAILURE);
        }
    }

  if (o->target_directory && o->no_target_directory)
    error (EXIT_FAILURE, 0, "cannot combine --target-directory (-t) "
           "and --no-target-directory (-T)");
  return optind;
}
