/* Reading ahead across files (see ahead.h).

   Why threads of their own: a direct pass ends when its file's last
   write does, and the reads of the files after it must not end with it.
   A tree of 16 MiB files is two chunks a file; read ahead only during
   each file's pass, the device saw those two writes and the next file's
   two reads, then nothing while the caller linked the file and opened
   the next.  These threads keep reading, a few files ahead, across those
   gaps, as far as the spare buffers allow.

   Why they also write: reading ahead alone still left one file's writes
   in flight at a time, two for a 16 MiB file, where the device wants
   more; and none while the caller linked a file and opened the next.
   A file whose destination the caller made early (an unnamed O_TMPFILE,
   which nothing can see before its copy links it) gets its chunks
   written as soon as they are read, beside the writes of the copy under
   way.  Its copy then finds them written, when the file has not
   changed, or cuts the destination and starts again (engine.h,
   engine_request.prepared).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "ahead.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "rw.h"

/* Queued files, and dropped ones whose reads are still under way (each
   holds a read, so no more than the threads).  */
enum { AHEAD_SLOTS = ENGINE_AHEAD_FILES + ENGINE_MAX_DEPTH };

/* The state of a chunk of a file read ahead.  */
enum chunk_state { CHUNK_NONE, CHUNK_READING, CHUNK_WHOLE, CHUNK_WRITING,
                   CHUNK_WRITTEN };

struct ahead_file
{
  bool used;              /* the slot holds a file */
  bool queued;            /* still wanted (else dropped: its reads under
                             way give their buffers back as they end) */
  unsigned long order;    /* copied before the queued files of larger
                             order */
  int fd;                 /* opened with O_DIRECT, ours */
  struct ahead_version v; /* the file when it was queued */
  unsigned int want;      /* chunks to read: [0, WANT) */
  unsigned int next;      /* the next one to read */
  unsigned int busy;      /* reads and writes under way */
  bool taken;             /* its copy began: no more I/O for it */
  int dst_fd;             /* its destination (O_DIRECT, ours), or -1 */
  dev_t dst_dev;          /* which file DST_FD is */
  ino_t dst_ino;
  bool in_order;          /* write chunk K only once K - 1 is written */
  unsigned char state[ENGINE_MAX_DEPTH];
  char *buf[ENGINE_MAX_DEPTH];  /* chunk K's, while read and after,
                                   until written */
};

struct ahead
{
  pthread_mutex_t lock;
  pthread_cond_t work;    /* a reader may find a chunk and a buffer */
  pthread_cond_t done;    /* a read ended */
  off_t chunk;            /* bytes per chunk: the buffer size */
  struct ahead_file f[AHEAD_SLOTS];
  unsigned long orders;   /* the next order to give */
  unsigned int busy;      /* reads and writes under way, all files */
  char *pool[ENGINE_MAX_DEPTH];
  unsigned int n_pool;
  pthread_t thread[ENGINE_MAX_DEPTH];
  unsigned int n_threads;
  bool quit;
};

struct ahead *
ahead_new (void)
{
  struct ahead *a = calloc (1, sizeof *a);
  if (!a)
    return NULL;
  pthread_mutex_init (&a->lock, NULL);
  pthread_cond_init (&a->work, NULL);
  pthread_cond_init (&a->done, NULL);
  return a;
}

/* ---- under the lock ---- */

static void
give_locked (struct ahead *a, char *buf)
{
  a->pool[a->n_pool++] = buf;
  pthread_cond_signal (&a->work);
}

/* Free F's slot once it is dropped and no I/O of it is under way.  */
static void
retire_if_idle (struct ahead_file *f)
{
  if (f->used && !f->queued && f->busy == 0)
    {
      close (f->fd);
      if (f->dst_fd >= 0)
        close (f->dst_fd);
      f->used = false;
    }
}

/* Drop F: its chunks read go back to the pool, its I/Os under way give
   theirs back as they end.  */
static void
drop (struct ahead *a, struct ahead_file *f)
{
  f->queued = false;
  for (unsigned int k = 0; k < f->want; k++)
    if (f->state[k] == CHUNK_WHOLE)
      {
        give_locked (a, f->buf[k]);
        f->buf[k] = NULL;
        f->state[k] = CHUNK_NONE;
      }
  retire_if_idle (f);
}

static bool
same_version (struct ahead_version const *x, struct ahead_version const *y)
{
  return x->dev == y->dev && x->ino == y->ino && x->size == y->size
         && x->mtime.tv_sec == y->mtime.tv_sec
         && x->mtime.tv_nsec == y->mtime.tv_nsec
         && x->ctime.tv_sec == y->ctime.tv_sec
         && x->ctime.tv_nsec == y->ctime.tv_nsec;
}

