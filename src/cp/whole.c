/* Report files (whole.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "whole.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "canonicalize.h"
#include "dirname.h"
#include "filenamecat.h"
#include "follow.h"
#include "xalloc.h"

#ifndef O_PATH
# define O_PATH O_RDONLY
#endif

static void
note_node (struct whole *w, struct stat const *st)
{
  w->exists = true;
  w->dev = st->st_dev;
  w->ino = st->st_ino;
  w->mode = st->st_mode;
}

/* FILE is a node other than a regular file: written into, through any
   link, as '>' would.  */
static bool
prepare_into (struct whole *w)
{
  w->kind = WHOLE_INTO;
  struct stat st;
  if (stat (w->file, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        {
          errno = EISDIR;
          return false;
        }
      note_node (w, &st);
      /* NULL for a pipe (/proc/self/fd/N names "pipe:[...]").  */
      w->where = realpath (w->file, NULL);
      return true;
    }
  if (errno != ENOENT)
    return false;
  /* A dangling link: '>' makes the file it points to.  */
  w->where = canonicalize_filename_mode (w->file, CAN_MISSING);
  return true;
}

/* FILE is a regular file (ST), or a new name (ST NULL): replaced whole
   in its directory, held open from now on.  */
static bool
prepare_replace (struct whole *w, struct stat const *st)
{
  w->kind = WHOLE_REPLACE;
  if (st)
    note_node (w, st);
  w->base = last_component (w->file);
  if (w->base[0] == '\0' || w->base[base_len (w->base)] != '\0')
    {
      /* "new/": a name for a directory only (last_component keeps the
         slashes that end a name).  */
      errno = EISDIR;
      return false;
    }
  w->dir = dir_name (w->file);
  /* W->dir as the user gave it: absolute, or relative to the working
     directory (AT_FDCWD).  */
  w->dirfd = open (w->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (w->dirfd < 0)
    return false;
  char *real = realpath (w->dir, NULL);
  if (!real)
    return false;
  w->where = file_name_concat (real, w->base, NULL);
  free (real);
  return true;
}

bool
whole_prepare (struct whole *w, char const *file)
{
  *w = (struct whole) { .file = file, .dirfd = -1, .fd = -1 };
  if (strcmp (file, "-") == 0)
    {
      w->kind = WHOLE_STDOUT;
      struct stat st;
      if (fstat (STDOUT_FILENO, &st) == 0)
        note_node (w, &st);
      return true;
    }
  if (file[0] == '\0')
    {
      errno = ENOENT;
      return false;
    }
  struct stat st;
  if (lstat (file, &st) == 0)
    {
      if (S_ISREG (st.st_mode))
        return prepare_replace (w, &st);
      /* A link another user may have planted (follow.h): root's report
         is not sent through it, as a copy is not.  FILE: the user's,
         relative to the working directory, or absolute (then meant).  */
      if (S_ISLNK (st.st_mode) && !follow_allowed (AT_FDCWD, file, &st))
        {
          w->refused = true;
          errno = EACCES;
          return false;
        }
      return prepare_into (w);
    }
  return errno == ENOENT && prepare_replace (w, NULL);
}

char const *
whole_below (char const *path, char const *dir)
{
  size_t n = strlen (dir);
  if (n == 1)
    return path + 1;   /* DIR is "/" */
  return strncmp (path, dir, n) == 0 && path[n] == '/' ? path + n + 1 : NULL;
}

/* ---- writing ---- */

/* Write the LEN bytes of TEXT to FD, at offset AT (or where FD stands,
   when AT is negative).  Return true, or false with errno.  Called from
   the signal handler too: system calls only.  */
static bool
write_all (int fd, char const *text, size_t len, off_t at)
{
  for (size_t done = 0; done < len; )
    {
      ssize_t n = at < 0 ? write (fd, text + done, len - done)
                  : pwrite (fd, text + done, len - done, at + done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n == 0)
            errno = EIO;
          return false;
        }
      done += n;
    }
  return true;
}

/* A hidden name, ".cp8M-" and six characters drawn from *X, into BUF
   (sizeof ".cp8M-XXXXXX" bytes).  Arithmetic only: the signal handler
   draws its names here too.  */
static void
temp_name (char *buf, unsigned long long *x)
{
  static char const digits[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  char *p = buf;
  for (char const *s = ".cp8M-"; *s; s++)
    *p++ = *s;
  for (int i = 0; i < 6; i++)
    {
      *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
      *p++ = digits[(*x >> 33) % (sizeof digits - 1)];
    }
  *p = '\0';
}

static unsigned long long
temp_seed (void)
{
  struct timespec now;
  clock_gettime (CLOCK_REALTIME, &now);
  return now.tv_nsec ^ ((unsigned long long) getpid () << 32);
}

/* A new hidden file in DIRFD, its name in TEMP, open for writing as
   any file this user makes is (0666 less the umask).  Return the
   descriptor, or -1 with errno.  Signal-safe.  */
static int
make_temp (int dirfd, char *temp, unsigned long long *x)
{
  for (int tries = 0; tries < 100; tries++)
    {
      temp_name (temp, x);
      /* TEMP: a last component, relative to DIRFD.  */
      int fd = openat (dirfd, temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC
                       | O_NOFOLLOW, 0666);
      if (fd >= 0 || errno != EEXIST)
        return fd;
    }
  errno = EEXIST;
  return -1;
}

/* Replace W's file with TEXT, through a hidden file made in W->dirfd.
   Signal-safe without SYNC.  */
static bool
replace (struct whole const *w, char const *text, size_t len, bool sync,
         unsigned long long *x)
{
  char temp[sizeof ".cp8M-XXXXXX"];
  int fd = make_temp (w->dirfd, temp, x);
  if (fd < 0)
    return false;
  bool ok = write_all (fd, text, len, -1) && (!sync || fsync (fd) == 0);
  int err = errno;
  if (close (fd) != 0 && ok)
    {
      ok = false;
      err = errno;
    }
  /* TEMP and W->base: last components, relative to W->dirfd.  */
  if (ok && renameat (w->dirfd, temp, w->dirfd, w->base) != 0)
    {
      ok = false;
      err = errno;
    }
  if (!ok)
    /* TEMP: relative to W->dirfd, as made.  */
    unlinkat (w->dirfd, temp, 0);
  errno = err;
  return ok;
}

/* Write TEXT into W->fd: from offset 0, cut to its length, when it is a
   regular file; at the end of what was written so far otherwise.
   Signal-safe.  */
static bool
write_into (struct whole const *w, char const *text, size_t len)
{
  if (!w->in_place)
    return write_all (w->fd, text, len, -1);
  return write_all (w->fd, text, len, 0) && ftruncate (w->fd, len) == 0;
}

bool
whole_begin (struct whole *w)
{
  if (w->kind == WHOLE_STDOUT)
    {
      w->fd = STDOUT_FILENO;
      return true;
    }
  if (w->kind == WHOLE_INTO)
    {
      /* As '>' opens it: following links, emptied, made where a
         dangling link points; but a link only as the rule of follow.h
         allows, checked again here on the link followed.  W->file as
         the user gave it: relative to the working directory, or
         absolute (then meant).  */
      w->fd = follow_openat (AT_FDCWD, w->file,
                             O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666,
                             &w->refused, NULL);
      struct stat st;
      if (w->fd < 0 || fstat (w->fd, &st) != 0)
        return false;
      w->in_place = S_ISREG (st.st_mode);
      return true;
    }
  char temp[sizeof ".cp8M-XXXXXX"];
  unsigned long long x = temp_seed ();
  int fd = make_temp (w->dirfd, temp, &x);
  if (fd < 0)
    return false;
  close (fd);
  /* TEMP: relative to W->dirfd, as made.  */
  unlinkat (w->dirfd, temp, 0);
  return true;
}

/* --sync: the directory that holds W's new name.  */
static bool
sync_dir (struct whole const *w)
{
  /* ".": W->dirfd itself, opened again to be read.  */
  int fd = openat (w->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  bool ok = fd >= 0 && fsync (fd) == 0;
  int err = errno;
  if (fd >= 0)
    close (fd);
  errno = err;
  return ok;
}

bool
whole_write (struct whole *w, char const *text, size_t len, bool sync)
{
  if (w->kind == WHOLE_REPLACE)
    {
      unsigned long long x = temp_seed ();
      return replace (w, text, len, sync, &x) && (!sync || sync_dir (w));
    }
  if (w->fd < 0 && !whole_begin (w))
    return false;
  /* -v's lines, on the same standard output, come first.  */
  if (w->kind == WHOLE_STDOUT)
    fflush (stdout);
  /* A pipe or a device cannot be flushed: only a regular file is.  */
  return write_into (w, text, len) && (!sync || !w->in_place
                                      || fsync (w->fd) == 0);
}

void
whole_free (struct whole *w)
{
  if (w->fd >= 0 && w->kind == WHOLE_INTO)
    close (w->fd);
  if (w->dirfd >= 0)
    close (w->dirfd);
  free (w->where);
  free (w->dir);
  *w = (struct whole) { .dirfd = -1, .fd = -1 };
}

/* ---- the report a fatal signal writes ---- */

/* The signal handler reaches only globals: this one, set by whole_arm
   before ARMED (all volatile, so stored in that order).  */
static struct
{
  volatile sig_atomic_t armed;
  struct whole const *volatile w;
  char *volatile text;
  volatile size_t len, status_at, signal_at;
} on_signal;

void
whole_arm (struct whole const *w, char const *text, size_t len,
           size_t status_at, size_t signal_at)
{
  on_signal.w = w;
  on_signal.text = xmemdup (text, len);
  on_signal.len = len;
  on_signal.status_at = status_at;
  on_signal.signal_at = signal_at;
  on_signal.armed = 1;
}

void
whole_disarm (void)
{
  if (!on_signal.armed)
    return;
  on_signal.armed = 0;
  free (on_signal.text);
  on_signal.text = NULL;
}

void
whole_on_fatal_signal (int sig)
{
  if (!on_signal.armed)
    return;
  /* Once: another fatal signal may be pending behind this one.  */
  on_signal.armed = 0;
  char *t = on_signal.text;
  int status = 128 + sig;
  t[on_signal.status_at] = '0' + status / 100 % 10;
  t[on_signal.status_at + 1] = '0' + status / 10 % 10;
  t[on_signal.status_at + 2] = '0' + status % 10;
  t[on_signal.signal_at] = sig >= 10 ? '0' + sig / 10 % 10 : ' ';
  t[on_signal.signal_at + 1] = '0' + sig % 10;
  struct whole const *w = on_signal.w;
  int err = errno;
  if (w->kind == WHOLE_REPLACE)
    {
      unsigned long long x = (unsigned long long) getpid () << 20 ^ sig;
      replace (w, t, on_signal.len, false, &x);
    }
  else if (w->fd >= 0)
    write_into (w, t, on_signal.len);
  errno = err;
}
