/* The in-flight I/O pipeline.

   Each of DEPTH workers owns one buffer and repeatedly takes the next
   chunk, reads it and writes it, so while one worker waits for its write
   the others' reads are already queued: reads run ahead of writes by up
   to DEPTH - 1 chunks and the device always has work.  Workers are plain
   POSIX threads; with DEPTH 1 the caller's thread does the work alone.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "pipeline.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>

#include "digest.h"
#include "dio.h"
#include "reflink.h"
#include "rw.h"
#include "sparse.h"

/* ---- chunks ---- */

static off_t
round_down (off_t x, off_t a)
{
  return x - x % a;
}

/* Give the next chunk of C in *R: 1, or 0 when done, or -1 with errno.
   A chunk of data is at most DATA_MAX bytes, one of zeros at most
   BUFFER_SIZE.  */
static int
next_chunk (struct chunker *c, off_t buffer_size, off_t data_max,
            struct io_range *r)
{
  if (c->n_redo > 0)
    {
      *r = c->redo[--c->n_redo];
      return 1;
    }
  while (c->cur < c->limit)
    {
      /* Past the size: a piece that waits for the end is written first.  */
      if (c->cur >= c->size)
        {
          if (c->has_last)
            return 0;
          off_t len = c->limit - c->cur < data_max ? c->limit - c->cur
                                                   : data_max;
          *r = (struct io_range) { c->cur, len, false };
          c->cur += len;
          return 1;
        }
      if (c->ext_end < 0 || c->cur >= c->ext_end)
        {
          off_t start, end;
          int found = c->seek_holes
                      ? sparse_next_extent (c->probe_fd, c->cur, c->size,
                                            &start, &end)
                      : (start = c->cur, end = c->size, 1);
          if (found < 0)
            {
              c->cur = c->limit;
              return found;
            }
          if (found == 0 && !c->fill_holes)
            {
              /* A hole to the end: skipped.  */
              if (c->digest)
                digest_hole (c->digest, c->cur, c->size - c->cur);
              c->cur = c->size;
              continue;
            }
          if (found == 0)
            start = end = c->size;   /* a hole to the end */
          /* Round outward: the parts of a hole this drags in read as
             zeros and are written as zeros, which is still a copy.  */
          start = round_down (start, c->align);
          end = end % c->align ? round_down (end, c->align) + c->align : end;
          c->data_at = start > c->cur ? start : c->cur;
          if (!c->fill_holes)
            {
              if (c->digest)
                digest_hole (c->digest, c->cur, c->data_at - c->cur);
              c->cur = c->data_at;
            }
          c->ext_end = end;
          continue;
        }
      /* Before DATA_AT is the hole that precedes the extent.  */
      bool zero = c->cur < c->data_at;
      off_t end = zero ? c->data_at : c->ext_end;
      if (end > c->limit)
        end = c->limit;
      if (end <= c->cur)
        {
          c->cur = c->limit;   /* the extent lies past the limit */
          continue;
        }
      off_t len = end - c->cur;
      off_t max = zero ? buffer_size : data_max;
      if (len > max)
        len = max;
      *r = (struct io_range) { c->cur, len, zero };
      c->cur += len;
      return 1;
    }
  return 0;
}

void
chunker_restart (struct chunker *c, off_t off)
{
  c->cur = off;
  c->ext_end = -1;
  /* Whatever was held for the end lies past OFF: handed out again.
     Ranges to redo lie below it (they were read before it).  */
  c->has_last = false;
}

/* ---- outcomes, under the lock ---- */

static void
hard_error (struct io_job *job, enum engine_side side, int err)
{
  pthread_mutex_lock (&job->lock);
  if (!job->err)
    {
      job->err = err;
      job->side = side;
    }
  job->stop = true;
  pthread_mutex_unlock (&job->lock);
}

