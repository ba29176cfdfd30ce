/* Option parsing: GNU cp's options, spellings, defaults and conflicts,
   plus cp8M's own long options.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "options.h"

#include <getopt.h>
#include <libintl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "argmatch.h"
#include "c-ctype.h"
#include "diag.h"
#include "error.h"
#include "jobs.h"
#include "quote.h"
#include "version-etc.h"
#include "xalloc.h"
#include "xstrtol.h"

/* Long-only options get values outside the char range.  */
enum
{
  ATTRIBUTES_ONLY_OPTION = CHAR_MAX + 1,
  COPY_CONTENTS_OPTION,
  DEBUG_OPTION,
  NO_PRESERVE_OPTION,
  PARENTS_OPTION,
  PRESERVE_OPTION,
  REMOVE_DESTINATION_OPTION,
  SPARSE_OPTION,
  REFLINK_OPTION,
  STRIP_TRAILING_SLASHES_OPTION,
  KEEP_DIRECTORY_SYMLINK_OPTION,
  HELP_OPTION,
  VERSION_OPTION,
  BUFFER_SIZE_OPTION,
  DIRECT_OPTION,
  QUEUE_DEPTH_OPTION,
  FILES_IN_FLIGHT_OPTION,
  PROGRESS_OPTION,
  STATS_OPTION,
  VERIFY_OPTION,
  SYNC_OPTION,
  BWLIMIT_OPTION,
  PID_OPTION,
  ATOMIC_OPTION,
  STATS_FILE_OPTION,
  CHECKSUM_FILE_OPTION,
  CHECKSUM_OPTION,
  FILES_FROM_OPTION,
  NULL_OPTION,
  GNU_AMBIGUOUS_OPTION
};

static char const *const direct_args[] = { "auto", "always", "never", NULL };
static enum engine_direct const direct_types[] =
  { ENGINE_DIRECT_AUTO, ENGINE_DIRECT_ALWAYS, ENGINE_DIRECT_NEVER };
ARGMATCH_VERIFY (direct_args, direct_types);

/* GNU cp's orders, so the "Valid arguments" lists read the same.  */
static char const *const sparse_args[] = { "never", "auto", "always", NULL };
static enum engine_sparse const sparse_types[] =
  { ENGINE_SPARSE_NEVER, ENGINE_SPARSE_AUTO, ENGINE_SPARSE_ALWAYS };
ARGMATCH_VERIFY (sparse_args, sparse_types);

static char const *const progress_args[] = { "auto", "always", "never",
                                             "numeric", NULL };
static enum progress_when const progress_types[] =
  { PROGRESS_AUTO, PROGRESS_ALWAYS, PROGRESS_NEVER, PROGRESS_NUMERIC };
ARGMATCH_VERIFY (progress_args, progress_types);

static char const *const checksum_args[] = { "sha256", "xxh3", NULL };
static enum engine_hash const checksum_types[] =
  { ENGINE_HASH_SHA256, ENGINE_HASH_XXH3 };
ARGMATCH_VERIFY (checksum_args, checksum_types);

static char const *const stats_args[] = { "text", "json", NULL };
static enum stats_format const stats_types[] = { STATS_TEXT, STATS_JSON };
ARGMATCH_VERIFY (stats_args, stats_types);

static char const *const reflink_args[] = { "auto", "always", "never", NULL };
static enum engine_reflink const reflink_types[] =
  { ENGINE_REFLINK_AUTO, ENGINE_REFLINK_ALWAYS, ENGINE_REFLINK_NEVER };
ARGMATCH_VERIFY (reflink_args, reflink_types);

static char const *const update_args[] =
  { "all", "none", "none-fail", "older", NULL };
static enum update_mode const update_types[] =
  { UPDATE_ALL, UPDATE_NONE, UPDATE_NONE_FAIL, UPDATE_OLDER };
ARGMATCH_VERIFY (update_args, update_types);

enum preserve_attr { P_MODE, P_TIMESTAMPS, P_OWNERSHIP, P_LINKS, P_CONTEXT,
                     P_XATTR, P_ALL };
