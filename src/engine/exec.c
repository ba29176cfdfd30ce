/* Executing a plan: the one way data moves, whatever the plan says.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "plan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "dio.h"
#include "rw.h"

/* Reserve the destination's space, or give a new one its size, as P
   says.  Return false with *RES filled on failure.  */
static bool
prepare_dest (struct file_copy *fc, struct engine_plan const *p)
{
  off_t size = fc->src_st.st_size;
  bool in_place = fc->req->in_place;
  bool set_size = S_ISREG (fc->dst_st.st_mode) && p->make_holes
                  && p->method != ENGINE_COPY_OFFLOAD;
  if (p->prealloc)
    {
#ifdef HAVE_FALLOCATE
      if (fallocate (fc->dst_fd, in_place ? FALLOC_FL_KEEP_SIZE : 0, 0,
                     size) == 0)
        return true;
      if (errno == ENOSPC || errno == EFBIG || errno == EDQUOT)
        return engine_fail (fc->res, ENGINE_SIDE_WRITE, errno);
#endif
      set_size = true;
    }
  if (set_size && !in_place && ftruncate (fc->dst_fd, size) != 0)
    return engine_fail (fc->res, ENGINE_SIDE_WRITE, errno);
  return true;
}

/* Open FC's files for direct I/O in *SRC and *DST.  When the system
   refuses, remember it for the device and make the plan for the rest in
   *NEXT (which may be P).  */
static bool
open_direct (struct file_copy *fc, struct engine_plan const *p,
             struct dio_fd *src, struct dio_fd *dst, struct engine_plan *next)
{
  dev_t dev = fc->src_st.st_dev;
  if (dio_enable (fc->src_fd, O_RDONLY, src))
    {
      dev = fc->dst_st.st_dev;
      if (dio_enable (fc->dst_fd, O_WRONLY, dst))
        return true;
      int err = errno;
      dio_release (src);
      errno = err;
    }
  int err = errno;
  /* Only a refusal, not (say) running out of descriptors, is for good.  */
  if (dio_refusal (err))
    plan_refused (fc->ctx, dev, dio_enable_step (), err);
  struct engine_plan rest;
  plan_rest (fc, p, &rest, ENGINE_THEN_REFUSED, dio_enable_step (), err);
  *next = rest;
  return false;
}

enum exec_end
exec_plan (struct file_copy *fc, struct engine_plan *p,
           struct engine_plan *next)
{
  struct engine_ctx *ctx = fc->ctx;
  struct engine_result *res = fc->res;
  struct chunker *c = &fc->chunks;
  off_t size = fc->src_st.st_size;
  if (p->then != ENGINE_THEN_REFUSED && p->then != ENGINE_THEN_TAIL
      && !prepare_dest (fc, p))
    return EXEC_FAILED;
  struct dio_fd src = { .fd = fc->src_fd }, dst = { .fd = fc->dst_fd };
  bool direct = p->method == ENGINE_COPY_DIRECT;
  /* Refused at open: nothing moved, so the plan for the rest is the
     plan for the whole.  */
  if (direct && !open_direct (fc, p, &src, &dst, p))
    return exec_plan (fc, p, next);
  /* Direct pieces start at multiples of the alignment (after a
     copy_file_range that stopped part way, what it wrote before is
     written again: the same bytes) and stop at its last multiple.  */
  c->align = direct ? p->align : 1;
  c->cur -= c->cur % c->align;
  c->limit = direct ? size - size % p->align : p->to_end ? INTMAX_MAX : size;
  struct io_job job = {
    .src_fd = src.fd, .dst_fd = dst.fd, .direct = direct,
    .stream = fc->stream, .sequential = fc->sequential,
    .offload = p->method == ENGINE_COPY_OFFLOAD,
    .read_flags = p->dontcache_reads ? RWF_DONTCACHE : 0,
    .write_flags = p->dontcache_writes ? RWF_DONTCACHE : 0,
    .zero_detect = p->zero_detect, .hold_last = p->hold_last,
    .buffer_size = ctx->cfg.buffer_size, .chunks = c,
    .verify = ctx->verify.hashing ? &ctx->verify : NULL,
    .meter = ctx->cfg.meter, .ended_at = -1, .digest = fc->req->digest,
  };
  c->digest = fc->req->digest;
  for (unsigned int i = 0; i < p->depth; i++)
    job.free_buf[job.n_free++] = ctx->buffers[i];
  pthread_mutex_init (&job.lock, NULL);
  pthread_cond_init (&job.idle, NULL);
  pipeline_run (&job, p->depth);
  pthread_cond_destroy (&job.idle);
  pthread_mutex_destroy (&job.lock);