/* Direct I/O refused for [OFF, OFF + LEN): hand the range back so the
   buffered pass copies it, and stop handing out more.  */
static void
hand_back_refused (struct io_job *job, enum engine_side side, int err,
                   off_t off, off_t len)
{
  pthread_mutex_lock (&job->lock);
  struct chunker *c = job->chunks;
  if (c->n_redo < CHUNKER_REDO_MAX)
    c->redo[c->n_redo++] = (struct io_range) { off, len, false };
  if (!job->refused_errno || off < job->refused_at)
    {
      job->refused_errno = err;
      job->refused_side = side;
      job->refused_at = off;
    }
  job->stop = true;
  pthread_mutex_unlock (&job->lock);
}

/* ---- one chunk ---- */

/* Per-worker copies of the job's flags: a worker that finds RWF_DONTCACHE
   unsupported clears its own without locking.  */
struct flags
{
  int read, write;
  off_t handed_back_at;  /* where write_at last handed a range back */
  off_t wrote;           /* the bytes copy_chunk wrote at its chunk's
                            start, for the digest */
};

/* Write LEN bytes of BUF at OFF.  If direct I/O is refused part way, hand
   back everything from the failure to REDO_END (the chunk's end: zero
   blocks there are found again by the buffered pass).  Return false after
   recording why.  */
static bool
write_at (struct io_job *job, struct flags *fl, char const *buf, off_t off,
          off_t len, off_t redo_end)
{
  meter_pace (job->meter, len);
  off_t done = rw_write_full (job->dst_fd, buf, len,
                              job->sequential ? -1 : off, &fl->write);
  if (done == len)
    return true;
  if (job->direct && dio_refusal (errno))
    {
      fl->handed_back_at = off + done;
      hand_back_refused (job, ENGINE_SIDE_WRITE, errno, off + done,
                         redo_end - (off + done));
    }
  else
    hard_error (job, ENGINE_SIDE_WRITE, errno);
  return false;
}

/* Zero detection looks at blocks of this size at multiples of it in the
   file, as GNU cp's does (ST_NBLOCKSIZE), so every destination block
   that is all zeros is left a hole however the data arrived; direct
   writes use the alignment instead.  */
enum { HOLE_BLOCK = 512 };

/* Give back the space of [START, END) of FD, which holds only zeros: a
   file system that allocates ahead of the writes (XFS) would otherwise
   keep it, as GNU cp avoids by punching each hole it skips.  One that
   cannot punch keeps it; the contents are right either way.  */
static void
punch_zeros (int fd, off_t start, off_t end)
{
#if defined HAVE_FALLOCATE && defined FALLOC_FL_PUNCH_HOLE
  (void) fallocate (fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, start,
                    end - start);
#else
  (void) fd, (void) start, (void) end;
#endif
}

/* Write the chunk R; when JOB wants holes, only its runs of data (the
   all-zero runs are punched, and the final size covers the last).  */
static bool
write_chunk (struct io_job *job, struct flags *fl, char const *buf,
             struct io_range r)
{
  off_t const end = r.off + r.len;
  if (!job->zero_detect)
    return write_at (job, fl, buf, r.off, r.len, end);
  off_t const block = job->direct ? job->chunks->align : HOLE_BLOCK;
  off_t run = 0;        /* where the current run began */
  bool data = false;    /* the run is data, not zeros */
  for (off_t b = 0;; )
    {
      off_t n = block - (r.off + b) % block;
      if (n > r.len - b)
        n = r.len - b;
      bool zero = b == r.len || sparse_is_zero (buf + b, n);
      if (b == r.len || zero == data)
        {
          if (data && !write_at (job, fl, buf + run, r.off + run, b - run,
                                 end))
            return false;
          if (!data && b > run)
            punch_zeros (job->dst_fd, r.off + run, r.off + b);
          run = b;
          data = !zero;
        }
      if (b == r.len)
        return true;
      b += n;
    }
}

