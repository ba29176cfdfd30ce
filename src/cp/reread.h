/* --verify in the cp layer: after the engine copied a regular file's
   data, have it read the destination back, and turn what it found into
   GNU-style messages.  Part of the cp layer.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_CP_REREAD_H
#define CP8M_CP_REREAD_H

#include <stdbool.h>
#include <sys/stat.h>

#include "copy.h"
#include "dest.h"

/* The source of a copy as --verify needs it.  */
struct verify_source
{
  struct loc const *loc;
  int fd;
  struct stat const *st;   /* its fstat when it was opened */
  bool changed;            /* the engine saw it change while copying */
};

/* Check the copy the engine just made from SRC into D; fill *VR for
   --debug.  The engine opens D again to read it (through /proc on
   Linux); where it cannot (no /proc, or not allowed), it has it opened
   here: as a copy of D->fd when D was opened for reading too (a file
   this copy made), else by its name (the hidden one while it has one).
   On a mismatch say "verification failed for 'DST'"
   and, when D is an existing file overwritten in place, cut it at the
   first piece that differs, so that it stays shorter than the source
   like any failed copy (a new one is left to dest_abort, and a stream's
   copy keeps what was read, as dest.h says).  A read error is reported
   as "error reading" the file it came from.  A check that cannot be
   made (D cannot be opened for reading, or a stream source has no
   hashes to compare with) is "cannot verify 'DST'" and why: nothing
   showed the copy wrong, so it goes on (to its metadata and name, and
   stays), but what was asked for was not done, and C->unverified makes
   the exit status 1.  A source that changed while it was copied is a
   notice, not an error: "the copy matches what was read" when the check
   used hashes of what was read; when it could only compare with the
   source as it is now (cloned or offloaded data, no libxxhash), a
   difference then proves nothing, and the notice says the copy could not
   be checked.  Return true when the copy is to be kept: it matched, was
   never to be checked (a pipe or device as destination), or could not
   be checked.  */
bool verify_copy (struct copy_ctx *c, struct verify_source const *src,
                  struct dest const *d, struct engine_verify_result *vr);

/* Print --debug's line saying how VR's check was done (or why not).  */
void verify_debug_line (struct engine_verify_result const *vr);

#endif
