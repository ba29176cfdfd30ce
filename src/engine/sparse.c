/* SEEK_DATA/SEEK_HOLE extents and zero detection.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "sparse.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

bool
sparse_has_holes (struct stat const *st)
{
  /* st_blocks counts 512-byte units on every system we build for.  The
     size is rounded down, as GNU cp does: a file whose only hole is
     smaller than its partly used last block is copied whole, so that
     the copies' allocations agree.  */
  return S_ISREG (st->st_mode) && st->st_size > 0
         && st->st_blocks < st->st_size / 512;
}

bool
sparse_scan (int fd, struct stat const *st, off_t *first_data)
{
  if (!sparse_has_holes (st))
    return false;
#if defined SEEK_DATA && defined SEEK_HOLE
  off_t data = lseek (fd, 0, SEEK_DATA);
  if (data >= 0 || errno == ENXIO)
    {
      *first_data = data >= 0 ? data : -1;
      return true;
    }
#else
  (void) fd;
#endif
  /* EINVAL (a filesystem without it), or an error that the plain read
     meets again and reports.  */
  (void) first_data;
  return false;
}

int
sparse_next_extent (int fd, off_t off, off_t size, off_t *start, off_t *end)
{
  if (off >= size)
    return 0;
#if defined SEEK_DATA && defined SEEK_HOLE
  off_t data = lseek (fd, off, SEEK_DATA);
  if (data < 0)
    {
      if (errno == ENXIO)      /* only a hole from OFF to the end */
        return 0;
      if (errno != EINVAL)
        return -1;
      /* EINVAL: this filesystem cannot seek holes; all of it is data.  */
      data = off;
    }
  else
    {
      off_t hole = lseek (fd, data, SEEK_HOLE);
      if (hole < 0)
        return -1;
      *start = data;
      *end = hole < size ? hole : size;
      return data < size;
    }
#endif
  *start = off;
  *end = size;
  return 1;
}

bool
sparse_is_zero (char const *buf, size_t len)
{
  /* Compare the buffer with itself shifted by one byte: all zero iff the
     first byte is zero and every byte equals the next.  */
  return len == 0 || (buf[0] == 0 && memcmp (buf, buf + 1, len - 1) == 0);
}
