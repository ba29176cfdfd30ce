/* holemap FILE: print FILE's data extents, one "start end" line each, as
   SEEK_DATA/SEEK_HOLE see them, so tests can compare hole layouts.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: holemap FILE\n");
      return 2;
    }
  int fd = open (argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      perror (argv[1]);
      return 1;
    }
  off_t off = 0;
  while (off < st.st_size)
    {
      off_t data = lseek (fd, off, SEEK_DATA);
      if (data < 0)
        break;
      off_t hole = lseek (fd, data, SEEK_HOLE);
      if (hole < 0)
        hole = st.st_size;
      printf ("%jd %jd\n", (intmax_t) data, (intmax_t) hole);
      off = hole;
    }
  printf ("size %jd\n", (intmax_t) st.st_size);
  return 0;
}
