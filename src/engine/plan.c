/* Planning one file's copy: every choice made once, with its reason.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "plan.h"

#include <stdint.h>
#include <unistd.h>

#include "cache.h"
#include "dio.h"
#include "iosizes.h"
#include "reflink.h"
#include "sparse.h"

static int
refused_index (struct engine_ctx const *ctx, dev_t dev)
{
  for (int i = 0; i < ctx->n_refused; i++)
    if (ctx->refused[i].dev == dev)
      return i;
  return -1;
}

void
plan_refused (struct engine_ctx *ctx, dev_t dev, char const *op, int err)
{
  if (refused_index (ctx, dev) < 0 && ctx->n_refused < REFUSED_MAX)
    {
      ctx->refused[ctx->n_refused].dev = dev;
      ctx->refused[ctx->n_refused].op = op;
      ctx->refused[ctx->n_refused].err = err;
      ctx->n_refused++;
    }
}

/* What becomes of holes, from the scan (SEEK_HOLES) and the request.  */
static void
plan_holes (struct file_copy const *fc, struct engine_plan *p)
{
  enum engine_sparse sparse = fc->req->sparse;
  bool seek = p->seek_holes;
  /* Holes only in a regular file: skipped ranges of a device would keep
     whatever it held before.  */
  if (!S_ISREG (fc->dst_st.st_mode))
    p->holes_why = seek ? "the source's written as zeros (the destination"
                          " is not a regular file)"
                        : "none looked for (the destination is not a"
                          " regular file)";
  else if (sparse == ENGINE_SPARSE_NEVER)
    p->holes_why = seek ? "the source's written as zeros (--sparse=never)"
                        : "none looked for (--sparse=never)";
  else if (sparse == ENGINE_SPARSE_ALWAYS)
    {
      p->make_holes = p->zero_detect = true;
      p->holes_why = seek ? "the source's kept, and every all-zero block"
                            " left as a hole (--sparse=always)"
                          : "every all-zero block left as a hole"
                            " (--sparse=always)";
    }
  else if (seek)
    {
      p->make_holes = true;
      p->holes_why = "the source's kept, found with SEEK_DATA (it is"
                     " allocated less than its size)";
    }
  else
    p->holes_why = !fc->stream ? "none looked for (the source is allocated"
                                 " in full)"
                   : S_ISREG (fc->src_st.st_mode)
                   ? "none looked for (its size says 0: read as a stream)"
                   : "none looked for (a stream)";
}

/* Should what is left go direct?  Set P's reason either way.  */
static bool
want_direct (struct file_copy *fc, struct engine_plan *p)
{
  struct engine_ctx const *ctx = fc->ctx;
  if (fc->req->direct == ENGINE_DIRECT_NEVER)
    return p->why = "--direct=never", false;
  if (!dio_method ())
    return p->why = "not supported on this system", false;
  if (!S_ISREG (fc->dst_st.st_mode))
    return p->why = "the destination is not a regular file", false;
  int i = refused_index (ctx, fc->src_st.st_dev);
  if (i < 0)
    i = refused_index (ctx, fc->dst_st.st_dev);
  if (i >= 0)
    {
      p->why = ctx->refused[i].op;
      p->why_errno = ctx->refused[i].err;
      p->dontcache_reads = p->dontcache_writes = true;
      p->cache_why = "direct I/O was refused on this device before: only"
                     " the pages this copy brings in are dropped";
      return false;
    }
  if (fc->req->direct == ENGINE_DIRECT_ALWAYS)
    return p->why = "--direct=always", true;
  if (fc->src_st.st_size < (off_t) ctx->cfg.buffer_size)
    return p->why = "smaller than one buffer", false;
  /* Data already cached is served from memory faster than any device, and
     reading it buffered costs no eviction; its copy need not stay.  */
  if (cache_resident_fraction (fc->src_fd, fc->src_st.st_size) >= 0.5)
    {
      p->dontcache_writes = true;
      p->cache_why = "reads served from it, where the source is; writes"
                     " with RWF_DONTCACHE, so the copy does not stay";
      return p->why = "source mostly in the page cache", false;
    }
  p->why = "one buffer or more, not in the page cache";
  return true;
}

/* Whether the kernel's alignment for both files suits the buffers; set
   P's alignment.  */
