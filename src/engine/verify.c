/* --verify: the record of what a copy read, and the check that reads the
   destination back against it (verify.h says how).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "verify.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dio.h"
#include "rw.h"
#include "sparse.h"

#ifdef HAVE_LIBXXHASH
# define XXH_STATIC_LINKING_ONLY 1   /* XXH3_state_t on the stack */
# include <xxhash.h>
typedef XXH3_state_t hash_state;
static void
hash_reset (hash_state *s)
{
  XXH3_64bits_reset (s);
}
static void
hash_update (hash_state *s, char const *buf, size_t len)
{
  XXH3_64bits_update (s, buf, len);
}
static uint64_t
hash_digest (hash_state const *s)
{
  return XXH3_64bits_digest (s);
}
#else
/* Never used: without hashes every check goes byte by byte.  */
typedef struct { uint64_t unused; } hash_state;
static void hash_reset (hash_state *s) { (void) s; }
static void hash_update (hash_state *s, char const *b, size_t n)
{ (void) s, (void) b, (void) n; }
static uint64_t hash_digest (hash_state const *s) { (void) s; return 0; }
#endif

bool
verify_hashing (void)
{
#ifdef HAVE_LIBXXHASH
  return true;
#else
  return false;
#endif
}

uint64_t
verify_hash (char const *buf, size_t len)
{
#ifdef HAVE_LIBXXHASH
  return XXH3_64bits (buf, len);
#else
  (void) buf, (void) len;
  return 0;
#endif
}

/* ---- the record ---- */

void
verify_rec_start (struct verify_rec *rec, bool active)
{
  rec->active = active;
  rec->hashing = active && verify_hashing ();
  rec->by_source = NULL;
  rec->size = -1;
  rec->n = 0;
}

void
verify_rec_add (struct verify_rec *rec, off_t off, off_t len, uint64_t hash)
{
  if (!rec->hashing || len <= 0 || rec->by_source)
    return;
  if (rec->n == rec->cap)
    {
      size_t cap = rec->cap ? 2 * rec->cap : 256;
      struct verify_range *r = cap < rec->cap ? NULL
                               : realloc (rec->ranges, cap * sizeof *r);
      if (!r)
        {
          /* Out of memory costs speed, never the check.  */
          rec->by_source = "out of memory for the hashes";
          return;
        }
      rec->ranges = r;
      rec->cap = cap;
    }
  rec->ranges[rec->n++] = (struct verify_range) { off, len, hash };
}

void
verify_rec_by_source (struct verify_rec *rec, char const *why)
{
  if (rec->active && !rec->by_source)
    rec->by_source = why;
}

void
verify_rec_free (struct verify_rec *rec)
{
  free (rec->ranges);
  rec->ranges = NULL;
  rec->n = rec->cap = 0;
}

static int
by_offset (void const *a, void const *b)
{
  off_t x = ((struct verify_range const *) a)->off;
  off_t y = ((struct verify_range const *) b)->off;
  return (x > y) - (x < y);
}

/* Sort REC's ranges.  Return false when two overlap (a piece written
   twice): then the hashes cannot be checked one read at a time.  */
static bool
ranges_in_order (struct verify_rec *rec)
{
  if (rec->n < 2)
    return true;   /* (qsort wants an array, even of nothing) */
  qsort (rec->ranges, rec->n, sizeof *rec->ranges, by_offset);
  for (size_t i = 1; i < rec->n; i++)
    if (rec->ranges[i].off < rec->ranges[i - 1].off + rec->ranges[i - 1].len)
      return false;
  return true;
}

/* ---- the check ---- */

static bool
vfail (struct engine_verify_result *vr, enum engine_side side, int err)
{
  vr->side = side;
  vr->err = err;
  return false;
}

/* The destination's descriptor for the check, and what undoes it.  */
struct reader
{
  int fd;              /* read the destination here */
  int opened;          /* the descriptor opened for it, to close ... */
  struct dio_fd flag;  /* ... once the direct switch set on it is undone */
};

/* Whether direct reads of the destination (status ST) through FD can use
   the context's buffers and block size.  */
static bool
direct_fits (struct verify_io const *io, int fd, struct stat const *st)
{
  char const *from;
  struct dio_align a = dio_alignment (fd, st, &from);
  return a.offset_align && io->block % a.offset_align == 0
         && a.mem_align <= io->buffer_align;
}

/* A plain descriptor of the destination for reading: opened again
   through /proc where it can be, else by the caller's IO->READER (where
   there is no /proc, or where /proc's open is not allowed: the caller
   may hold a descriptor that reads its new file whatever its mode), and
   then made sure to be the destination's own file, since a name can be
   swapped for another file meanwhile.  Return it, or -1 with errno.  */
