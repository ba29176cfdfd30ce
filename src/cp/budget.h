/* How much memory the engine's buffers may take: measured once per run
   from the memory cgroup cp8M runs in and from MemAvailable, so that a
   copy in a 64 MiB container or under systemd's MemoryMax= is not killed
   for its buffers, which (unlike the page cache GNU cp uses) cannot be
   reclaimed.  Part of the cp layer: the engine gets only the numbers.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_BUDGET_H
#define CP8M_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

/* Where the headroom was measured, and what was found.  */
struct budget
{
  uint64_t headroom;      /* the smallest headroom found, UINT64_MAX if
                             nothing could be read */
  size_t bytes;           /* what the buffers in flight may take: a
                             quarter of HEADROOM */
  char const *source;     /* "cgroup v2", "cgroup v1", "MemAvailable",
                             or NULL */
  char *cgroup;           /* the cgroup directory whose limit gave
                             HEADROOM, or NULL */
  char const *limit_file; /* that limit's file ("memory.max"...) */
  uint64_t limit, usage;  /* its limit, and the memory it had in use
                             (less reclaimable page cache) */
};

/* Budget's share of the smallest headroom: the buffers are not all the
   process uses, and other processes in the cgroup need room too.  */
enum { BUDGET_SHARE = 4 };

/* Measure the headroom of this process under ROOT, a directory prefixed
   to every path read (/proc/self/cgroup, /proc/self/mountinfo,
   /proc/meminfo and the cgroup files): "" for the running system, a fake
   tree in tests.  Fill *B; never fails (an unreadable source counts as no
   limit).  Free with budget_free.  */
void budget_measure (char const *root, struct budget *b);
void budget_free (struct budget *b);

/* The buffers a run asks the engine for, and why.  */
struct memory_plan
{
  struct budget budget;
  unsigned int asked_depth, depth;   /* buffers: asked for, granted */
  size_t asked_size, size;           /* their size: asked for, granted */
  bool explicit_depth, explicit_size;  /* asked for on the command line */
  bool capped;                       /* the budget made them smaller */
};

/* Measure the budget under ROOT (as budget_measure) and fit DEPTH
   buffers of SIZE bytes into it (as budget_fit): fill *P.  Free with
   budget_free (&P->budget).  */
void budget_plan (struct memory_plan *p, char const *root,
                  unsigned int depth, size_t size, bool explicit_depth,
                  bool explicit_size);

/* Direct I/O with one request in flight leaves the device idle between
   each read and its write: in a small budget, smaller buffers in flight
   together do better than one large one (a 64 MiB cgroup, 1 GiB cold,
   medians of 5 rounds: 1 x 8 MiB 3.34 s, 2 x 7 MiB 3.72 s, 4 x 3 MiB
   2.79 s, 7 x 2 MiB 3.08 s; GNU cp 2.76 s).  */
enum { BUDGET_MIN_DEPTH = 4 };

/* Fit *DEPTH buffers of *SIZE bytes into BYTES: first fewer buffers, down
   to BUDGET_MIN_DEPTH (or *DEPTH, if smaller); then that many smaller
   buffers (multiples of ENGINE_MIN_BUFFER, not below it, nor below a
   *SIZE that was already smaller: smaller direct I/Os would lose more
   than the memory saves); then fewer of those, down to one.  Return true
   if anything changed.  */
bool budget_fit (size_t bytes, unsigned int *depth, size_t *size);

#endif