static bool
plan_alignment (struct file_copy const *fc, struct engine_plan *p)
{
  struct dio_align sa = dio_alignment (fc->src_fd, &fc->src_st,
                                       &p->align_from);
  struct dio_align da = dio_alignment (fc->dst_fd, &fc->dst_st,
                                       &p->align_from);
  p->mem_align = sa.mem_align > da.mem_align ? sa.mem_align : da.mem_align;
  p->offset_align = sa.offset_align > da.offset_align ? sa.offset_align
                                                      : da.offset_align;
  p->align = p->offset_align > CP8M_IO_ALIGN ? p->offset_align
                                             : CP8M_IO_ALIGN;
  return p->io_size % p->align == 0 && p->mem_align <= fc->ctx->buffer_align;
}

/* Direct, buffered or stream for what FC->chunks holds, from P->from.  */
static void
plan_method (struct file_copy *fc, struct engine_plan *p)
{
  struct engine_ctx *ctx = fc->ctx;
  off_t size = fc->src_st.st_size;
  p->method = fc->stream ? ENGINE_COPY_STREAM : ENGINE_COPY_BUFFERED;
  p->to_end = true;
  p->depth = 1;
  p->depth_why = "buffered: the kernel reads ahead and writes behind";
  /* What is left to write: a sparse file's data is what it has
     allocated, unless its holes are written as zeros.  */
  off_t blocks = fc->src_st.st_blocks < INTMAX_MAX / 512
                 ? fc->src_st.st_blocks * 512 : INTMAX_MAX;
  bool holes_kept = p->seek_holes && p->make_holes;
  p->data = fc->stream ? -1
            : holes_kept && fc->no_data ? 0
            : holes_kept && blocks < size - p->from ? blocks
            : size - p->from;
  bool direct = false;
  if (fc->stream)
    p->why = S_ISREG (fc->src_st.st_mode)
             ? "its size says 0: read until it ends, as /proc files must be"
             : "not a regular file with a size";
  else if (p->data == 0)
    {
      /* Nothing to read: the destination only gets the size.  */
      p->why = fc->no_data ? "no data: the source is all holes"
                           : "no data left";
      p->cache_why = "not touched (nothing is read or written)";
    }
  else if (want_direct (fc, p) && !(direct = plan_alignment (fc, p)))
    {
      p->why = "alignment";
      p->dontcache_reads = p->dontcache_writes = true;
      p->cache_why = "RWF_DONTCACHE on reads and writes: direct I/O was"
                     " wanted, so only the pages this copy brings in are"
                     " dropped";
    }
  if (direct)
    {
      p->method = ENGINE_COPY_DIRECT;
      p->to_end = false;
      p->dio = dio_method ();
      p->caveat = dio_cache_caveat (fc->src_fd);
      if (!p->caveat)
        p->caveat = dio_cache_caveat (fc->dst_fd);
      p->cache_why = "bypassed (direct I/O)";
      off_t pieces = (p->data + p->io_size - 1) / p->io_size;
      unsigned int want = ctx->cfg.queue_depth;
      p->depth_why = "--queue-depth";
      if (pieces < want)
        {
          want = pieces > 0 ? pieces : 1;
          p->depth_why = "no more than the pieces of data it has";
        }
      p->depth = want;
    }
  if (!p->cache_why)
    p->cache_why = fc->stream ? "used as any program uses it (a stream)"
                              : "used as any program uses it";

  /* Space: reserved before data moves, so that ENOSPC comes now, not half
     way.  A file no one can see yet also gets its size (extending direct
     writes serialise on ext4's inode lock); one overwritten in place
     keeps a size below the source's until the last write.  */
  bool regular = S_ISREG (fc->dst_st.st_mode);
  if (fc->stream || !regular)
    p->prealloc_why = !fc->stream ? "not reserved (not a regular file)"
                      : S_ISREG (fc->src_st.st_mode)
                      ? "not reserved (its size says 0)"
                      : "not reserved (a stream's size is not known)";
  else if (p->make_holes)
    p->prealloc_why = "not reserved (the copy keeps holes)";
  else if (p->data < (off_t) p->io_size)
    p->prealloc_why = "not reserved (one write sets the size and reports"
                      " a full disk by itself)";
  else
    {
      p->prealloc = true;
      p->prealloc_why = fc->req->in_place
                        ? "reserved for the whole file first, its size"
                          " unchanged (fallocate KEEP_SIZE)"
                        : "reserved for the whole file first (fallocate)";
    }
  p->hold_last = fc->req->in_place && !fc->stream;
}

