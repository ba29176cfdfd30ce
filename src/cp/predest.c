/* Destinations made early (see predest.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "predest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dest.h"
#include "xalloc.h"

void
predest_init (struct predest *p)
{
  for (int i = 0; i < PREDEST_FILES; i++)
    p->f[i] = (struct predest_file) { .fd = -1 };
}

static void
release (struct predest_file *f)
{
  if (f->fd >= 0)
    close (f->fd);
  free (f->rel);
  *f = (struct predest_file) { .fd = -1 };
}

static bool
matches (struct predest_file const *f, struct loc const *dest,
         struct stat const *src_st, mode_t mode, unsigned long listing)
{
  return f->fd >= 0 && f->src_dev == src_st->st_dev
         && f->src_ino == src_st->st_ino && f->dirfd == dest->dirfd
         && strcmp (f->rel, dest->rel) == 0 && f->listing == listing
         && f->mode == mode;
}

/* gcc 12's -fanalyzer loses track of a pointer stored into the array of
   files at a computed slot, and reports the copied name leaked (make
   analyze): a false positive, release frees it.  */
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic push
# pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif
int
predest_make (struct predest *p, struct copy_ctx const *c,
              struct loc const *dest, struct stat const *src_st,
              mode_t mode)
{
  struct predest_file *free_slot = NULL;
  for (int i = 0; i < PREDEST_FILES; i++)
    if (matches (&p->f[i], dest, src_st, mode, c->listings))
      return p->f[i].fd;
    else if (p->f[i].fd < 0 && !free_slot)
      free_slot = &p->f[i];
  if (!free_slot)
    return -1;
  /* As dest_create makes it: in the directory the name will be in (the
     directory's default ACL and set-group-ID bit apply), with the same
     mode, less the umask.  */
  int fd = dest_tmpfile (dest, mode);
  if (fd < 0)
    return -1;
  if (fd >= c->ahead_fd_limit)
    {
      close (fd);
      return -1;
    }
  *free_slot = (struct predest_file) {
    .fd = fd, .src_dev = src_st->st_dev, .src_ino = src_st->st_ino,
    .dirfd = dest->dirfd, .rel = xstrdup (dest->rel),
    .listing = c->listings, .mode = mode };
  return fd;
}
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic pop
#endif

void
predest_keep (struct predest *p, int const *keep, unsigned int n)
{
  for (int i = 0; i < PREDEST_FILES; i++)
    {
      bool kept = false;
      for (unsigned int j = 0; j < n && !kept; j++)
        kept = p->f[i].fd >= 0 && keep[j] == p->f[i].fd;
      if (!kept)
        release (&p->f[i]);
    }
}

int
predest_take (struct predest *p, struct loc const *dest,
              struct stat const *src_st, mode_t mode, unsigned long listing)
{
  for (int i = 0; i < PREDEST_FILES; i++)
    if (matches (&p->f[i], dest, src_st, mode, listing))
      {
        int fd = p->f[i].fd;
        p->f[i].fd = -1;
        release (&p->f[i]);
        return fd;
      }
  return -1;
}

void
predest_free (struct predest *p)
{
  for (int i = 0; i < PREDEST_FILES; i++)
    release (&p->f[i]);
}
