/* --verify in the cp layer (reread.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "reread.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "error.h"

bool
verify_copy (struct copy_ctx *c, struct loc const *src, int src_fd,
             struct dest const *d, struct engine_result const *res,
             struct engine_verify_result *vr)
{
  if (engine_verify (c->eng, src_fd, d->fd, vr))
    {
      /* Not a failure (GNU cp copies changing files too), but the user
         who asked for a check wants to know what it vouches for.  */
      if (res->src_changed && vr->checked)
        error (0, 0, "%s changed while being copied; the copy matches "
               "what was read", quote_file (src->name));
      return true;
    }
  if (vr->mismatch_at >= 0)
    {
      error (0, 0, "verification failed for %s", quote_file (d->loc->name));
      /* Below the first bad piece the copy is good; from there on it is
         not to be trusted, and must not look complete.  */
      if (dest_visible (d) && ftruncate (d->fd, vr->mismatch_at) != 0)
        error (0, errno, "failed to truncate %s", quote_file (d->loc->name));
      return false;
    }
  if (vr->side == ENGINE_SIDE_NONE)
    error (0, vr->err, "cannot verify %s", quote_file (d->loc->name));
  else
    error (0, vr->err, "error reading %s",
           quote_file (vr->side == ENGINE_SIDE_READ ? src->name
                                                    : d->loc->name));
  return false;
}

void
verify_debug_line (struct engine_verify_result const *vr)
{
  char err[96] = "";
  if (vr->note_errno)
    snprintf (err, sizeof err, ": %s", strerror (vr->note_errno));
  if (!vr->checked)
    {
      if (vr->note)
        printf ("verify: no (%s%s%s%s)\n", vr->note, err,
                vr->how_why ? "; " : "", vr->how_why ? vr->how_why : "");
      return;
    }
  printf ("verify: %s", vr->how);
  if (vr->how_why)
    printf (" (%s)", vr->how_why);
  if (vr->direct)
    printf (", direct%s%s", vr->note ? ", but " : "",
            vr->note ? vr->note : "");
  else
    printf (", buffered (direct I/O refused%s; %s)", err,
            vr->note ? vr->note : "");
  if (vr->mismatch_at >= 0)
    printf (": differs from byte %jd", (intmax_t) vr->mismatch_at);
  putchar ('\n');
}
