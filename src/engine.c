/* The data engine: buffer ownership and the copy loop.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "engine.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dio.h"
#include "iosizes.h"

struct engine_ctx
{
  size_t buffer_size;         /* every I/O but the last is this long */
  char *buffer;               /* NULL until the first copy needs it */
  unsigned int allocations;   /* times BUFFER was allocated */
};

static size_t
io_unit (void)
{
  long page = sysconf (_SC_PAGESIZE);
  return page > CP8M_IO_ALIGN ? (size_t) page : CP8M_IO_ALIGN;
}

struct engine_ctx *
engine_ctx_new (size_t buffer_size)
{
  size_t rounded = dio_round_up (buffer_size, io_unit ());
  if (buffer_size == 0 || rounded == 0)
    {
      errno = EINVAL;
      return NULL;
    }
  struct engine_ctx *ctx = calloc (1, sizeof *ctx);
  if (ctx)
    ctx->buffer_size = rounded;
  return ctx;
}

void
engine_ctx_free (struct engine_ctx *ctx)
{
  if (ctx)
    {
      free (ctx->buffer);
      free (ctx);
    }
}

size_t
engine_buffer_size (struct engine_ctx const *ctx)
{
  return ctx->buffer_size;
}

unsigned int
engine_buffer_allocations (struct engine_ctx const *ctx)
{
  return ctx->allocations;
}

/* The buffer is allocated on the first copy, not in engine_ctx_new, so
   that its alignment can honour what the first files report and a run
   that copies nothing allocates nothing.  */
static char *
engine_buffer (struct engine_ctx *ctx, int src_fd, int dst_fd)
{
  if (ctx->buffer)
    return ctx->buffer;
  struct dio_align src = { 0, 0 }, dst = { 0, 0 };
  dio_query_fd (src_fd, &src);
  dio_query_fd (dst_fd, &dst);
  unsigned int mem = src.mem_align > dst.mem_align ? src.mem_align
                                                   : dst.mem_align;
  size_t align = dio_buffer_alignment (sysconf (_SC_PAGESIZE), mem);
  void *buf;
  if (posix_memalign (&buf, align, ctx->buffer_size) != 0)
    return NULL;
  ctx->buffer = buf;
  ctx->allocations++;
  return ctx->buffer;
}

/* Read up to SIZE bytes into BUF.  A regular file (STREAM false) gets one
   read per buffer: a short count there is normally end of file, and the
   next read, again for a whole buffer, confirms it with 0.  A pipe or
   other stream (STREAM true) delivers data in pieces, so keep reading until
   the buffer is full or the writer is gone, so that writes stay whole
   buffers.  Return the byte count, 0 at end of file, or -1.  */
static ssize_t
read_buffer (int fd, char *buf, size_t size, bool stream)
{
  size_t got = 0;
  while (got < size)
    {
      ssize_t n = read (fd, buf + got, size - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -1;
      got += n;
      if (n == 0 || !stream)
        break;
    }
  return got;
}

/* Write all SIZE bytes of BUF.  A write that makes no progress is
   reported as ENOSPC, as a full device is its only cause.  */
static bool
write_fully (int fd, char const *buf, size_t size)
{
  while (size > 0)
    {
      ssize_t n = write (fd, buf, size);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return false;
      if (n == 0)
        {
          errno = ENOSPC;
          return false;
        }
      buf += n;
      size -= n;
    }
  return true;
}

static bool
fail (struct engine_result *res, enum engine_side side, int err)
{
  res->side = side;
  res->err = err;
  return false;
}

bool
engine_copy (struct engine_ctx *ctx, int src_fd, int dst_fd,
             struct engine_result *res)
{
  *res = (struct engine_result) { .method = ENGINE_METHOD_READ_WRITE };
  char *buf = engine_buffer (ctx, src_fd, dst_fd);
  if (!buf)
    return fail (res, ENGINE_SIDE_NONE, ENOMEM);
  struct stat st;
  bool stream = fstat (src_fd, &st) != 0 || !S_ISREG (st.st_mode);

  for (;;)
    {
      ssize_t n = read_buffer (src_fd, buf, ctx->buffer_size, stream);
      if (n < 0)
        return fail (res, ENGINE_SIDE_READ, errno);
      if (n == 0)
        return true;
      if (!write_fully (dst_fd, buf, n))
        return fail (res, ENGINE_SIDE_WRITE, errno);
      res->bytes += n;
      /* A stream's short buffer means read_buffer saw end of file.  */
      if (stream && (size_t) n < ctx->buffer_size)
        return true;
    }
}