void
plan_file (struct file_copy *fc, struct engine_plan *p)
{
  struct engine_facts *f = &fc->res->report.facts;
  fc->sequential = !S_ISREG (fc->dst_st.st_mode)
                   && !S_ISBLK (fc->dst_st.st_mode);
  /* Pipes and devices stream; so do regular files that claim size 0,
     which /proc and /sys files do while having contents.  */
  fc->stream = !S_ISREG (fc->src_st.st_mode) || fc->src_st.st_size == 0;
  off_t first_data = -1;
  bool seek = !fc->stream && sparse_scan (fc->src_fd, &fc->src_st,
                                          &first_data);
  f->scan = seek ? ENGINE_SCAN_LSEEK : ENGINE_SCAN_PLAIN;
  fc->no_data = seek && first_data < 0;
  f->ran = !fc->no_data;
  *p = (struct engine_plan) { .then = ENGINE_THEN_FIRST, .seek_holes = seek,
                              .io_size = fc->ctx->cfg.buffer_size };
  plan_holes (fc, p);
  f->zero_detect = p->zero_detect;
  fc->chunks = (struct chunker) {
    .probe_fd = fc->src_fd, .size = fc->stream ? 0 : fc->src_st.st_size,
    .seek_holes = seek, .fill_holes = seek && !p->make_holes,
    .align = 1, .ext_end = -1,
  };
  struct engine_report *rep = &fc->res->report;
  if (f->reflink_allowed && p->zero_detect)
    rep->offload_why = "not tried: all-zero blocks are made holes"
                       " (--sparse=always), which copy_file_range would"
                       " copy";
  /* Nothing for copy_file_range to move: the size alone is set.  */
  if (f->reflink_allowed && !p->zero_detect && fc->no_data)
    rep->offload_why = "not needed: the source is all holes";
  if (f->reflink_allowed && !p->zero_detect && !fc->no_data)
    {
      /* GNU cp tries copy_file_range whenever reflinks are allowed and no
         zero blocks are looked for.  */
      p->method = ENGINE_COPY_OFFLOAD;
      p->why = "--reflink lets the file system copy (copy_file_range)";
      p->to_end = fc->stream;
      p->io_size = REFLINK_OFFLOAD_MAX;
      p->depth = 1;
      p->depth_why = "one call at a time";
      p->prealloc_why = "not reserved (the file system allocates)";
      p->cache_why = "not touched (the file system copies)";
      p->hold_last = fc->req->in_place && !fc->stream;
      return;
    }
  plan_method (fc, p);
}

void
plan_rest (struct file_copy *fc, struct engine_plan const *prev,
           struct engine_plan *p, enum engine_then then, char const *why,
           int err)
{
  off_t from = fc->chunks.cur;
  for (int i = 0; i < fc->chunks.n_redo; i++)
    if (fc->chunks.redo[i].off < from)
      from = fc->chunks.redo[i].off;
  *p = (struct engine_plan) {
    .then = then, .why = why, .why_errno = err, .from = from,
    .io_size = fc->ctx->cfg.buffer_size, .seek_holes = prev->seek_holes,
    .make_holes = prev->make_holes, .zero_detect = prev->zero_detect,
    .holes_why = prev->holes_why };
  if (then == ENGINE_THEN_REST)
    {
      /* Why copy_file_range stopped is the offload's story (its
         report); this plan's reason is the method it chose.  */
      struct engine_report *rep = &fc->res->report;
      rep->offload_why = why;
      rep->offload_errno = err;
      p->why_errno = 0;
      plan_method (fc, p);
      return;
    }
  /* What a direct copy refused or could not align: buffered, dropping
     only the pages it brings in, never pages cached before (a
     database's own).  A tail is synced so that the file is on disk as
     its direct part is.  */
  p->method = fc->stream ? ENGINE_COPY_STREAM : ENGINE_COPY_BUFFERED;
  p->to_end = true;
  p->data = fc->stream ? -1 : fc->src_st.st_size - from;
  p->depth = 1;
  p->depth_why = "buffered: the kernel reads ahead and writes behind";
  p->dontcache_reads = p->dontcache_writes = prev->method
                                               != ENGINE_COPY_OFFLOAD;
  p->cache_why = "RWF_DONTCACHE on reads and writes: only the pages this"
                 " copy brings in are dropped";
  p->sync = then == ENGINE_THEN_TAIL && from < fc->src_st.st_size;
  p->prealloc = prev->prealloc;
  p->prealloc_why = prev->prealloc_why;
  p->hold_last = prev->hold_last;
}
