/* The engine's data buffers: aligned for direct I/O, and in transparent
   huge pages where the system gives them.  Internal to the engine.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_BUFFERS_H
#define CP8M_BUFFERS_H

#include <stdbool.h>
#include <stddef.h>

/* The size of a transparent huge page, or 0 when the system gives none
   (no such pages in the kernel, or turned off: "never").  */
size_t buffer_huge_size (void);

/* A buffer of SIZE bytes at a multiple of ALIGN, or NULL.  When SIZE is
   a multiple of HUGE (buffer_huge_size, or 0), the buffer is mapped on
   its own, on a HUGE boundary, and asked for as huge pages; *MAPPED
   then says so, for buffer_free.  */
char *buffer_alloc (size_t size, size_t align, size_t huge, bool *mapped);

/* Give back BUF, of SIZE bytes, from buffer_alloc (NULL is fine).  */
void buffer_free (char *buf, size_t size, bool mapped);

#endif
