/* The data engine: buffers, the per-file decisions, and the stream loop.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buffers.h"
#include "cache.h"
#include "dio.h"
#include "iosizes.h"
#include "pipeline.h"
#include "reflink.h"
#include "rw.h"
#include "sparse.h"
#include "verify.h"

/* Devices that refused direct I/O, so later files on them do not ask
   again.  A handful is plenty: a copy touches few devices.  */
enum { REFUSED_MAX = 16 };

struct engine_ctx
{
  struct engine_config cfg;
  char *buffers[ENGINE_MAX_DEPTH];  /* allocated on first need */
  bool buffer_mapped[ENGINE_MAX_DEPTH];  /* for buffer_free */
  size_t buffer_align;
  size_t huge_page;      /* buffer_huge_size, read with the first buffer */
  unsigned int allocations;
  bool short_of_memory;  /* an allocation failed: fewer or smaller buffers */
  struct { dev_t dev; char const *op; int err; } refused[REFUSED_MAX];
  int n_refused;
  struct verify_rec verify;  /* what the last copy read, for --verify */
};

static size_t
io_unit (void)
{
  long page = sysconf (_SC_PAGESIZE);
  return page > CP8M_IO_ALIGN ? (size_t) page : CP8M_IO_ALIGN;
}

struct engine_ctx *
engine_ctx_new (struct engine_config const *cfg)
{
  size_t rounded = dio_round_up (cfg->buffer_size, io_unit ());
  if (cfg->buffer_size == 0 || rounded == 0 || cfg->queue_depth == 0
      || cfg->queue_depth > ENGINE_MAX_DEPTH)
    {
      errno = EINVAL;
      return NULL;
    }
  struct engine_ctx *ctx = calloc (1, sizeof *ctx);
  if (!ctx)
    return NULL;
  ctx->cfg = *cfg;
  ctx->cfg.buffer_size = rounded;
  return ctx;
}

void
engine_ctx_free (struct engine_ctx *ctx)
{
  if (ctx)
    {
      for (int i = 0; i < ENGINE_MAX_DEPTH; i++)
        buffer_free (ctx->buffers[i], ctx->cfg.buffer_size,
                     ctx->buffer_mapped[i]);
      verify_rec_free (&ctx->verify);
      free (ctx);
    }
}

size_t
engine_buffer_size (struct engine_ctx const *ctx)
{
  return ctx->cfg.buffer_size;
}

unsigned int
engine_queue_depth (struct engine_ctx const *ctx)
{
  return ctx->cfg.queue_depth;
}

unsigned int
engine_buffer_allocations (struct engine_ctx const *ctx)
{
  return ctx->allocations;
}

bool
engine_all_cached (int fd, off_t size)
{
  /* Not mincore: mapping the file would move its access time, which the
     caller (looking ahead of a copy with -p) must not.  */
  return cache_stat_fraction (fd, size) >= 1;
}

size_t
engine_buffer_bytes (struct engine_ctx const *ctx)
{
  /* All share the first one's size (first_buffer may have made it
     smaller than configured).  */
  size_t n = 0;
  for (int i = 0; i < ENGINE_MAX_DEPTH; i++)
    n += ctx->buffers[i] != NULL;
  return n * ctx->cfg.buffer_size;
}

/* The size of the first buffer, which every later one shares: the size
   asked for, or, when that cannot be had (a memory limit the cp layer's
   budget did not see), the largest of its halves down to 1 MiB that can.
   Return the buffer, or NULL.  */
static char *
first_buffer (struct engine_ctx *ctx)
{
  size_t unit = io_unit ();
  size_t floor = ctx->cfg.buffer_size < ENGINE_MIN_BUFFER
                 ? ctx->cfg.buffer_size : ENGINE_MIN_BUFFER;
  for (size_t size = ctx->cfg.buffer_size;; )
    {
      char *buf = buffer_alloc (size, ctx->buffer_align, ctx->huge_page,
                                &ctx->buffer_mapped[0]);
      if (buf)
        {
          if (size < ctx->cfg.buffer_size)
            ctx->short_of_memory = true;
          ctx->cfg.buffer_size = size;
          return buf;
        }
      if (size <= floor)
        return NULL;
      size = size / 2 - size / 2 % unit;
      if (size < floor)
        size = floor;
    }
}

/* Make sure buffers exist for N I/Os in flight and return how many do:
   fewer when an allocation fails (then the copy goes on with those), 0
   only when not even one could be had.  The first is allocated on the
   first copy, not in engine_ctx_new, so that its alignment honours what
   the first files report and a run that copies nothing allocates
   nothing; the others only when a file is copied with I/Os in flight.  */
