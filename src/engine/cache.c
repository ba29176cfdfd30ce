/* Page-cache residency: cachestat(2), else mincore(2).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "cache.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __linux__
# include <sys/syscall.h>
#endif

#if defined __linux__ && !defined SYS_cachestat
# define SYS_cachestat 451   /* the same number on every architecture */
#endif

#ifdef __linux__
/* The kernel's structures (Linux 6.5); older headers lack them.  */
struct cache_range { uint64_t off, len; };
struct cache_stat
{
  uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

static double
by_cachestat (int fd, off_t size, long page)
{
  struct cache_range range = { 0, (uint64_t) size };
  struct cache_stat cs;
  if (syscall (SYS_cachestat, fd, &range, &cs, 0) != 0)
    return -1;
  /* Whole pages: a file of 2 KiB in the cache is all there.  */
  uint64_t pages = ((uint64_t) size + page - 1) / page;
  return (double) cs.nr_cache / pages;
}
#endif

static double
by_mincore (int fd, off_t size, long page)
{
  if ((uintmax_t) size > SIZE_MAX)
    return -1;
  void *map = mmap (NULL, size, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED)
    return -1;
  size_t pages = (size + page - 1) / page;
  unsigned char *vec = malloc (pages);
  double fraction = -1;
  if (vec && mincore (map, size, (void *) vec) == 0)
    {
      size_t resident = 0;
      for (size_t i = 0; i < pages; i++)
        resident += vec[i] & 1;
      fraction = (double) resident / pages;
    }
  free (vec);
  munmap (map, size);
  return fraction;
}

double
cache_stat_fraction (int fd, off_t size)
{
  long page = sysconf (_SC_PAGESIZE);
  if (size <= 0 || page <= 0)
    return -1;
#ifdef __linux__
  return by_cachestat (fd, size, page);
#else
  return -1;
#endif
}

double
cache_resident_fraction (int fd, off_t size)
{
  double f = cache_stat_fraction (fd, size);
  long page = sysconf (_SC_PAGESIZE);
  return f >= 0 || size <= 0 || page <= 0 ? f : by_mincore (fd, size, page);
}
