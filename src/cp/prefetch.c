/* Warming the page cache for the small files a directory walk is about
   to copy (prefetch.h).

   The walk and the thread share a short queue of names in one directory
   listing.  The thread holds a descriptor of that directory of its own
   (a duplicate), so that the walk may close and reopen its levels
   (dirfds.c) while the thread looks names up; it is closed when the walk
   moves to another listing, by whichever side uses it last.  A name is
   looked at with O_PATH first: only a regular file is opened to read,
   through /proc, so that a name swapped for a device or a FIFO since the
   listing is never opened (opening a tape may rewind it).  Anything that
   fails is skipped: the copy reads the file itself, as it would without
   this.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "prefetch.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
# include <sys/vfs.h>
#endif

#include "scan.h"

/* File system types (linux/magic.h, not needed otherwise).  */
enum { FUSE_MAGIC = 0x65735546, V9FS_MAGIC = 0x01021997 };

/* Entries queued at once: the walk queues at most PREFETCH_WINDOW past
   the one it copies.  */
enum { RING = PREFETCH_WINDOW + 1 };

/* Little stack: no recursion, one path buffer.  */
enum { PREFETCH_STACK = 64 * 1024 };

struct job
{
  char *name;
  size_t index;
};

struct prefetch
{
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pthread_t thread;
  bool started, stop;
  bool no_thread;          /* none could be made: do nothing */
  int fd_limit;            /* descriptors at or above it go unused */
  struct job ring[RING];
  unsigned int head, count;
  unsigned long listing;   /* whose names are queued */
  bool following;          /* the listing has a descriptor: names go in */
  int dirfd;               /* the listing's directory (a duplicate), or -1 */
  int busy_fd;             /* the directory the thread looks in now, or -1 */
  int close_after;         /* to close once the thread is done with it */
};

struct prefetch *
prefetch_new (int fd_limit)
{
#if !defined __linux__ || !defined O_PATH
  /* It looks with O_PATH and opens through /proc.  */
  return NULL;
#endif
  struct prefetch *p = calloc (1, sizeof *p);
  if (!p)
    return NULL;
  pthread_mutex_init (&p->lock, NULL);
  pthread_cond_init (&p->wake, NULL);
  p->fd_limit = fd_limit;
  p->dirfd = p->busy_fd = p->close_after = -1;
  return p;
}

/* Ask for the data of NAME in DIRFD if it is a small regular file.  */
static void
warm (int dirfd, char const *name, int fd_limit)
{
#ifdef O_PATH
  int fd = openat (dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return;
  struct stat st;
  if (fd < fd_limit && fstat (fd, &st) == 0 && S_ISREG (st.st_mode)
      && st.st_size > 0 && st.st_size <= PREFETCH_MAX_SIZE)
    {
      char proc[32];
      snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
      int rfd = open (proc, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
      if (rfd >= 0)
        {
          if (rfd < fd_limit)
            posix_fadvise (rfd, 0, st.st_size, POSIX_FADV_WILLNEED);
          close (rfd);
        }
    }
  close (fd);
#endif
}

static void *
prefetch_main (void *arg)
{
  struct prefetch *p = arg;
  pthread_mutex_lock (&p->lock);
  for (;;)
    {
      while (!p->stop && p->count == 0)
        pthread_cond_wait (&p->wake, &p->lock);
      if (p->stop)
        break;
      struct job j = p->ring[p->head];
      p->head = (p->head + 1) % RING;
      p->count--;
      int dirfd = p->busy_fd = p->dirfd;
      pthread_mutex_unlock (&p->lock);
      warm (dirfd, j.name, p->fd_limit);
      free (j.name);
      pthread_mutex_lock (&p->lock);
      p->busy_fd = -1;
      if (p->close_after >= 0)
        {
          close (p->close_after);
          p->close_after = -1;
        }
    }
  pthread_mutex_unlock (&p->lock);
  return NULL;
}

/* Drop the queued entries up to index AT (all of them with SIZE_MAX).
   P is locked.  */
static void
drop_upto (struct prefetch *p, size_t at)
{
  while (p->count > 0 && (at == SIZE_MAX || p->ring[p->head].index <= at))
    {
      free (p->ring[p->head].name);
      p->head = (p->head + 1) % RING;
      p->count--;
    }
}

/* Give up the listing's directory: closed now, or by the thread when it
   is done with it.  P is locked.  */
static void
release_dir (struct prefetch *p)
{
  if (p->dirfd < 0)
    return;
  if (p->dirfd == p->busy_fd)
    p->close_after = p->dirfd;
  else
    close (p->dirfd);
  p->dirfd = -1;
}

void
prefetch_free (struct prefetch *p)
{
  if (!p)
    return;
  pthread_mutex_lock (&p->lock);
  p->stop = true;
  pthread_cond_signal (&p->wake);
  pthread_mutex_unlock (&p->lock);
  if (p->started)
    pthread_join (p->thread, NULL);
  drop_upto (p, SIZE_MAX);
  if (p->close_after >= 0)
    close (p->close_after);
  if (p->dirfd >= 0)
    close (p->dirfd);
  pthread_cond_destroy (&p->wake);
  pthread_mutex_destroy (&p->lock);
  free (p);
}

/* May reads in DIRFD's file system be served from the page cache?  Not
   on FUSE mounted with direct_io, nor 9p without a cache, where the
   copy's reads would go to the file system again: from here there is no
   telling how those are mounted, so neither is warmed.  */
static bool
uses_cache (int dirfd)
{
#ifdef __linux__
  struct statfs fs;
  if (fstatfs (dirfd, &fs) != 0)
    return false;
  return fs.f_type != FUSE_MAGIC && fs.f_type != V9FS_MAGIC;
#else
  return false;
#endif
}

bool
prefetch_at (struct prefetch *p, unsigned long listing, int dirfd,
             size_t at)
{
  bool fresh = false;
  pthread_mutex_lock (&p->lock);
  if (listing != p->listing)
    {
      drop_upto (p, SIZE_MAX);
      release_dir (p);
      p->listing = listing;
      int fd = uses_cache (dirfd) ? fcntl (dirfd, F_DUPFD_CLOEXEC, 0) : -1;
      if (fd >= p->fd_limit)
        {
          close (fd);
          fd = -1;
        }
      p->dirfd = fd;
      p->following = fresh = fd >= 0;
    }
  else
    drop_upto (p, at);
  pthread_mutex_unlock (&p->lock);
  return fresh;
}

bool
prefetch_add (struct prefetch *p, char const *name, size_t index)
{
  bool queued = false;
  pthread_mutex_lock (&p->lock);
  if (p->following && p->count < RING && !p->stop)
    {
      if (!p->started && !p->no_thread)
        {
          p->started = scan_thread_start (&p->thread, prefetch_main, p,
                                          PREFETCH_STACK);
          p->no_thread = !p->started;
        }
      char *copy = p->started ? strdup (name) : NULL;
      if (copy)
        {
          p->ring[(p->head + p->count) % RING] = (struct job) { copy, index };
          p->count++;
          pthread_cond_signal (&p->wake);
          queued = true;
        }
      else
        p->following = false;
    }
  pthread_mutex_unlock (&p->lock);
  return queued;
}
