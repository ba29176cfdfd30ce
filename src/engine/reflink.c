/* FICLONE and copy_file_range.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "reflink.h"

#include <errno.h>
#include <unistd.h>
#ifdef __linux__
# include <sys/ioctl.h>
# ifdef HAVE_LINUX_FS_H
#  include <linux/fs.h>
# endif
# ifndef FICLONE          /* C libraries without kernel headers (musl) */
#  define FICLONE _IOW (0x94, 9, int)
# endif
#endif

#include "dio.h"

/* Errors that mean "this pair of files cannot do that", not a failure.  */
static bool
unsupported (int err)
{
  return dio_refusal (err) || err == EXDEV || err == ENOSYS
         || err == ENOTTY || err == EBADF || err == EPERM;
}

enum reflink_outcome
reflink_copy (int src_fd, int dst_fd, off_t size, bool always,
              bool offload, struct engine_result *res)
{
#ifdef FICLONE
  if (ioctl (dst_fd, FICLONE, src_fd) == 0)
    {
      res->report.reflink = "yes";
      res->bytes = size;
      return REFLINK_DONE;
    }
  int err = errno;
#else
  int err = EOPNOTSUPP;
#endif
  res->report.reflink = "unsupported";
  if (always)
    {
      res->err = err;
      res->side = ENGINE_SIDE_CLONE;
      return REFLINK_FAILED;
    }

  if (!offload)
    return REFLINK_NOT_DONE;
#ifdef HAVE_COPY_FILE_RANGE
  off_t in = 0, out = 0;
  while (in < size)
    {
      ssize_t n = copy_file_range (src_fd, &in, dst_fd, &out, size - in, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && unsupported (errno))
        {
          /* Refused, at once or part way (some filesystems stop at a
             boundary): the normal copy rewrites it all from the start,
             with the same bytes.  */
          res->report.offload = "unsupported";
          res->bytes = 0;
          return REFLINK_NOT_DONE;
        }
      if (n < 0)
        {
          res->err = errno;
          res->side = ENGINE_SIDE_WRITE;
          return REFLINK_FAILED;
        }
      if (n == 0)
        break;   /* the source shrank under us: the caller ends it there */
    }
  res->report.offload = "yes";
  res->bytes = in;
  return REFLINK_DONE;
#else
  res->report.offload = "unsupported";
  return REFLINK_NOT_DONE;
#endif
}
