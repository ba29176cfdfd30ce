/* Direct-I/O alignment discovery and arithmetic.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "dio.h"
#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
# include <sys/ioctl.h>
# include <sys/syscall.h>
# include <sys/vfs.h>
#endif
#ifdef DIO_WITH_DIRECTIO
# include <sys/types.h>
# include <sys/fcntl.h>    /* directio (), DIRECTIO_ON, DIRECTIO_OFF */
#endif

#ifndef AT_EMPTY_PATH
# define AT_EMPTY_PATH 0x1000
#endif

/* The kernel's value; older headers lack it.  */
enum { DIO_STATX_DIOALIGN = 0x2000 };

#if defined __linux__ && HAVE_DECL_SYS_STATX

/* The kernel's struct statx, declared here because C libraries lack its
   direct-I/O fields (glibc before 2.37) or the structure itself (musl):
   the system call is made directly.  The layout is kernel ABI: 256
   bytes, the direct-I/O fields at offsets 152 and 156.  */
struct dio_kernel_statx
{
  uint32_t mask, blksize;
  uint64_t attributes;
  uint32_t nlink, uid, gid;
  uint16_t mode, spare0;
  uint64_t ino, size, blocks, attributes_mask;
  struct { int64_t sec; uint32_t nsec; int32_t reserved; } times[4];
  uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
  uint64_t mnt_id;
  uint32_t dio_mem_align, dio_offset_align;
  uint64_t spare3[12];
};
_Static_assert (sizeof (struct dio_kernel_statx) == 256, "statx ABI");

bool
dio_query_fd (int fd, struct dio_align *out)
{
  struct dio_kernel_statx stx = { 0 };
  if (syscall (SYS_statx, fd, "", AT_EMPTY_PATH, DIO_STATX_DIOALIGN, &stx) != 0
      || !(stx.mask & DIO_STATX_DIOALIGN) || stx.dio_offset_align == 0)
    return false;
  out->mem_align = stx.dio_mem_align;
  out->offset_align = stx.dio_offset_align;
  return true;
}

#else

bool
dio_query_fd (int fd, struct dio_align *out)
{
  (void) fd;
  (void) out;
  return false;
}

#endif

/* The logical block size of the block device DEV, from sysfs.  */
static unsigned int
block_device_sector (dev_t dev)
{
#ifdef __linux__
  char path[96];
  snprintf (path, sizeof path,
            "/sys/dev/block/%u:%u/queue/logical_block_size",
            major (dev), minor (dev));
  FILE *f = fopen (path, "re");
  if (!f)
    {
      /* A partition has no queue/ of its own: ask its parent disk.  */
      snprintf (path, sizeof path,
                "/sys/dev/block/%u:%u/../queue/logical_block_size",
                major (dev), minor (dev));
      f = fopen (path, "re");
    }
  unsigned int size = 0;
  if (f)
    {
      if (fscanf (f, "%u", &size) != 1)
        size = 0;
      fclose (f);
    }
  return size;
#else
  (void) dev;
  return 0;
#endif
}

struct dio_align
dio_alignment (int fd, struct stat const *st, char const **from)
{
  struct dio_align a;
  if (dio_query_fd (fd, &a))
    {
      *from = "statx";
      return a;
    }
  unsigned int sector = block_device_sector (S_ISBLK (st->st_mode)
                                             ? st->st_rdev : st->st_dev);
  if (sector != 0 && (sector & (sector - 1)) == 0)
    {
      *from = "block device";
      return (struct dio_align) { sector, sector };
    }
  *from = "default";
  return (struct dio_align) { 4096, 4096 };
}

char const *
dio_method (void)
{
#if defined DIO_WITH_O_DIRECT
  return "O_DIRECT";
#elif defined DIO_WITH_DIRECTIO
  return "directio";
#elif defined DIO_WITH_F_NOCACHE
  return "F_NOCACHE";
#else
  return NULL;
#endif
}

char const *
engine_dio_method (void)
{
  return dio_method ();
}

char const *
dio_enable_step (void)
{
#if defined DIO_WITH_O_DIRECT && defined __linux__
  return "open";
#else
  return dio_method ();
#endif
}

/* Set or clear the OS's direct-I/O flag on FD itself.  */
static bool
set_direct_flag (int fd, bool on)
{
#if defined DIO_WITH_O_DIRECT
  int fl = fcntl (fd, F_GETFL);
  return fl >= 0
         && fcntl (fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) == 0;
#elif defined DIO_WITH_DIRECTIO
  return directio (fd, on ? DIRECTIO_ON : DIRECTIO_OFF) == 0;
#elif defined DIO_WITH_F_NOCACHE
  return fcntl (fd, F_NOCACHE, on ? 1 : 0) != -1;
#else
  (void) fd;
  (void) on;
  errno = EOPNOTSUPP;
  return false;
#endif
}