static char const *const preserve_args[] =
  { "mode", "timestamps", "ownership", "links", "context", "xattr", "all",
    NULL };
static enum preserve_attr const preserve_types[] =
  { P_MODE, P_TIMESTAMPS, P_OWNERSHIP, P_LINKS, P_CONTEXT, P_XATTR, P_ALL };
ARGMATCH_VERIFY (preserve_args, preserve_types);

/* version_etc prints this with "(C)" and gnulib's year; the year here is
   cp8M's own, so the second argument goes unused.  */
char const version_etc_copyright[] = "Copyright %s 2026 The cp8M authors.";

/* GNU cp 9.11's long options, in its order: getopt lists the candidates
   of an ambiguous abbreviation in table order, and the message must read
   the same.  An abbreviation is resolved among these first, as GNU cp
   resolves it (see resolve_abbreviations), so that a script written for
   GNU cp means what it meant there.  */
static struct option const gnu_options[] =
{
  { "archive", no_argument, NULL, 'a' },
  { "attributes-only", no_argument, NULL, ATTRIBUTES_ONLY_OPTION },
  { "backup", optional_argument, NULL, 'b' },
  { "copy-contents", no_argument, NULL, COPY_CONTENTS_OPTION },
  { "debug", no_argument, NULL, DEBUG_OPTION },
  { "dereference", no_argument, NULL, 'L' },
  { "force", no_argument, NULL, 'f' },
  { "interactive", no_argument, NULL, 'i' },
  { "link", no_argument, NULL, 'l' },
  { "no-clobber", no_argument, NULL, 'n' },
  { "no-dereference", no_argument, NULL, 'P' },
  { "no-preserve", required_argument, NULL, NO_PRESERVE_OPTION },
  { "no-target-directory", no_argument, NULL, 'T' },
  { "one-file-system", no_argument, NULL, 'x' },
  { "parents", no_argument, NULL, PARENTS_OPTION },
  { "path", no_argument, NULL, PARENTS_OPTION },
  { "preserve", optional_argument, NULL, PRESERVE_OPTION },
  { "recursive", no_argument, NULL, 'R' },
  { "remove-destination", no_argument, NULL, REMOVE_DESTINATION_OPTION },
  { "sparse", required_argument, NULL, SPARSE_OPTION },
  { "reflink", optional_argument, NULL, REFLINK_OPTION },
  { "strip-trailing-slashes", no_argument, NULL,
    STRIP_TRAILING_SLASHES_OPTION },
  { "suffix", required_argument, NULL, 'S' },
  { "symbolic-link", no_argument, NULL, 's' },
  { "target-directory", required_argument, NULL, 't' },
  { "update", optional_argument, NULL, 'u' },
  { "verbose", no_argument, NULL, 'v' },
  { "keep-directory-symlink", no_argument, NULL,
    KEEP_DIRECTORY_SYMLINK_OPTION },
  { "context", optional_argument, NULL, 'Z' },
  { "help", no_argument, NULL, HELP_OPTION },
  { "version", no_argument, NULL, VERSION_OPTION },
};

/* cp8M's own options: by their full names, or by abbreviations that
   none of GNU's options shares ("--sy" stays --symbolic-link, as in GNU
   cp; --sync is "--syn").  */
static struct option const own_options[] =
{
  { "buffer-size", required_argument, NULL, BUFFER_SIZE_OPTION },
  { "direct", optional_argument, NULL, DIRECT_OPTION },
  { "queue-depth", required_argument, NULL, QUEUE_DEPTH_OPTION },
  { "files-in-flight", required_argument, NULL, FILES_IN_FLIGHT_OPTION },
  { "progress", optional_argument, NULL, PROGRESS_OPTION },
  { "stats", optional_argument, NULL, STATS_OPTION },
  { "verify", no_argument, NULL, VERIFY_OPTION },
  { "sync", no_argument, NULL, SYNC_OPTION },
  { "bwlimit", required_argument, NULL, BWLIMIT_OPTION },
  { "pid", required_argument, NULL, PID_OPTION },
  { "atomic", no_argument, NULL, ATOMIC_OPTION },
  { "stats-file", required_argument, NULL, STATS_FILE_OPTION },
  { "checksum-file", required_argument, NULL, CHECKSUM_FILE_OPTION },
  { "checksum", required_argument, NULL, CHECKSUM_OPTION },
  { "files-from", required_argument, NULL, FILES_FROM_OPTION },
  { "null", no_argument, NULL, NULL_OPTION },
};

