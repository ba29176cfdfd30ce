/* The engine's read and write system calls: positioned or not, with
   per-call flags (RWF_DONTCACHE) where the kernel has them, and the one
   loop that writes a whole piece.  Internal to the engine.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_RW_H
#define CP8M_RW_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Linux 6.14's "drop these pages once written back"; C libraries older
   than the kernel lack the name.  A kernel without it says EINVAL or
   EOPNOTSUPP, and rw_at then goes on without the flag.  */
#ifndef RWF_DONTCACHE
# define RWF_DONTCACHE 0x00000080
#endif

/* One read (WRITING false) or write of at most LEN bytes of BUF on FD at
   offset OFF, or at FD's current position when OFF is -1 (streams).
   *RWFLAGS are preadv2/pwritev2 flags; when the kernel refuses them they
   are cleared for good (by this caller) and the call is made without.
   Returns what the system call returns, with errno.  */
ssize_t rw_at (int fd, bool writing, char *buf, size_t len, off_t off,
               int *rwflags);

/* Write all LEN bytes of BUF to FD at OFF (-1: the current position),
   retrying short writes and EINTR.  A write that moves nothing means a
   full device: ENOSPC.  Return how many bytes were written: LEN, or
   fewer with errno saying why it stopped.  */
size_t rw_write_full (int fd, char const *buf, size_t len, off_t off,
                      int *rwflags);

#endif
