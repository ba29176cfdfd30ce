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

   A file whose data is all in the cache already is not warmed, and after
   PREFETCH_CACHED_RUN of them in a row the listing is left alone (until
   the walk comes back to it from a subdirectory): a cached tree would
   otherwise pay a thread's syscalls and wake-ups per file for nothing.
   Only files looked at before the walk reached them count: one the copy
   may have read already says nothing of the others.

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

#include "engine/engine.h"
#include "scan.h"

/* The queue holds no more than the walk puts in at once.  */
enum { RING = PREFETCH_WINDOW };

/* Little stack: no recursion, one path buffer.  */
enum { PREFETCH_STACK = 64 * 1024 };

/* Files found cached in a row before the listing is left alone.  */
enum { PREFETCH_CACHED_RUN = 4 };

/* What the thread did with a name: warmed it, found it all cached, or
   neither (not a small regular file, gone, no descriptor).  */
enum looked { WARMED, CACHED, SKIPPED };

struct job
{
  char *name;
  size_t index;
  unsigned long listing;
};

struct prefetch
{
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pthread_cond_t idle;     /* the queue is done (lockstep only) */
  pthread_t thread;
  bool started;            /* the thread runs */
  bool stop;               /* it must end (or none could be made) */
  bool lockstep;           /* the walk waits for the queue (prefetch_new) */
  int fd_limit;            /* descriptors at or above it go unused */
  off_t max_size;          /* files larger are not warmed */
  struct job ring[RING];
  unsigned int head, count;
  unsigned long listing;   /* whose names are queued */
  size_t at;               /* the entry of it the walk is at */
  unsigned int cached_run; /* its files found cached in a row */
  int dirfd;               /* the listing's directory (a duplicate), or -1
                              when the listing is not followed */
  int busy_fd;             /* the directory the thread looks in now, or -1
                              (never -1 with a job under way: names are
                              queued only while there is a directory) */
  int close_after;         /* to close once the thread is done with it */
};

struct prefetch *
prefetch_new (int fd_limit, off_t max_size, bool lockstep)
{
#if !defined __linux__ || !defined O_PATH
  /* It looks with O_PATH and opens through /proc.  */
  return NULL;
#else
  struct prefetch *p = calloc (1, sizeof *p);
  if (!p)
    return NULL;
  pthread_mutex_init (&p->lock, NULL);
  pthread_cond_init (&p->wake, NULL);
  pthread_cond_init (&p->idle, NULL);
  p->lockstep = lockstep;
  p->fd_limit = fd_limit;
  p->max_size = max_size;
  p->dirfd = p->busy_fd = p->close_after = -1;
  return p;
#endif
}

#if defined __linux__ && defined O_PATH

/* File systems whose reads go through the page cache for sure (types
   from linux/magic.h).  Not the others: FUSE mounted with direct_io, 9p
   without a cache, CIFS with cache=none and overlays over any of them
   read around it, and from where the walk stands there is no telling;
   tmpfs, proc and sysfs have nothing to read from a device.  */
static unsigned long const cached_types[] = {
  0xEF53,       /* ext2, ext3, ext4 */
  0x58465342,   /* xfs */
  0x9123683E,   /* btrfs */
  0xF2F52010,   /* f2fs */
  0x6969,       /* nfs */
};

/* Ask for the data of NAME in DIRFD if it is a small regular file, and
   say what became of it.  */
