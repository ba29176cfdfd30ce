/* Command-line options of cp8M: one struct, filled once in main and passed
   down const.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_OPTIONS_H
#define CP8M_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "backupfile.h"
#include "engine/engine.h"

/* Which symbolic links in the sources are followed.  */
enum deref_mode
{
  DEREF_UNDEFINED,     /* not said: decided after parsing, as GNU does */
  DEREF_NEVER,         /* -P, -d, -a, and -R's default */
  DEREF_COMMAND_LINE,  /* -H */
  DEREF_ALWAYS         /* -L, and the default without -R */
};

/* What happens to an existing destination that is not a directory.  */
enum update_mode
{
  UPDATE_ALL,          /* replace it (the default) */
  UPDATE_NONE,         /* skip it quietly (-n, --update=none) */
  UPDATE_NONE_FAIL,    /* skip it, say so, and fail */
  UPDATE_OLDER         /* replace it only if older than the source (-u) */
};

/* --progress[=WHEN].  */
enum progress_when
{
  PROGRESS_NEVER,      /* the default */
  PROGRESS_AUTO,       /* a bare --progress: only when stderr is a terminal */
  PROGRESS_ALWAYS,     /* plain lines into any stderr, for logs */
  PROGRESS_NUMERIC     /* a percentage a line, for scripts (pv -n) */
};

/* --stats[=FORMAT].  */
enum stats_format
{
  STATS_NONE,          /* the default */
  STATS_TEXT,          /* a bare --stats */
  STATS_JSON           /* one JSON object on one line */
};

/* A report file's node while the run goes on (report.h): a regular
   file the walk must neither read nor write.  */
struct report_node
{
  dev_t dev;
  ino_t ino;
  char const *file;     /* as the user named it */
  char const *what;     /* "statistics file", "checksum file" */
};

struct cp8m_options
{
  /* -v, --verbose (and --debug): print 'SOURCE' -> 'DEST' per file.  */
  bool verbose;
  /* --debug: also print how each file's data was copied.  */
  bool debug;

  /* -t, --target-directory=DIRECTORY: copy every operand into it.  */
  char const *target_directory;
  /* -T, --no-target-directory: DEST is never treated as a directory.  */
  bool no_target_directory;

  /* -R, -r, --recursive.  */
  bool recursive;
  /* -H, -L, -P (last wins), -d and -a.  */
  enum deref_mode dereference;
  /* Special files are read as data (cp without -R, or --copy-contents).  */
  bool copy_as_regular;

  /* --preserve / --no-preserve / -p / -a.  */
  bool preserve_mode, preserve_ownership, preserve_timestamps;
  bool preserve_links, preserve_xattr, preserve_context;
  /* Failing to preserve is an error (asked for explicitly), not silent.  */
  bool require_preserve, require_preserve_xattr, require_preserve_context;
  /* --no-preserve=mode: new files get the default mode.  */
  bool explicit_no_preserve_mode;
  /* -a: keep quiet about attributes the destination cannot hold.  */
  bool reduce_diagnostics;

  /* -i: ask before overwriting (it and -n: last wins).  */
  bool interactive;
  /* -n, -u, --update[=WHEN].  */
  enum update_mode update;
  /* -f: remove a destination that cannot be opened, then try again.  */
  bool force;
  /* --remove-destination: remove it before opening.  */
  bool remove_destination;
  /* -b, --backup[=CONTROL], -S: what to make of an existing destination.  */
  enum backup_type backup_type;

  /* -l, -s: make links instead of copies.  */
  bool hard_link, symbolic_link;
  /* -x, --one-file-system.  */
  bool one_file_system;
  /* --parents: append each source name, with its directories, to DEST.  */
  bool parents;
  /* --attributes-only: copy no data.  */
  bool attributes_only;
  /* --strip-trailing-slashes.  */
  bool strip_trailing_slashes;
  /* --keep-directory-symlink: an existing symlink to a directory in the
     destination is followed when a directory is copied onto it.  */
  bool keep_directory_symlink;
  /* POSIXLY_CORRECT: a dangling destination symlink is written through.  */
  bool open_dangling_dest_symlink;

  /* Whether this process may give files away (root): then a failure to
     preserve ownership is an error rather than expected.  */
  bool chown_privileges;
  /* The process umask, read once.  */
  mode_t umask;

  /* --progress[=WHEN]: how far the copy has got, on stderr.  */
  enum progress_when progress;
  /* --stats[=FORMAT]: what was copied and how, on stderr at the end.  */
  enum stats_format stats;
  /* --verify: read each regular file's copy back and check it.  */
  bool verify;
  /* --sync: data, metadata and directory entries durable before exit 0.  */
  bool sync;
  /* --atomic: an existing regular file is replaced by a complete new
     one, renamed over it, not rewritten in place.  */
  bool atomic;
  /* --stats-file=FILE: --stats=json's object and more, into FILE.  */
  char const *stats_file;
  /* --files-from=FILE: more source operands, read from FILE ("-" for
     standard input) one at a time as the copy goes (list.h); --null:
     they end with a null byte, not a newline.  */
  char const *files_from;
  bool null_names;
  /* --checksum-file=FILE and --checksum=ALGO.  */
  char const *checksum_file;
  /* The report files that are regular files, once begun (main sets
     them): each file the walk opens is compared with these.  */
  struct report_node report_nodes[2];
  int n_report_nodes;
  enum engine_hash checksum;
  bool explicit_checksum;

  /* cp8M's own: --buffer-size, --queue-depth, --direct, and the engine
     side of --sparse and --reflink.  */
  size_t buffer_size;
  unsigned int queue_depth;
  unsigned int files_in_flight;  /* --files-in-flight (jobs.h) */
  bool explicit_buffer_size, explicit_queue_depth;  /* given, not defaults */
  uintmax_t bwlimit;     /* --bwlimit: bytes a second, 0 for none */
  bool explicit_bwlimit;
  intmax_t limit_pid;    /* --pid: set the limit of this running cp8M and
                            copy nothing; 0 without */
  struct engine_request request;
};

/* Set *O to the defaults and parse ARGV into it.  Exit with a GNU usage
   message on invalid options.  Return the index of the first operand.  */
int cp8m_parse_options (int argc, char **argv, struct cp8m_options *o);

/* Parse a --buffer-size argument: a positive integer with an optional
   K, M, G... suffix (powers of 1024; KB, MB... are powers of 1000; KiB,
   MiB... powers of 1024), at most CP8M_MAX_BUFFER_SIZE.  Return true and
   set *SIZE on success.  */
bool cp8m_parse_size (char const *arg, size_t *size);

/* Print the help text (STATUS == 0) or the "Try --help" hint, and exit
   with STATUS.  */
_Noreturn void cp8m_usage (int status);

/* The optional parts this binary was built with, after --version's
   text: what a packager checks.  */
void cp8m_print_build (void);

#endif
