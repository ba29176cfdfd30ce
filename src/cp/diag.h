/* Diagnostics in GNU cp's words and quoting.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_DIAG_H
#define CP8M_DIAG_H

#include <stdbool.h>
#include <sys/types.h>

#include "engine/engine.h"
#include "quotearg.h"

/* A file name as GNU cp shows it: always in single quotes, shell-escaped
   ('a b', 'it'\''s', 'new'$'\n''line').  Messages naming two files use
   slots 0 and 1 so that the second does not overwrite the first.  */
#define quote_file(name) \
  quotearg_style (shell_escape_always_quoting_style, name)
#define quote_file_n(n, name) \
  quotearg_n_style (n, shell_escape_always_quoting_style, name)
/* Quoted only when it has to be: GNU's "d/x: can make relative symbolic
   links only in current directory".  */
#define quote_file_if_needed(name) \
  quotearg_style (shell_escape_quoting_style, name)

/* Report a failed engine_copy of SRC to DST: "error reading 'SRC'",
   "error writing 'DST'", "failed to clone 'DST' from 'SRC'" or "error
   copying 'SRC' to 'DST'", with the cause.  */
void diag_engine_failure (struct engine_result const *res,
                          char const *src, char const *dst);

/* GNU cp's words for FACTS: its line is "copy offload: OFFLOAD, reflink:
   REFLINK, sparse detection: SPARSE".  Strings are static.  */
struct diag_words
{
  char const *offload;   /* "unknown", "avoided", "yes", "unsupported" */
  char const *reflink;   /* "unknown", "no", "yes", "unsupported" */
  char const *sparse;    /* "unknown", "no", "zeros", "SEEK_HOLE",
                            "SEEK_HOLE + zeros" */
};
void diag_gnu_words (struct engine_facts const *facts,
                     struct diag_words *words);

/* Print GNU cp's --debug line for one file copied as data, in 9.11's
   words for FACTS: "copy offload: ..., reflink: ..., sparse detection:
   ...".  */
void diag_debug_gnu (struct engine_facts const *facts);

/* Print cp8M's --debug lines for one file the engine copied, after GNU
   cp's: "direct I/O: yes (O_DIRECT, 8 MiB x 8 in flight)", the plans
   the engine made with a reason for each choice, "destination: DEST",
   and "source changed during the copy" when it did.  */
void diag_debug_lines (struct engine_result const *res, char const *dest);

/* Print --debug's last line for one file the engine copied as RES from
   a source whose fstat was SRC_ST, in SECONDS: "time: 1.0 GiB in 1.23 s,
   832.5 MiB/s" (the data written, which leaves out holes).  */
void diag_debug_time (struct engine_result const *res,
                      struct stat const *src_st, double seconds);

/* Print --debug's line on the memory the engine's buffers may take, and
   the buffers that gives ("memory budget: ...").  */
struct memory_plan;
void diag_debug_budget (struct memory_plan const *p);

/* Print -v's "'SRC' -> 'DST'" line to stdout.  */
void diag_verbose (char const *src, char const *dst);

/* The same, for a destination first moved to BACKUP:
   "'SRC' -> 'DST' (backup: 'BACKUP')".  */
void diag_verbose_backup (char const *src, char const *dst,
                          char const *backup);

/* Print -v's "removed 'DST'" (a destination -f or --remove-destination
   took away) and --debug's "skipped 'DST'" (kept by -n, -u or -i) to
   stdout, clearing a progress line on the same terminal first.  */
void diag_removed (char const *dst);
void diag_skipped (char const *dst);

/* MODE as ls shows its permissions ("rw-r--r--"), in BUF[12].  */
void diag_strmode (mode_t mode, char *buf);

/* The name diagnostics start with.  */
char const *diag_program_name (void);

/* Route error ()'s messages through diag.c, which counts them (and is
   where a progress line is cleared before one), and have standard
   output closed at exit with a "write error" that names its cause.  Call
   once, early.  */
void diag_install (void);

/* After a write to standard output: keep the cause of its first
   failure for the final "write error" (diag_out_end calls this).  */
void diag_stdout_written (void);

/* Around lines printed on standard output (-v, --debug): the progress
   line is cleared first (progress_out_begin), and a failure to write is
   kept for the end.  Main thread only.  */
void diag_out_begin (void);
void diag_out_end (void);

/* The next error () message is a warning or a notice, which leaves the
   exit status alone: it does not count as an error.  */
void diag_next_is_notice (void);

/* How many error messages error () has printed so far.  */
unsigned long diag_error_count (void);

/* Read an answer to a question on stderr: true for yes.  */
bool diag_yesno (void);

/* ---- every message, for --stats-file ----

   The cp layer's error () calls come here (the macro below), so that a
   run can keep each message with the node being copied when it came:
   error () then prints it as ever.  A STATUS that is not 0 exits, as
   error () does.  */
#include "error.h"
void diag_error (int status, int errnum, char const *format, ...)
  _GL_ATTRIBUTE_FORMAT ((_GL_ATTRIBUTE_SPEC_PRINTF_STANDARD, 3, 4));
_Noreturn void diag_error_exit (int status, int errnum,
                                char const *format, ...)
  _GL_ATTRIBUTE_FORMAT ((_GL_ATTRIBUTE_SPEC_PRINTF_STANDARD, 3, 4));
/* The exiting branch is _Noreturn, so that a constant STATUS tells the
   compiler as error () did.  */
#define error(status, errnum, ...) \
  ((status) ? diag_error_exit (status, errnum, __VA_ARGS__) \
            : diag_error (0, errnum, __VA_ARGS__))

/* One error message kept: the node being copied (NULL outside one), the
   message as printed after the program's name, and the errno value that
   ended it (0 when the message gives no system cause).  */
struct diag_failure
{
  char *source, *destination;
  char *message;
  int errnum;
};

/* ---- messages held for their turn (jobs.h) ---- */

/* What one job, or the walk while jobs are in flight, printed: error
   messages and lines of standard output, in order.  */
struct diag_rec
{
  char *text;          /* a message (after the program's name) or a line */
  int errnum;
  bool notice;         /* a warning or a notice (diag_next_is_notice) */
  bool out;            /* TEXT goes to standard output, as it is */
  char *source, *destination;  /* the node being copied then, or NULL */
};
struct diag_log
{
  struct diag_rec *v;
  size_t n, alloc;
};

/* From now on, this thread's messages and diag_print's lines go into
   LOG instead of out (NULL: out again).  A message that exits is
   printed at once.  */
void diag_capture (struct diag_log *log);

/* Print what LOG holds, as it would have been printed, and empty it.  */
void diag_log_replay (struct diag_log *log);

/* A line (or lines) on standard output, as printf: where diag_capture
   says.  */
void diag_print (char const *format, ...)
  _GL_ATTRIBUTE_FORMAT ((_GL_ATTRIBUTE_SPEC_PRINTF_STANDARD, 1, 2));

/* Keep every error message from now on (not warnings and notices).  */
void diag_keep_failures (void);

/* The messages kept, N of them.  */
struct diag_failure const *diag_failures (size_t *n);

/* The node being copied, for the messages kept: set by the walk for
   each node, and put back as it was when the node is done.  */
struct diag_node { char const *source, *destination; };
struct diag_node diag_node_enter (char const *source,
                                  char const *destination);
void diag_node_leave (struct diag_node saved);

#endif
