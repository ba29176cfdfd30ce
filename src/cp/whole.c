/* Report files written whole (whole.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "whole.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirname.h"
#include "filenamecat.h"

/* A hidden temporary beside FILE, open for writing (0600): its name in
   *TEMP, and the directory in *DIR (both to free).  Return the
   descriptor, or -1 with errno.  */
static int
temp_beside (char const *file, char **dir, char **temp)
{
  *dir = dir_name (file);
  *temp = file_name_concat (*dir, ".cp8M-XXXXXX", NULL);
  return mkstemp (*temp);
}

bool
whole_check (char const *file)
{
  char *dir, *temp;
  int fd = temp_beside (file, &dir, &temp);
  int err = errno;
  if (fd >= 0)
    {
      close (fd);
      unlink (temp);
    }
  free (dir);
  free (temp);
  errno = err;
  return fd >= 0;
}

bool
whole_write (char const *file, char const *text, size_t len, bool sync)
{
  char *dir, *temp;
  int fd = temp_beside (file, &dir, &temp);
  bool ok = fd >= 0;
  int err = ok ? 0 : errno;
  for (size_t at = 0; ok && at < len; )
    {
      ssize_t n = write (fd, text + at, len - at);
      if (n < 0 && errno == EINTR)
        continue;
      ok = n > 0;
      err = n < 0 ? errno : EIO;
      at += ok ? (size_t) n : 0;
    }
  /* Readable as any file this user makes (the umask), not only by its
     owner as mkstemp made it.  */
  mode_t mask = umask (0);
  umask (mask);
  if (ok && (fchmod (fd, 0666 & ~mask) != 0 || (sync && fsync (fd) != 0)))
    {
      ok = false;
      err = errno;
    }
  if (fd >= 0 && close (fd) != 0 && ok)
    {
      ok = false;
      err = errno;
    }
  if (ok && rename (temp, file) != 0)
    {
      ok = false;
      err = errno;
    }
  if (!ok && fd >= 0)
    unlink (temp);
  /* --sync: the new name too.  */
  if (ok && sync)
    {
      int dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd < 0 || fsync (dfd) != 0)
        {
          ok = false;
          err = errno;
        }
      if (dfd >= 0)
        close (dfd);
    }
  free (dir);
  free (temp);
  errno = err;
  return ok;
}
