/* sparsecmp A B: exit 0 when A and B have the same size and bytes, 1 when
   they differ, 2 on an error.  Only the ranges where one of them has data
   (SEEK_DATA) are read: a hole reads as zeros, so ranges that are holes
   in both are equal unread.  The kill torture compares 1 GiB sparse
   copies hundreds of times; cmp would read every hole.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where the run of data or hole that FD holds at OFF ends (SIZE at the
   end); *DATA says which it is.  A file system without SEEK_DATA is all
   data.  */
static off_t
run_end (int fd, off_t off, off_t size, int *data)
{
  off_t next = lseek (fd, off, SEEK_DATA);
  if (next < 0 && errno == ENXIO)
    next = size;                /* a hole to the end */
  if (next < 0)
    {
      *data = 1;
      return size;
    }
  if (next > off)
    {
      *data = 0;
      return next;
    }
  *data = 1;
  off_t hole = lseek (fd, off, SEEK_HOLE);
  return hole < 0 ? size : hole;
}

/* Compare LEN bytes of A and B from OFF: 0 equal, 1 differ, 2 error.  */
static int
same_range (int a, int b, off_t off, off_t len)
{
  static char x[1 << 20], y[1 << 20];
  while (len > 0)
    {
      size_t n = len < (off_t) sizeof x ? (size_t) len : sizeof x;
      ssize_t r = pread (a, x, n, off);
      ssize_t s = pread (b, y, n, off);
      if (r < 0 || s < 0)
        return 2;
      if (r != s || r == 0)
        return r != s ? 1 : 2;  /* shorter than their sizes said */
      if (memcmp (x, y, r) != 0)
        return 1;
      off += r;
      len -= r;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: sparsecmp A B\n");
      return 2;
    }
  int a = open (argv[1], O_RDONLY), b = open (argv[2], O_RDONLY);
  struct stat sa, sb;
  if (a < 0 || b < 0 || fstat (a, &sa) != 0 || fstat (b, &sb) != 0)
    {
      perror (a < 0 ? argv[1] : argv[2]);
      return 2;
    }
  if (sa.st_size != sb.st_size)
    return 1;
  off_t off = 0;
  while (off < sa.st_size)
    {
      int da, db;
      off_t ea = run_end (a, off, sa.st_size, &da);
      off_t eb = run_end (b, off, sb.st_size, &db);
      off_t end = ea < eb ? ea : eb;
      if (da || db)
        {
          int r = same_range (a, b, off, end - off);
          if (r != 0)
            return r;
        }
      off = end;
    }
  return 0;
}
