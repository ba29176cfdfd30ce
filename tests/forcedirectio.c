/* LD_PRELOAD shim that behaves like a forcedirectio mount: every open of
   a path under $FORCEDIRECTIO_PREFIX gets O_DIRECT added, whatever the
   program asked for.  Built by make check for tests/mounts.sh.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The absolute name of PATH opened relative to DIRFD, in BUF.  */
static char const *
absolute (int dirfd, char const *path, char *buf, size_t size)
{
  if (path[0] == '/')
    return path;
  char dir[PATH_MAX];
  if (dirfd == AT_FDCWD)
    {
      if (!getcwd (dir, sizeof dir))
        return path;
    }
  else
    {
      char link[64];
      snprintf (link, sizeof link, "/proc/self/fd/%d", dirfd);
      ssize_t n = readlink (link, dir, sizeof dir - 1);
      if (n < 0)
        return path;
      dir[n] = '\0';
    }
  snprintf (buf, size, "%s/%s", dir, path);
  return buf;
}

static int
forced (int dirfd, char const *path, int flags)
{
  char const *prefix = getenv ("FORCEDIRECTIO_PREFIX");
  if (!prefix || !*prefix || !path)
    return flags;
  char buf[PATH_MAX * 2];
  char const *abs = absolute (dirfd, path, buf, sizeof buf);
  if (strncmp (abs, prefix, strlen (prefix)) == 0)
    flags |= O_DIRECT;
  return flags;
}

static mode_t
mode_arg (int flags, va_list ap)
{
  return (flags & (O_CREAT | O_TMPFILE)) ? va_arg (ap, mode_t) : 0;
}

#define WRAP_OPENAT(name)                                               \
  int name (int dirfd, char const *path, int flags, ...)                \
  {                                                                     \
    static int (*real) (int, char const *, int, ...);                   \
    if (!real)                                                          \
      real = (int (*) (int, char const *, int, ...)) dlsym (RTLD_NEXT, #name); \
    va_list ap;                                                         \
    va_start (ap, flags);                                               \
    mode_t mode = mode_arg (flags, ap);                                 \
    va_end (ap);                                                        \
    return real (dirfd, path, forced (dirfd, path, flags), mode);       \
  }

#define WRAP_OPEN(name)                                                 \
  int name (char const *path, int flags, ...)                           \
  {                                                                     \
    static int (*real) (char const *, int, ...);                        \
    if (!real)                                                          \
      real = (int (*) (char const *, int, ...)) dlsym (RTLD_NEXT, #name); \
    va_list ap;                                                         \
    va_start (ap, flags);                                               \
    mode_t mode = mode_arg (flags, ap);                                 \
    va_end (ap);                                                        \
    return real (path, forced (AT_FDCWD, path, flags), mode);           \
  }

WRAP_OPEN (open)
WRAP_OPEN (open64)
WRAP_OPENAT (openat)
WRAP_OPENAT (openat64)