static unsigned int
ensure_buffers (struct engine_ctx *ctx, unsigned int n, int src_fd,
                int dst_fd)
{
  if (!ctx->buffers[0])
    {
      struct dio_align src = { 0, 0 }, dst = { 0, 0 };
      dio_query_fd (src_fd, &src);
      dio_query_fd (dst_fd, &dst);
      unsigned int mem = src.mem_align > dst.mem_align ? src.mem_align
                                                       : dst.mem_align;
      ctx->buffer_align = dio_buffer_alignment (sysconf (_SC_PAGESIZE), mem);
      ctx->huge_page = buffer_huge_size ();
      ctx->buffers[0] = first_buffer (ctx);
      if (!ctx->buffers[0])
        return 0;
      ctx->allocations++;
    }
  unsigned int got = 1;
  for (; got < n; got++)
    if (!ctx->buffers[got])
      {
        char *buf = buffer_alloc (ctx->cfg.buffer_size, ctx->buffer_align,
                                  ctx->huge_page, &ctx->buffer_mapped[got]);
        if (!buf)
          {
            ctx->short_of_memory = true;
            break;
          }
        ctx->buffers[got] = buf;
        ctx->allocations++;
      }
  return got;
}

/* ---- results ---- */

static bool
fail (struct engine_result *res, enum engine_side side, int err)
{
  res->side = side;
  res->err = err;
  return false;
}

static bool
fail_verify (struct engine_verify_result *vr, int err)
{
  vr->side = ENGINE_SIDE_NONE;
  vr->err = err;
  return false;
}

void
engine_debug_words (struct engine_facts const *f, struct engine_words *w)
{
  /* GNU cp 9.11 starts from "unknown" (reflink "no" when not allowed)
     and changes a word only when its step runs.  */
  w->reflink = !f->reflink_allowed ? "no"
               : f->clone == ENGINE_CLONE_DONE ? "yes"
               : f->clone == ENGINE_CLONE_REFUSED ? "unsupported"
               : "unknown";
  switch (f->scan)
    {
    case ENGINE_SCAN_PLAIN:
      w->sparse = f->zero_detect ? "zeros" : "no";
      break;
    case ENGINE_SCAN_LSEEK:
      /* Zero detection is part of the loop that copies a data extent.  */
      w->sparse = f->ran && f->zero_detect ? "SEEK_HOLE + zeros"
                                           : "SEEK_HOLE";
      break;
    default:
      w->sparse = "unknown";
      break;
    }
  /* copy_file_range is tried only when reflinks are allowed and no zero
     blocks are looked for; a call that returned 0 at once (an empty
     file, /proc) settles nothing.  */
  if (f->scan == ENGINE_SCAN_NONE || !f->ran)
    w->offload = "unknown";
  else if (!f->reflink_allowed || f->zero_detect)
    w->offload = "avoided";
  else
    w->offload = f->offload == ENGINE_OFFLOAD_MOVED ? "yes"
                 : f->offload == ENGINE_OFFLOAD_FAILED ? "unsupported"
                 : "unknown";
}

/* Say in the report why the data did not (all) move with direct I/O.  */
static void
note_not_direct (struct engine_report *rep, char const *why, int err)
{
  rep->why_not = why;
  rep->why_errno = err;
}

/* Everything one file's copy needs to know.  */
struct file_copy
{
  struct engine_ctx *ctx;
  struct engine_request const *req;
  int src_fd, dst_fd;
  struct stat src_st, dst_st;
  bool make_holes;     /* the source's holes (and with sparse=always, its
                          zero blocks) stay holes in the destination */
  bool sequential;     /* the destination cannot seek: write in order */
  bool dontcache;      /* direct I/O was wanted and refused */
  bool src_cached;     /* the source is mostly in the page cache */
  unsigned int depth;  /* I/Os in flight: no more than it has chunks */
  off_t ended_at;      /* the source ended early here, or -1 */
  struct engine_result *res;
};

/* ---- streams: pipes, FIFOs, devices, files whose size says nothing ---- */

/* Read what SRC has for BUF: wait for the first piece, then take more
   only while more is already waiting (a poll that does not wait says
   so), up to SIZE bytes.  Data that arrives slowly is written as it
   comes, as GNU cp writes it, and is in the destination if the copy is
   killed; a fast writer still fills whole buffers.  Return the count, or
   -1; set *EOF when a read said end of file (a terminal says it once:
   reading again would wait for more).  */
static ssize_t
read_arrived (int fd, char *buf, size_t size, bool *eof)
{
  size_t got = 0;
  size_t limit = size;
  while (got < size)
    {
      if (got > 0)
        {
          struct pollfd p = { .fd = fd, .events = POLLIN };
          if (poll (&p, 1, 0) <= 0)
            break;
        }
      size_t want = size - got < limit ? size - got : limit;
      ssize_t n = read (fd, buf + got, want);
      if (n < 0 && errno == EINTR)
        continue;
      /* /proc/sys files allocate the whole request in the kernel and
         say ENOMEM to a large one: ask for less.  */
      if (n < 0 && errno == ENOMEM && want > 4096)
        {
          limit = want / 2;
          continue;
        }
      /* A failed read moved nothing: write what came before it, and
         meet the error again on the next read.  */
      if (n < 0)
        return got > 0 ? (ssize_t) got : -1;
      if (n == 0)
        {
          *eof = true;
          break;
        }
      got += n;
    }
  return got;
}

