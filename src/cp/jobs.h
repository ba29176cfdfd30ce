/* Many files in flight: the walk hands small files' copies to a pool of
   threads and takes their results back in its own order.  Part of the
   cp layer (DESIGN.md §8).

   Why: a small file's copy is a chain of waits (open, create, read,
   write, the data-before-name wait, the name, the metadata), each a
   round trip to the device or, on NFS, to the server, while the device
   could serve many such chains at once.  The walk stays one thread and
   decides everything GNU cp decides, in GNU's order; a job is only the
   part of one regular file's copy that waits.

   What users see is the walk's order: each job's messages and lines,
   and those the walk prints while jobs are in flight, are held (diag.h,
   diag_capture) until everything before them is printed, and each job's
   end (its DONE) runs on the walk's thread in that order too.  What
   depends on earlier jobs waits for them in that order as well
   (jobs_after: a directory's own attributes), or the walk waits for all
   of them (jobs_drain: an operand's end, a level's descriptors closed).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_JOBS_H
#define CP8M_JOBS_H

#include <stdbool.h>

#include "engine/engine.h"

/* The most files in flight --files-in-flight accepts, and its default
   (bench/latency and bench/simdisk: see bench/README).  */
enum { JOBS_MAX = 256, JOBS_DEFAULT = 128 };

struct jobs;

/* A pool of N threads, each with an engine of CFG (small buffers: jobs
   are small files), or NULL when N < 2 or the threads cannot be made:
   the walk then copies every file itself, one after another.  */
struct jobs *jobs_new (unsigned int n, struct engine_config const *cfg);

/* Run RUN (ARG, its thread's engine) on a thread of J, then DONE (ARG)
   on the walk's thread, after the DONE of every job submitted before it
   and once the lines printed before this call are out.  Waits while J
   holds as many jobs as it may.  */
void jobs_submit (struct jobs *j, void (*run) (void *, struct engine_ctx *),
                  void (*done) (void *), void *arg);

/* Run DONE (ARG) on the walk's thread once every job submitted before
   it has ended and everything before it is printed: what must wait for
   earlier jobs without stopping the walk (a directory's attributes).
   At most as many wait at once as J has threads (each may hold
   descriptors): beyond that, this waits first.  */
void jobs_after (struct jobs *j, void (*done) (void *), void *arg);

/* Wait for every job of J, run their DONEs and print what they and the
   walk held back.  J may be NULL.  */
void jobs_drain (struct jobs *j);

/* Drain J, stop its threads and free it.  J may be NULL.  */
void jobs_free (struct jobs *j);

#endif
