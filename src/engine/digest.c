/* Hashing a file's data in file order as the pipeline copies it
   (digest.h says how).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "digest.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_LIBNETTLE
# include <nettle/sha2.h>
#else
# include "sha256.h"
#endif
#ifdef HAVE_LIBXXHASH
# define XXH_STATIC_LINKING_ONLY 1   /* XXH3_state_t in our struct */
# include <xxhash.h>
#endif

/* Pieces pending at once: those in flight, at most ENGINE_MAX_DEPTH.  */
enum { PENDING_MAX = 2 * ENGINE_MAX_DEPTH };

struct digest_state
{
  pthread_mutex_t lock;
  pthread_cond_t turn;    /* broadcast when AT moves or a piece is done */
  off_t at;               /* bytes hashed, from the start */
  bool lost;              /* the order is lost: stop hashing at AT */
  bool rewritten;         /* a hashed range was written again: the hash
                             of [0, AT) no longer describes the file */
  off_t pending[PENDING_MAX];
  int n_pending;
  struct { off_t off, len; } *holes;  /* skipped ranges, in file order */
  size_t first_hole, n_holes, holes_cap;
  union
  {
#ifdef HAVE_LIBNETTLE
    struct sha256_ctx nettle;
#else
    struct sha256_ctx gnulib;
#endif
#ifdef HAVE_LIBXXHASH
    XXH3_state_t xxh3;
#endif
  } h;
};

char const *
engine_hash_library (enum engine_hash hash)
{
  if (hash == ENGINE_HASH_XXH3)
#ifdef HAVE_LIBXXHASH
    return "libxxhash";
#else
    return NULL;
#endif
#ifdef HAVE_LIBNETTLE
  return "libnettle";
#else
  return "gnulib";
#endif
}

static void
hash_reset (struct engine_digest *d)
{
  struct digest_state *s = d->state;
  s->at = 0;
#ifdef HAVE_LIBXXHASH
  if (d->hash == ENGINE_HASH_XXH3)
    {
      XXH3_64bits_reset (&s->h.xxh3);
      return;
    }
#endif
#ifdef HAVE_LIBNETTLE
  sha256_init (&s->h.nettle);
#else
  sha256_init_ctx (&s->h.gnulib);
#endif
}

/* Hash LEN bytes of BUF (NULL: zeros).  */
static void
hash_bytes (struct engine_digest *d, char const *buf, off_t len)
{
  static char const zeros[64 * 1024];
  struct digest_state *s = d->state;
  s->at += len;
  while (len > 0)
    {
      size_t n = buf ? (size_t) len
                 : len < (off_t) sizeof zeros ? (size_t) len : sizeof zeros;
      char const *p = buf ? buf : zeros;
#ifdef HAVE_LIBXXHASH
      if (d->hash == ENGINE_HASH_XXH3)
        XXH3_64bits_update (&s->h.xxh3, p, n);
      else
#endif
#ifdef HAVE_LIBNETTLE
        sha256_update (&s->h.nettle, n, (uint8_t const *) p);
#else
        sha256_process_bytes (p, n, &s->h.gnulib);
#endif
      len -= n;
    }
}

static void
hash_hex (struct engine_digest *d)
{
  struct digest_state *s = d->state;
#ifdef HAVE_LIBXXHASH
  if (d->hash == ENGINE_HASH_XXH3)
    {
      snprintf (d->hex, sizeof d->hex, "%016llx",
                (unsigned long long) XXH3_64bits_digest (&s->h.xxh3));
      return;
    }
#endif
  unsigned char out[32];
#ifdef HAVE_LIBNETTLE
  sha256_digest (&s->h.nettle, sizeof out, out);
#else
  sha256_finish_ctx (&s->h.gnulib, out);
#endif
  for (int i = 0; i < 32; i++)
    snprintf (d->hex + 2 * i, 3, "%02x", out[i]);
}

bool
digest_begin (struct engine_digest *d)
{
  if (!d->state)
    {
      d->state = calloc (1, sizeof *d->state);
      if (!d->state)
        return false;
      pthread_mutex_init (&d->state->lock, NULL);
      pthread_cond_init (&d->state->turn, NULL);
    }
  struct digest_state *s = d->state;
  s->lost = s->rewritten = false;
  s->n_pending = 0;
  s->first_hole = s->n_holes = 0;
  d->hex[0] = '\0';
  d->read_back = false;
  d->err = 0;
  hash_reset (d);
  return true;
}

