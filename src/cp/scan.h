/* The scan behind --progress's totals: what the sources hold, counted
   while the copy already runs.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_SCAN_H
#define CP8M_SCAN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "options.h"

/* What the scan found so far.  */
struct scan_totals
{
  unsigned long long bytes;  /* data of regular files, holes left out */
  unsigned long files;       /* regular files */
  bool done;                 /* the scan is complete: these are totals */
};

struct scan;

/* Count the regular files among the N SOURCES and, as O's walk would
   reach them (-R, -L/-H/-P, -x), below them.  A single source that is
   not a directory is counted at once; otherwise a thread of low priority
   walks the trees, holding at most one descriptor at a time.  O and
   SOURCES must outlive the scan.  Return NULL when nothing can be
   counted (out of memory, no thread).  */
struct scan *scan_start (struct cp8m_options const *o, char *const *sources,
                         int n);

/* Copy what S has counted so far into *T: thread-safe.  */
void scan_read (struct scan *s, struct scan_totals *t);

/* Stop S's thread, wait for it, and free S, which may be NULL.  */
void scan_stop (struct scan *s);

/* Start FN (ARG) in *THREAD with a STACK-byte stack and every signal
   blocked: how the scan and the monitor run.  Return false if no thread
   could be made.  */
bool scan_thread_start (pthread_t *thread, void *(*fn) (void *), void *arg,
                        size_t stack);

#endif
