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

int
reflink_clone (int dst_fd, int src_fd)
{
#ifdef FICLONE
  return ioctl (dst_fd, FICLONE, src_fd) == 0 ? 0 : errno;
#else
  (void) dst_fd;
  (void) src_fd;
  return EOPNOTSUPP;
#endif
}

bool
reflink_clone_fatal (int err)
{
  /* Any other error (EXDEV, EOPNOTSUPP, EINVAL for a pipe, ENOTTY, and
     whatever odd value a filesystem returns) means "not here".  */
  return err == EIO || err == ENOMEM || err == ENOSPC || err == EDQUOT;
}

ssize_t
reflink_offload (int src_fd, off_t *in, int dst_fd, off_t *out, size_t len)
{
#ifdef HAVE_COPY_FILE_RANGE
  return copy_file_range (src_fd, in, dst_fd, out, len, 0);
#else
  (void) src_fd, (void) in, (void) dst_fd, (void) out, (void) len;
  errno = ENOSYS;
  return -1;
#endif
}

bool
reflink_offload_refused (int err)
{
  /* EINVAL: a pipe, a device or a filesystem without it; EXDEV: across
     filesystems; EPERM: a seccomp filter; ENOENT: seen on CIFS shares,
     where a plain copy then works.  */
  return err == ENOSYS || err == ENOTTY || err == EOPNOTSUPP
         || err == ENOTSUP || err == EINVAL || err == EBADF || err == EXDEV
         || err == ETXTBSY || err == EPERM || err == EACCES
         || err == ENOENT;
}
