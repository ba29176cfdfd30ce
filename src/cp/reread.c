/* --verify in the cp layer (reread.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "reread.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "error.h"
#include "same-inode.h"

/* Whether the source is no longer what it was when opened (ST).  */
static bool
source_changed (int fd, struct stat const *st)
{
  struct stat now;
  return fstat (fd, &now) != 0 || now.st_size != st->st_size
         || now.st_mtim.tv_sec != st->st_mtim.tv_sec
         || now.st_mtim.tv_nsec != st->st_mtim.tv_nsec
         || now.st_ctim.tv_sec != st->st_ctim.tv_sec
         || now.st_ctim.tv_nsec != st->st_ctim.tv_nsec;
}

/* engine_reader's OPEN for the destination ARG (a struct dest), where
   the engine cannot open it again by itself (no /proc, or that open is
   not allowed): a descriptor of it for reading, or -1 with errno.  */
static int
open_dest_again (void *arg)
{
  struct dest const *d = arg;
  /* A file this copy made was opened for reading as well (dest_create),
     and so was an existing regular file its mode lets us read
     (regular.c): a copy of its descriptor reads it, and has no need of
     its name (an unnamed one has none; an existing one may have been
     swapped meanwhile).  */
  int fl = fcntl (d->fd, F_GETFL);
  if (fl >= 0 && (fl & O_ACCMODE) == O_RDWR)
    return fcntl (d->fd, F_DUPFD_CLOEXEC, 0);
  if (d->kind == DEST_TMPFILE || (d->kind == DEST_REPLACE && !d->temp))
    {
      errno = ENOSYS;
      return -1;
    }
  char const *name = d->temp ? d->temp : d->loc->rel;
  bool follow = d->kind == DEST_EXISTING || d->kind == DEST_THROUGH_LINK;
  struct stat mine, named;
  if (fstat (d->fd, &mine) != 0)
    return -1;
  /* NAME is relative to the destination's directory, as dest.c used it.
     An existing file, or one made through a dangling symlink, is reached
     as it was for writing, through a symlink; a file made under its
     name is ours, and no symlink.  */
  if (fstatat (d->loc->dirfd, name, &named,
               follow ? 0 : AT_SYMLINK_NOFOLLOW) != 0)
    return -1;
  if (!SAME_INODE (mine, named))
    {
      errno = EXDEV;   /* the name leads elsewhere now */
      return -1;
    }
  /* The same relative name.  Should it be swapped for a FIFO or a
     device right now, the open must not wait for a writer nor take a
     terminal (the engine then finds another file, and refuses it).  */
  return openat (d->loc->dirfd, name,
                 O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC
                 | (follow ? 0 : O_NOFOLLOW));
}

/* Report that the check of D could not be made, as VR says why.  */
static void
report_unchecked (struct dest const *d, struct engine_verify_result const *vr)
{
  if (vr->err || !vr->note)
    error (0, vr->err, "cannot verify %s", quote_file (d->loc->name));
  else if (vr->how_why)
    error (0, 0, "cannot verify %s: %s (%s)", quote_file (d->loc->name),
           vr->note, vr->how_why);
  else
    error (0, 0, "cannot verify %s: %s", quote_file (d->loc->name),
           vr->note);
}

bool
verify_copy (struct copy_ctx *c, struct verify_source const *src,
             struct dest const *d, struct engine_verify_result *vr)
{
  struct engine_reader reader = { open_dest_again, (void *) d };
  bool good = engine_verify (c->eng, src->fd, d->fd, &reader, vr);
  bool changed = src->changed || source_changed (src->fd, src->st);
  if (good)
    {
      /* Not a failure (GNU cp copies changing files too), but the user
         who asked for a check wants to know what it vouches for.  */
      if (changed && vr->checked)
        {
          diag_next_is_notice ();
          error (0, 0, "%s changed while being copied; the copy matches "
                 "what was read", quote_file (src->loc->name));
        }
      return true;
    }
  if (vr->mismatch_at >= 0 && changed && vr->how_why)
    {
      /* Compared with the source as it is now, not with what was read:
         a changing source differs from any copy of it.  */
      diag_next_is_notice ();
      error (0, 0, "%s changed while being copied; the copy could not be "
             "checked", quote_file (src->loc->name));
      vr->checked = false;
      vr->note = "the source changed";
      return true;
    }
  if (vr->mismatch_at >= 0)
    {
      error (0, 0, "verification failed for %s", quote_file (d->loc->name));
      /* Below the first bad piece the copy is good; from there on it is
         not to be trusted, and must not look complete.  A stream's copy
         is not cut: it holds what was read, which cannot be read again
         (dest.h).  */
      if (dest_visible (d) && d->kind != DEST_STREAM
          && ftruncate (d->fd, vr->mismatch_at) != 0)
        error (0, errno, "failed to truncate %s", quote_file (d->loc->name));
      return false;
    }
  if (vr->side == ENGINE_SIDE_NONE)
    {
      /* Nothing says the copy is wrong: it stays (a --backup is not
         put back over it), but what was asked for was not done.  */
      report_unchecked (d, vr);
      c->unverified = true;
      return true;
    }
  error (0, vr->err, "error reading %s",
         quote_file (vr->side == ENGINE_SIDE_READ ? src->loc->name
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