/* Zero detection works on pieces of this size, at multiples of it in the
   file, as GNU cp's does (ST_NBLOCKSIZE): no filesystem allocates less,
   so every destination block that is all zeros is left a hole, however
   the data arrived.  */
enum { HOLE_BLOCK = 512 };

/* Give back the space of the range [START, END) of FD, which holds only
   zeros: a filesystem that allocates ahead of the writes (XFS) would
   otherwise keep it, and the final ftruncate would bring it inside the
   file, as GNU cp avoids by punching each hole it skips.  A filesystem
   that cannot punch keeps it; the contents are right either way.  */
static void
punch_zeros (int fd, off_t start, off_t end)
{
#if defined HAVE_FALLOCATE && defined FALLOC_FL_PUNCH_HOLE
  if (start < end)
    (void) fallocate (fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, start,
                      end - start);
#else
  (void) fd, (void) start, (void) end;
#endif
}

/* Write the N bytes of BUF at POS of the regular file FD, leaving out the
   all-zero pieces (they stay holes, or become the zeros that the final
   ftruncate adds).  *DATA_END is where the last data written ends.
   Return false with errno on failure.  */
static bool
write_sparse (int fd, char const *buf, size_t n, off_t pos, off_t *data_end)
{
  int no_flags = 0;
  size_t run = 0;        /* where the nonzero run being gathered began */
  bool in_run = false;
  for (size_t i = 0; i <= n; )
    {
      size_t piece = HOLE_BLOCK - (pos + i) % HOLE_BLOCK;
      if (piece > n - i)
        piece = n - i;
      /* Past the end, a last "zero" piece closes a run of data.  */
      bool zero = i == n || sparse_is_zero (buf + i, piece);
      if (zero && in_run)
        {
          if (rw_write_full (fd, buf + run, i - run, pos + run, &no_flags)
              < i - run)
            return false;
          in_run = false;
          *data_end = pos + i;
        }
      else if (!zero && !in_run)
        {
          punch_zeros (fd, *data_end, pos + i);
          run = i;
          in_run = true;
        }
      if (i == n)
        break;
      i += piece;
    }
  return true;
}

/* copy_file_range from the stream's position to the destination's, until
   it says the source ended.  Return 1 when that is done, 0 when the copy
   goes on with read and write (it refused, or said 0 at once, as /proc
   files do), -1 on failure (*RES filled).  */
static int
offload_stream (struct file_copy *fc)
{
  struct engine_facts *f = &fc->res->report.facts;
  bool moved = false;
  for (;;)
    {
      ssize_t n = reflink_offload (fc->src_fd, NULL, fc->dst_fd, NULL,
                                   REFLINK_OFFLOAD_MAX);
      if (n < 0 && errno == EINTR)
        continue;
      if (n > 0)
        {
          moved = true;
          f->offload = ENGINE_OFFLOAD_MOVED;
          fc->res->bytes += n;
          meter_add (fc->ctx->cfg.meter, n);
          continue;
        }
      if (n == 0)
        return moved;
      f->offload = ENGINE_OFFLOAD_FAILED;
      if (!reflink_offload_refused (errno))
        {
          fail (fc->res, ENGINE_SIDE_OFFLOAD, errno);
          return -1;
        }
      /* What it moved stays: reading goes on from there.  */
      return 0;
    }
}

/* A source read from its position to its end, whose size says nothing:
   GNU cp's plain scan.  */
static bool
copy_stream (struct file_copy *fc)
{
  struct engine_result *res = fc->res;
  struct engine_facts *f = &res->report.facts;
  note_not_direct (&res->report, "not a regular file with a size", 0);
  f->scan = ENGINE_SCAN_PLAIN;
  f->ran = true;
  f->zero_detect = fc->req->sparse == ENGINE_SPARSE_ALWAYS
                   && S_ISREG (fc->dst_st.st_mode);
  struct verify_rec *vrec = &fc->ctx->verify;
  if (f->reflink_allowed && !f->zero_detect)
    {
      int done = offload_stream (fc);
      if (done > 0 || res->bytes > 0)
        verify_rec_by_source (vrec, "data cloned or offloaded");
      if (done != 0)
        {
          res->report.offloaded = true;
          vrec->size = res->bytes;
          return done > 0;
        }
    }

  char *buf = fc->ctx->buffers[0];
  size_t size = fc->ctx->cfg.buffer_size;
  off_t pos = 0, data_end = 0;
  int no_flags = 0;
  for (bool eof = false; !eof; )
    {
      ssize_t n = read_arrived (fc->src_fd, buf, size, &eof);
      if (n < 0)
        return fail (res, ENGINE_SIDE_READ, errno);
      /* Hashed as read: a write that changes the bytes is caught.  */
      uint64_t hash = vrec->hashing ? verify_hash (buf, n) : 0;
      bool written = f->zero_detect
                     ? write_sparse (fc->dst_fd, buf, n, pos, &data_end)
                     : rw_write_full (fc->dst_fd, buf, n, -1, &no_flags)
                       == (size_t) n;
      if (!written)
        return fail (res, ENGINE_SIDE_WRITE, errno);
      verify_rec_add (vrec, res->bytes, n, hash);
      pos += n;
      res->bytes += n;
      meter_add (fc->ctx->cfg.meter, n);
    }
  vrec->size = res->bytes;
  /* Zeros at the end were not written: the size says them.  */
  if (f->zero_detect)
    {
      if (ftruncate (fc->dst_fd, pos) != 0)
        return fail (res, ENGINE_SIDE_WRITE, errno);
      punch_zeros (fc->dst_fd, data_end, pos);
    }
  return true;
}

