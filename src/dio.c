/* Direct-I/O alignment discovery and arithmetic.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "dio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
# include <sys/syscall.h>
#endif

#ifndef AT_EMPTY_PATH
# define AT_EMPTY_PATH 0x1000
#endif

/* The kernel's value; older headers lack it.  */
enum { DIO_STATX_DIOALIGN = 0x2000 };

#if defined HAVE_STATX && defined STATX_DIOALIGN

bool
dio_query_fd (int fd, struct dio_align *out)
{
  struct statx stx;
  if (statx (fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) != 0
      || !(stx.stx_mask & STATX_DIOALIGN) || stx.stx_dio_offset_align == 0)
    return false;
  out->mem_align = stx.stx_dio_mem_align;
  out->offset_align = stx.stx_dio_offset_align;
  return true;
}

#elif defined __linux__ && HAVE_DECL_SYS_STATX

/* The kernel's struct statx, declared here for C libraries (musl) that have
   neither the wrapper nor the structure.  The layout is kernel ABI: 256
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
