/* --stats: what a run copied and how, counted as each node is done and
   printed on stderr at the end, as text or as one JSON object.

   The counters belong to main; the walk reaches them through
   copy_ctx->stats, which is NULL without --stats, so every stats_*
   call below takes NULL and then does nothing (a run without --stats
   pays for no counting, and none of its extra system calls).  Only what
   was made counts: a node whose copy failed is in the error count (the
   messages error () printed), not in the copied ones.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_STATS_H
#define CP8M_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

#include "engine/engine.h"
#include "options.h"
#include "whole.h"

/* The reasons files did not go (all the way) direct: few and static
   (the engine's words), so a short table, and one slot for the rest.  */
enum { STATS_REASONS = 12 };
struct stats_reason
{
  char const *why;   /* the engine plan's why, or NULL for "other" */
  int err;           /* its why_errno */
  uintmax_t files;
};

/* Kinds of nodes made other than regular files copied as data.  */
enum stats_kind
{
  STATS_DIRECTORY,   /* created, or merged into (it existed) */
  STATS_SYMLINK,     /* copied, or made by -s */
  STATS_SPECIAL,     /* FIFO, device or socket */
  STATS_HARD_LINK    /* -l, or a link to an earlier copy (-a, -u) */
};

struct stats
{
  struct timespec start;   /* CLOCK_MONOTONIC, at the start of main */
  struct timespec start_wall;  /* CLOCK_REALTIME then: the report's
                                  "start" */
  uintmax_t files;         /* regular files copied (--attributes-only's
                              included) */
  uintmax_t directories, symlinks, specials, hard_links;
  uintmax_t bytes;         /* data in the copies (holes left out) */
  uintmax_t hole_bytes;    /* holes in the regular copies */
  uintmax_t direct;        /* all data direct (tail aside) */
  uintmax_t buffered;      /* no direct I/O at all */
  uintmax_t fell_back;     /* began direct, finished buffered */
  uintmax_t reflinked;     /* FICLONE */
  uintmax_t offloaded;     /* copy_file_range moved it all */
  uintmax_t cached_anyway; /* direct, but the filesystem caches anyway */
  uintmax_t changed;       /* sources that changed while copied */
  uintmax_t bwlimit;       /* the bandwidth limit in force at the end,
                              bytes a second (0: none); set by main */
  uintmax_t verified;      /* --verify: copies read back and found equal */
  uintmax_t verify_failed; /* ... found to differ */
  uintmax_t unverified;    /* ... that could not be checked */
  struct stats_reason why_buffered[STATS_REASONS];
  struct stats_reason why_fell_back[STATS_REASONS];
};

/* Zero *S and note the time: call first thing in main.  */
void stats_start (struct stats *s);

/* What a copy holds, measured on its descriptor once the data is in.  */
struct stats_copy
{
  bool regular;      /* the copy is a regular file: SIZE and HOLES say */
  off_t size;
  off_t holes;       /* bytes of holes, as SEEK_HOLE and SEEK_DATA find
                        them (0 where the filesystem cannot say) */
};

/* Fill *M for the copy open as FD.  */
void stats_measure (int fd, struct stats_copy *m);

/* One regular file copied: RES is the engine's result and M its copy as
   stats_measure found it, both NULL when no data moved
   (--attributes-only).  */
void stats_file (struct stats *s, struct engine_result const *res,
                 struct stats_copy const *m);

/* When OK, count one node of KIND made.  Return OK, so that a return
   statement can count what it returns.  */
bool stats_made (struct stats *s, enum stats_kind kind, bool ok);

/* --verify's outcome for one copy (VR, filled by the check).  */
void stats_verify (struct stats *s, struct engine_verify_result const *vr);

/* How the run ends, as main knows it: what the report says besides
   S's counters.  */
struct stats_end
{
  int exit_status;
  unsigned long errors;       /* the messages printed */
  uintmax_t buffer_bytes;     /* the engine's buffers at their peak */
  bool verify, sync;          /* asked for */
  unsigned long sync_failed;  /* flushes that failed */
};

/* The report at the end of a run: with W (--stats-file=FILE, prepared
   and begun; or NULL), the run's JSON object is written to W, replacing
   it whole (whole.h), flushed to stable storage with E->sync, and a
   signal writes nothing from then on; with FORMAT (--stats), a report
   is printed on stderr after stdout is flushed (-v's lines first on a
   shared terminal): as text, or the object written to W, byte for byte.
   One object, whoever reads it: the counters of S, how the run ends
   (E: its exit status, the failures kept by diag.c with their errno
   names, --verify's and --sync's outcome), and when it started and
   ended, as RFC 3339 times in UTC.  When W cannot be written, stderr's
   object says exit status 1 and counts that message too.  Return true,
   or false after a message when W could not be written.  */
bool stats_report (struct stats const *s, enum stats_format format,
                   struct whole *w, struct stats_end const *e);

/* Before any copy, W prepared and begun: write the "running" object to
   W where it is a file (flushed with SYNC), and arm the "killed" one
   for a fatal signal; both say when S's run started.  Return true, or
   false after a message.  */
bool stats_file_begin (struct whole *w, struct stats const *s, bool sync);

#endif
