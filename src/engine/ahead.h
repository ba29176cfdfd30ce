/* Reading ahead across files: threads that read the first chunks of the
   files the caller will copy next into spare buffers, while the copies
   before them are written.  Internal to the engine.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_AHEAD_H
#define CP8M_AHEAD_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "engine.h"

/* The spare buffers and the files read ahead into them.  The pool holds
   every buffer of the context but the first two (which the passes with
   one I/O in flight and engine_verify use without asking): a direct
   pass claims what it needs for its own chunks, the reader threads take
   what is left, and each gives back what it no longer needs.  */
struct ahead;

/* A file to read ahead, as its copy will find it: it takes what was
   read only if the file is still this version.  */
struct ahead_version
{
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime, ctime;
};

/* A new pool, with no buffer in it yet, and no threads (they start
   with the first file to read).  NULL when out of memory.  */
struct ahead *ahead_new (void);

/* Stop the threads (a read under way ends first), close the files and
   free A, not the buffers (the context owns them).  A may be NULL.  */
void ahead_free (struct ahead *a);

/* Put BUF in the pool: a buffer just allocated, or one given back.  */
void ahead_give (struct ahead *a, char *buf);

/* Take up to N buffers from the pool into BUFS for a direct pass, and
   return how many.  When the pool has too few, queued files are dropped
   for theirs, the one to be copied last first (the next one too, if
   need be), and reads under way are waited for: a copy under way comes
   before copies to come.  */
unsigned int ahead_claim (struct ahead *a, unsigned int n, char **bufs);

/* The file to copy now is V, to the destination DST_DEV/DST_INO: take
   what was read of it, whole chunks from offset 0 on, into BUFS
   (waiting for its I/Os under way, and for any write ahead to that
   destination), and return how many.  With TAKE_WRITTEN, BUFS[K] is
   NULL for a chunk already written to that destination
   (ahead_write_to), and *KEPT says whether what was written ahead to it
   holds V's bytes (V is queued, unchanged, with that destination): when
   false, anything written ahead to it is stale.  Files queued before it
   are dropped (the caller skipped them); when V is not queued, nothing
   changes.  The caller gives the buffers back with ahead_give when done
   with them.  */
unsigned int ahead_take (struct ahead *a, struct ahead_version const *v,
                         dev_t dst_dev, ino_t dst_ino, bool take_written,
                         char **bufs, bool *kept);

/* Write the chunks of the queued file V to DST_FD (opened with
   O_DIRECT, owned by A from now on; the file DST_DEV/DST_INO, which no
   one may see before V's copy is complete) as they are read; IN_ORDER:
   one at a time, each only after the one before it (a file preallocated
   past its end, prealloc.h).  A write that fails is left to the copy.
   False (DST_FD closed) when V is not queued as it is, or has a
   destination already.  */
bool ahead_write_to (struct ahead *a, struct ahead_version const *v,
                     int dst_fd, dev_t dst_dev, ino_t dst_ino,
                     bool in_order);

/* Whether V, queued as it is, is written to DST_DEV/DST_INO already
   (SAME), may be given a destination (FREE), or neither.  */
enum ahead_dest_state { AHEAD_DEST_NONE, AHEAD_DEST_FREE, AHEAD_DEST_SAME };
enum ahead_dest_state ahead_dest (struct ahead *a,
                                  struct ahead_version const *v,
                                  dev_t dst_dev, ino_t dst_ino);

/* The files to read ahead from now on, in chunks of CHUNK bytes (the
   buffer size), in the order they will be copied: FDS[I] (opened with O_DIRECT, owned by A from now on, or -1
   for a file already queued) is V[I], of which the first WANT[I] chunks
   are wanted.  Files queued before and not named again are dropped;
   those named again keep what was read of them.  At most
   ENGINE_AHEAD_FILES; THREADS is how many reads may be under way (the
   threads are started once, the first time).  */
void ahead_queue (struct ahead *a, off_t chunk, unsigned int n,
                  int const *fds,
                  struct ahead_version const *v, unsigned int const *want,
                  unsigned int threads);

/* Whether V is queued already (its descriptor need not be opened
   again).  */
bool ahead_queued (struct ahead *a, struct ahead_version const *v);

/* Wait until the readers have read and written all they can for now:
   no I/O under way, and none to start (nothing left, or no buffer).
   For tests.  */
void ahead_settle (struct ahead *a);

#endif
