/* The data engine: its context and buffers, and each file's copy: FICLONE,
   then plan, execute and plan what is left (plan.c, exec.c).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buffers.h"
#include "cache.h"
#include "digest.h"
#include "dio.h"
#include "iosizes.h"
#include "plan.h"
#include "reflink.h"

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

struct engine_plan const *
engine_direct_plan (struct engine_report const *rep, bool *fell_back)
{
  for (unsigned int i = 0; i < rep->n_plans; i++)
    if (rep->plans[i].method == ENGINE_COPY_DIRECT)
      {
        if (fell_back)
          *fell_back = i + 1 < rep->n_plans
                       && rep->plans[i + 1].then == ENGINE_THEN_REFUSED;
        return &rep->plans[i];
      }
  return NULL;
}

/* Finish FC's digest for a destination END bytes long: what the pieces
   hashed in order, and, where the order was lost, what reading the
   destination back gives.  Return false with errno.  */
static bool
finish_digest (struct file_copy *fc, off_t end)
{
  struct engine_digest *d = fc->req->digest;
  int fd = -1, own = -1;
  if (!digest_complete (d, end))
    {
      fd = own = dio_reopen (fc->dst_fd, O_RDONLY);
      int err = errno;
      int fl = fcntl (fc->dst_fd, F_GETFL);
      if (fd < 0 && fl >= 0 && (fl & O_ACCMODE) == O_RDWR)
        fd = fc->dst_fd;
      if (fd < 0)
        {
          errno = err;
          return false;
        }
    }
  bool ok = digest_end (d, end, fd, fc->ctx->buffers[0],
                        fc->ctx->cfg.buffer_size);
  int err = errno;
  if (own >= 0)
    close (own);
  errno = err;
  return ok;
}

/* The end of FC's copy: the size where the source ended (a trailing hole,
   or a source that shrank), and whether it changed meanwhile.  */
static bool
finish_copy (struct file_copy *fc, struct engine_plan const *first)
{
  off_t end = fc->ended_at;
  fc->ctx->verify.size = end;
  /* Without holes and without an early end, the writes set the size.  */
  if (S_ISREG (fc->dst_st.st_mode)
      && (first->make_holes || end < fc->src_st.st_size)
      && ftruncate (fc->dst_fd, end) != 0)
    return engine_fail (fc->res, ENGINE_SIDE_WRITE, errno);
  /* A hash that cannot be finished leaves the copy as good as it is:
     the caller says that the line is missing.  */
  if (fc->req->digest && !finish_digest (fc, end))
    {
      fc->req->digest->err = errno;
      fc->req->digest->hex[0] = '\0';
    }
  /* Not a failure, but worth saying (--debug, --stats, --verify).  */
  struct stat now;
  if (fc->req->report_changes && fstat (fc->src_fd, &now) == 0
      && (now.st_size != fc->src_st.st_size
          || now.st_mtim.tv_sec != fc->src_st.st_mtim.tv_sec
          || now.st_mtim.tv_nsec != fc->src_st.st_mtim.tv_nsec))
    fc->res->src_changed = true;
  return true;
}

/* Plan FC's copy and execute it, and each plan for what a refusal or a
   stop leaves, until the source says end of file.  */
static bool
copy_planned (struct file_copy *fc)
{
  struct engine_report *rep = &fc->res->report;
  plan_file (fc, &rep->plans[0]);
  /* copy_file_range, direct, and buffered is the longest chain: the
     buffered and stream plans read to the end.  */
  for (rep->n_plans = 1;; rep->n_plans++)
    {
      struct engine_plan *p = &rep->plans[rep->n_plans - 1];
      /* Buffer 0 exists (copy_whole made sure), so this is at least 1.  */
      unsigned int got = ensure_buffers (fc->ctx, p->depth, fc->src_fd,
                                         fc->dst_fd);
      if (got < p->depth)
        {
          p->depth = got;
          p->depth_why = "fewer buffers: an allocation failed";
        }
      enum exec_end e = exec_plan (fc, p, p + 1);
      if (e == EXEC_FAILED)
        return false;
      if (e == EXEC_DONE)
        return finish_copy (fc, &rep->plans[0]);
    }
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
        return engine_fail (res, ENGINE_SIDE_CLONE, err);
    }
  return copy_planned (fc);
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
  if (fc->req->digest && !digest_begin (fc->req->digest))
    return engine_fail (res, ENGINE_SIDE_NONE, ENOMEM);
  if (fc->req->src_st)
    fc->src_st = *fc->req->src_st;
  else if (fstat (src_fd, &fc->src_st) != 0)
    return engine_fail (res, ENGINE_SIDE_READ, errno);
  if (fc->req->dst_st)
    fc->dst_st = *fc->req->dst_st;
  else if (fstat (dst_fd, &fc->dst_st) != 0)
    return engine_fail (res, ENGINE_SIDE_WRITE, errno);
  if (!ensure_buffers (ctx, 1, src_fd, dst_fd))
    return engine_fail (res, ENGINE_SIDE_NONE, ENOMEM);
  /* Known now: a failed allocation may have made the buffers smaller.  */
  res->report.buffer_size = ctx->cfg.buffer_size;

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
  /* The plan may have asked for more buffers than could be had.  */
  res->report.short_of_memory = ctx->short_of_memory;
  if (!dio_release (&plain_src) && ok)
    ok = engine_fail (res, ENGINE_SIDE_READ, errno);
  if (!dio_release (&plain_dst) && ok)
    ok = engine_fail (res, ENGINE_SIDE_WRITE, errno);
  return ok;
}

bool
engine_copy (struct engine_ctx *ctx, int src_fd, int dst_fd,
             struct engine_request const *req, struct engine_result *res)
{
  *res = (struct engine_result) { .report = {
    .facts = { .reflink_allowed = req->reflink != ENGINE_REFLINK_NEVER
                                  && !req->digest } } };
  /* The plan gives the other reasons for not offloading (plan.c).  */
  if (req->reflink == ENGINE_REFLINK_NEVER)
    res->report.offload_why = req->reflink_why ? req->reflink_why
                                               : "--reflink=never";
  else if (req->digest)
    res->report.offload_why = "not tried: the data is hashed as it is read";
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
    {
      vr->err = ENOMEM;   /* side NONE: the check could not be made */
      return false;
    }
  struct verify_io io = { .dst_fd = dst_fd, .reader = reader,
                          .buf = ctx->buffers[0],
                          .src_buf = ctx->buffers[1],
                          .block = ctx->cfg.buffer_size,
                          .buffer_align = ctx->buffer_align,
                          .meter = ctx->cfg.meter };
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