/* The queued file that is V's inode, or NULL.  */
static struct ahead_file *
find (struct ahead *a, struct ahead_version const *v)
{
  for (int i = 0; i < AHEAD_SLOTS; i++)
    if (a->f[i].queued && a->f[i].v.dev == v->dev
        && a->f[i].v.ino == v->ino)
      return &a->f[i];
  return NULL;
}

/* The queued file to be copied first of those with a chunk left to
   read, or NULL.  */
static struct ahead_file *
first_to_read (struct ahead *a)
{
  struct ahead_file *best = NULL;
  for (int i = 0; i < AHEAD_SLOTS; i++)
    {
      struct ahead_file *f = &a->f[i];
      if (f->queued && !f->taken && f->next < f->want
          && (!best || f->order < best->order))
        best = f;
    }
  return best;
}

/* A chunk read whole of a queued file with a destination, to write
   (*K), or NULL.  The file to be copied first goes first.  */
static struct ahead_file *
first_to_write (struct ahead *a, unsigned int *k)
{
  struct ahead_file *best = NULL;
  for (int i = 0; i < AHEAD_SLOTS; i++)
    {
      struct ahead_file *f = &a->f[i];
      if (!f->queued || f->taken || f->dst_fd < 0
          || (best && f->order > best->order))
        continue;
      for (unsigned int j = 0; j < f->want; j++)
        if (f->state[j] == CHUNK_WHOLE)
          {
            best = f;
            *k = j;
            break;
          }
        else if (f->in_order && f->state[j] != CHUNK_WRITTEN)
          break;
    }
  return best;
}

/* The queued file to be copied last, or NULL.  */
static struct ahead_file *
last_queued (struct ahead *a)
{
  struct ahead_file *last = NULL;
  for (int i = 0; i < AHEAD_SLOTS; i++)
    if (a->f[i].queued && (!last || a->f[i].order > last->order))
      last = &a->f[i];
  return last;
}

/* ---- the readers ---- */

/* Read chunk K of FD into BUF, or write it from BUF (WRITE), whole.  A
   read that fails or comes short leaves nothing to keep: the copy reads
   that part itself.  A write that fails (a full disk, a refusal) is no
   error either: the copy writes that part itself, and reports what it
   meets then.  */
static bool
whole_chunk (int fd, bool write, off_t chunk, unsigned int k, char *buf)
{
  off_t off = (off_t) k * chunk;
  off_t done = 0;
  int no_flags = 0;
  while (done < chunk)
    {
      ssize_t n = rw_at (fd, write, buf + done, chunk - done, off + done,
                         &no_flags);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return false;
      done += n;
    }
  return true;
}

/* whole_chunk for chunk K of F (its destination when WRITE), counted as
   under way meanwhile.  Called with the lock held; drops it meanwhile.  */
static bool
chunk_io (struct ahead *a, struct ahead_file *f, bool write, unsigned int k,
          char *buf)
{
  f->busy++;
  a->busy++;
  int fd = write ? f->dst_fd : f->fd;
  off_t chunk = a->chunk;
  pthread_mutex_unlock (&a->lock);
  bool whole = whole_chunk (fd, write, chunk, k, buf);
  pthread_mutex_lock (&a->lock);
  f->busy--;
  a->busy--;
  return whole;
}

/* Write chunk K of F, read whole, to its destination, and give its
   buffer back.  Called with the lock held; drops it meanwhile.  */
static void
write_ahead (struct ahead *a, struct ahead_file *f, unsigned int k)
{
  char *buf = f->buf[k];
  f->state[k] = CHUNK_WRITING;
  bool whole = chunk_io (a, f, true, k, buf);
  f->buf[k] = NULL;
  give_locked (a, buf);
  if (whole)
    f->state[k] = CHUNK_WRITTEN;
  else
    {
      /* The copy writes it: what comes after it is of no use.  */
      f->state[k] = CHUNK_NONE;
      if (f->want > k)
        f->want = k;
      for (unsigned int j = k; j < ENGINE_MAX_DEPTH; j++)
        if (f->state[j] == CHUNK_WHOLE)
          {
            give_locked (a, f->buf[j]);
            f->buf[j] = NULL;
            f->state[j] = CHUNK_NONE;
          }
    }
}

static void
read_ahead (struct ahead *a, struct ahead_file *f)
{
  unsigned int k = f->next++;
  char *buf = a->pool[--a->n_pool];
  f->buf[k] = buf;
  f->state[k] = CHUNK_READING;
  bool whole = chunk_io (a, f, false, k, buf);
  if (whole && f->queued && k < f->want)
    f->state[k] = CHUNK_WHOLE;
  else
    {
      f->state[k] = CHUNK_NONE;
      f->buf[k] = NULL;
      give_locked (a, buf);
      /* After a gap nothing can be taken: read no further.  */
      if (f->want > f->next)
        f->want = f->next;
    }
}

