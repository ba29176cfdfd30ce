/* Reads and writes with per-call flags, and the write-a-whole-piece loop.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "rw.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#ifdef __linux__
# include <sys/syscall.h>
#endif

#include "dio.h"

/* preadv2/pwritev2 carry the flags.  C libraries without the wrappers
   (musl) get the raw system calls, whose offset comes as two longs (the
   kernel ignores the high one on 64-bit systems).  An offset of -1 means
   the current position, as it does for the wrappers.  */
#if defined HAVE_PREADV2 && defined HAVE_PWRITEV2
# define HAVE_RWF 1
static ssize_t
rwv2 (int fd, bool writing, struct iovec const *iov, off_t off, int flags)
{
  return writing ? pwritev2 (fd, iov, 1, off, flags)
                 : preadv2 (fd, iov, 1, off, flags);
}
#elif defined __linux__ && defined SYS_preadv2 && defined SYS_pwritev2
# define HAVE_RWF 1
static ssize_t
rwv2 (int fd, bool writing, struct iovec const *iov, off_t off, int flags)
{
  return syscall (writing ? SYS_pwritev2 : SYS_preadv2, fd, iov, 1,
                  (long) off, (long) ((uint64_t) off >> 32), flags);
}
#endif

ssize_t
rw_at (int fd, bool writing, char *buf, size_t len, off_t off, int *rwflags)
{
#ifdef HAVE_RWF
  if (*rwflags)
    {
      struct iovec iov = { buf, len };
      ssize_t n = rwv2 (fd, writing, &iov, off, *rwflags);
      if (n >= 0 || !dio_refusal (errno))
        return n;
      *rwflags = 0;    /* the kernel predates these flags */
    }
#else
  *rwflags = 0;
#endif
  if (off < 0)
    return writing ? write (fd, buf, len) : read (fd, buf, len);
  return writing ? pwrite (fd, buf, len, off) : pread (fd, buf, len, off);
}

size_t
rw_write_full (int fd, char const *buf, size_t len, off_t off, int *rwflags)
{
  size_t done = 0;
  while (done < len)
    {
      ssize_t n = rw_at (fd, true, (char *) buf + done, len - done,
                         off < 0 ? -1 : off + (off_t) done, rwflags);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n == 0)
            errno = ENOSPC;   /* no progress: a full device */
          break;
        }
      done += n;
    }
  return done;
}
