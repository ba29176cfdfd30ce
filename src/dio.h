/* Direct-I/O facts about descriptors and the alignment arithmetic built on
   them.  Part of the engine: no paths, no messages, no globals.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_DIO_H
#define CP8M_DIO_H

#include <stdbool.h>
#include <stddef.h>

/* Alignment the kernel demands of direct I/O on one open file.  */
struct dio_align
{
  unsigned int mem_align;     /* user buffer address alignment, bytes */
  unsigned int offset_align;  /* file offset and length alignment, bytes */
};

/* Ask statx(STATX_DIOALIGN) about FD.  Return true and fill *OUT when the
   kernel (Linux >= 6.1) and the filesystem report direct-I/O support for
   FD; return false when they do not, including on kernels without statx
   (ENOSYS) or without STATX_DIOALIGN.  Uses the libc wrapper where there is
   one and the raw system call otherwise (musl).  */
bool dio_query_fd (int fd, struct dio_align *out);

/* Alignment for the engine's buffers: the larger of PAGE_SIZE and
   MEM_ALIGN (0 when unknown), rounded up to a power of two because
   aligned allocators require one.  */
size_t dio_buffer_alignment (size_t page_size, unsigned int mem_align);

/* SIZE rounded up to a multiple of ALIGN (a power of two).  Returns 0 when
   the result would not fit in size_t.  */
size_t dio_round_up (size_t size, size_t align);

#endif