/* The short options, for getopt_long and resolve_abbreviations.  */
static char const SHORT_OPTIONS[] = "abdfHilLnprst:uvxPRS:TZ";

#define COUNT_OF(a) (sizeof (a) / sizeof *(a))

/* What resolve_abbreviations puts in place of an abbreviation that is
   ambiguous among GNU's options, for getopt_long to return when it
   comes to it (so that the options before it act first, and the error
   comes where GNU's getopt gives it).  Its name starts with a control
   character: no one types it.  */
static char const AMBIGUOUS_NAME[] = "\001ambiguous";

/* The table getopt_long reads: GNU's options, then cp8M's, then the
   stand-in for an ambiguous abbreviation.  */
static struct option long_options[COUNT_OF (gnu_options)
                                  + COUNT_OF (own_options) + 2];

/* Fill long_options (once).  */
static void
merge_options (void)
{
  memcpy (long_options, gnu_options, sizeof gnu_options);
  memcpy (long_options + COUNT_OF (gnu_options), own_options,
          sizeof own_options);
  long_options[COUNT_OF (gnu_options) + COUNT_OF (own_options)]
    = (struct option) { AMBIGUOUS_NAME, no_argument, NULL,
                        GNU_AMBIGUOUS_OPTION };
}

/* Do A and B do the same thing?  Then an abbreviation of both is not
   ambiguous (getopt's rule: --pa is --parents, and --path is its old
   name).  */
static bool
same_action (struct option const *a, struct option const *b)
{
  return a->has_arg == b->has_arg && a->flag == b->flag && a->val == b->val;
}

/* The option of TABLE (N of them) named exactly NAME (LEN bytes), or
   NULL.  */
static struct option const *
exact_option (struct option const *table, size_t n, char const *name,
              size_t len)
{
  for (size_t i = 0; i < n; i++)
    if (strncmp (table[i].name, name, len) == 0 && !table[i].name[len])
      return &table[i];
  return NULL;
}

/* The option of TABLE (N of them) that NAME (LEN bytes) abbreviates, by
   getopt's rule: the first one, if every other one it abbreviates does
   the same.  NULL when there is none, and also, with *AMBIGUOUS set,
   when two that differ fit.  */
static struct option const *
abbreviated_option (struct option const *table, size_t n, char const *name,
                    size_t len, bool *ambiguous)
{
  struct option const *found = NULL;
  *ambiguous = false;
  for (size_t i = 0; i < n; i++)
    if (strncmp (table[i].name, name, len) == 0)
      {
        if (!found)
          found = &table[i];
        else if (!same_action (found, &table[i]))
          *ambiguous = true;
      }
  return *ambiguous ? NULL : found;
}

/* glibc's own wording of a getopt message, in the user's language when
   glibc has it, as getopt prints it.  */
static char const *
libc_text (char const *msgid)
{
#ifdef __GLIBC__
  return dgettext ("libc", msgid);
#else
  return msgid;
#endif
}

/* ARG ("--NAME[=VALUE]") abbreviates several of GNU's options: say so
   as GNU cp's getopt does, PROGRAM (argv[0]) first, listing GNU's
   options only (those a GNU script could have meant), and exit.  */
static _Noreturn void
ambiguous_abbreviation (char const *program, char const *arg)
{
  char const *name = arg + 2;
  size_t len = strcspn (name, "=");
  fprintf (stderr, libc_text ("%s: option '%s%s' is ambiguous; "
                              "possibilities:"), program, "--", name);
  struct option const *first = NULL;
  for (size_t i = 0; i < COUNT_OF (gnu_options); i++)
    if (strncmp (gnu_options[i].name, name, len) == 0
        && (!first || !same_action (first, &gnu_options[i])))
      {
        first = first ? first : &gnu_options[i];
        fprintf (stderr, " '--%s'", gnu_options[i].name);
      }
  fputc ('\n', stderr);
  cp8m_usage (EXIT_FAILURE);
}