/* ---- regular files ---- */

static int
refused_index (struct engine_ctx const *ctx, dev_t dev)
{
  for (int i = 0; i < ctx->n_refused; i++)
    if (ctx->refused[i].dev == dev)
      return i;
  return -1;
}

static void
remember_refusal (struct engine_ctx *ctx, dev_t dev, char const *op, int err)
{
  if (refused_index (ctx, dev) < 0 && ctx->n_refused < REFUSED_MAX)
    {
      ctx->refused[ctx->n_refused].dev = dev;
      ctx->refused[ctx->n_refused].op = op;
      ctx->refused[ctx->n_refused].err = err;
      ctx->n_refused++;
    }
}

/* Should this file go direct?  Say why not in the report.  */
static bool
want_direct (struct file_copy *fc)
{
  struct engine_report *rep = &fc->res->report;
  struct engine_ctx const *ctx = fc->ctx;
  if (fc->req->direct == ENGINE_DIRECT_NEVER)
    return note_not_direct (rep, "--direct=never", 0), false;
  if (!dio_method ())
    return note_not_direct (rep, "not supported on this system", 0), false;
  if (!S_ISREG (fc->dst_st.st_mode))
    return note_not_direct (rep, "destination is not a regular file", 0),
           false;
  int i = refused_index (ctx, fc->src_st.st_dev);
  if (i < 0)
    i = refused_index (ctx, fc->dst_st.st_dev);
  if (i >= 0)
    {
      note_not_direct (rep, ctx->refused[i].op, ctx->refused[i].err);
      fc->dontcache = true;
      return false;
    }
  if (fc->req->direct == ENGINE_DIRECT_ALWAYS)
    return true;
  if (fc->src_st.st_size < (off_t) ctx->cfg.buffer_size)
    return note_not_direct (rep, "smaller than one buffer", 0), false;
  /* Data already cached is served from memory faster than any device, and
     reading it buffered costs no eviction.  */
  if (cache_resident_fraction (fc->src_fd, fc->src_st.st_size) >= 0.5)
    {
      note_not_direct (rep, "source mostly in the page cache", 0);
      fc->src_cached = true;
      return false;
    }
  return true;
}

static void
init_job (struct io_job *job, struct file_copy const *fc,
          struct chunker *chunks)
{
  *job = (struct io_job) {
    .src_fd = fc->src_fd, .dst_fd = fc->dst_fd,
    .zero_detect = fc->res->report.facts.zero_detect,
    .sequential = fc->sequential,
    .hold_last = fc->req->in_place,
    .verify = fc->ctx->verify.hashing ? &fc->ctx->verify : NULL,
    .buffer_size = fc->ctx->cfg.buffer_size, .chunks = chunks,
    .meter = fc->ctx->cfg.meter,
    .ended_at = -1,
  };
  /* Passes with one I/O in flight use the first buffer.  */
  job->free_buf[0] = fc->ctx->buffers[0];
  job->n_free = 1;
  pthread_mutex_init (&job->lock, NULL);
  pthread_cond_init (&job->idle, NULL);
}

/* Account for a finished pass: bytes, where the source ended early (if it
   did), and a hard error.  Return false on the error.  */
static bool
end_pass (struct file_copy *fc, struct io_job const *job)
{
  fc->res->bytes += job->bytes;
  if (job->ended_at >= 0
      && (fc->ended_at < 0 || job->ended_at < fc->ended_at))
    fc->ended_at = job->ended_at;
  if (job->err)
    return fail (fc->res, job->side, job->err);
  return true;
}

/* Copy [body end, size) through the plain descriptors: direct I/O cannot
   move a piece that is not a multiple of the alignment.  RWF_DONTCACHE
   keeps its pages out of the cache where the kernel has it; then sync so
   the file is complete on disk like the direct part.  */
static bool
copy_tail (struct file_copy *fc, struct chunker *chunks, off_t from)
{
  struct io_job job;
  init_job (&job, fc, chunks);
  job.read_flags = job.write_flags = RWF_DONTCACHE;
  chunks->cur = from;
  chunks->limit = fc->src_st.st_size;
  chunks->align = 1;
  chunks->ext_end = -1;
  pipeline_run (&job, 1);
  fc->res->report.tail = fc->src_st.st_size - from;
  if (!end_pass (fc, &job))
    return false;
  if (fdatasync (fc->dst_fd) != 0 && errno != EINVAL)
    return fail (fc->res, ENGINE_SIDE_WRITE, errno);
  return true;
}

/* Close (or clear) the direct descriptor D of one SIDE.  Return OK, or
   false with *RES filled when OK was true and releasing failed.  */
