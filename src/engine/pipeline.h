/* The engine's data mover: copies the chunks of a file with one or several
   I/Os in flight.  Internal to the engine.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_PIPELINE_H
#define CP8M_PIPELINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "engine.h"
#include "meter.h"
#include "verify.h"

/* A byte range of the file.  */
struct io_range
{
  off_t off;
  off_t len;
  bool zero;    /* a hole of the source, to be written as zeros */
};

/* Room for every chunk in flight.  */
enum { CHUNKER_REDO_MAX = ENGINE_MAX_DEPTH };

/* Hands out the chunks of a pass: the data extents of the source within
   [cur, limit), rounded outward to ALIGN, cut into pieces of at most the
   buffer size.  Past SIZE (the size the source had) it hands out plain
   pieces, for a pass that reads until the source says end of file.  */
struct chunker
{
  int probe_fd;      /* plain source descriptor for SEEK_DATA (its offset moves) */
  off_t size;        /* the source's size */
  off_t limit;       /* this pass stops here */
  off_t align;       /* chunk offsets are multiples of this */
  bool seek_holes;   /* walk extents instead of taking [0, size) whole */
  bool fill_holes;   /* with SEEK_HOLES: hand out the holes too, as zero
                        chunks, for a destination that gets no holes */
  off_t cur;         /* everything below has been handed out */
  off_t ext_end;     /* end of the extent being cut, or -1 */
  off_t data_at;     /* where its data begins (FILL_HOLES: the hole
                        before it is handed out first) */
  struct io_range redo[CHUNKER_REDO_MAX];  /* handed out again first: the
                                             refused ranges of the chunks
                                             in flight */
  int n_redo;
  struct io_range last;  /* the chunk that ends the file, set aside by a
                            hold_last job until nothing else is left */
  bool has_last;
  struct engine_digest *digest;  /* told of the holes skipped, or NULL */
};

/* Take up C again at OFF: where a pass stopped (a stream's short read,
   copy_file_range's refusal), or where the source seemed to end (what
   was handed out past it is handed out again).  The next pass finds its
   extent afresh, with its own alignment; ranges to redo stay.  */
void chunker_restart (struct chunker *c, off_t off);

/* One pass over a file: fixed parameters, then state shared by the
   threads under LOCK.  */
struct io_job
{
  int src_fd, dst_fd;   /* descriptors for this pass */
  bool direct;          /* SRC_FD and DST_FD do direct I/O */
  bool stream;          /* SRC_FD is read at its position (depth 1), and
                           what has arrived is written as it comes */
  bool sequential;      /* DST_FD cannot seek (a pipe, a terminal): write
                           at its position, chunks in order (depth 1) */
  bool offload;         /* move data chunks with copy_file_range; stop at
                           the first it cannot move (with depth 1) */
  int read_flags;       /* preadv2 flags (RWF_DONTCACHE) or 0 */
  int write_flags;      /* pwritev2 flags (RWF_DONTCACHE) or 0 */
  bool zero_detect;     /* leave all-zero blocks as holes */
  bool hold_last;       /* write the chunk that ends the file only after
                           every other chunk is written */
  size_t buffer_size;
  struct chunker *chunks;
  struct verify_rec *verify;  /* record each piece's hash (under LOCK),
                                 or NULL */
  struct engine_meter *meter;  /* the caller's live count, or NULL */
  struct engine_digest *digest;  /* hash what is written, in file order,
                                    or NULL */
  /* Buffers there to take, one per chunk in flight.  */
  char *free_buf[ENGINE_MAX_DEPTH];
  unsigned int n_free;

  pthread_mutex_t lock;
  pthread_cond_t idle;  /* signalled when IN_FLIGHT drops to 0 */
  unsigned int in_flight;  /* chunks being copied */
  bool stop;            /* stop handing out chunks */
  int err;              /* first hard error */
  enum engine_side side;
  off_t ended_at;       /* where the source ended early, or -1 */
  int refused_errno;    /* direct I/O refused (EINVAL...): fall back */
  enum engine_side refused_side;
  off_t refused_at;
  off_t bytes;          /* data bytes written */
  bool offload_moved;   /* copy_file_range moved data */
  int offload_failed;   /* errno of its failure (a refusal, or an error
                           that stopped the copy), or 0 */
  bool handed_back;     /* an offload pass stopped before the end: the
                           chunker restarts where it did */
};

/* Run JOB with up to WORKERS I/Os in flight, each in one of JOB's buffers
   (JOB->buffer_size bytes each).  Return when all are done or JOB->stop
   was set by an error, a change or a refusal; JOB says which.  The
   buffers end in JOB->free_buf.  */
void pipeline_run (struct io_job *job, unsigned int workers);

#endif
