/* Regular files (and, without -R, anything read like one): open both
   sides, move the data through the engine, then the metadata.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "copy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "diag.h"
#include "error.h"
#include "same-inode.h"
#include "unistd-safer.h"

/* Open the existing DST for writing; with -f, remove it if that fails
   (setting *DST_NEW).  Return the descriptor, or -1 with errno set (and
   *DST_NEW false), or -1 with *DST_NEW true when DST is now gone.  */
static int
open_existing (struct cp8m_options const *o, struct loc const *dst,
               bool *dst_new, bool *failed)
{
  int fd = openat (dst->dirfd, dst->rel,
                   O_WRONLY | O_CLOEXEC | (o->attributes_only ? 0 : O_TRUNC));
  if (fd >= 0 || !o->force)
    return fd;
  if (unlinkat (dst->dirfd, dst->rel, 0) != 0 && errno != ENOENT)
    {
      error (0, errno, "cannot remove %s", quote_file (dst->name));
      *failed = true;
      return -1;
    }
  if (o->verbose)
    printf ("removed %s\n", quote_file (dst->name));
  *dst_new = true;
  return -1;
}

/* Create DST with MODE.  A dangling symlink in its place is written
   through only under POSIXLY_CORRECT: a link planted in a shared
   directory must not aim the copy anywhere.  */
static int
create_dest (struct cp8m_options const *o, struct loc const *dst, mode_t mode,
             bool *failed)
{
  /* Create and arm as one step, so that no signal can leave an empty
     file behind.  */
  cleanup_hold ();
  int fd = openat (dst->dirfd, dst->rel,
                   O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0 && errno == EEXIST)
    {
      char dummy[1];
      if (readlinkat (dst->dirfd, dst->rel, dummy, sizeof dummy) >= 0)
        {
          if (!o->open_dangling_dest_symlink)
            {
              cleanup_release ();
              error (0, 0, "not writing through dangling symlink %s",
                     quote_file (dst->name));
              *failed = true;
              return -1;
            }
          fd = openat (dst->dirfd, dst->rel,
                       O_WRONLY | O_CREAT | O_CLOEXEC, mode);
        }
      else
        errno = EEXIST;
    }
  if (fd >= 0)
    cleanup_arm (dst->dirfd, dst->rel);
  cleanup_release ();
  return fd;
}

/* Move the data of SRC_FD into DST_FD.  A destination this copy CREATED
   is removed if the copy fails: a half-written file must not pass for a
   backup.  */
static bool
copy_data (struct copy_ctx *c, struct loc const *src, int src_fd,
           struct loc const *dst, int dst_fd)
{
  struct engine_result res;
  bool ok = engine_copy (c->eng, src_fd, dst_fd, &c->o->request, &res);
  if (!ok)
    diag_engine_failure (&res, src->name, dst->name);
  else if (c->o->debug)
    diag_debug_lines (&res.report);
  return ok;
}

bool
copy_regular (struct copy_ctx *c, struct loc const *src,
              struct stat const *sst, struct loc const *dst, bool *dst_new,
              bool follow)
{
  struct cp8m_options const *o = c->o;
  int src_fd = openat (src->dirfd, src->rel,
                       O_RDONLY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
  if (src_fd < 0)
    {
      error (0, errno, "cannot open %s for reading", quote_file (src->name));
      return false;
    }
  src_fd = fd_safer (src_fd);
  struct stat st;
  if (fstat (src_fd, &st) != 0)
    {
      error (0, errno, "cannot fstat %s", quote_file (src->name));
      close (src_fd);
      return false;
    }
  if (!SAME_INODE (st, *sst))
    {
      error (0, 0, "skipping file %s, as it was replaced while being copied",
             quote_file (src->name));
      close (src_fd);
      return false;
    }

  bool failed = false;
  int dst_fd = -1;
  if (!*dst_new)
    dst_fd = open_existing (o, dst, dst_new, &failed);
  bool created = false;
  mode_t omitted = omitted_permissions (o, sst->st_mode);
  if (dst_fd < 0 && *dst_new && !failed)
    {
      dst_fd = create_dest (o, dst, (sst->st_mode & 0777) & ~omitted,
                            &failed);
      created = dst_fd >= 0;
    }
  if (dst_fd < 0)
    {
      if (!failed)
        {
          int err = errno;
          /* open ("b/", O_CREAT) says EISDIR; the real problem is that
             "b" is not a directory, which is what GNU cp reports.  */
          size_t len = strlen (dst->name);
          if (err == EISDIR && len > 0 && dst->name[len - 1] == '/')
            err = ENOTDIR;
          error (0, err, "cannot create regular file %s",
                 quote_file (dst->name));
        }
      close (src_fd);
      return false;
    }
  dst_fd = fd_safer (dst_fd);

  bool ok = o->attributes_only || copy_data (c, src, src_fd, dst, dst_fd);
  if (ok)
    {
      struct meta_plan plan = { .dst_new = *dst_new, .regular = true,
                                .omitted = omitted };
      ok = apply_metadata (c, src, src_fd, sst, dst, dst_fd, &plan);
      if (close (dst_fd) != 0 && ok)
        {
          error (0, errno, "failed to close %s", quote_file (dst->name));
          ok = false;
        }
      if (created)
        cleanup_disarm ();
    }
  else
    {
      close (dst_fd);
      /* Remove and disarm as one step: a signal in between would remove
         the name a second time, perhaps someone else's new file.  */
      cleanup_hold ();
      if (created)
        unlinkat (dst->dirfd, dst->rel, 0);
      cleanup_disarm ();
      cleanup_release ();
    }
  close (src_fd);
  return ok;
}