static void
add_bytes (struct io_job *job, off_t n)
{
  pthread_mutex_lock (&job->lock);
  job->bytes += n;
  pthread_mutex_unlock (&job->lock);
  meter_add (job->meter, n);
}

/* For --verify: the piece [OFF, OFF + LEN) of the destination now holds
   bytes that hashed to HASH when they were read.  */
static void
add_hash (struct io_job *job, off_t off, off_t len, uint64_t hash)
{
  pthread_mutex_lock (&job->lock);
  verify_rec_add (job->verify, off, len, hash);
  pthread_mutex_unlock (&job->lock);
}

/* Write the chunk R of BUF, read as it is, and record its hash when JOB
   verifies: taken before the write, so that anything that changes the
   bytes on their way to the device shows.  A write that direct I/O
   refused part way leaves the part before the refusal recorded (the
   rest is copied, and hashed, again).  Return the write's success.  */
static bool
write_hashed (struct io_job *job, struct flags *fl, char *buf,
              struct io_range r)
{
  if (!job->verify)
    return write_chunk (job, fl, buf, r);
  uint64_t hash = verify_hash (buf, r.len);
  fl->handed_back_at = -1;
  if (write_chunk (job, fl, buf, r))
    {
      add_hash (job, r.off, r.len, hash);
      return true;
    }
  if (fl->handed_back_at > r.off)
    {
      off_t len = fl->handed_back_at - r.off;
      add_hash (job, r.off, len, verify_hash (buf, len));
    }
  return false;
}

/* Move the chunk R with copy_file_range.  If it refuses (or, at the
   chunk's first byte, says 0, as it does for /proc and /sys files whose
   size is a guess), stop the pass and leave the rest to read and write:
   the chunker restarts where the data stopped.  */
static void
offload_chunk (struct io_job *job, struct io_range r)
{
  off_t in = r.off, end = r.off + r.len;
  ssize_t n = 0;
  while (in < end)
    {
      /* A stream is read at its position; the offsets move by N.  */
      off_t i = in, o = in;
      meter_pace (job->meter, end - in);
      n = reflink_offload (job->src_fd, job->stream ? NULL : &i, job->dst_fd,
                           job->sequential ? NULL : &o, end - in);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      in += n;
      pthread_mutex_lock (&job->lock);
      job->offload_moved = true;
      pthread_mutex_unlock (&job->lock);
    }
  int err = n < 0 ? errno : 0;
  add_bytes (job, in - r.off);
  if (in == end)
    return;
  pthread_mutex_lock (&job->lock);
  if (err)
    job->offload_failed = err;
  pthread_mutex_unlock (&job->lock);
  if (err && !reflink_offload_refused (err))
    {
      hard_error (job, ENGINE_SIDE_OFFLOAD, err);
      return;
    }
  pthread_mutex_lock (&job->lock);
  if (n == 0 && in > r.off)
    job->ended_at = in;   /* the source ended: GNU cp stops too */
  else
    {
      chunker_restart (job->chunks, in);
      job->handed_back = true;
    }
  job->stop = true;
  pthread_mutex_unlock (&job->lock);
}

/* Is more of the stream FD already waiting to be read?  */
static bool
waiting (int fd)
{
  struct pollfd p = { .fd = fd, .events = POLLIN };
  return poll (&p, 1, 0) > 0;
}