  p->bytes = job.bytes;
  res->bytes += job.bytes;
  /* The kernel may have refused RWF_DONTCACHE: --debug says so.  */
  p->dontcache_refused = (p->dontcache_reads && !job.read_flags)
                         || (p->dontcache_writes && !job.write_flags);
  /* Only a pass that reads until the end says where the file ends: a
     direct read may come back short where a plain one would not.  */
  if (p->to_end)
    fc->ended_at = job.ended_at;
  else if (job.ended_at >= 0)
    chunker_restart (c, job.ended_at);
  struct engine_facts *f = &res->report.facts;
  if (job.offload_moved)
    {
      f->offload = ENGINE_OFFLOAD_MOVED;
      verify_rec_by_source (&ctx->verify, "data cloned or offloaded");
    }
  /* copy_file_range stops at a failure: the last word is that.  */
  if (job.offload_failed)
    f->offload = ENGINE_OFFLOAD_FAILED;
  bool ok = job.err == 0 || engine_fail (res, job.side, job.err);
  /* A destination's close can report a write that failed late (NFS).  */
  if (!dio_release (&src) && ok)
    ok = engine_fail (res, ENGINE_SIDE_READ, errno);
  if (!dio_release (&dst) && ok)
    ok = engine_fail (res, ENGINE_SIDE_WRITE, errno);
  if (ok && p->sync && fdatasync (fc->dst_fd) != 0 && errno != EINVAL)
    ok = engine_fail (res, ENGINE_SIDE_WRITE, errno);
  if (!ok)
    return EXEC_FAILED;

  if (job.refused_errno)
    {
      /* The chunker still holds what is left and the refused ranges to
         redo: nothing is copied twice.  */
      char const *op = job.refused_side == ENGINE_SIDE_READ ? "read"
                                                            : "write";
      plan_refused (ctx, job.refused_side == ENGINE_SIDE_READ
                         ? fc->src_st.st_dev : fc->dst_st.st_dev,
                    op, job.refused_errno);
      plan_rest (fc, p, next, ENGINE_THEN_REFUSED, op, job.refused_errno);
      return EXEC_NEXT;
    }
  if (job.handed_back)
    {
      /* Else a call said 0 at a piece's first byte: an empty file or
         a /proc file (read as streams), or a size that is a guess.  */
      plan_rest (fc, p, next, ENGINE_THEN_REST,
                 job.offload_failed ? "copy_file_range refused"
                 : fc->stream ? "copy_file_range found no data at once,"
                                " so it is read until it ends"
                 : "copy_file_range found no data where the size says"
                   " there is some",
                 job.offload_failed);
      return EXEC_NEXT;
    }
  if (p->method == ENGINE_COPY_OFFLOAD)
    res->report.offloaded = true;
  if (p->to_end)
    return EXEC_DONE;
  /* A direct read that came back short is a refusal too.  */
  if (direct && job.ended_at >= 0)
    plan_rest (fc, p, next, ENGINE_THEN_REFUSED, "short read", 0);
  /* Stopped at the size, or at the alignment's last multiple: the rest,
     and whatever the source grew by, is read until it ends, as GNU cp
     reads it.  */
  else
    plan_rest (fc, p, next, ENGINE_THEN_TAIL,
               direct ? "the tail: not a multiple of the alignment"
                      : "the end: reads until the source says it ended", 0);
  return EXEC_NEXT;
}
