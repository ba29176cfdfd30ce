/* --progress and the status line on SIGUSR1: a monitor thread that
   watches the engine's byte meter, and a scan that counts what there is
   to copy while the copy already runs.

   A monitor runs for every copy, --progress or not, because SIGUSR1 (and
   SIGINFO where the system has it) must print a status line at any time
   without disturbing the copy.  With --progress it also redraws one line
   on the terminal four times a second (or, with --progress=always and no
   terminal, prints a plain line once a second).

   Everything written to the terminal besides the line goes through the
   hooks below, so that the line is cleared first and redrawn at the next
   tick: error () messages (diag.c), -v and --debug lines on stdout, and
   -i's question.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_PROGRESS_H
#define CP8M_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"
#include "options.h"

struct progress;

/* Clear a progress line still on the terminal, from a signal handler
   (only write(2)): so that the shell's "Terminated" starts a clean line
   when a signal kills the copy.  */
void progress_clear_from_signal (void);

/* Block SIGUSR1 (and SIGINFO) in the calling thread: first thing in
   main, so that a status request sent the moment cp8M starts waits for
   the monitor instead of killing the copy (their default action).  */
void progress_block_signals (void);

/* Start watching a run of cp8M: block SIGUSR1 (and SIGINFO) in the
   calling thread, which must be the only thread so far, and start the
   monitor (and, with --progress over directories or several operands,
   the scan of the N SOURCES).  METER is the engine's live count; O and
   SOURCES must outlive the run.  Never fails: without a thread, the
   signals are ignored and no line is drawn.  Return the state to pass
   to the functions below (NULL only if memory ran out).  */
struct progress *progress_start (struct cp8m_options const *o,
                                 char *const *sources, int n,
                                 struct engine_meter *meter);

/* The copy of the regular file NAME begins (main thread).  P may be
   NULL.  */
void progress_file_begin (struct progress *p, char const *name);

/* The file begun last has entered PHASE ("verifying", "syncing"; NULL
   when it is back to copying): the line shows it.  P may be NULL.  */
void progress_phase (struct progress *p, char const *phase);

/* The file begun last is done; COPIED: it was copied (the final line
   counts only those).  P may be NULL.  */
void progress_file_end (struct progress *p, bool copied);

/* Stop the threads; if a progress line was shown (or with
   --progress=always), replace it with the final line: bytes, elapsed
   time, average rate.  Free P, which may be NULL.  */
void progress_finish (struct progress *p);

/* Clear a drawn progress line before something else is printed on
   stderr.  Safe from any thread, with or without stderr locked.  */
void progress_clear (void);

/* Around a line printed on stdout (-v, --debug): when stdout is the
   terminal the progress line is drawn on, lock stderr and clear the
   line; then flush stdout and unlock.  Main thread only.  */
void progress_out_begin (void);
void progress_out_end (void);

/* BYTES for people, as the status line shows rates: "200 MiB",
   "1.20 GiB" (three significant digits).  */
void progress_format_bytes (char *out, size_t size, unsigned long long bytes);

/* Around a question asked on stderr (-i): no line is drawn until the
   answer is in.  */
void progress_prompt_begin (void);
void progress_prompt_end (void);

#endif
