/* Command-line options of cp8M: one struct, filled once in main and passed
   down const.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_OPTIONS_H
#define CP8M_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "engine.h"

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

  /* --buffer-size=SIZE: bytes per read and write (before rounding to the
     I/O alignment, which the engine does).  */
  size_t buffer_size;

  /* --queue-depth=N: direct I/Os in flight.  */
  unsigned int queue_depth;

  /* --direct[=WHEN], --sparse=WHEN, --reflink[=WHEN]: what the engine is
     asked for each regular file.  */
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

#endif
