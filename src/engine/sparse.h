/* Holes: finding the data extents of a source and the zero blocks in a
   buffer.  Part of the engine.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_SPARSE_H
#define CP8M_SPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* True when ST's allocation is smaller than its size: the file probably
   has holes, so walking its extents is worth the system calls.  */
bool sparse_has_holes (struct stat const *st);

/* How GNU cp 9.11 scans a source: with SEEK_DATA/SEEK_HOLE only when ST
   looks sparse (sparse_has_holes) and FD can seek data.  Return true for
   that, with *FIRST_DATA the offset of its first data, or -1 when it has
   none; false to read the file from start to end.  Moves FD's offset.  */
bool sparse_scan (int fd, struct stat const *st, off_t *first_data);

/* Find the first data extent of FD that ends after OFF, within [0, SIZE):
   set [*START, *END) and return 1, return 0 when no data remains, or -1
   with errno.  Uses SEEK_DATA/SEEK_HOLE; where they are missing the whole
   rest of the file is one extent.  Moves FD's file offset.  */
int sparse_next_extent (int fd, off_t off, off_t size,
                        off_t *start, off_t *end);

/* True when the LEN bytes at BUF are all zero.  */
bool sparse_is_zero (char const *buf, size_t len);

#endif
