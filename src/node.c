/* Per-file copy policy.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "node.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "diag.h"
#include "error.h"
#include "same-inode.h"
#include "unistd-safer.h"

/* Permission bits a new destination asks for: GNU cp drops set-user-ID,
   set-group-ID and sticky unless told to preserve the mode, and the
   kernel then applies the umask.  */
static mode_t
new_file_mode (mode_t src_mode)
{
  return src_mode & (S_IRWXU | S_IRWXG | S_IRWXO);
}

/* What exists at the destination before the copy.  */
enum dest_state { DEST_ABSENT, DEST_EXISTS, DEST_REFUSED };

/* Look at DST before writing it.  SRC_ST is the source's status.  Report
   why the copy must not go ahead and return DEST_REFUSED, or say whether
   a file is there to overwrite.  */
static enum dest_state
check_dest (char const *src, struct stat const *src_st,
            struct node_dest const *dst)
{
  struct stat st;
  if (fstatat (dst->dirfd, dst->relname, &st, 0) == 0)
    {
      if (SAME_INODE (*src_st, st))
        {
          error (0, 0, "%s and %s are the same file",
                 quote_file_n (0, src), quote_file_n (1, dst->shown));
          return DEST_REFUSED;
        }
      if (S_ISDIR (st.st_mode))
        {
          error (0, 0, "cannot overwrite directory %s with non-directory",
                 quote_file (dst->shown));
          return DEST_REFUSED;
        }
      return DEST_EXISTS;
    }

  /* A symbolic link to nowhere: GNU cp refuses to create its target, as a
     link planted in a shared directory could aim the copy anywhere.
     POSIX wants the write to go through, and GNU obeys POSIXLY_CORRECT.  */
  if (errno == ENOENT
      && fstatat (dst->dirfd, dst->relname, &st, AT_SYMLINK_NOFOLLOW) == 0
      && S_ISLNK (st.st_mode) && !getenv ("POSIXLY_CORRECT"))
    {
      error (0, 0, "not writing through dangling symlink %s",
             quote_file (dst->shown));
      return DEST_REFUSED;
    }
  return DEST_ABSENT;
}

/* Open DST for writing: truncate it in place when it exists (keeping its
   mode and links, as cp does), else create it with MODE.  Return the
   descriptor or -1 after reporting the failure.  */
static int
open_dest (struct node_dest const *dst, enum dest_state state, mode_t mode)
{
  int fd = state == DEST_EXISTS
           ? openat (dst->dirfd, dst->relname, O_WRONLY | O_TRUNC)
           : openat (dst->dirfd, dst->relname,
                     O_WRONLY | O_CREAT | O_EXCL, mode);
  if (fd < 0)
    {
      int err = errno;
      /* open ("b/", O_CREAT) says EISDIR; the real problem is that "b"
         is not a directory, which is what GNU cp reports.  */
      size_t len = strlen (dst->shown);
      if (err == EISDIR && len > 0 && dst->shown[len - 1] == '/')
        err = ENOTDIR;
      error (0, err, "cannot create regular file %s", quote_file (dst->shown));
      return -1;
    }
  return fd_safer (fd);
}

/* Copy the data of SRC_FD into the destination open as DST_FD and close
   it.  A destination this copy CREATED (armed for removal on a fatal
   signal by the caller) is removed if the copy fails: a half-written
   file must not pass for a backup.  */
static bool
copy_data (struct cp8m_options const *o, struct engine_ctx *eng,
           char const *src, int src_fd, struct node_dest const *dst,
           int dst_fd, bool created)
{
  struct engine_result res;
  bool ok = engine_copy (eng, src_fd, dst_fd, &o->request, &res);
  if (!ok)
    diag_engine_failure (&res, src, dst->shown);
  if (close (dst_fd) != 0 && ok)
    {
      error (0, errno, "failed to close %s", quote_file (dst->shown));
      ok = false;
    }
  /* Remove and disarm as one step: a signal in between would otherwise
     remove the name a second time, perhaps someone else's new file.  */
  cleanup_hold ();
  if (!ok && created)
    unlinkat (dst->dirfd, dst->relname, 0);
  cleanup_disarm ();
  cleanup_release ();
  if (ok && o->debug)
    diag_debug_lines (&res.report);
  return ok;
}

bool
node_copy (struct cp8m_options const *o, struct engine_ctx *eng,
           char const *src, struct node_dest const *dst)
{
  struct stat src_st;
  if (stat (src, &src_st) != 0)
    {
      error (0, errno, "cannot stat %s", quote_file (src));
      return false;
    }
  if (S_ISDIR (src_st.st_mode))
    {
      error (0, 0, "-r not specified; omitting directory %s",
             quote_file (src));
      return false;
    }

  enum dest_state state = check_dest (src, &src_st, dst);
  if (state == DEST_REFUSED)
    return false;

  if (o->verbose)
    diag_verbose (src, dst->shown);

  int src_fd = fd_safer (open (src, O_RDONLY));
  if (src_fd < 0)
    {
      error (0, errno, "cannot open %s for reading", quote_file (src));
      return false;
    }

  /* Create and arm as one step, so that no signal can leave an empty
     file behind.  (Only for a creation: opening an existing FIFO may
     block, and must stay interruptible.)  */
  bool ok = false;
  bool create = state == DEST_ABSENT;
  if (create)
    cleanup_hold ();
  int dst_fd = open_dest (dst, state, new_file_mode (src_st.st_mode));
  if (create)
    {
      if (dst_fd >= 0)
        cleanup_arm (dst->dirfd, dst->relname);
      cleanup_release ();
    }
  if (dst_fd >= 0)
    ok = copy_data (o, eng, src, src_fd, dst, dst_fd, state == DEST_ABSENT);
  close (src_fd);
  return ok;
}