static void *
reader (void *arg)
{
  struct ahead *a = arg;
  pthread_mutex_lock (&a->lock);
  while (!a->quit)
    {
      /* Writing first: it frees a buffer for the next read.  */
      unsigned int k;
      struct ahead_file *f = first_to_write (a, &k);
      if (f)
        write_ahead (a, f, k);
      else if ((f = a->n_pool > 0 ? first_to_read (a) : NULL))
        read_ahead (a, f);
      else
        {
          pthread_cond_wait (&a->work, &a->lock);
          continue;
        }
      retire_if_idle (f);
      pthread_cond_broadcast (&a->done);
      /* A chunk just read may be this thread's to write.  */
    }
  pthread_mutex_unlock (&a->lock);
  return NULL;
}

enum { READER_STACK = 256 * 1024 };

/* Start up to N readers.  Signals belong to the caller's thread (its
   handler removes a half-written destination): the readers block them
   all.  A reader that cannot be made leaves fewer reads under way.  */
static void
start_readers (struct ahead *a, unsigned int n)
{
  sigset_t all, old;
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &old);
  pthread_attr_t attr;
  bool have_attr = pthread_attr_init (&attr) == 0;
  bool small = have_attr
               && pthread_attr_setstacksize (&attr, READER_STACK) == 0;
  while (a->n_threads < n && a->n_threads < ENGINE_MAX_DEPTH
         && pthread_create (&a->thread[a->n_threads], small ? &attr : NULL,
                            reader, a) == 0)
    a->n_threads++;
  if (have_attr)
    pthread_attr_destroy (&attr);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
}

/* ---- the interface ---- */

void
ahead_free (struct ahead *a)
{
  if (!a)
    return;
  pthread_mutex_lock (&a->lock);
  a->quit = true;
  pthread_cond_broadcast (&a->work);
  pthread_mutex_unlock (&a->lock);
  for (unsigned int i = 0; i < a->n_threads; i++)
    pthread_join (a->thread[i], NULL);
  for (int i = 0; i < AHEAD_SLOTS; i++)
    if (a->f[i].used)
      {
        close (a->f[i].fd);
        if (a->f[i].dst_fd >= 0)
          close (a->f[i].dst_fd);
      }
  pthread_cond_destroy (&a->done);
  pthread_cond_destroy (&a->work);
  pthread_mutex_destroy (&a->lock);
  free (a);
}

void
ahead_give (struct ahead *a, char *buf)
{
  pthread_mutex_lock (&a->lock);
  give_locked (a, buf);
  pthread_mutex_unlock (&a->lock);
}

unsigned int
ahead_claim (struct ahead *a, unsigned int n, char **bufs)
{
  unsigned int got = 0;
  pthread_mutex_lock (&a->lock);
  for (;;)
    {
      while (got < n && a->n_pool > 0)
        bufs[got++] = a->pool[--a->n_pool];
      if (got == n)
        break;
      struct ahead_file *last = last_queued (a);
      if (last)
        drop (a, last);
      else if (a->busy > 0)
        pthread_cond_wait (&a->done, &a->lock);
      else
        break;
    }
  pthread_mutex_unlock (&a->lock);
  return got;
}

/* Whether a file dropped or queued is writing to DST_DEV/DST_INO.  */
static bool
writing_to (struct ahead *a, dev_t dst_dev, ino_t dst_ino)
{
  for (int i = 0; i < AHEAD_SLOTS; i++)
    if (a->f[i].used && a->f[i].busy > 0 && a->f[i].dst_fd >= 0
        && a->f[i].dst_dev == dst_dev && a->f[i].dst_ino == dst_ino)
      return true;
  return false;
}

unsigned int
ahead_take (struct ahead *a, struct ahead_version const *v, dev_t dst_dev,
            ino_t dst_ino, bool take_written, char **bufs, bool *kept)
{
  unsigned int n = 0;
  *kept = false;
  pthread_mutex_lock (&a->lock);
  struct ahead_file *f = find (a, v);
  if (f)
    {
      for (int i = 0; i < AHEAD_SLOTS; i++)
        if (a->f[i].queued && a->f[i].order < f->order)
          drop (a, &a->f[i]);
      /* The chunks not begun are this copy's to read and write.  */
      f->taken = true;
      f->want = f->next;
      while (f->busy > 0)
        pthread_cond_wait (&a->done, &a->lock);
      if (same_version (&f->v, v))
        {
          *kept = take_written && f->dst_fd >= 0 && f->dst_dev == dst_dev
                  && f->dst_ino == dst_ino;
          for (; n < f->want; n++)
            if (f->state[n] == CHUNK_WHOLE)
              {
                bufs[n] = f->buf[n];
                f->buf[n] = NULL;
                f->state[n] = CHUNK_NONE;
              }
            else if (f->state[n] == CHUNK_WRITTEN && *kept)
              bufs[n] = NULL;
            else
              break;
        }
      drop (a, f);
    }
  /* A file dropped before (changed since, or its buffers taken back)
     may still be writing into this destination: the copy must not
     write under it, nor cut the file before it is done.  */
  while (writing_to (a, dst_dev, dst_ino))
    pthread_cond_wait (&a->done, &a->lock);
  pthread_mutex_unlock (&a->lock);
  return n;
}