void
digest_hole (struct engine_digest *d, off_t off, off_t len)
{
  struct digest_state *s = d->state;
  if (len <= 0)
    return;
  pthread_mutex_lock (&s->lock);
  /* Once the order is lost the holes are of no use; while it holds, the
     list keeps only those ahead of the hash.  */
  if (s->lost)
    {
      pthread_mutex_unlock (&s->lock);
      return;
    }
  if (s->first_hole > 0 && s->first_hole >= s->n_holes / 2)
    {
      memmove (s->holes, s->holes + s->first_hole,
               (s->n_holes - s->first_hole) * sizeof *s->holes);
      s->n_holes -= s->first_hole;
      s->first_hole = 0;
    }
  if (s->n_holes == s->holes_cap)
    {
      size_t cap = s->holes_cap ? 2 * s->holes_cap : 16;
      void *v = realloc (s->holes, cap * sizeof *s->holes);
      if (!v)
        {
          s->lost = true;   /* the end reads it back */
          pthread_mutex_unlock (&s->lock);
          return;
        }
      s->holes = v;
      s->holes_cap = cap;
    }
  s->holes[s->n_holes].off = off;
  s->holes[s->n_holes++].len = len;
  pthread_mutex_unlock (&s->lock);
}

void
digest_pending (struct engine_digest *d, off_t off)
{
  struct digest_state *s = d->state;
  pthread_mutex_lock (&s->lock);
  if (s->n_pending < PENDING_MAX)
    s->pending[s->n_pending++] = off;
  else
    s->lost = true;
  pthread_mutex_unlock (&s->lock);
}

/* Is a piece before OFF pending?  */
static bool
pending_before (struct digest_state const *s, off_t off)
{
  for (int i = 0; i < s->n_pending; i++)
    if (s->pending[i] < off)
      return true;
  return false;
}

void
digest_piece (struct engine_digest *d, off_t off, char const *buf,
              off_t len)
{
  struct digest_state *s = d->state;
  pthread_mutex_lock (&s->lock);
  while (len > 0 && !s->lost)
    {
      if (off < s->at)
        {
          /* Written again below what was hashed (a refused piece
             redone, a source that seemed to end): start over at the
             end, from the destination.  */
          s->lost = s->rewritten = true;
          break;
        }
      if (off == s->at)
        {
          hash_bytes (d, buf, len);
          break;
        }
      if (s->first_hole < s->n_holes && s->holes[s->first_hole].off < s->at)
        {
          s->first_hole++;   /* behind us: a range hashed as data */
          continue;
        }
      if (s->first_hole < s->n_holes && s->holes[s->first_hole].off == s->at)
        {
          off_t n = s->holes[s->first_hole++].len;
          hash_bytes (d, NULL, n < off - s->at ? n : off - s->at);
          continue;
        }
      if (!pending_before (s, off))
        {
          s->lost = true;
          break;
        }
      pthread_cond_wait (&s->turn, &s->lock);
    }
  /* Pending until now: a piece waiting for its turn still closes the
     gap before the pieces after it.  */
  for (int i = 0; i < s->n_pending; i++)
    if (s->pending[i] == off)
      {
        s->pending[i] = s->pending[--s->n_pending];
        break;
      }
  pthread_cond_broadcast (&s->turn);
  pthread_mutex_unlock (&s->lock);
}

bool
digest_complete (struct engine_digest *d, off_t size)
{
  struct digest_state *s = d->state;
  /* The holes at the end: a file whose data ends before its size.  */
  while (!s->lost && s->at < size && s->first_hole < s->n_holes
         && s->holes[s->first_hole].off <= s->at)
    {
      off_t end = s->holes[s->first_hole].off + s->holes[s->first_hole].len;
      s->first_hole++;
      if (end > s->at)
        hash_bytes (d, NULL, (end < size ? end : size) - s->at);
    }
  return !s->lost && s->at == size;
}

bool
digest_end (struct engine_digest *d, off_t size, int read_fd, char *buf,
            size_t buf_size)
{
  struct digest_state *s = d->state;
  if (!digest_complete (d, size))
    {
      if (read_fd < 0)
        {
          errno = EIO;
          return false;
        }
      if (s->rewritten || s->at > size)
        hash_reset (d);
      d->read_back = true;
      while (s->at < size)
        {
          size_t want = size - s->at < (off_t) buf_size
                        ? (size_t) (size - s->at) : buf_size;
          ssize_t n = pread (read_fd, buf, want, s->at);
          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            {
              if (n == 0)
                errno = EIO;   /* shorter than the copy made it */
              return false;
            }
          hash_bytes (d, buf, n);
        }
    }
  hash_hex (d);
  return true;
}

void
engine_digest_free (struct engine_digest *d)
{
  if (!d->state)
    return;
  pthread_mutex_destroy (&d->state->lock);
  pthread_cond_destroy (&d->state->turn);
  free (d->state->holes);
  free (d->state);
  d->state = NULL;
}
