/* Reflinks and offloaded copies: FICLONE, then copy_file_range.  Only
   when --reflink asks: by default a backup is a physical copy.  Part of
   the engine.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_REFLINK_H
#define CP8M_REFLINK_H

#include <stdbool.h>
#include <sys/types.h>

#include "engine.h"

enum reflink_outcome
{
  REFLINK_DONE,       /* the data is in the destination */
  REFLINK_FAILED,     /* RES says why; stop */
  REFLINK_NOT_DONE    /* not possible here and not required: copy normally */
};

/* Clone SRC_FD (SIZE bytes) into DST_FD.  With ALWAYS, only a clone will
   do (as GNU cp --reflink=always); otherwise a clone, else (if OFFLOAD)
   an offloaded copy_file_range, else nothing.  Records what happened in
   RES.  REFLINK_DONE with RES->bytes short of SIZE: an offloaded copy
   found the source ending early; the caller copies on from there to the
   end of file it reads, as for any source that changed.  */
enum reflink_outcome reflink_copy (int src_fd, int dst_fd, off_t size,
                                   bool always, bool offload,
                                   struct engine_result *res);

#endif