int
dio_reopen (int fd, int flags)
{
#ifdef __linux__
  char path[32];
  snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
  int nfd = open (path, flags | O_CLOEXEC);
  if (nfd < 0 && errno == ENOENT)
    errno = ENOSYS;   /* FD is open: only the way to it is missing */
  if (nfd < 0)
    return -1;
  struct stat a, b;
  if (fstat (fd, &a) == 0 && fstat (nfd, &b) == 0
      && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
    return nfd;
  close (nfd);
  errno = EXDEV;
#else
  (void) fd, (void) flags;
  errno = ENOSYS;
#endif
  return -1;
}

bool
dio_enable (int fd, int accmode, struct dio_fd *out)
{
  *out = (struct dio_fd) { .fd = -1 };
#if defined __linux__ && defined DIO_WITH_O_DIRECT
  /* A second open file description of the same file: FUSE daemons see
     O_DIRECT at open time, and FD stays plain for the tail.  Reopening
     can fail where the first open succeeded (no /proc, or a new file
     created read-only); then set the flag on FD itself.  */
  int dfd = dio_reopen (fd, accmode | O_DIRECT);
  if (dfd >= 0)
    {
      out->fd = dfd;
      out->own = true;
      return true;
    }
  if (dio_refusal (errno))
    return false;
#else
  (void) accmode;
#endif
  if (!set_direct_flag (fd, true))
    return false;
  out->fd = fd;
  out->flag_set = true;
  return true;
}

bool
dio_flag_set (int fd)
{
#if defined DIO_WITH_O_DIRECT
  int fl = fcntl (fd, F_GETFL);
  return fl >= 0 && (fl & O_DIRECT);
#else
  (void) fd;
  return false;
#endif
}

void
dio_plain (int fd, int accmode, struct dio_fd *out)
{
  *out = (struct dio_fd) { .fd = fd };
#if defined DIO_WITH_O_DIRECT
  int fl = fcntl (fd, F_GETFL);
  if (fl < 0 || !(fl & O_DIRECT))
    return;
# ifdef __linux__
  int pfd = dio_reopen (fd, accmode);
  if (pfd >= 0 && !(fcntl (pfd, F_GETFL) & O_DIRECT))
    {
      out->fd = pfd;
      out->own = true;
      return;
    }
  if (pfd >= 0)
    close (pfd);
# else
  (void) accmode;
# endif
  /* Clear the flag for good: this descriptor is ours to use for now.  */
  fcntl (fd, F_SETFL, fl & ~O_DIRECT);
#else
  (void) accmode;
#endif
}

bool
dio_release (struct dio_fd *d)
{
  bool ok = true;
  /* A close error of our own descriptor is a write error like any
     other: NFS reports a failed flush of cached data only there.  */
  if (d->own)
    ok = close (d->fd) == 0;
  else if (d->flag_set)
    ok = set_direct_flag (d->fd, false);
  *d = (struct dio_fd) { .fd = -1 };
  return ok;
}

char const *
dio_cache_caveat (int fd)
{
#ifdef __linux__
  enum { TMPFS = 0x01021994, BTRFS = 0x9123683E };
  enum { NOCOW = 0x00800000 };   /* FS_NOCOW_FL: no data checksums */
  struct statfs fs;
  if (fstatfs (fd, &fs) != 0)
    return NULL;
  if ((unsigned long) fs.f_type == TMPFS)
    return "tmpfs caches anyway";
  if ((unsigned long) fs.f_type == BTRFS)
    {
      int flags = 0;
      /* FS_IOC_GETFLAGS, spelled out for libcs without <linux/fs.h>.  */
      if (ioctl (fd, _IOR ('f', 1, long), &flags) != 0 || !(flags & NOCOW))
        return "btrfs caches checksummed files";
    }
#else
  (void) fd;
#endif
  return NULL;
}

bool
dio_refusal (int err)
{
  return err == EINVAL || err == EOPNOTSUPP || err == ENOTSUP
         || err == ENOTTY;
}

size_t
dio_buffer_alignment (size_t page_size, unsigned int mem_align)
{
  size_t want = page_size > mem_align ? page_size : mem_align;
  size_t align = 1;
  while (align < want)
    align <<= 1;
  return align;
}

size_t
dio_round_up (size_t size, size_t align)
{
  size_t rest = size % align;
  if (rest == 0)
    return size;
  if (size > SIZE_MAX - (align - rest))
    return 0;
  return size + (align - rest);
}
