/* Option parsing.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "options.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>

#include "argmatch.h"
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
  DIRECT_OPTION,
  QUEUE_DEPTH_OPTION,
  REFLINK_OPTION,
  SPARSE_OPTION,
  HELP_OPTION,
  VERSION_OPTION
};

static char const *const direct_args[] = { "auto", "always", "never", NULL };
static enum engine_direct const direct_types[] =
  { ENGINE_DIRECT_AUTO, ENGINE_DIRECT_ALWAYS, ENGINE_DIRECT_NEVER };
ARGMATCH_VERIFY (direct_args, direct_types);

/* GNU cp's order, so the "Valid arguments" lists read the same.  */
static char const *const sparse_args[] = { "never", "auto", "always", NULL };
static enum engine_sparse const sparse_types[] =
  { ENGINE_SPARSE_NEVER, ENGINE_SPARSE_AUTO, ENGINE_SPARSE_ALWAYS };
ARGMATCH_VERIFY (sparse_args, sparse_types);

static char const *const reflink_args[] = { "auto", "always", "never", NULL };
static enum engine_reflink const reflink_types[] =
  { ENGINE_REFLINK_AUTO, ENGINE_REFLINK_ALWAYS, ENGINE_REFLINK_NEVER };
ARGMATCH_VERIFY (reflink_args, reflink_types);

/* version_etc prints this with "(C)" and gnulib's year; the year here is
   cp8M's own, so the second argument goes unused.  */
char const version_etc_copyright[] = "Copyright %s 2026 The cp8M authors.";

static struct option const long_options[] =
{
  { "buffer-size", required_argument, NULL, BUFFER_SIZE_OPTION },
  { "debug", no_argument, NULL, DEBUG_OPTION },
  { "direct", optional_argument, NULL, DIRECT_OPTION },
  { "queue-depth", required_argument, NULL, QUEUE_DEPTH_OPTION },
  { "reflink", optional_argument, NULL, REFLINK_OPTION },
  { "sparse", required_argument, NULL, SPARSE_OPTION },
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
  *o = (struct cp8m_options) {
    .buffer_size = CP8M_DEFAULT_BUFFER_SIZE,
    .queue_depth = CP8M_DEFAULT_QUEUE_DEPTH,
    .request = { .direct = ENGINE_DIRECT_AUTO, .sparse = ENGINE_SPARSE_AUTO,
                 .reflink = ENGINE_REFLINK_NEVER },
  };

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
        case DIRECT_OPTION:
          /* Bare --direct means always, like a forcedirectio mount.  */
          o->request.direct = optarg
            ? XARGMATCH ("--direct", optarg, direct_args, direct_types)
            : ENGINE_DIRECT_ALWAYS;
          break;
        case QUEUE_DEPTH_OPTION:
          {
            uintmax_t n;
            if (!c_isdigit (optarg[0])
                || xstrtoumax (optarg, NULL, 10, &n, "") != LONGINT_OK
                || n < 1 || n > ENGINE_MAX_DEPTH)
              error (EXIT_FAILURE, 0, "invalid queue depth %s (1 to %d)",
                     quote (optarg), ENGINE_MAX_DEPTH);
            o->queue_depth = n;
          }
          break;
        case REFLINK_OPTION:
          o->request.reflink = optarg
            ? XARGMATCH ("--reflink", optarg, reflink_args, reflink_types)
            : ENGINE_REFLINK_ALWAYS;
          break;
        case SPARSE_OPTION:
          o->request.sparse = XARGMATCH ("--sparse", optarg, sparse_args,
                                         sparse_types);
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

  if (o->request.reflink == ENGINE_REFLINK_ALWAYS
      && o->request.sparse != ENGINE_SPARSE_AUTO)
    {
      error (0, 0, "--reflink can be used only with --sparse=auto");
      cp8m_usage (EXIT_FAILURE);
    }
  if (o->target_directory && o->no_target_directory)
    error (EXIT_FAILURE, 0, "cannot combine --target-directory (-t) "
           "and --no-target-directory (-T)");
  return optind;
}
