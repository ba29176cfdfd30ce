/* Is a file's data already in the page cache?  Part of the engine.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_CACHE_H
#define CP8M_CACHE_H

#include <stdbool.h>
#include <sys/types.h>

/* Fraction (0..1) of the first SIZE bytes of FD resident in the page
   cache: cachestat(2) on Linux >= 6.5, else mincore(2) over a mapping.
   Return a negative value when neither can tell.  */
double cache_resident_fraction (int fd, off_t size);

/* The same from cachestat(2) alone, which only looks: no mapping, so no
   access time moves.  Negative when it cannot tell (no cachestat, or a
   file the kernel will not report on).  */
double cache_stat_fraction (int fd, off_t size);

#endif