static int
open_plain (struct verify_io const *io)
{
  int fd = dio_reopen (io->dst_fd, O_RDONLY);
  if (fd >= 0 || !io->reader)
    return fd;
  fd = io->reader->open (io->reader->arg);
  if (fd < 0)
    return -1;
  struct stat a, b;
  if (fstat (io->dst_fd, &a) == 0 && fstat (fd, &b) == 0
      && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
    return fd;
  close (fd);
  errno = EXDEV;
  return -1;
}

/* Fill *R with a readable descriptor of the destination (status ST):
   direct where the file system takes it and the context's buffers suit
   its alignment; otherwise buffered, after dropping the file's clean
   pages (our own copy, just written: no one else's cache is lost) so
   that most reads go to the device.  Return false with errno when the
   destination cannot be opened for reading at all.  */
static bool
open_reader (struct verify_io const *io, struct stat const *st,
             struct reader *r, struct engine_verify_result *vr)
{
  *r = (struct reader) { .fd = -1, .opened = -1, .flag.fd = -1 };
  bool switch_later = true;
#ifdef DIO_WITH_O_DIRECT
  /* Opened again through /proc, O_DIRECT is set from the open on: FUSE
     daemons see it only there.  */
  int dfd = dio_reopen (io->dst_fd, O_RDONLY | O_DIRECT);
  if (dfd >= 0 && direct_fits (io, dfd, st))
    {
      r->fd = r->opened = dfd;
      vr->direct = true;
      vr->note = dio_cache_caveat (dfd);
      return true;
    }
  if (dfd >= 0)
    {
      close (dfd);
      errno = EINVAL;
    }
  /* Refused: read buffered.  Not possible (no /proc, or not allowed):
     the caller opens it below, and the switch goes on then.  */
  switch_later = !dio_refusal (errno);
  if (!switch_later)
    vr->note_errno = errno;
#endif
  r->opened = r->fd = open_plain (io);
  if (r->fd < 0)
    return false;
  /* Opened plain (by the caller, or on a system whose switch is no
     open flag): F_SETFL O_DIRECT, directio () or F_NOCACHE on it now.  */
  if (switch_later)
    {
      if (dio_enable (r->opened, O_RDONLY, &r->flag)
          && direct_fits (io, r->flag.fd, st))
        {
          r->fd = r->flag.fd;
          vr->direct = true;
          vr->note = dio_cache_caveat (r->fd);
          return true;
        }
      vr->note_errno = r->flag.fd >= 0 ? EINVAL : errno;
      dio_release (&r->flag);
    }
  vr->note = "the page cache may have answered";
  if (fdatasync (io->dst_fd) == 0)
    posix_fadvise (io->dst_fd, 0, 0, POSIX_FADV_DONTNEED);
  return true;
}

/* Undo open_reader's work on R.  */
static void
close_reader (struct reader *r)
{
  dio_release (&r->flag);
  close (r->opened);
}

/* Read up to WANT bytes of FD at POS into BUF, until end of file.
   Return the count, or -1 with errno.  */
static ssize_t
read_full (int fd, char *buf, size_t want, off_t pos, int *flags)
{
  size_t got = 0;
  while (got < want)
    {
      ssize_t n = rw_at (fd, false, buf + got, want - got, pos + got, flags);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -1;
      if (n == 0)
        break;
      got += n;
    }
  return got;
}

/* Where the check is in the sorted ranges.  */
struct cursor
{
  size_t i;          /* the range being hashed, or the next one */
  bool started;      /* its hash has begun */
  hash_state state;
};

/* Check the LEN bytes at BUF, the destination's at POS, against the
   ranges (hashes) and the gaps between them (zeros).  Return the offset
   where a mismatching piece begins, or -1.  */
static off_t
check_hashes (struct verify_rec const *rec, struct cursor *cur,
              char const *buf, off_t pos, off_t len)
{
  off_t at = pos, end = pos + len;
  while (at < end)
    {
      struct verify_range const *r = cur->i < rec->n ? &rec->ranges[cur->i]
                                                     : NULL;
      if (r && r->off <= at)
        {
          if (!cur->started)
            {
              hash_reset (&cur->state);
              cur->started = true;
            }
          off_t stop = r->off + r->len < end ? r->off + r->len : end;
          hash_update (&cur->state, buf + (at - pos), stop - at);
          at = stop;
          if (at == r->off + r->len)
            {
              if (hash_digest (&cur->state) != r->hash)
                return r->off;
              cur->i++;
              cur->started = false;
            }
          continue;
        }
      /* A hole the copy skipped.  */
      off_t stop = r && r->off < end ? r->off : end;
      if (!sparse_is_zero (buf + (at - pos), stop - at))
        return at;
      at = stop;
    }
  return -1;
}

/* Compare the LEN bytes at BUF, the destination's at POS, with the
   source's (read into IO->src_buf; past its end it counts as zeros).
   Return the offset of the first byte that differs, or -1, or -2 with
   errno on a read error.  */
static off_t
check_source (struct verify_io const *io, char const *buf, off_t pos,
              off_t len)
{
  int flags = RWF_DONTCACHE;   /* leave the cache as the copy found it */
  ssize_t got = read_full (io->src_fd, io->src_buf, len, pos, &flags);
  if (got < 0)
    return -2;
  memset (io->src_buf + got, 0, len - got);
  for (off_t k = 0; k < len; k++)
    if (buf[k] != io->src_buf[k])
      return pos + k;
  return -1;
}

/* Read the destination through FD from its start to END and compare.
   Return where the first difference begins, or -1, or -2 with *VR's
   error set.  */
static off_t
compare_all (struct verify_rec const *rec, struct verify_io const *io,
             int fd, off_t end, struct engine_verify_result *vr)
{
  struct cursor cur;
  memset (&cur, 0, sizeof cur);
  bool by_source = vr->how_why != NULL;
  for (off_t pos = 0; pos < end; pos += io->block)
    {
      off_t want = end - pos < (off_t) io->block ? end - pos
                                                 : (off_t) io->block;
      /* Direct reads keep their whole aligned length; the file's end
         makes them short.  */
      int flags = 0;
      ssize_t got = read_full (fd, io->buf, vr->direct ? io->block
                                                        : (size_t) want,
                               pos, &flags);
      if (got < 0)
        return vfail (vr, ENGINE_SIDE_WRITE, errno), -2;
      if (got < want)
        return pos + got;   /* it shrank while being checked */
      if (io->meter)
        atomic_fetch_add_explicit (&io->meter->verified,
                                   (unsigned long long) want,
                                   memory_order_relaxed);
      off_t bad = by_source ? check_source (io, io->buf, pos, want)
                            : check_hashes (rec, &cur, io->buf, pos, want);
      if (bad == -2)
        return vfail (vr, ENGINE_SIDE_READ, errno), -2;
      if (bad >= 0)
        return bad;
    }
  /* A range still open runs past END: the destination is too short.  */
  if (!by_source && cur.i < rec->n)
    return rec->ranges[cur.i].off < end ? rec->ranges[cur.i].off : end;
  return -1;
}

bool
verify_run (struct verify_rec *rec, struct verify_io const *io,
            struct engine_verify_result *vr)
{
  *vr = (struct engine_verify_result) { .mismatch_at = -1 };
  struct stat dst_st, src_st;
  if (fstat (io->dst_fd, &dst_st) != 0)
    return vfail (vr, ENGINE_SIDE_WRITE, errno);
  if (fstat (io->src_fd, &src_st) != 0)
    return vfail (vr, ENGINE_SIDE_READ, errno);
  /* Pipes and devices are what the manual says --verify does not check.  */
  if (!S_ISREG (dst_st.st_mode))
    {
      vr->note = "the destination cannot be read back";
      return true;
    }
  if (rec->size < 0)
    {
      vr->note = "the copy recorded no size";
      return vfail (vr, ENGINE_SIDE_NONE, 0);
    }
  char const *why = !rec->hashing ? "built without libxxhash"
                    : rec->by_source ? rec->by_source
                    : !ranges_in_order (rec) ? "pieces written twice"
                    : NULL;
  /* Streams, and pseudo-files that claim size 0 (/proc), give other
     bytes when read again.  */
  if (why && (!S_ISREG (src_st.st_mode)
              || (src_st.st_size == 0 && rec->size > 0)))
    {
      vr->note = "a stream cannot be read again";
      vr->how_why = why;
      return vfail (vr, ENGINE_SIDE_NONE, 0);
    }
  vr->how = why ? "byte by byte" : "xxh3";
  vr->how_why = why;

  struct reader r;
  if (!open_reader (io, &dst_st, &r, vr))
    {
      /* An existing file of mode 0200 written by a user who is not
         root, say: GNU cp copies into it, but the check asked for
         cannot be made.  */
      vr->note = "the destination cannot be opened for reading";
      vr->note_errno = errno;
      /* No comparison was made: how it would have been made says
         nothing.  */
      vr->how = vr->how_why = NULL;
      return vfail (vr, ENGINE_SIDE_NONE, errno);
    }
  vr->checked = true;
  off_t end = dst_st.st_size < rec->size ? dst_st.st_size : rec->size;
  off_t bad = compare_all (rec, io, r.fd, end, vr);
  close_reader (&r);
  if (bad == -2)
    return false;
  if (bad < 0 && dst_st.st_size != rec->size)
    bad = end;
  vr->mismatch_at = bad;
  return bad < 0;
}
