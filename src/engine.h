/* The cp8M data engine: moves the bytes of one file between two open
   descriptors.

   The engine is a library.  It never sees a path, never prints, never
   exits and has no mutable globals; the cp layer opens the descriptors,
   decides what to copy and turns an engine_result into a message.  Its
   buffers belong to one engine_ctx per process, allocated on first use, so
   a tree of tiny files pays for them once.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_ENGINE_H
#define CP8M_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct engine_ctx;

/* Which descriptor an error came from.  */
enum engine_side
{
  ENGINE_SIDE_NONE,   /* no error, or not tied to either file (ENOMEM) */
  ENGINE_SIDE_READ,   /* the source */
  ENGINE_SIDE_WRITE   /* the destination */
};

/* How the data moved.  */
enum engine_method
{
  ENGINE_METHOD_READ_WRITE   /* buffered read(2)/write(2) of full buffers */
};

/* What engine_copy reports.  */
struct engine_result
{
  off_t bytes;                /* bytes written to the destination */
  int err;                    /* errno of the failure, 0 on success */
  enum engine_side side;      /* where ERR happened */
  enum engine_method method;  /* the path the data took */
};

/* Create a context whose buffers hold BUFFER_SIZE bytes, rounded up to the
   I/O alignment (CP8M_IO_ALIGN or the page size, whichever is larger).
   BUFFER_SIZE must be positive.  Nothing large is allocated yet.  Return
   NULL with errno set on failure.  */
struct engine_ctx *engine_ctx_new (size_t buffer_size);

/* Free CTX and its buffers.  CTX may be NULL.  */
void engine_ctx_free (struct engine_ctx *ctx);

/* The rounded buffer size CTX uses for every read and write.  */
size_t engine_buffer_size (struct engine_ctx const *ctx);

/* How many times CTX has allocated its buffer (0 or 1): for tests.  */
unsigned int engine_buffer_allocations (struct engine_ctx const *ctx);

/* Copy everything from SRC_FD, from its current offset to end of file, to
   DST_FD at its current offset.  From a regular file every read asks for a
   whole buffer; from a pipe or other stream, reads continue until the
   buffer is full.  Either way every write but the last is a whole buffer.
   EINTR is retried, short reads and short writes are continued.
   Fill *RES and return true on success; on failure return false with
   RES->err and RES->side saying what failed and RES->bytes how much was
   written before it.  */
bool engine_copy (struct engine_ctx *ctx, int src_fd, int dst_fd,
                  struct engine_result *res);

#endif