static bool
release_direct (struct file_copy *fc, struct dio_fd *d, enum engine_side side,
                bool ok)
{
  if (!dio_release (d) && ok)
    return fail (fc->res, side, errno);
  return ok;
}

/* The direct pass over CHUNKS through SRC and DST, with offsets and
   lengths multiples of ALIGN.  When the kernel refuses part way, the chunker keeps what is left for the
   buffered pass.  Return false with *FC->res filled on failure.  */
static bool
direct_pass (struct file_copy *fc, struct chunker *chunks,
             struct dio_fd const *src, struct dio_fd const *dst, off_t align)
{
  struct engine_ctx *ctx = fc->ctx;
  struct engine_report *rep = &fc->res->report;
  struct io_job job;
  init_job (&job, fc, chunks);
  job.src_fd = src->fd;
  job.dst_fd = dst->fd;
  job.direct = true;
  chunks->align = align;
  /* After an offload pass that stopped part way: start aligned (what it
     wrote before is written again, the same bytes).  */
  chunks->cur -= chunks->cur % align;
  chunks->limit = fc->src_st.st_size - fc->src_st.st_size % align;
  /* No more I/Os in flight than there are chunks left (after an offload
     pass that stopped part way, fewer than the file has), each in one of
     the buffers ensure_buffers made.  */
  off_t bs = ctx->cfg.buffer_size;
  off_t left = (fc->src_st.st_size - chunks->cur + bs - 1) / bs;
  unsigned int depth = left < fc->depth ? (left > 0 ? left : 1) : fc->depth;
  for (unsigned int i = 1; i < depth; i++)
    job.free_buf[job.n_free++] = ctx->buffers[i];
  rep->depth = depth;
  pipeline_run (&job, depth);

  bool ok = end_pass (fc, &job);
  if (ok && job.refused_errno)
    {
      /* Continue buffered: the chunker still holds what is left and the
         refused ranges to redo, nothing copied twice.  */
      rep->fell_back = true;
      char const *op = job.refused_side == ENGINE_SIDE_READ ? "read"
                                                            : "write";
      note_not_direct (rep, op, job.refused_errno);
      remember_refusal (ctx, job.refused_side == ENGINE_SIDE_READ
                             ? fc->src_st.st_dev : fc->dst_st.st_dev,
                        op, job.refused_errno);
    }
  return ok;
}

/* dio_enable failed (errno) for a file on DEV: say so, and when the file
   system refused (not when, say, descriptors ran out), do not ask it
   again.  */
static void
refused_at_enable (struct file_copy *fc, dev_t dev)
{
  int err = errno;
  note_not_direct (&fc->res->report, dio_enable_step (), err);
  if (dio_refusal (err))
    remember_refusal (fc->ctx, dev, dio_enable_step (), err);
}

/* Direct pass over the aligned body, then the tail.  When the kernel
   refuses direct I/O part way, carry on buffered from where it stopped.
   Return false with *RES filled on failure.  */
static bool
copy_direct (struct file_copy *fc, struct chunker *chunks)
{
  struct engine_ctx *ctx = fc->ctx;
  struct engine_report *rep = &fc->res->report;
  struct dio_fd src, dst;
  if (!dio_enable (fc->src_fd, O_RDONLY, &src))
    {
      refused_at_enable (fc, fc->src_st.st_dev);
      return true;   /* the caller copies buffered */
    }
  if (!dio_enable (fc->dst_fd, O_WRONLY, &dst))
    {
      refused_at_enable (fc, fc->dst_st.st_dev);
      return release_direct (fc, &src, ENGINE_SIDE_READ, true);
    }

  char const *from;
  struct dio_align sa = dio_alignment (src.fd, &fc->src_st, &from);
  struct dio_align da = dio_alignment (dst.fd, &fc->dst_st, &from);
  unsigned int mem = sa.mem_align > da.mem_align ? sa.mem_align : da.mem_align;
  rep->mem_align = mem;
  rep->offset_align = sa.offset_align > da.offset_align ? sa.offset_align
                                                        : da.offset_align;
  off_t align = rep->offset_align > CP8M_IO_ALIGN ? rep->offset_align
                                                  : CP8M_IO_ALIGN;
  bool ok = true;
  if (ctx->cfg.buffer_size % align != 0 || mem > ctx->buffer_align)
    note_not_direct (rep, "alignment", 0);
  else
    {
      rep->direct = true;
      rep->method = dio_method ();
      rep->caveat = dio_cache_caveat (src.fd);
      if (!rep->caveat)
        rep->caveat = dio_cache_caveat (dst.fd);
      rep->depth = fc->depth;
      ok = direct_pass (fc, chunks, &src, &dst, align);
    }
  /* A destination's close can report a write that failed late (NFS).  */
  ok = release_direct (fc, &src, ENGINE_SIDE_READ, ok);
  ok = release_direct (fc, &dst, ENGINE_SIDE_WRITE, ok);
  if (!ok || fc->ended_at >= 0 || !rep->direct || rep->fell_back)
    return ok;
  if (chunks->limit < fc->src_st.st_size)
    return copy_tail (fc, chunks, chunks->limit);
  return true;
}