bool
ahead_write_to (struct ahead *a, struct ahead_version const *v, int dst_fd,
                dev_t dst_dev, ino_t dst_ino, bool in_order)
{
  pthread_mutex_lock (&a->lock);
  struct ahead_file *f = find (a, v);
  bool took = f && !f->taken && f->dst_fd < 0 && same_version (&f->v, v);
  if (took)
    {
      f->dst_fd = dst_fd;
      f->dst_dev = dst_dev;
      f->dst_ino = dst_ino;
      f->in_order = in_order;
      pthread_cond_broadcast (&a->work);
    }
  pthread_mutex_unlock (&a->lock);
  if (!took)
    close (dst_fd);
  return took;
}

enum ahead_dest_state
ahead_dest (struct ahead *a, struct ahead_version const *v, dev_t dst_dev,
            ino_t dst_ino)
{
  pthread_mutex_lock (&a->lock);
  struct ahead_file *f = find (a, v);
  enum ahead_dest_state state = AHEAD_DEST_NONE;
  if (f && same_version (&f->v, v) && !f->taken)
    state = f->dst_fd < 0 ? AHEAD_DEST_FREE
            : f->dst_dev == dst_dev && f->dst_ino == dst_ino ? AHEAD_DEST_SAME
            : AHEAD_DEST_NONE;
  pthread_mutex_unlock (&a->lock);
  return state;
}

void
ahead_settle (struct ahead *a)
{
  pthread_mutex_lock (&a->lock);
  unsigned int k;
  while (a->busy > 0 || (a->n_threads > 0 && a->n_pool > 0
                         && first_to_read (a))
         || (a->n_threads > 0 && first_to_write (a, &k)))
    pthread_cond_wait (&a->done, &a->lock);
  pthread_mutex_unlock (&a->lock);
}

bool
ahead_queued (struct ahead *a, struct ahead_version const *v)
{
  pthread_mutex_lock (&a->lock);
  struct ahead_file *f = find (a, v);
  bool queued = f && same_version (&f->v, v);
  pthread_mutex_unlock (&a->lock);
  return queued;
}

void
ahead_queue (struct ahead *a, off_t chunk, unsigned int n, int const *fds,
             struct ahead_version const *v, unsigned int const *want,
             unsigned int threads)
{
  pthread_mutex_lock (&a->lock);
  a->chunk = chunk;
  /* Files named again keep their place in the queue, in the new order;
     the others are dropped.  */
  bool named[AHEAD_SLOTS] = { false };
  for (unsigned int i = 0; i < n; i++)
    {
      struct ahead_file *f = find (a, &v[i]);
      if (f && !same_version (&f->v, &v[i]))
        {
          drop (a, f);    /* changed since: read it again */
          f = NULL;
        }
      if (f)
        {
          /* Named twice (two names of one file): once is enough.  */
          if (!named[f - a->f])
            f->order = a->orders++;
          named[f - a->f] = true;
          if (fds[i] >= 0)
            close (fds[i]);
          continue;
        }
      int s = 0;
      while (s < AHEAD_SLOTS && a->f[s].used)
        s++;
      if (fds[i] < 0 || s == AHEAD_SLOTS || want[i] == 0)
        {
          if (fds[i] >= 0)
            close (fds[i]);
          continue;
        }
      a->f[s] = (struct ahead_file) {
        .used = true, .queued = true, .order = a->orders++, .fd = fds[i],
        .dst_fd = -1,
        .v = v[i],
        .want = want[i] < ENGINE_MAX_DEPTH ? want[i] : ENGINE_MAX_DEPTH };
      named[s] = true;
    }
  for (int i = 0; i < AHEAD_SLOTS; i++)
    if (a->f[i].queued && !named[i])
      drop (a, &a->f[i]);
  if (n > 0 && a->n_threads < threads)
    start_readers (a, threads);
  pthread_cond_broadcast (&a->work);
  pthread_mutex_unlock (&a->lock);
}