static enum looked
warm (struct prefetch const *p, int dirfd, char const *name)
{
  enum looked r = SKIPPED;
  /* NAME: a directory entry, relative to DIRFD.  */
  int fd = openat (dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return SKIPPED;
  struct stat st;
  if (fd < p->fd_limit && fstat (fd, &st) == 0 && S_ISREG (st.st_mode)
      && st.st_size > 0 && st.st_size <= p->max_size)
    {
      char proc[32];
      snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
      int rfd = open (proc, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
      if (rfd >= 0)
        {
          if (rfd < p->fd_limit)
            {
              /* Looked at before the advice, which puts pages in the
                 cache at once, to be read.  */
              r = engine_all_cached (rfd, st.st_size) ? CACHED : WARMED;
              if (r == WARMED)
                posix_fadvise (rfd, 0, st.st_size, POSIX_FADV_WILLNEED);
            }
          close (rfd);
        }
    }
  close (fd);
  return r;
}

/* Are reads in DIRFD's file system served from the page cache?  */
static bool
uses_cache (int dirfd)
{
  struct statfs fs;
  if (fstatfs (dirfd, &fs) != 0)
    return false;
  for (size_t i = 0; i < sizeof cached_types / sizeof *cached_types; i++)
    if ((unsigned long) fs.f_type == cached_types[i])
      return true;
  return false;
}

#else   /* never called: prefetch_new made nothing */

static enum looked warm (struct prefetch const *p, int dirfd,
                         char const *name)
{ return SKIPPED; }
static bool uses_cache (int dirfd) { return false; }

#endif

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
      /* J.name: a directory entry, relative to DIRFD.  */
      enum looked r = warm (p, dirfd, j.name);
      free (j.name);
      pthread_mutex_lock (&p->lock);
      p->busy_fd = -1;
      /* Counted only for the listing the walk is in, and for a file it
         has not reached yet: the copy has not read it.  */
      if (r != SKIPPED && j.listing == p->listing && j.index > p->at)
        {
          p->cached_run = r == CACHED ? p->cached_run + 1 : 0;
          if (p->cached_run >= PREFETCH_CACHED_RUN)
            drop_upto (p, SIZE_MAX);
        }
      if (p->close_after >= 0)
        {
          close (p->close_after);
          p->close_after = -1;
        }
      if (p->lockstep && p->count == 0)
        pthread_cond_signal (&p->idle);
    }
  pthread_mutex_unlock (&p->lock);
  return NULL;
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
  pthread_cond_destroy (&p->idle);
  pthread_mutex_destroy (&p->lock);
  free (p);
}

void
prefetch_at (struct prefetch *p, unsigned long listing, int dirfd,
             size_t at)
{
  pthread_mutex_lock (&p->lock);
  if (listing != p->listing)
    {
      drop_upto (p, SIZE_MAX);
      release_dir (p);
      p->listing = listing;
      p->cached_run = 0;
      int fd = uses_cache (dirfd) ? fcntl (dirfd, F_DUPFD_CLOEXEC, 0) : -1;
      if (fd >= p->fd_limit)
        {
          close (fd);
          fd = -1;
        }
      p->dirfd = fd;
    }
  else
    drop_upto (p, at);
  p->at = at;
  pthread_mutex_unlock (&p->lock);
}

void
prefetch_settle (struct prefetch *p)
{
  if (!p->lockstep)
    return;
  pthread_mutex_lock (&p->lock);
  while (p->started && !p->stop && (p->count > 0 || p->busy_fd >= 0))
    pthread_cond_wait (&p->idle, &p->lock);
  pthread_mutex_unlock (&p->lock);
}

bool
prefetch_add (struct prefetch *p, char const *name, size_t index)
{
  bool queued = false;
  pthread_mutex_lock (&p->lock);
  if (p->dirfd >= 0 && p->count < RING && !p->stop
      && p->cached_run < PREFETCH_CACHED_RUN)
    {
      if (!p->started)
        {
          p->started = scan_thread_start (&p->thread, prefetch_main, p,
                                          PREFETCH_STACK);
          p->stop = !p->started;
        }
      char *copy = p->started ? strdup (name) : NULL;
      if (copy)
        {
          p->ring[(p->head + p->count) % RING]
            = (struct job) { copy, index, p->listing };
          p->count++;
          pthread_cond_signal (&p->wake);
          queued = true;
        }
    }
  pthread_mutex_unlock (&p->lock);
  return queued;
}