/* Buffered pass over whatever CHUNKS still holds (all of the file, or what
   a refused direct pass handed back and did not reach), up to where a
   read found the source ending, if one did.  */
static bool
copy_buffered (struct file_copy *fc, struct chunker *chunks)
{
  struct engine_report *rep = &fc->res->report;
  struct io_job job;
  init_job (&job, fc, chunks);
  /* Direct was wanted but refused: drop only the pages this copy brings
     in, never pages that were cached before (a database's own).  A
     cached source is read from the cache as it is, but its copy need not
     stay there.  */
  job.read_flags = fc->dontcache ? RWF_DONTCACHE : 0;
  job.write_flags = fc->dontcache || fc->src_cached ? RWF_DONTCACHE : 0;
  chunks->limit = fc->ended_at >= 0 ? fc->ended_at : fc->src_st.st_size;
  chunks->align = 1;
  pipeline_run (&job, 1);
  rep->dontcache_reads = job.read_flags != 0;
  rep->dontcache_writes = job.write_flags != 0;
  return end_pass (fc, &job);
}

/* Reserve the destination's space before data moves when the copy has no
   holes: ENOSPC now, not half way.  A file no one can see yet also gets
   its final size (extending direct writes serialise on ext4's inode
   lock); one overwritten in place keeps its size, which only the last
   write (or finish_copy) gives it, so that it looks short until then.  */
static bool
prepare_dest (struct file_copy *fc)
{
  off_t size = fc->src_st.st_size;
  bool in_place = fc->req->in_place;
  if (!S_ISREG (fc->dst_st.st_mode))
    return true;
  /* A file smaller than one buffer goes in one write, which sets the
     size and reports a full disk by itself: a tree of small files must
     not pay a system call more per file.  */
  if (!fc->make_holes && (size_t) size < fc->ctx->cfg.buffer_size)
    return true;
  if (!fc->make_holes)
    {
#ifdef HAVE_FALLOCATE
      if (fallocate (fc->dst_fd, in_place ? FALLOC_FL_KEEP_SIZE : 0, 0,
                     size) == 0)
        return true;
      if (errno == ENOSPC || errno == EFBIG || errno == EDQUOT)
        return fail (fc->res, ENGINE_SIDE_WRITE, errno);
#endif
    }
  if (!in_place && ftruncate (fc->dst_fd, size) != 0)
    return fail (fc->res, ENGINE_SIDE_WRITE, errno);
  return true;
}

/* Copy what the source holds past the point where the passes stopped
   (the size it had when the copy began, or where a read found it ending)
   until a read says end of file, as GNU cp does: a file that grew while
   it was copied is copied to its new end, one that shrank (or a
   pseudo-file whose size was a guess, as in sysfs) ends where it ended.
   Then give the destination that size: its trailing hole, or the cut.  */
static bool
finish_copy (struct file_copy *fc)
{
  off_t off = fc->ended_at >= 0 ? fc->ended_at : fc->src_st.st_size;
  int rflags = fc->dontcache ? RWF_DONTCACHE : 0;
  int wflags = fc->dontcache || fc->src_cached ? RWF_DONTCACHE : 0;
  char *buf = fc->ctx->buffers[0];
  struct verify_rec *vrec = &fc->ctx->verify;
  for (;;)
    {
      ssize_t n = rw_at (fc->src_fd, false, buf, fc->ctx->cfg.buffer_size,
                         off, &rflags);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return fail (fc->res, ENGINE_SIDE_READ, errno);
      if (n == 0)
        break;
      uint64_t hash = vrec->hashing ? verify_hash (buf, n) : 0;
      if (rw_write_full (fc->dst_fd, buf, n, fc->sequential ? -1 : off,
                         &wflags) < (size_t) n)
        return fail (fc->res, ENGINE_SIDE_WRITE, errno);
      verify_rec_add (vrec, off, n, hash);
      off += n;
      fc->res->bytes += n;
      meter_add (fc->ctx->cfg.meter, n);
    }
  vrec->size = off;
  /* Without holes and without an early end, the writes set the size.  */
  if (S_ISREG (fc->dst_st.st_mode)
      && (fc->make_holes || off < fc->src_st.st_size)
      && ftruncate (fc->dst_fd, off) != 0)
    return fail (fc->res, ENGINE_SIDE_WRITE, errno);

  /* Not a failure, but worth saying (--debug, --stats, --verify).  */
  struct stat now;
  if (fc->req->report_changes && fstat (fc->src_fd, &now) == 0
      && (now.st_size != fc->src_st.st_size
          || now.st_mtim.tv_sec != fc->src_st.st_mtim.tv_sec
          || now.st_mtim.tv_nsec != fc->src_st.st_mtim.tv_nsec))
    fc->res->src_changed = true;
  return true;
}

/* The data through copy_file_range, in chunks (each within one data
   extent when the scan walks extents; holes skipped or written as zeros
   as for any pass).  Return 1 when all of it is there (or the source
   ended early), 0 when the rest is to be read and written (the chunker
   restarts where the data stopped), -1 on failure.  */
