/* Where to preallocate a hidden destination (prealloc.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "prealloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
# include <sys/statfs.h>
# include <sys/sysmacros.h>
#endif

#include "read-file.h"

/* ext4 keeps four extents in the inode; one written extent covers at
   most 32768 blocks, an unwritten (preallocated) one 32767; a direct
   write maps at most 4096 blocks at a time, each mapping split off the
   unwritten extent until the write completes.  */
enum { INODE_EXTENTS = 4, EXTENT_BLOCKS = 32768, DIO_MAX_BLOCKS = 4096 };

/* True when the comma-separated LIST of LEN bytes holds the option WORD
   (an option with a value, "discard=x", does not count).  */
static bool
has_option (char const *list, size_t len, char const *word)
{
  size_t wlen = strlen (word);
  char const *end = list + len;
  for (char const *p = list; p < end;)
    {
      char const *comma = memchr (p, ',', end - p);
      char const *next = comma ? comma : end;
      if ((size_t) (next - p) == wlen && memcmp (p, word, wlen) == 0)
        return true;
      p = next + 1;
    }
  return false;
}

/* The Nth (from 0) space-separated field of the LEN bytes at LINE: set
   *FIELD and return its length.  When there are fewer, *FIELD is the end
   of the line and the length 0: a caller may pass the pair on (memcmp,
   has_option) without a test.  */
static size_t
field (char const *line, size_t len, int n, char const **field)
{
  char const *end = line + len, *p = line;
  for (;;)
    {
      while (p < end && *p == ' ')
        p++;
      if (p >= end)
        {
          *field = end;
          return 0;
        }
      char const *q = memchr (p, ' ', (size_t) (end - p));
      if (!q)
        q = end;
      if (n-- == 0)
        {
          *field = p;
          return q - p;
        }
      p = q;
    }
}

/* One line of mountinfo: "ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS]
   - FSTYPE SOURCE SUPER-OPTIONS".  Paths escape spaces as \040.  */
static bool
line_discards (char const *line, size_t len, char const *dev)
{
  char const *f;
  size_t n = field (line, len, 2, &f);
  if (n != strlen (dev) || memcmp (f, dev, n) != 0)
    return false;
  char const *opts;
  size_t opts_len = field (line, len, 5, &opts);
  char const *sep = NULL;
  for (char const *p = line; p + 2 < line + len; p++)
    if (p[0] == ' ' && p[1] == '-' && p[2] == ' ')
      {
        sep = p + 3;
        break;
      }
  if (!sep)
    return false;
  size_t rest = line + len - sep;
  char const *type, *super;
  size_t type_len = field (sep, rest, 0, &type);
  size_t super_len = field (sep, rest, 2, &super);
  return type_len == 4 && memcmp (type, "ext4", 4) == 0
         && (has_option (super, super_len, "discard")
             || has_option (opts, opts_len, "discard"));
}

bool
prealloc_mountinfo_discards (char const *mountinfo, unsigned int major,
                             unsigned int minor)
{
  char dev[32];
  snprintf (dev, sizeof dev, "%u:%u", major, minor);
  for (char const *line = mountinfo; *line;)
    {
      char const *nl = strchr (line, '\n');
      size_t len = nl ? (size_t) (nl - line) : strlen (line);
      if (line_discards (line, len, dev))
        return true;
      if (!nl)
        break;
      line = nl + 1;
    }
  return false;
}

bool
prealloc_in_order (off_t size, size_t chunk, blksize_t blksize)
{
  if (chunk == 0 || blksize <= 0)
    return true;
  off_t unit = (off_t) DIO_MAX_BLOCKS * blksize;
  if ((off_t) chunk < unit)
    unit = chunk;
  /* Four pieces of at most 4096 blocks lie in one unwritten extent.  */
  off_t pieces = size / unit + (size % unit ? 2 : 0);
  return pieces > INODE_EXTENTS;
}

bool
prealloc_past_eof (int fd, struct stat const *dst, off_t size,
                   struct prealloc_memo *memo)
{
#ifdef __linux__
  enum { EXT4_MAGIC = 0xEF53 };
  /* A bigger file keeps its tree's block: nothing is freed.  */
  if (dst->st_blksize <= 0
      || size > (off_t) INODE_EXTENTS * EXTENT_BLOCKS * dst->st_blksize)
    return false;
  for (int i = 0; i < memo->n; i++)
    if (memo->dev[i].dev == dst->st_dev)
      return memo->dev[i].discards;
  struct statfs fs;
  bool discards = false;
  if (fstatfs (fd, &fs) == 0 && (unsigned long) fs.f_type == EXT4_MAGIC)
    {
      size_t len;
      char *mountinfo = read_file ("/proc/self/mountinfo", RF_BINARY, &len);
      discards = mountinfo
                 && prealloc_mountinfo_discards (mountinfo,
                                                 major (dst->st_dev),
                                                 minor (dst->st_dev));
      free (mountinfo);
    }
  if (memo->n < PREALLOC_DEVICES)
    {
      memo->dev[memo->n].dev = dst->st_dev;
      memo->dev[memo->n].discards = discards;
      memo->n++;
    }
  return discards;
#else
  (void) fd;
  (void) dst;
  (void) size;
  (void) memo;
  return false;
#endif
}