/* The long option ARG ("--NAME[=VALUE]") written out in full when NAME
   abbreviates GNU's option O.  */
static char *
spelled_out (char const *arg, struct option const *o)
{
  char const *rest = arg + 2 + strcspn (arg + 2, "=");
  char *full = xmalloc (2 + strlen (o->name) + strlen (rest) + 1);
  stpcpy (stpcpy (stpcpy (full, "--"), o->name), rest);
  return full;
}

/* How many of the elements after short options ARG ("-abc") are its
   argument (0 or 1); -1 when ARG holds an option cp8M does not have
   (getopt stops there).  */
static int
short_arguments (char const *arg)
{
  for (char const *p = arg + 1; *p; p++)
    {
      char const *s = *p == ':' ? NULL : strchr (SHORT_OPTIONS, *p);
      if (!s)
        return -1;
      if (s[1] == ':')
        return p[1] ? 0 : 1;
    }
  return 0;
}

/* Before getopt_long reads ARGV (ARGC elements): each long option
   abbreviated as in GNU cp, that is, whose name abbreviates exactly one
   of GNU cp's options, is written out in full; so getopt_long, which
   also knows cp8M's options, cannot find it ambiguous nor take it for
   one of cp8M's.  One that abbreviates several of GNU's options is
   replaced by AMBIGUOUS_NAME, its text kept in *AMBIGUOUS for the
   message.  The elements are walked as getopt_long will walk them (an
   option's argument is not an option; POSIXLY_CORRECT stops at the first
   operand), up to "--" or the first element getopt_long will refuse.  */
static void
resolve_abbreviations (int argc, char **argv, char const **ambiguous)
{
  bool in_order = getenv ("POSIXLY_CORRECT") != NULL;
  for (int i = 1; i < argc; i++)
    {
      char const *arg = argv[i];
      if (arg[0] != '-' || !arg[1])
        {
          if (in_order)
            return;
          continue;
        }
      if (arg[1] != '-')
        {
          int n = short_arguments (arg);
          if (n < 0)
            return;
          i += n;
          continue;
        }
      char const *name = arg + 2;
      size_t len = strcspn (name, "=");
      if (!*name)
        return;
      bool ambig;
      struct option const *o
        = exact_option (long_options, COUNT_OF (gnu_options)
                        + COUNT_OF (own_options), name, len);
      if (!o)
        {
          o = abbreviated_option (gnu_options, COUNT_OF (gnu_options),
                                  name, len, &ambig);
          if (ambig)
            {
              *ambiguous = arg;
              argv[i] = xmalloc (2 + sizeof AMBIGUOUS_NAME);
              stpcpy (stpcpy (argv[i], "--"), AMBIGUOUS_NAME);
              return;
            }
          if (o)
            argv[i] = spelled_out (arg, o);
          else
            o = abbreviated_option (own_options, COUNT_OF (own_options),
                                    name, len, &ambig);
        }
      if (!o)
        return;
      if (o->has_arg == required_argument && !name[len])
        i++;
    }
}

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

/* The units a size or a rate takes, for the message that refuses one.  */
#define UNITS_TAIL "optionally followed by K, M, G, T, P or E \
(powers of 1024, also written KiB, MiB...) or KB, MB, GB, TB, PB or EB \
(powers of 1000)"
static char const SIZE_UNITS[] =
  "A size is a whole number of bytes, " UNITS_TAIL "; from 1 byte to 1 GiB.";
static char const RATE_UNITS[] =
  "A rate is a whole number of bytes a second, " UNITS_TAIL
  "; at most 2^63, and 0 for no limit.";

/* Refuse the value ARG of an option, naming WHAT it should have been
   and, if UNITS, how to write one; then GNU's "Try" line.  */
static _Noreturn void
invalid_value (char const *what, char const *arg, char const *units)
{
  error (0, 0, "invalid %s %s", what, quote (arg));
  if (units)
    fprintf (stderr, "%s\n", units);
  cp8m_usage (EXIT_FAILURE);
}