static int
offload_pass (struct file_copy *fc, struct chunker *chunks)
{
  struct engine_facts *f = &fc->res->report.facts;
  struct io_job job;
  init_job (&job, fc, chunks);
  job.offload = true;
  chunks->limit = fc->src_st.st_size;
  pipeline_run (&job, 1);
  if (job.offload_moved)
    verify_rec_by_source (&fc->ctx->verify, "data cloned or offloaded");
  /* It stops at a failure: the last word is that.  */
  if (job.offload_failed)
    f->offload = ENGINE_OFFLOAD_FAILED;
  else if (job.offload_moved)
    f->offload = ENGINE_OFFLOAD_MOVED;
  if (!end_pass (fc, &job))
    return -1;
  return !job.handed_back;
}

/* A regular source of known size, as GNU cp 9.11 copies one: the scan
   (SEEK_DATA or plain), copy_file_range when allowed, then the direct
   and buffered passes for what is left, and the end of the file.  */
static bool
copy_seekable (struct file_copy *fc)
{
  struct engine_ctx *ctx = fc->ctx;
  struct engine_report *rep = &fc->res->report;
  struct engine_facts *f = &rep->facts;
  bool dst_regular = S_ISREG (fc->dst_st.st_mode);
  fc->sequential = !dst_regular && !S_ISBLK (fc->dst_st.st_mode);
  off_t first_data = -1;
  bool seek_data = sparse_scan (fc->src_fd, &fc->src_st, &first_data);
  f->scan = seek_data ? ENGINE_SCAN_LSEEK : ENGINE_SCAN_PLAIN;
  f->ran = !seek_data || first_data >= 0;
  /* Holes only in a regular file: skipped ranges of a device would keep
     whatever it held before.  */
  fc->make_holes = dst_regular
                   && (fc->req->sparse == ENGINE_SPARSE_ALWAYS
                       || (fc->req->sparse == ENGINE_SPARSE_AUTO
                           && seek_data));
  f->zero_detect = fc->make_holes
                   && fc->req->sparse == ENGINE_SPARSE_ALWAYS;

  struct chunker chunks = {
    .probe_fd = fc->src_fd, .size = fc->src_st.st_size,
    .seek_holes = seek_data, .fill_holes = seek_data && !fc->make_holes,
    .align = 1, .ext_end = -1,
  };
  if (f->reflink_allowed && !f->zero_detect)
    {
      int done = offload_pass (fc, &chunks);
      if (done < 0)
        return false;
      if (done > 0)
        {
          rep->offloaded = true;
          return finish_copy (fc);
        }
    }
  if (!prepare_dest (fc))
    return false;

  /* A file of a few buffers needs no more workers (and buffers) than it
     has chunks.  */
  off_t bs = ctx->cfg.buffer_size;
  off_t n_chunks = fc->src_st.st_size / bs + (fc->src_st.st_size % bs != 0);
  fc->depth = n_chunks < ctx->cfg.queue_depth ? n_chunks
                                                : ctx->cfg.queue_depth;
  bool direct = want_direct (fc);
  if (direct)
    {
      /* Buffer 0 exists (engine_copy made sure), so this is at least 1.  */
      unsigned int got = ensure_buffers (ctx, fc->depth, fc->src_fd,
                                         fc->dst_fd);
      if (got < fc->depth)
        fc->depth = got;
      rep->short_of_memory = ctx->short_of_memory;
    }
  if (direct && !copy_direct (fc, &chunks))
    return false;
  if (direct && (!rep->direct || rep->fell_back))
    fc->dontcache = true;
  /* After a complete direct pass the chunker is empty; otherwise it holds
     the whole file, or what a refusal or an early end left.  */
  if ((!rep->direct || rep->fell_back || fc->ended_at >= 0)
      && !copy_buffered (fc, &chunks))
    return false;
  return finish_copy (fc);
}

/* FICLONE when reflinks are allowed, for any file copied as data (GNU
   cp tries it for pipes and empty files too); then the stream or the
   regular copy.  */
static bool
copy_file (struct file_copy *fc)
{
  struct engine_result *res = fc->res;
  struct engine_facts *f = &res->report.facts;
  if (f->reflink_allowed)
    {
      int err = reflink_clone (fc->dst_fd, fc->src_fd);
      if (err == 0)
        {
          f->clone = ENGINE_CLONE_DONE;
          res->report.offloaded = true;
          res->bytes = S_ISREG (fc->src_st.st_mode) ? fc->src_st.st_size : 0;
          verify_rec_by_source (&fc->ctx->verify, "data cloned or offloaded");
          fc->ctx->verify.size = res->bytes;
          meter_add (fc->ctx->cfg.meter, res->bytes);
          return true;
        }
      f->clone = reflink_clone_fatal (err) ? ENGINE_CLONE_FAILED
                                            : ENGINE_CLONE_REFUSED;
      if (f->clone == ENGINE_CLONE_FAILED
          || fc->req->reflink == ENGINE_REFLINK_ALWAYS)
        return fail (res, ENGINE_SIDE_CLONE, err);
    }
  /* Pipes and devices stream; so do regular files that claim size 0,
     which /proc and /sys files do while having contents.  */
  if (!S_ISREG (fc->src_st.st_mode) || fc->src_st.st_size == 0)
    return copy_stream (fc);
  return copy_seekable (fc);
}