/* Copy the chunk R through BUF.  */
static void
copy_chunk (struct io_job *job, struct flags *fl, char *buf,
            struct io_range r)
{
  if (r.zero)
    {
      memset (buf, 0, r.len);
      bool ok = job->verify
                ? write_hashed (job, fl, buf, r)
                : write_at (job, fl, buf, r.off, r.len, r.off + r.len);
      if (ok)
        {
          add_bytes (job, r.len);
          fl->wrote = r.len;
        }
      return;
    }
  if (job->offload)
    {
      offload_chunk (job, r);
      return;
    }
  /* A stream's data is written as it comes, as GNU cp writes it (and is
     in the destination if the copy is killed): after the first piece,
     more is read only while more is waiting.  A fast writer still fills
     whole buffers.  */
  off_t got = 0;
  off_t most = r.len;
  bool eof = false;
  while (got < r.len && !(job->stream && got > 0 && !waiting (job->src_fd)))
    {
      off_t want = r.len - got < most ? r.len - got : most;
      ssize_t n = rw_at (job->src_fd, false, buf + got, want,
                         job->stream ? -1 : r.off + got, &fl->read);
      if (n < 0 && errno == EINTR)
        continue;
      /* /proc/sys files allocate the whole request in the kernel and say
         ENOMEM to a large one: ask for less.  */
      if (n < 0 && errno == ENOMEM && job->stream && want > 4096)
        {
          most = want / 2;
          continue;
        }
      if (n < 0 && job->direct && dio_refusal (errno))
        {
          hand_back_refused (job, ENGINE_SIDE_READ, errno, r.off, r.len);
          return;
        }
      /* A stream's failed read moved nothing: what came before it is
         written, and the next read meets the error again.  */
      if (n < 0 && job->stream && got > 0)
        break;
      if (n < 0)
        {
          hard_error (job, ENGINE_SIDE_READ, errno);
          return;
        }
      /* A terminal says end of file once: it is not read again.  */
      eof = n == 0;
      if (eof)
        break;
      got += n;
    }
  /* A failed write has said why; a refused one is redone, and the end
     of file found stays found.  */
  struct io_range part = { r.off, got, false };
  bool written = got == 0 || write_hashed (job, fl, buf, part);
  if (written)
    {
      add_bytes (job, got);
      fl->wrote = got;
    }
  if (got == r.len)
    return;
  pthread_mutex_lock (&job->lock);
  if (!eof)
    {
      if (written)
        chunker_restart (job->chunks, r.off + got);  /* a stream goes on */
    }
  else
    {
      /* The end of file: where a pass that reads until it ends stops,
         or earlier than the size the source had when the copy began (it
         shrank, or it is a pseudo-file whose size is only a guess, as
         sysfs says 4096).  GNU cp stops there too.  */
      if (job->ended_at < 0 || r.off + got < job->ended_at)
        job->ended_at = r.off + got;
      job->stop = true;
    }
  pthread_mutex_unlock (&job->lock);
}

/* ---- workers ---- */

enum { WORKER_STACK = 512 * 1024 };

/* Take the next chunk of JOB into *R, under the lock: 1, or 0 when there
   is none (or the job stopped).  */
static int
take_chunk (struct io_job *job, struct io_range *r)
{
  struct chunker *c = job->chunks;
  for (;;)
    {
      /* copy_file_range needs no buffer: its chunks can be larger.
         Under a bandwidth limit, all are smaller (meter.h).  */
      off_t piece = meter_piece (job->meter, job->buffer_size, c->align);
      off_t data_max = job->offload
                       ? meter_piece (job->meter, REFLINK_OFFLOAD_MAX,
                                      c->align)
                       : piece;
      int got = job->stop ? 0 : next_chunk (c, piece, data_max, r);
      if (got < 0 && !job->err)
        {
          job->err = errno;
          job->side = ENGINE_SIDE_READ;
          job->stop = true;
        }
      if (got > 0 && job->hold_last && r->off < c->size
          && r->off + r->len >= c->size)
        {
          /* This chunk gives the destination its full size: an
             interrupted copy must leave it visibly short, so it waits
             until every other chunk (refused ones redone included) is
             written.  The chunker keeps it for a later pass if this one
             stops first.  */
          c->last = *r;
          c->has_last = true;
          continue;
        }
      if (got != 0 || !c->has_last || job->stop)
        {
          if (got > 0)
            {
              job->in_flight++;
              if (job->digest)
                digest_pending (job->digest, r->off);
            }
          return got;
        }
      while (job->in_flight > 0 && !job->stop)
        pthread_cond_wait (&job->idle, &job->lock);
      if (job->stop || !c->has_last)
        continue;   /* stopped, or another worker took it */
      *r = c->last;
      c->has_last = false;
      job->in_flight++;
      if (job->digest)
        digest_pending (job->digest, r->off);
      return 1;
    }
}

