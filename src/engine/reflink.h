/* Reflinks and offloaded copies: FICLONE and copy_file_range, and which
   of their errors mean "not here".  Only when --reflink asks: by default
   a backup is a physical copy.  Part of the engine.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_REFLINK_H
#define CP8M_REFLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Make DST_FD share SRC_FD's data (FICLONE).  Return 0, or the errno of
   the failure (EOPNOTSUPP where the system has no such call).  */
int reflink_clone (int dst_fd, int src_fd);

/* Is ERR, from a failed clone, a real failure of the copy (an I/O error,
   no memory, a full disk or quota) rather than "cannot clone here"?
   Those fail the copy even when a clone was only wanted, as GNU cp's
   do.  */
bool reflink_clone_fatal (int err);

/* copy_file_range of at most LEN bytes from SRC_FD at *IN (its position
   when IN is NULL) to DST_FD at *OUT (likewise).  As the system call:
   the count, 0 at the source's end, or -1 with errno (ENOSYS where the
   system has no such call).  */
ssize_t reflink_offload (int src_fd, off_t *in, int dst_fd, off_t *out,
                         size_t len);

/* Is ERR, from a copy_file_range that moved nothing yet, "not possible
   for these files" (read and write instead), as GNU cp decides it?  */
bool reflink_offload_refused (int err);

/* The most one copy_file_range call is asked for: 1 GiB, a multiple of
   any alignment, well below the kernel's 2 GiB limit per call.  */
enum { REFLINK_OFFLOAD_MAX = 1 << 30 };

#endif