/* Read ARG as a whole number from 1 to MAX, with no unit.  */
static bool
parse_count (char const *arg, uintmax_t max, uintmax_t *n)
{
  return c_isdigit (arg[0])
         && xstrtoumax (arg, NULL, 10, n, "") == LONGINT_OK
         && *n >= 1 && *n <= max;
}

/* The same, or say that ARG is an invalid WHAT and exit.  */
static unsigned int
count_arg (char const *arg, unsigned int max, char const *what)
{
  uintmax_t n;
  if (!parse_count (arg, max, &n))
    {
      error (0, 0, "invalid %s %s (1 to %u)", what, quote (arg), max);
      cp8m_usage (EXIT_FAILURE);
    }
  return n;
}

/* Read ARG as a --bwlimit: bytes a second, 0 for none, at most 2^63.  */
static bool
parse_rate (char const *arg, uintmax_t *rate)
{
  uintmax_t n;
  if (!c_isdigit (arg[0])
      || xstrtoumax (arg, NULL, 10, &n, "kKmMgGtTpPeEzZyY0") != LONGINT_OK
      || n > (uintmax_t) 1 << 63)
    return false;
  *rate = n;
  return true;
}

/* A --bwlimit of ARG, RATE bytes a second: a bare number (no unit) below
   1 MiB/s is bytes here but KiB to rsync's --bwlimit, the option of the
   same name a backup script may have been written for: say which.  */
static void
warn_bare_rate (char const *arg, uintmax_t rate)
{
  if (rate == 0 || rate >= 1024 * 1024 || !c_isdigit (arg[strlen (arg) - 1]))
    return;
  diag_next_is_notice ();
  error (0, 0, "warning: --bwlimit=%s is in bytes a second (%.1f KiB/s);"
         " rsync reads a bare number as KiB: write %sK for that",
         arg, rate / 1024.0, arg);
}

/* Apply one --preserve (ON) or --no-preserve (!ON) list.  */
static void
decode_preserve (char const *arg, char const *option, bool on,
                 struct cp8m_options *o)
{
  char *list = xstrdup (arg);
  for (char *s = list, *comma; s; s = comma)
    {
      comma = strchr (s, ',');
      if (comma)
        *comma++ = '\0';
      switch (XARGMATCH (option, s, preserve_args, preserve_types))
        {
        case P_MODE:
          o->preserve_mode = on;
          o->explicit_no_preserve_mode = !on;
          break;
        case P_TIMESTAMPS:
          o->preserve_timestamps = on;
          break;
        case P_OWNERSHIP:
          o->preserve_ownership = on;
          break;
        case P_LINKS:
          o->preserve_links = on;
          break;
        case P_CONTEXT:
          o->preserve_context = on;
          o->require_preserve_context = on;
          break;
        case P_XATTR:
          o->preserve_xattr = on;
          o->require_preserve_xattr = on;
          break;
        case P_ALL:
          o->preserve_mode = o->preserve_timestamps = on;
          o->preserve_ownership = o->preserve_links = on;
          o->preserve_xattr = on;
          o->explicit_no_preserve_mode = !on;
          /* No SELinux here (see cp8m_parse_options), so "all" leaves
             the context alone, as GNU cp does on such kernels.  */
          break;
        }
    }
  free (list);
}

/* Does this kernel have SELinux?  cp8M is built without libselinux, so
   it only needs to know in order to word its refusals as GNU cp does.  */
static bool
selinux_enabled (void)
{
  return access ("/sys/fs/selinux/enforce", F_OK) == 0;
}