/* Give the worker its next chunk and the buffer for it, under the lock:
   true, or false when there is none.  No buffer, no chunk: the workers
   holding the buffers finish the job.  */
static bool
take_task (struct io_job *job, struct io_range *r, char **buf)
{
  if (job->n_free == 0 || take_chunk (job, r) <= 0)
    return false;
  *buf = job->free_buf[--job->n_free];
  return true;
}

/* A task is done, written or not: its buffer goes back.  Under the
   lock.  */
static void
end_task (struct io_job *job, char *buf)
{
  job->free_buf[job->n_free++] = buf;
  if (--job->in_flight == 0)
    pthread_cond_broadcast (&job->idle);
}

static void *
work (void *arg)
{
  struct io_job *job = arg;
  /* Under the lock: a worker that has finished may be clearing them.  */
  pthread_mutex_lock (&job->lock);
  struct flags fl = { job->read_flags, job->write_flags, -1, 0 };
  pthread_mutex_unlock (&job->lock);
  for (;;)
    {
      struct io_range r;
      char *buf = NULL;
      pthread_mutex_lock (&job->lock);
      bool got = take_task (job, &r, &buf);
      pthread_mutex_unlock (&job->lock);
      if (!got)
        break;
      fl.wrote = 0;
      copy_chunk (job, &fl, buf, r);
      /* In file order, holding the buffer until its turn (digest.h).  */
      if (job->digest)
        digest_piece (job->digest, r.off, buf, fl.wrote);
      pthread_mutex_lock (&job->lock);
      end_task (job, buf);
      pthread_mutex_unlock (&job->lock);
    }
  /* Report a flag the kernel refused, for --debug.  */
  pthread_mutex_lock (&job->lock);
  job->read_flags &= fl.read;
  job->write_flags &= fl.write;
  pthread_mutex_unlock (&job->lock);
  return NULL;
}

/* Start workers 1 to DEPTH - 1 of JOB (the caller is worker 0) and
   return how many workers there are: fewer when a thread cannot be made,
   which still copies everything.  */
static unsigned int
start_workers (struct io_job *job, pthread_t *workers, unsigned int depth)
{
  unsigned int started = 1;
  /* Signals belong to the caller's thread, whose handler removes a
     half-written destination: the workers block them all.  A worker's
     write past the file size limit (ulimit -f) fails with EFBIG, and the
     SIGXFSZ the kernel sends that worker stays pending on it until it
     exits, unseen: the failure is reported like any other.  */
  sigset_t all, old;
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &old);
  /* A worker's calls are shallow: a small stack keeps 24 of them from
     reserving 192 MiB of address space (ulimit -v counts it).  */
  pthread_attr_t attr;
  bool have_attr = pthread_attr_init (&attr) == 0;
  bool small = have_attr
               && pthread_attr_setstacksize (&attr, WORKER_STACK) == 0;
  for (; started < depth; started++)
    if (pthread_create (&workers[started], small ? &attr : NULL, work,
                        job) != 0)
      break;
  if (have_attr)
    pthread_attr_destroy (&attr);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  return started;
}

void
pipeline_run (struct io_job *job, unsigned int depth)
{
  pthread_t workers[ENGINE_MAX_DEPTH];
  unsigned int started = depth > 1 ? start_workers (job, workers, depth) : 1;
  work (job);
  for (unsigned int i = 1; i < started; i++)
    pthread_join (workers[i], NULL);
}
