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

/* Fit *DEPTH buffers of *SIZE bytes into BYTES: fewer buffers, down to
   one; then one smaller buffer (a multiple of ENGINE_MIN_BUFFER, not
   below it, nor below a *SIZE that was already smaller).  Return true if
   anything changed.  Up to issue 40 at least four buffers were kept,
   smaller ones if need be: in a 64 MiB cgroup, 4 x 3 MiB copied a cold
   512 MiB file in 1.18 s (median of 5) and 1 x 8 MiB in 0.54 s, runs of
   the two interleaved (bench/README, "What each mechanism buys").  */
bool budget_fit (size_t bytes, unsigned int *depth, size_t *size);

#endif