/* engine_copy for the file copy FC; with PLAIN, or when a side is not a
   regular file, the caller's descriptors are made plain first (see
   engine_copy).  */
static bool
copy_whole (struct file_copy *fc, bool plain)
{
  struct engine_ctx *ctx = fc->ctx;
  struct engine_result *res = fc->res;
  int src_fd = fc->src_fd, dst_fd = fc->dst_fd;
  verify_rec_start (&ctx->verify, fc->req->verify);
  if (fc->req->src_st)
    fc->src_st = *fc->req->src_st;
  else if (fstat (src_fd, &fc->src_st) != 0)
    return fail (res, ENGINE_SIDE_READ, errno);
  if (fc->req->dst_st)
    fc->dst_st = *fc->req->dst_st;
  else if (fstat (dst_fd, &fc->dst_st) != 0)
    return fail (res, ENGINE_SIDE_WRITE, errno);
  if (!ensure_buffers (ctx, 1, src_fd, dst_fd))
    return fail (res, ENGINE_SIDE_NONE, ENOMEM);
  /* Known now: a failed allocation may have made the buffers smaller.  */
  res->report.buffer_size = ctx->cfg.buffer_size;
  res->report.short_of_memory = ctx->short_of_memory;

  /* Buffered and tail I/O need plain descriptors, whatever opened them.  */
  struct dio_fd plain_src = { .fd = src_fd }, plain_dst = { .fd = dst_fd };
  if (plain || !S_ISREG (fc->src_st.st_mode) || !S_ISREG (fc->dst_st.st_mode))
    {
      dio_plain (src_fd, O_RDONLY, &plain_src);
      dio_plain (dst_fd, O_WRONLY, &plain_dst);
    }
  fc->src_fd = plain_src.fd;
  fc->dst_fd = plain_dst.fd;
  bool ok = copy_file (fc);
  if (!dio_release (&plain_src) && ok)
    ok = fail (res, ENGINE_SIDE_READ, errno);
  if (!dio_release (&plain_dst) && ok)
    ok = fail (res, ENGINE_SIDE_WRITE, errno);
  return ok;
}

bool
engine_copy (struct engine_ctx *ctx, int src_fd, int dst_fd,
             struct engine_request const *req, struct engine_result *res)
{
  *res = (struct engine_result) { .report = {
    .facts = { .reflink_allowed = req->reflink != ENGINE_REFLINK_NEVER },
    .depth = 1 } };
  struct engine_result const fresh = *res;
  struct file_copy fc = { ctx, req, src_fd, dst_fd, .res = res,
                          .ended_at = -1 };
  bool ok = copy_whole (&fc, false);
  /* Descriptors opened with O_DIRECT behind our back (an LD_PRELOAD
     shim, as forcedirectio does by mount) make the unaligned reads and
     writes of the buffered passes fail with EINVAL.  Asking F_GETFL of
     every file would cost two system calls each; instead a regular
     file whose copy failed so is copied again from its start, through
     plain descriptors: the same bytes to the same places.  */
  if (!ok && res->err == EINVAL
      && (res->side == ENGINE_SIDE_READ || res->side == ENGINE_SIDE_WRITE)
      && (dio_flag_set (src_fd) || dio_flag_set (dst_fd)))
    {
      *res = fresh;
      fc = (struct file_copy) { ctx, req, src_fd, dst_fd, .res = res,
                                .ended_at = -1 };
      ok = copy_whole (&fc, true);
    }
  return ok;
}

bool
engine_verify (struct engine_ctx *ctx, int src_fd, int dst_fd,
               struct engine_reader const *reader,
               struct engine_verify_result *vr)
{
  *vr = (struct engine_verify_result) { .mismatch_at = -1 };
  if (!ctx->verify.active)
    return true;
  /* A buffer for each side when the copies had two (no allocation
     beyond the memory budget); with only one, each side gets half.  */
  if (!ensure_buffers (ctx, 1, src_fd, dst_fd))
    return fail_verify (vr, ENOMEM);
  struct verify_io io = { .dst_fd = dst_fd, .reader = reader,
                          .buf = ctx->buffers[0],
                          .src_buf = ctx->buffers[1],
                          .block = ctx->cfg.buffer_size,
                          .buffer_align = ctx->buffer_align };
  if (!io.src_buf)
    {
      io.block = ctx->cfg.buffer_size / 2;
      io.block -= io.block % 512;
      io.src_buf = io.buf + io.block;
    }
  /* A source opened with O_DIRECT behind our back reads plainly here.  */
  struct dio_fd plain_src;
  dio_plain (src_fd, O_RDONLY, &plain_src);
  io.src_fd = plain_src.fd;
  bool ok = verify_run (&ctx->verify, &io, vr);
  dio_release (&plain_src);
  return ok;
}