int
cp8m_parse_options (int argc, char **argv, struct cp8m_options *o)
{
  *o = (struct cp8m_options) {
    .dereference = DEREF_UNDEFINED,
    .update = UPDATE_ALL,
    .backup_type = no_backups,
    .buffer_size = CP8M_DEFAULT_BUFFER_SIZE,
    .queue_depth = CP8M_DEFAULT_QUEUE_DEPTH,
    .files_in_flight = JOBS_DEFAULT,
    .request = { .direct = ENGINE_DIRECT_AUTO, .sparse = ENGINE_SPARSE_AUTO,
                 .reflink = ENGINE_REFLINK_NEVER,
                 .reflink_why = "--reflink=never, cp8M's default" },
  };
  bool make_backups = false, copy_contents = false, skip_existing = false;
  char const *version_control = NULL, *backup_suffix = NULL;

  merge_options ();
  char const *ambiguous = NULL;
  resolve_abbreviations (argc, argv, &ambiguous);
  int c;
  while ((c = getopt_long (argc, argv, SHORT_OPTIONS, long_options, NULL))
         != -1)
    {
      switch (c)
        {
        case GNU_AMBIGUOUS_OPTION:
          /* The stand-in resolve_abbreviations put in: the first
             ambiguous abbreviation, which getopt_long has now come to.
             The name itself, typed, is no option.  */
          if (ambiguous)
            ambiguous_abbreviation (argv[0], ambiguous);
          fprintf (stderr, libc_text ("%s: unrecognized option '%s%s'\n"),
                   argv[0], "--", argv[optind - 1] + 2);
          cp8m_usage (EXIT_FAILURE);
        case 'a':
          /* -dR --preserve=all, quiet about what cannot be kept.  */
          o->dereference = DEREF_NEVER;
          o->preserve_links = o->preserve_ownership = true;
          o->preserve_mode = o->preserve_timestamps = true;
          o->preserve_xattr = true;
          o->require_preserve = true;
          o->reduce_diagnostics = true;
          o->recursive = true;
          break;
        case 'b':
          make_backups = true;
          if (optarg)
            version_control = optarg;
          break;
        case 'd':
          o->preserve_links = true;
          o->dereference = DEREF_NEVER;
          break;
        case 'f':
          o->force = true;
          break;
        case 'H':
          o->dereference = DEREF_COMMAND_LINE;
          break;
        case 'i':
          o->interactive = true;
          skip_existing = false;
          break;
        case 'l':
          o->hard_link = true;
          break;
        case 'L':
          o->dereference = DEREF_ALWAYS;
          break;
        case 'n':
          skip_existing = true;
          o->interactive = false;
          break;
        case 'P':
          o->dereference = DEREF_NEVER;
          break;
        case 'p':
          o->preserve_ownership = o->preserve_mode = true;
          o->preserve_timestamps = o->require_preserve = true;
          break;
        case PRESERVE_OPTION:
          if (!optarg)
            decode_preserve ("mode,ownership,timestamps", "--preserve",
                             true, o);
          else
            decode_preserve (optarg, "--preserve", true, o);
          o->require_preserve = true;
          break;
        case NO_PRESERVE_OPTION:
          decode_preserve (optarg, "--no-preserve", false, o);
          break;
        case 'r':
        case 'R':
          o->recursive = true;
          break;
        case 's':
          o->symbolic_link = true;
          break;
        case 'S':
          make_backups = true;
          backup_suffix = optarg;
          break;
        case 't':
          if (o->target_directory)
            error (EXIT_FAILURE, 0, "multiple target directories specified");
          o->target_directory = optarg;
          break;
        case 'T':
          o->no_target_directory = true;
          break;
        case 'u':
          o->update = optarg
            ? XARGMATCH ("--update", optarg, update_args, update_types)
            : UPDATE_OLDER;
          break;
        case 'v':
          o->verbose = true;
          break;
        case 'x':
          o->one_file_system = true;
          break;
        case 'Z':
          /* Without SELinux, a bare -Z is accepted silently and a
             context is ignored with a warning: GNU's behaviour.  */
          if (selinux_enabled ())
            error (EXIT_FAILURE, 0, "cp8M was built without SELinux "
                   "support; cannot set the security context");
          if (optarg)
            {
              diag_next_is_notice ();
              error (0, 0, "warning: ignoring --context; "
                     "it requires an SELinux-enabled kernel");
            }
          break;
        case ATTRIBUTES_ONLY_OPTION:
          o->attributes_only = true;
          break;
        case COPY_CONTENTS_OPTION:
          copy_contents = true;
          break;
        case DEBUG_OPTION:
          /* As in GNU cp, --debug reports each file, so it implies -v.  */
          o->debug = o->verbose = true;
          break;
        case PARENTS_OPTION:
          o->parents = true;
          break;
        case REMOVE_DESTINATION_OPTION:
          o->remove_destination = true;
          break;
        case STRIP_TRAILING_SLASHES_OPTION:
          o->strip_trailing_slashes = true;
          break;
        case KEEP_DIRECTORY_SYMLINK_OPTION:
          o->keep_directory_symlink = true;
          break;
        case SPARSE_OPTION:
          o->request.sparse = XARGMATCH ("--sparse", optarg, sparse_args,
                                         sparse_types);
          break;
        case REFLINK_OPTION:
          o->request.reflink = optarg
            ? XARGMATCH ("--reflink", optarg, reflink_args, reflink_types)
            : ENGINE_REFLINK_ALWAYS;
          o->request.reflink_why = NULL;
          break;
        case BUFFER_SIZE_OPTION:
          if (!cp8m_parse_size (optarg, &o->buffer_size))
            invalid_value ("buffer size", optarg, SIZE_UNITS);
          o->explicit_buffer_size = true;
          break;
        case DIRECT_OPTION:
          /* Bare --direct means always, like a forcedirectio mount.  */
          o->request.direct = optarg
            ? XARGMATCH ("--direct", optarg, direct_args, direct_types)
            : ENGINE_DIRECT_ALWAYS;
          break;
        case QUEUE_DEPTH_OPTION:
          o->queue_depth = count_arg (optarg, ENGINE_MAX_DEPTH,
                                      "queue depth");
          o->explicit_queue_depth = true;
          break;
        case FILES_IN_FLIGHT_OPTION:
          o->files_in_flight = count_arg (optarg, JOBS_MAX,
                                          "number of files in flight");
          break;
        case PROGRESS_OPTION:
          o->progress = optarg
            ? XARGMATCH ("--progress", optarg, progress_args, progress_types)
            : PROGRESS_AUTO;
          break;
        case STATS_OPTION:
          o->stats = optarg
            ? XARGMATCH ("--stats", optarg, stats_args, stats_types)
            : STATS_TEXT;
          break;
        case VERIFY_OPTION:
          o->verify = true;
          break;
        case SYNC_OPTION:
          o->sync = true;
          break;
        case CHECKSUM_FILE_OPTION:
          o->checksum_file = optarg;
          break;
        case CHECKSUM_OPTION:
          o->checksum = XARGMATCH ("--checksum", optarg, checksum_args,
                                   checksum_types);
          o->explicit_checksum = true;
          break;
        case STATS_FILE_OPTION:
          o->stats_file = optarg;
          break;
        case ATOMIC_OPTION:
          o->atomic = true;
          break;
        case FILES_FROM_OPTION:
          o->files_from = optarg;
          break;
        case NULL_OPTION:
          o->null_names = true;
          break;
        case BWLIMIT_OPTION:
          if (!parse_rate (optarg, &o->bwlimit))
            invalid_value ("bandwidth limit", optarg, RATE_UNITS);
          warn_bare_rate (optarg, o->bwlimit);
          o->explicit_bwlimit = true;
          break;
        case PID_OPTION:
          {
            uintmax_t n;
            if (!parse_count (optarg, INT_MAX, &n))
              invalid_value ("process ID", optarg, NULL);
            o->limit_pid = n;
          }
          break;
        case HELP_OPTION:
          cp8m_usage (EXIT_SUCCESS);
        case VERSION_OPTION:
          version_etc (stdout, "cp8M", PACKAGE_NAME, PACKAGE_VERSION,
                       "the cp8M authors", (char *) NULL);
          cp8m_print_build ();
          exit (EXIT_SUCCESS);
        default:
          cp8m_usage (EXIT_FAILURE);
        }
    }

  /* The conflicts, in GNU's order and words.  */
  if (o->hard_link && o->symbolic_link)
    {
      error (0, 0, "cannot make both hard and symbolic links");
      cp8m_usage (EXIT_FAILURE);
    }
  /* --update=none too (GNU 9.11): a file that is skipped has nothing
     to back up, and a backup made anyway would surprise.  */
  if (make_backups && (skip_existing || o->update == UPDATE_NONE
                       || o->update == UPDATE_NONE_FAIL))
    {
      error (0, 0, "--backup is mutually exclusive with -n or "
             "--update=none-fail");
      cp8m_usage (EXIT_FAILURE);
    }
  if (o->request.reflink == ENGINE_REFLINK_ALWAYS
      && o->request.sparse != ENGINE_SPARSE_AUTO)
    {
      error (0, 0, "--reflink can be used only with --sparse=auto");
      cp8m_usage (EXIT_FAILURE);
    }
  /* --sparse=never wants every hole written, which a clone or
     copy_file_range may not do: --reflink=auto then means never, as in
     GNU cp (so --debug says "reflink: no").  */
  if (o->request.reflink == ENGINE_REFLINK_AUTO
      && o->request.sparse == ENGINE_SPARSE_NEVER)
    {
      o->request.reflink = ENGINE_REFLINK_NEVER;
      o->request.reflink_why = "--sparse=never: every hole is written";
    }
  if (o->explicit_checksum && !o->checksum_file)
    {
      error (0, 0, "--checksum needs --checksum-file=FILE");
      cp8m_usage (EXIT_FAILURE);
    }
  if (o->checksum_file && !engine_hash_library (o->checksum))
    error (EXIT_FAILURE, 0, "this cp8M was built without libxxhash: "
           "--checksum=xxh3 is not available");
  /* The data must pass through cp8M to be hashed: no clone, no
     copy_file_range.  */
  if (o->checksum_file && o->request.reflink == ENGINE_REFLINK_ALWAYS)
    {
      error (0, 0, "--checksum-file cannot be used with --reflink=always");
      cp8m_usage (EXIT_FAILURE);
    }
  if (o->checksum_file && o->request.reflink != ENGINE_REFLINK_NEVER)
    {
      o->request.reflink = ENGINE_REFLINK_NEVER;
      o->request.reflink_why = "--checksum-file: the data is hashed as it"
                               " is read";
    }
  if (o->target_directory && o->no_target_directory)
    error (EXIT_FAILURE, 0, "cannot combine --target-directory (-t) "
           "and --no-target-directory (-T)");
  /* A list's names go into a directory, as several operands do.  */
  if (o->files_from && o->no_target_directory)
    error (EXIT_FAILURE, 0, "cannot combine --files-from "
           "and --no-target-directory (-T)");
  /* -i's answers come from standard input.  */
  if (o->interactive && o->files_from && strcmp (o->files_from, "-") == 0)
    error (EXIT_FAILURE, 0, "--files-from=- and --interactive (-i) would"
           " both read standard input");
  if (o->null_names && !o->files_from)
    {
      error (0, 0, "--null needs --files-from=FILE");
      cp8m_usage (EXIT_FAILURE);
    }

  /* Also without -S: the backup checks read the suffix before gnulib
     would set it (SIMPLE_BACKUP_SUFFIX, else "~").  */
  if (make_backups)
    set_simple_backup_suffix (backup_suffix);
  o->backup_type = make_backups
                   ? xget_version ("backup type", version_control)
                   : no_backups;

  /* -n beats every --update, whatever the order (GNU 9.5 and later).  */
  if (skip_existing)
    o->update = UPDATE_NONE;

  if (o->dereference == DEREF_UNDEFINED)
    o->dereference = o->recursive && !o->hard_link ? DEREF_NEVER
                     : DEREF_ALWAYS;
  /* Without -R a FIFO or device is read like a file; with -R it is
     recreated, unless --copy-contents.  */
  o->copy_as_regular = o->recursive ? copy_contents : true;

  if (o->require_preserve_context && !selinux_enabled ())
    error (EXIT_FAILURE, 0, "cannot preserve security context "
           "without an SELinux-enabled kernel");
  o->preserve_context = false;

  o->open_dangling_dest_symlink = getenv ("POSIXLY_CORRECT") != NULL;
  o->chown_privileges = geteuid () == 0;
  o->umask = umask (0);
  umask (o->umask);
  return optind;
}
