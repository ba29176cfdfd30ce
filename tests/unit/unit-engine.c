/* Unit tests for the data engine: alignment arithmetic and the copy loop
   against regular files, pipes, short writes, EINTR and I/O errors.

   read and write are linked with --wrap, so every read or write the engine
   makes on the descriptors a test "arms" goes through the fakes below,
   which log the request and can fail it, cut it short or interrupt it.
   Other descriptors (check's own pipes) pass straight through.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cp/diag.h"
#include "engine/cache.h"
#include "engine/dio.h"
#include "engine/engine.h"
#include "engine/pipeline.h"
#include "tap-main.h"

ssize_t __real_read (int, void *, size_t);
ssize_t __real_write (int, void const *, size_t);
ssize_t __real_pread (int, void *, size_t, off_t);
ssize_t __real_pwrite (int, void const *, size_t, off_t);
ssize_t __real_preadv2 (int, struct iovec const *, int, off_t, int);
ssize_t __real_pwritev2 (int, struct iovec const *, int, off_t, int);

/* What the fakes do.  Each check test runs in its own process, so these
   start from zero every time.  Descriptors are recognised by inode, as
   the engine opens its own direct-I/O descriptors of the same files.  */
enum { LOG_MAX = 4096 };
static struct
{
  ino_t src, dst;             /* armed files; 0 when none */
  int eintr_every;            /* every Nth armed call fails with EINTR */
  int read_fail_at;           /* the Nth read fails with read_errno */
  int read_errno;
  bool read_fail_direct;      /* ... counting only direct-I/O reads */
  bool read_fail_by_off;      /* the direct read at read_fail_off fails:
                                 the workers read in parallel, so the
                                 order of their reads is not fixed */
  off_t read_fail_off;
  size_t enomem_above;        /* reads asking more fail with ENOMEM, as
                                 /proc/sys files do */
  int write_fail_at;          /* the Nth write fails with write_errno */
  int write_errno;            /* 0: that write returns 0 instead */
  bool write_fail_direct;
  size_t write_max;           /* writes move at most this much (0: all) */
  int truncate_after;         /* after this many reads, cut the source */
  off_t truncate_to;
  int truncate_fd;            /* a writable descriptor of the source */
  off_t full_size;            /* count writes to a destination that ... */
  int writes_when_full;       /* ... already had this size */
  bool first_seen;            /* the destination at the first write, */
  off_t first_size, first_allocated;   /* when full_size is set */
  int calls, reads, writes, eintrs, short_reads, direct_reads, direct_writes;
  off_t written;              /* bytes the destination accepted */
  size_t read_req[LOG_MAX], write_req[LOG_MAX];
} fake;

static ino_t
ino_of (int fd)
{
  struct stat st;
  return fd >= 0 && fstat (fd, &st) == 0 && S_ISREG (st.st_mode)
         ? st.st_ino : 0;
}

static bool
is_direct (int fd)
{
  int fl = fcntl (fd, F_GETFL);
  return fl >= 0 && (fl & O_DIRECT);
}

static bool
interrupt_now (void)
{
  if (fake.eintr_every && ++fake.calls % fake.eintr_every == 0)
    {
      fake.eintrs++;
      errno = EINTR;
      return true;
    }
  return false;
}

/* Before a read of SIZE on FD: log it and maybe fail.  Return true when
   the fake decided the outcome (-1 with errno).  */
static bool
fake_read_locked (int fd, size_t size, off_t off)
{
  if (interrupt_now ())
    return true;
  if (fake.enomem_above && size > fake.enomem_above)
    {
      errno = ENOMEM;
      return true;
    }
  if (fake.reads < LOG_MAX)
    fake.read_req[fake.reads] = size;
  bool direct = is_direct (fd);
  fake.direct_reads += direct;
  int n = fake.read_fail_direct ? fake.direct_reads : fake.reads + 1;
  fake.reads++;
  if ((n == fake.read_fail_at && (direct || !fake.read_fail_direct))
      || (fake.read_fail_by_off && direct && off == fake.read_fail_off))
    {
      errno = fake.read_errno;
      return true;
    }
  if (fake.truncate_after && fake.reads == fake.truncate_after + 1)
    ck_assert_int_eq (ftruncate (fake.truncate_fd, fake.truncate_to), 0);
  return false;
}

/* Before a write: log, fail, or shorten *SIZE.  Return true when the fake
   decided the outcome (*RESULT).  */
static bool
fake_write_locked (int fd, size_t *size, ssize_t *result)
{
  *result = -1;
  if (interrupt_now ())
    return true;
  if (fake.writes < LOG_MAX)
    fake.write_req[fake.writes] = *size;
  struct stat st;
  if (fake.full_size && fstat (fd, &st) == 0)
    {
      fake.writes_when_full += st.st_size >= fake.full_size;
      if (!fake.first_seen)
        {
          fake.first_seen = true;
          fake.first_size = st.st_size;
          fake.first_allocated = (off_t) st.st_blocks * 512;
        }
    }
  bool direct = is_direct (fd);
  fake.direct_writes += direct;
  int n = fake.write_fail_direct ? fake.direct_writes : fake.writes + 1;
  fake.writes++;
  if (n == fake.write_fail_at && (direct || !fake.write_fail_direct))
    {
      if (fake.write_errno == 0)
        *result = 0;
      errno = fake.write_errno;
      return true;
    }
  if (fake.write_max && *size > fake.write_max)
    *size = fake.write_max;
  return false;
}

/* The engine's workers are threads: the fake's counters are kept under
   one lock, or concurrent increments get lost.  */
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

static bool
fake_read (int fd, size_t size, off_t off)
{
  pthread_mutex_lock (&fake_lock);
  bool r = fake_read_locked (fd, size, off);
  int err = errno;
  pthread_mutex_unlock (&fake_lock);
  errno = err;
  return r;
}

static bool
fake_write (int fd, size_t *size, ssize_t *result)
{
  pthread_mutex_lock (&fake_lock);
  bool r = fake_write_locked (fd, size, result);
  int err = errno;
  pthread_mutex_unlock (&fake_lock);
  errno = err;
  return r;
}

static void
count_written (ssize_t n)
{
  pthread_mutex_lock (&fake_lock);
  if (n > 0)
    fake.written += n;
  pthread_mutex_unlock (&fake_lock);
}

ssize_t
__wrap_read (int fd, void *buf, size_t size)
{
  if (!fake.src || ino_of (fd) != fake.src)
    return __real_read (fd, buf, size);
  if (fake_read (fd, size, -1))
    return -1;
  ssize_t n = __real_read (fd, buf, size);
  if (n > 0 && (size_t) n < size)
    fake.short_reads++;
  return n;
}

ssize_t
__wrap_pread (int fd, void *buf, size_t size, off_t off)
{
  if (!fake.src || ino_of (fd) != fake.src)
    return __real_pread (fd, buf, size, off);
  if (fake_read (fd, size, off))
    return -1;
  return __real_pread (fd, buf, size, off);
}

ssize_t
__wrap_preadv2 (int fd, struct iovec const *iov, int n, off_t off, int fl)
{
  if (!fake.src || ino_of (fd) != fake.src)
    return __real_preadv2 (fd, iov, n, off, fl);
  if (fake_read (fd, iov[0].iov_len, off))
    return -1;
  return __real_preadv2 (fd, iov, n, off, fl);
}

ssize_t
__wrap_write (int fd, void const *buf, size_t size)
{
  ssize_t r;
  if (!fake.dst || ino_of (fd) != fake.dst)
    return __real_write (fd, buf, size);
  if (fake_write (fd, &size, &r))
    return r;
  r = __real_write (fd, buf, size);
  count_written (r);
  return r;
}

ssize_t
__wrap_pwrite (int fd, void const *buf, size_t size, off_t off)
{
  ssize_t r;
  if (!fake.dst || ino_of (fd) != fake.dst)
    return __real_pwrite (fd, buf, size, off);
  if (fake_write (fd, &size, &r))
    return r;
  r = __real_pwrite (fd, buf, size, off);
  count_written (r);
  return r;
}

ssize_t
__wrap_pwritev2 (int fd, struct iovec const *iov, int n, off_t off, int fl)
{
  ssize_t r;
  if (!fake.dst || ino_of (fd) != fake.dst)
    return __real_pwritev2 (fd, iov, n, off, fl);
  size_t size = iov[0].iov_len;
  if (fake_write (fd, &size, &r))
    return r;
  struct iovec one = { iov[0].iov_base, size };
  r = __real_pwritev2 (fd, &one, 1, off, fl);
  count_written (r);
  return r;
}

/* ---- helpers ---- */

enum { BUF = 65536 };  /* small buffers keep the data tests fast */

static struct engine_request const buffered = {
  .direct = ENGINE_DIRECT_NEVER, .sparse = ENGINE_SPARSE_AUTO,
  .reflink = ENGINE_REFLINK_NEVER };
static struct engine_request const direct = {
  .direct = ENGINE_DIRECT_ALWAYS, .sparse = ENGINE_SPARSE_AUTO,
  .reflink = ENGINE_REFLINK_NEVER };

/* Deterministic, position-dependent bytes, so a lost, duplicated or
   shifted block cannot compare equal.  */
static unsigned char
pattern (off_t i)
{
  return (unsigned char) (((uint64_t) i * 2654435761u) >> 13);
}

/* Temporary files live beside the build, on a filesystem that does
   direct I/O (/tmp may be tmpfs, which caches anyway).  */
static int
temp_file (void)
{
  char name[] = "cp8m-unit-XXXXXX";
  int fd = mkstemp (name);
  ck_assert_int_ge (fd, 0);
  unlink (name);
  return fd;
}

static void
write_pattern (int fd, off_t off, off_t len)
{
  unsigned char *data = malloc (len + 1);
  for (off_t i = 0; i < len; i++)
    data[i] = pattern (off + i);
  ck_assert_int_eq (__real_pwrite (fd, data, len, off), (ssize_t) len);
  free (data);
}

static int
source_file (off_t size)
{
  int fd = temp_file ();
  write_pattern (fd, 0, size);
  return fd;
}

/* FD's contents, which must be SIZE bytes: a new array.  */
static unsigned char *
read_whole (int fd, off_t size)
{
  struct stat st;
  ck_assert_int_eq (fstat (fd, &st), 0);
  ck_assert_int_eq (st.st_size, size);
  unsigned char *data = malloc (size + 1);
  ck_assert_int_eq (__real_pread (fd, data, size, 0), (ssize_t) size);
  return data;
}

/* FD holds SIZE bytes: the pattern, or zeros inside the HOLES ranges.  */
static void
assert_content (int fd, off_t size, struct io_range const *holes, int nholes)
{
  unsigned char *data = read_whole (fd, size);
  for (off_t i = 0; i < size; i++)
    {
      bool in_hole = false;
      for (int h = 0; h < nholes; h++)
        in_hole |= holes[h].off <= i && i < holes[h].off + holes[h].len;
      if (data[i] != (in_hole ? 0 : pattern (i)))
        ck_abort_msg ("byte %jd differs", (intmax_t) i);
    }
  free (data);
}

static void
assert_copy_of_pattern (int fd, off_t size)
{
  assert_content (fd, size, NULL, 0);
}

static void
arm (int src, int dst)
{
  fake.src = ino_of (src);
  fake.dst = ino_of (dst);
}

static struct engine_ctx *
make_ctx (unsigned int depth)
{
  struct engine_config cfg = { .buffer_size = BUF, .queue_depth = depth };
  struct engine_ctx *ctx = engine_ctx_new (&cfg);
  ck_assert_ptr_nonnull (ctx);
  ck_assert_uint_eq (engine_buffer_size (ctx), BUF);
  return ctx;
}

/* GNU cp's --debug words for what RES says happened.  */
static struct diag_words
words_of (struct engine_result const *res)
{
  struct diag_words w;
  diag_gnu_words (&res->report.facts, &w);
  return w;
}

/* ---- alignment ---- */

START_TEST (test_buffer_alignment)
{
  ck_assert_uint_eq (dio_buffer_alignment (4096, 0), 4096);
  ck_assert_uint_eq (dio_buffer_alignment (4096, 4), 4096);
  ck_assert_uint_eq (dio_buffer_alignment (4096, 512), 4096);
  ck_assert_uint_eq (dio_buffer_alignment (4096, 4096), 4096);
  ck_assert_uint_eq (dio_buffer_alignment (4096, 8192), 8192);
  ck_assert_uint_eq (dio_buffer_alignment (16384, 512), 16384);
  ck_assert_uint_eq (dio_buffer_alignment (65536, 4096), 65536);
  /* Not a power of two: rounded up to one, as allocators need.  */
  ck_assert_uint_eq (dio_buffer_alignment (4096, 6000), 8192);
}
END_TEST

START_TEST (test_round_up)
{
  ck_assert_uint_eq (dio_round_up (0, 4096), 0);
  ck_assert_uint_eq (dio_round_up (1, 4096), 4096);
  ck_assert_uint_eq (dio_round_up (4095, 4096), 4096);
  ck_assert_uint_eq (dio_round_up (4096, 4096), 4096);
  ck_assert_uint_eq (dio_round_up (4097, 4096), 8192);
  ck_assert_uint_eq (dio_round_up (8000000, 4096), 8003584);
  ck_assert_uint_eq (dio_round_up (8388608, 4096), 8388608);
  ck_assert_uint_eq (dio_round_up (SIZE_MAX, 4096), 0);
  ck_assert_uint_eq (dio_round_up (SIZE_MAX - 4095, 4096), SIZE_MAX - 4095);
}
END_TEST

START_TEST (test_ctx_config)
{
  struct engine_config cfg = { .buffer_size = 1, .queue_depth = 1 };
  struct engine_ctx *ctx = engine_ctx_new (&cfg);
  ck_assert_uint_eq (engine_buffer_size (ctx), 4096);
  engine_ctx_free (ctx);
  cfg = (struct engine_config) { .buffer_size = 8 * 1000 * 1000,
                                 .queue_depth = 4 };
  ctx = engine_ctx_new (&cfg);
  ck_assert_uint_eq (engine_buffer_size (ctx), 8003584);
  /* Nothing large is allocated until a copy needs it.  */
  ck_assert_uint_eq (engine_buffer_allocations (ctx), 0);
  engine_ctx_free (ctx);
  struct engine_config const bad[] = {
    { .buffer_size = 0, .queue_depth = 1 },
    { .buffer_size = SIZE_MAX, .queue_depth = 1 },
    { .buffer_size = 4096, .queue_depth = 0 },
    { .buffer_size = 4096, .queue_depth = ENGINE_MAX_DEPTH + 1 } };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    {
      errno = 0;
      ck_assert_ptr_null (engine_ctx_new (&bad[i]));
      ck_assert_int_eq (errno, EINVAL);
    }
}
END_TEST

/* statx(STATX_DIOALIGN) either says nothing or something usable, and
   dio_alignment always answers.  */
START_TEST (test_dio_query_sane)
{
  int fd = temp_file ();
  struct dio_align a = { 0, 0 };
  if (dio_query_fd (fd, &a))
    {
      ck_assert_uint_gt (a.offset_align, 0);
      ck_assert_uint_eq (a.offset_align & (a.offset_align - 1), 0);
      ck_assert_uint_eq (a.mem_align & (a.mem_align - 1), 0);
    }
  struct stat st;
  ck_assert_int_eq (fstat (fd, &st), 0);
  char const *from = NULL;
  a = dio_alignment (fd, &st, &from);
  ck_assert_ptr_nonnull (from);
  ck_assert_uint_gt (a.offset_align, 0);
  ck_assert_uint_eq (a.offset_align & (a.offset_align - 1), 0);
  /* A pipe never supports direct I/O.  */
  int p[2];
  ck_assert_int_eq (pipe (p), 0);
  ck_assert (!dio_query_fd (p[0], &a));
  close (fd);
}
END_TEST

/* Only EINVAL and EOPNOTSUPP mean "no direct I/O here".  */
START_TEST (test_refusal_predicate)
{
  ck_assert (dio_refusal (EINVAL));
  ck_assert (dio_refusal (EOPNOTSUPP));
  ck_assert (!dio_refusal (EIO));
  ck_assert (!dio_refusal (ENOSPC));
  ck_assert (!dio_refusal (EINTR));
  ck_assert (!dio_refusal (EBADF));
}
END_TEST

/* dio_enable gives a second, direct descriptor of the same file and
   leaves the caller's plain; dio_release undoes it.  */
START_TEST (test_dio_enable)
{
  int fd = temp_file ();
  struct dio_fd d;
  if (!dio_enable (fd, O_WRONLY, &d))
    {
      ck_assert (dio_refusal (errno));   /* a filesystem without it */
      return;
    }
  ck_assert_int_ge (d.fd, 0);
  ck_assert_int_eq (ino_of (d.fd), ino_of (fd));
  ck_assert (is_direct (d.fd));
  if (d.own)
    ck_assert (!is_direct (fd));
  ck_assert (dio_release (&d));
  ck_assert (!is_direct (fd));
  ck_assert_int_eq (d.fd, -1);
}
END_TEST

/* ---- buffered copies ---- */

/* The direct plan of RES's copy, or NULL; the plan that ran last.  */
static struct engine_plan const *
direct_plan (struct engine_result const *res)
{
  return engine_direct_plan (&res->report, NULL);
}

static struct engine_plan const *
last_plan (struct engine_result const *res)
{
  ck_assert_uint_gt (res->report.n_plans, 0);
  return &res->report.plans[res->report.n_plans - 1];
}

/* Sizes around the buffer size: every read and write is a whole buffer
   except the last.  */
static off_t const file_sizes[] =
  { 1, 41, BUF - 1, BUF, BUF + 1, 3 * BUF + 17, 10 * BUF };

START_TEST (test_copy_regular_sizes)
{
  off_t size = file_sizes[_i];
  int src = source_file (size), dst = temp_file ();
  arm (src, dst);
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &buffered, &res));
  ck_assert_int_eq (res.err, 0);
  ck_assert_int_eq (res.bytes, size);
  ck_assert (!direct_plan (&res));
  ck_assert_str_eq (last_plan (&res)->why, "--direct=never");
  assert_copy_of_pattern (dst, size);

  /* One read per chunk, and one more that finds the end of file: like
     GNU cp, the engine reads until it does (the source may have grown).  */
  int chunks = (size + BUF - 1) / BUF;
  ck_assert_int_eq (fake.reads, chunks + 1);
  ck_assert_int_eq (fake.writes, chunks);
  for (int i = 0; i < chunks; i++)
    {
      off_t want = i + 1 < chunks ? BUF : size - (off_t) i * BUF;
      ck_assert_uint_eq (fake.read_req[i], want);
      ck_assert_uint_eq (fake.write_req[i], want);
    }
  ck_assert_uint_eq (fake.read_req[chunks], BUF);
  engine_ctx_free (ctx);
}
END_TEST

/* Write SIZE bytes of the pattern to the pipe FD in 1000-byte pieces
   (past the engine's wrapped write; write_pattern's pwrite cannot seek a
   pipe), sleeping PAUSE_US microseconds every 8000 bytes when PAUSE_US
   is not 0.  Return true if all were written.  */
static bool
pipe_pattern (int fd, size_t size, useconds_t pause_us)
{
  unsigned char piece[1000];
  for (size_t off = 0; off < size; off += sizeof piece)
    {
      size_t n = size - off < sizeof piece ? size - off : sizeof piece;
      for (size_t i = 0; i < n; i++)
        piece[i] = pattern (off + i);
      if (__real_write (fd, piece, n) != (ssize_t) n)
        return false;
      if (pause_us && off % 8000 == 0)
        usleep (pause_us);
    }
  return true;
}

/* A writer that trickles 1000-byte pieces into a pipe, pausing now and
   then: the engine writes what has arrived each time nothing more is
   waiting (as GNU cp writes what each read returns), so the data reaches
   the destination as it comes; never more than a buffer at once, and all
   of it in order.  */
START_TEST (test_copy_from_pipe_short_reads)
{
  size_t const size = 5 * BUF + 123;
  int p[2];
  ck_assert_int_eq (pipe (p), 0);
  pid_t child = fork ();
  ck_assert_int_ge (child, 0);
  if (child == 0)
    {
      close (p[0]);
      _exit (pipe_pattern (p[1], size, 20000) ? 0 : 1);
    }
  close (p[1]);

  int dst = temp_file ();
  fake.dst = ino_of (dst);
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  ck_assert (engine_copy (ctx, p[0], dst, &direct, &res));
  ck_assert_int_eq (res.bytes, (off_t) size);
  ck_assert (!direct_plan (&res));
  assert_copy_of_pattern (dst, size);
  /* About one write per pause (the writer makes 41 of 20 ms); whole
     buffers only would be 6.  Some pauses may merge on a loaded
     machine.  */
  ck_assert_int_ge (fake.writes, 20);
  for (int i = 0; i < fake.writes && i < LOG_MAX; i++)
    ck_assert_uint_le (fake.write_req[i], BUF);
  int status;
  ck_assert_int_eq (waitpid (child, &status, 0), child);
  ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  engine_ctx_free (ctx);
  close (p[0]);
  close (dst);
}
END_TEST

/* Data that is already waiting is gathered into whole buffers: a pipe
   holding all of it, its writer gone, is copied in full-buffer writes.  */
START_TEST (test_copy_from_pipe_waiting)
{
  size_t const size = 3 * BUF + 123;
  int p[2];
  ck_assert_int_eq (pipe (p), 0);
  ck_assert_int_ge (fcntl (p[1], F_SETPIPE_SZ, 4 * BUF), (int) (4 * BUF));
  ck_assert (pipe_pattern (p[1], size, 0));
  close (p[1]);

  int dst = temp_file ();
  fake.dst = ino_of (dst);
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  ck_assert (engine_copy (ctx, p[0], dst, &direct, &res));
  ck_assert_int_eq (res.bytes, (off_t) size);
  assert_copy_of_pattern (dst, size);
  ck_assert_int_eq (fake.writes, 4);
  for (int i = 0; i < 3; i++)
    ck_assert_uint_eq (fake.write_req[i], BUF);
  ck_assert_uint_eq (fake.write_req[3], 123);
  engine_ctx_free (ctx);
  close (p[0]);
  close (dst);
}
END_TEST

/* A pseudo-file that refuses large reads with ENOMEM (/proc/sys/...):
   the stream copy asks for less until it gets data, and copies it all.  */
START_TEST (test_stream_enomem_smaller_reads)
{
  char const text[] = "hostname\n";
  int p[2];
  ck_assert_int_eq (pipe (p), 0);
  ck_assert_int_eq (__real_write (p[1], text, sizeof text - 1),
                    (ssize_t) (sizeof text - 1));
  close (p[1]);
  fake.src = ino_of (p[0]);
  fake.enomem_above = 65536;
  int dst = temp_file ();
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  ck_assert (engine_copy (ctx, p[0], dst, &buffered, &res));
  ck_assert_int_eq (res.bytes, (off_t) (sizeof text - 1));
  char back[sizeof text] = "";
  ck_assert_int_eq (pread (dst, back, sizeof back, 0),
                    (ssize_t) (sizeof text - 1));
  ck_assert_str_eq (back, text);
  engine_ctx_free (ctx);
  close (p[0]);
}
END_TEST

/* The destination takes at most 1000 bytes a call.  */
START_TEST (test_copy_short_writes)
{
  off_t const size = 3 * BUF + 5;
  int src = source_file (size), dst = temp_file ();
  arm (src, dst);
  fake.write_max = 1000;
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &buffered, &res));
  ck_assert_int_eq (res.bytes, size);
  assert_copy_of_pattern (dst, size);
  ck_assert_int_eq (fake.writes, 3 * 66 + 1);
  ck_assert_uint_eq (fake.write_req[1], BUF - 1000);
  ck_assert_int_eq (fake.written, size);
  engine_ctx_free (ctx);
}
END_TEST

/* Every other read and write is interrupted, buffered and direct.  */
START_TEST (test_copy_eintr)
{
  off_t const size = 7 * BUF + 99;
  int src = source_file (size), dst = temp_file ();
  arm (src, dst);
  fake.eintr_every = 2;
  struct engine_ctx *ctx = make_ctx (_i ? 3 : 1);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, _i ? &direct : &buffered, &res));
  ck_assert_int_eq (res.err, 0);
  assert_copy_of_pattern (dst, size);
  ck_assert_int_ge (fake.eintrs, 8);
  ck_assert_int_eq (fake.written, size);
  engine_ctx_free (ctx);
}
END_TEST

/* Copy a 5-buffer file with the fakes set to fail; the engine must report
   ERR on SIDE, and at most BYTES copied.  */
static void
assert_copy_fails (struct engine_request const *req, int err,
                   enum engine_side side, off_t bytes)
{
  int src = source_file (5 * BUF), dst = temp_file ();
  arm (src, dst);
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  ck_assert (!engine_copy (ctx, src, dst, req, &res));
  ck_assert_int_eq (res.err, err);
  ck_assert_int_eq (res.side, side);
  ck_assert_int_eq (res.bytes, bytes);
  engine_ctx_free (ctx);
}

START_TEST (test_copy_read_error)
{
  fake.read_fail_at = 3;
  fake.read_errno = EIO;
  assert_copy_fails (_i ? &direct : &buffered, EIO, ENGINE_SIDE_READ,
                     2 * BUF);
}
END_TEST

START_TEST (test_copy_write_error)
{
  fake.write_fail_at = 2;
  fake.write_errno = ENOSPC;
  assert_copy_fails (_i ? &direct : &buffered, ENOSPC, ENGINE_SIDE_WRITE,
                     BUF);
}
END_TEST

/* A write that moves nothing must not loop forever.  */
START_TEST (test_copy_write_zero)
{
  fake.write_fail_at = 1;
  fake.write_errno = 0;
  assert_copy_fails (&buffered, ENOSPC, ENGINE_SIDE_WRITE, 0);
}
END_TEST

/* ---- direct I/O ---- */

/* Direct copies of awkward sizes: the aligned body goes direct, the
   unaligned tail through the plain descriptor, every byte once.  */
static off_t const direct_sizes[] =
  { 1, 511, 4096, 4097, BUF - 1, BUF + 1, 7 * BUF + 1000 };

START_TEST (test_direct_sizes)
{
  off_t size = direct_sizes[_i % 7];
  unsigned int depth = _i < 7 ? 1 : 4;
  int src = source_file (size), dst = temp_file ();
  arm (src, dst);
  struct engine_ctx *ctx = make_ctx (depth);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &direct, &res));
  assert_copy_of_pattern (dst, size);
  ck_assert_int_eq (res.bytes, size);
  ck_assert_int_eq (fake.written, size);
  struct engine_plan const *d = direct_plan (&res);
  if (d)
    {
      /* No more workers than chunks; the tail is the plan after.  */
      unsigned int chunks = (size + BUF - 1) / BUF;
      ck_assert_uint_eq (d->depth, chunks < depth ? chunks : depth);
      ck_assert_int_eq (d[1].then, ENGINE_THEN_TAIL);
      ck_assert_int_eq (d[1].bytes, size % 4096);
      ck_assert_int_eq (fake.direct_writes, (size / 4096 + BUF / 4096 - 1)
                                            / (BUF / 4096));
    }
  else
    ck_assert (dio_refusal (last_plan (&res)->why_errno));
  engine_ctx_free (ctx);
}
END_TEST

/* The kernel refuses a direct read or write part way: the copy goes on
   buffered from there, nothing lost, nothing written twice, and later
   files on the device do not try again.  */
START_TEST (test_direct_fallback)
{
  off_t const size = 9 * BUF + 300;
  int src = source_file (size), dst = temp_file ();
  arm (src, dst);
  if (_i % 2 == 0)
    {
      fake.read_fail_direct = true;
      fake.read_fail_at = 3;
      fake.read_errno = EINVAL;
    }
  else
    {
      fake.write_fail_direct = true;
      fake.write_fail_at = 3;
      fake.write_errno = EINVAL;
    }
  struct engine_ctx *ctx = make_ctx (_i < 2 ? 1 : 4);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &direct, &res));
  struct engine_plan const *d = direct_plan (&res);
  if (!d)
    return;    /* this filesystem refused at open: nothing to fall from */
  assert_copy_of_pattern (dst, size);
  bool fell_back;
  engine_direct_plan (&res.report, &fell_back);
  ck_assert (fell_back);
  ck_assert_int_eq (d[1].then, ENGINE_THEN_REFUSED);
  ck_assert_str_eq (d[1].why, _i % 2 == 0 ? "read" : "write");
  ck_assert_int_eq (d[1].why_errno, EINVAL);
  ck_assert_int_eq (d[1].method, ENGINE_COPY_BUFFERED);
  ck_assert_int_eq (res.bytes, size);
  ck_assert_int_eq (fake.written, size);

  /* Sticky: the next file on this device is not tried direct.  */
  int src2 = source_file (BUF), dst2 = temp_file ();
  arm (src2, dst2);
  ck_assert (engine_copy (ctx, src2, dst2, &direct, &res));
  ck_assert (!direct_plan (&res));
  ck_assert_int_eq (last_plan (&res)->why_errno, EINVAL);
  assert_copy_of_pattern (dst2, BUF);
  engine_ctx_free (ctx);
}
END_TEST

/* auto: small files and cached sources stay buffered.  */
START_TEST (test_auto_decisions)
{
  struct engine_request req = direct;
  req.direct = ENGINE_DIRECT_AUTO;
  int src = source_file (BUF - 1), dst = temp_file ();
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &req, &res));
  ck_assert (!direct_plan (&res));
  ck_assert_str_eq (last_plan (&res)->why, "smaller than one buffer");
  /* Just written, so in the page cache.  */
  int src2 = source_file (4 * BUF), dst2 = temp_file ();
  ck_assert (engine_copy (ctx, src2, dst2, &req, &res));
  ck_assert (!direct_plan (&res));
  ck_assert_str_eq (last_plan (&res)->why, "source mostly in the page cache");
  assert_copy_of_pattern (dst2, 4 * BUF);
  engine_ctx_free (ctx);
}
END_TEST

/* engine_all_cached counts whole pages: a file of 2009 bytes (less than
   a page) or of 3 pages and a bit, just written, is all cached; once
   flushed and dropped from the cache, it is not (where the file system
   drops it: not tmpfs or an overlay).  Without cachestat it cannot tell,
   and says no.  */
START_TEST (test_all_cached)
{
  static off_t const sizes[] = { 2009, 3 * 4096 + 17 };
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    {
      int fd = source_file (sizes[i]);
      bool can_tell = cache_stat_fraction (fd, sizes[i]) >= 0;
      ck_assert (engine_all_cached (fd, sizes[i]) == can_tell);
      struct statfs fs;
      ck_assert_int_eq (fstatfs (fd, &fs), 0);
      if (fs.f_type != 0x01021994 && fs.f_type != 0x794c7630)
        {
          ck_assert_int_eq (fdatasync (fd), 0);
          ck_assert_int_eq (posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED),
                            0);
          ck_assert (!engine_all_cached (fd, sizes[i]));
        }
      close (fd);
    }
}
END_TEST

/* ---- sparse files ---- */

/* Holes at the start, in the middle and at the end.  */
START_TEST (test_sparse_holes_kept)
{
  off_t const size = 40 * BUF;
  struct io_range const holes[] = {
    { 0, 8 * BUF, true }, { 12 * BUF, 10 * BUF, true },
    { 30 * BUF, 10 * BUF, true } };
  int src = temp_file ();
  ck_assert_int_eq (ftruncate (src, size), 0);
  write_pattern (src, 8 * BUF, 4 * BUF);
  write_pattern (src, 22 * BUF, 8 * BUF);
  int dst = temp_file ();
  struct engine_ctx *ctx = make_ctx (_i ? 4 : 1);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, _i ? &direct : &buffered, &res));
  assert_content (dst, size, holes, 3);
  struct stat s, d;
  ck_assert_int_eq (fstat (src, &s), 0);
  ck_assert_int_eq (fstat (dst, &d), 0);
  if (s.st_blocks * 512 < size)
    {
      ck_assert_str_eq (words_of (&res).sparse, "SEEK_HOLE");
      ck_assert_int_le (d.st_blocks, s.st_blocks);
    }
  engine_ctx_free (ctx);
}
END_TEST

/* sparse=always turns zero blocks of a dense file into holes.  */
START_TEST (test_sparse_always_zeros)
{
  off_t const size = 6 * BUF;
  int src = temp_file ();
  char *zeros = calloc (1, 3 * BUF);
  ck_assert_int_eq (__real_pwrite (src, zeros, 3 * BUF, 0), 3 * BUF);
  free (zeros);
  write_pattern (src, 3 * BUF, 3 * BUF);
  int dst = temp_file ();
  struct engine_request req = buffered;
  req.sparse = ENGINE_SPARSE_ALWAYS;
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &req, &res));
  struct io_range const hole = { 0, 3 * BUF, true };
  assert_content (dst, size, &hole, 1);
  ck_assert_str_eq (words_of (&res).sparse, "zeros");
  struct stat d;
  ck_assert_int_eq (fstat (dst, &d), 0);
  ck_assert_int_lt (d.st_blocks * 512, size);
  engine_ctx_free (ctx);
}
END_TEST

/* sparse=always: the last nonzero run of a chunk that is not a multiple
   of 4096 bytes is written too (it once was not).  */
static off_t const zero_sizes[] = { 12, 10000, BUF + 100, 3 * BUF + 4097 };

START_TEST (test_sparse_always_odd_sizes)
{
  off_t size = zero_sizes[_i % 4];
  int src = temp_file ();
  write_pattern (src, 0, size);
  /* A zero block in the middle where there is room for one.  */
  struct io_range hole = { 0, 0, true };
  if (size > 3 * 4096)
    {
      hole = (struct io_range) { 4096, 4096, true };
      char zeros[4096] = { 0 };
      ck_assert_int_eq (__real_pwrite (src, zeros, 4096, 4096), 4096);
    }
  int dst = temp_file ();
  struct engine_request req = _i < 4 ? buffered : direct;
  req.sparse = ENGINE_SPARSE_ALWAYS;
  struct engine_ctx *ctx = make_ctx (2);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &req, &res));
  assert_content (dst, size, &hole, hole.len ? 1 : 0);
  engine_ctx_free (ctx);
}
END_TEST

/* ---- --debug's words: GNU cp 9.11's model ---- */

#define F_PLAIN ENGINE_SCAN_PLAIN
#define F_LSEEK ENGINE_SCAN_LSEEK
#define F_NONE ENGINE_SCAN_NONE

/* Facts in, GNU's three words out: the cases GNU cp 9.11's copy_reg and
   copy_file_data give.  */
static struct
{
  struct engine_facts f;
  char const *offload, *reflink, *sparse;
} const word_cases[] = {
  /* Before any data moved (the destination could not be created).  */
  { { false, ENGINE_CLONE_NOT_TRIED, F_NONE, false, false,
      ENGINE_OFFLOAD_NONE }, "unknown", "no", "unknown" },
  { { true, ENGINE_CLONE_NOT_TRIED, F_NONE, false, false,
      ENGINE_OFFLOAD_NONE }, "unknown", "unknown", "unknown" },
  /* --reflink=never (cp8M's default): a file, a sparse file, a file
     with no data at all.  */
  { { false, ENGINE_CLONE_NOT_TRIED, F_PLAIN, false, true,
      ENGINE_OFFLOAD_NONE }, "avoided", "no", "no" },
  { { false, ENGINE_CLONE_NOT_TRIED, F_LSEEK, false, true,
      ENGINE_OFFLOAD_NONE }, "avoided", "no", "SEEK_HOLE" },
  { { false, ENGINE_CLONE_NOT_TRIED, F_LSEEK, false, false,
      ENGINE_OFFLOAD_NONE }, "unknown", "no", "SEEK_HOLE" },
  /* --sparse=always: zero detection runs with the copy loop only.  */
  { { false, ENGINE_CLONE_NOT_TRIED, F_PLAIN, true, true,
      ENGINE_OFFLOAD_NONE }, "avoided", "no", "zeros" },
  { { false, ENGINE_CLONE_NOT_TRIED, F_LSEEK, true, true,
      ENGINE_OFFLOAD_NONE }, "avoided", "no", "SEEK_HOLE + zeros" },
  { { false, ENGINE_CLONE_NOT_TRIED, F_LSEEK, true, false,
      ENGINE_OFFLOAD_NONE }, "unknown", "no", "SEEK_HOLE" },
  /* --reflink=auto where FICLONE cannot (ext4).  */
  { { true, ENGINE_CLONE_REFUSED, F_PLAIN, false, true,
      ENGINE_OFFLOAD_MOVED }, "yes", "unsupported", "no" },
  { { true, ENGINE_CLONE_REFUSED, F_LSEEK, false, true,
      ENGINE_OFFLOAD_MOVED }, "yes", "unsupported", "SEEK_HOLE" },
  { { true, ENGINE_CLONE_REFUSED, F_PLAIN, false, true,
      ENGINE_OFFLOAD_NONE }, "unknown", "unsupported", "no" },
  { { true, ENGINE_CLONE_REFUSED, F_PLAIN, false, true,
      ENGINE_OFFLOAD_FAILED }, "unsupported", "unsupported", "no" },
  { { true, ENGINE_CLONE_REFUSED, F_PLAIN, true, true,
      ENGINE_OFFLOAD_NONE }, "avoided", "unsupported", "zeros" },
  { { true, ENGINE_CLONE_REFUSED, F_LSEEK, false, false,
      ENGINE_OFFLOAD_NONE }, "unknown", "unsupported", "SEEK_HOLE" },
  /* A clone: no data copy at all.  */
  { { true, ENGINE_CLONE_DONE, F_NONE, false, false,
      ENGINE_OFFLOAD_NONE }, "unknown", "yes", "unknown" },
  /* --reflink=always that cannot clone; a clone that failed for real
     (EIO, ENOSPC) leaves the word as it was.  */
  { { true, ENGINE_CLONE_REFUSED, F_NONE, false, false,
      ENGINE_OFFLOAD_NONE }, "unknown", "unsupported", "unknown" },
  { { true, ENGINE_CLONE_FAILED, F_NONE, false, false,
      ENGINE_OFFLOAD_NONE }, "unknown", "unknown", "unknown" },
};

START_TEST (test_debug_words)
{
  struct diag_words w;
  diag_gnu_words (&word_cases[_i].f, &w);
  ck_assert_str_eq (w.offload, word_cases[_i].offload);
  ck_assert_str_eq (w.reflink, word_cases[_i].reflink);
  ck_assert_str_eq (w.sparse, word_cases[_i].sparse);
}
END_TEST

static void
assert_words (struct engine_result const *res, char const *offload,
              char const *reflink, char const *sparse)
{
  struct diag_words w = words_of (res);
  ck_assert_str_eq (w.offload, offload);
  ck_assert_str_eq (w.reflink, reflink);
  ck_assert_str_eq (w.sparse, sparse);
}

static struct engine_request const reflink_auto = {
  .direct = ENGINE_DIRECT_NEVER, .sparse = ENGINE_SPARSE_AUTO,
  .reflink = ENGINE_REFLINK_AUTO };

/* FD is a file of SIZE with data only in [DATA_OFF, DATA_OFF + DATA_LEN):
   does the filesystem say so (it has holes)?  */
static bool
sparse_source (int fd, off_t size, off_t data_off, off_t data_len)
{
  ck_assert_int_eq (ftruncate (fd, size), 0);
  if (data_len)
    write_pattern (fd, data_off, data_len);
  struct stat st;
  ck_assert_int_eq (fstat (fd, &st), 0);
  return st.st_blocks < st.st_size / 512;
}

/* The data extents of A and B are the same.  */
static void
assert_same_holes (int a, int b)
{
  for (off_t off = 0;; )
    {
      off_t da = lseek (a, off, SEEK_DATA), db = lseek (b, off, SEEK_DATA);
      ck_assert_int_eq (da, db);
      if (da < 0)
        return;
      off_t ha = lseek (a, da, SEEK_HOLE), hb = lseek (b, db, SEEK_HOLE);
      ck_assert_int_eq (ha, hb);
      off = ha;
    }
}

/* The default: no clone, no copy_file_range, the file read and written
   (and a file with holes scanned with SEEK_DATA).  */
START_TEST (test_words_never)
{
  int src = source_file (3 * BUF + 5);
  int dst = temp_file ();
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &buffered, &res));
  assert_words (&res, "avoided", "no", "no");
  ck_assert (!res.report.offloaded);
  int sp = temp_file ();
  if (sparse_source (sp, 8 * BUF, 2 * BUF, BUF))
    {
      int dst2 = temp_file ();
      ck_assert (engine_copy (ctx, sp, dst2, &buffered, &res));
      assert_words (&res, "avoided", "no", "SEEK_HOLE");
      assert_same_holes (sp, dst2);
    }
  engine_ctx_free (ctx);
}
END_TEST

/* A file with no data at all: GNU's copy loop never runs, so copy
   offload stays "unknown", whatever --reflink says.  */
START_TEST (test_words_no_data)
{
  int src = temp_file ();
  if (!sparse_source (src, 4 * BUF, 0, 0))
    return;   /* a filesystem that allocates anyway */
  int dst = temp_file ();
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  struct engine_request req = _i ? reflink_auto : buffered;
  ck_assert (engine_copy (ctx, src, dst, &req, &res));
  assert_content (dst, 4 * BUF, &(struct io_range) { 0, 4 * BUF, true }, 1);
  if (res.report.facts.clone == ENGINE_CLONE_DONE)
    assert_words (&res, "unknown", "yes", "unknown");
  else
    assert_words (&res, "unknown", _i ? "unsupported" : "no", "SEEK_HOLE");
  engine_ctx_free (ctx);
}
END_TEST

/* --sparse=never on a file with holes: found with SEEK_DATA (GNU says
   "SEEK_HOLE") and written as zeros, not read: only the data is.  */
START_TEST (test_sparse_never_writes_zeros)
{
  int src = temp_file ();
  if (!sparse_source (src, 8 * BUF, 2 * BUF, BUF))
    return;
  int dst = temp_file ();
  struct engine_request req = _i ? direct : buffered;
  req.sparse = ENGINE_SPARSE_NEVER;
  struct engine_ctx *ctx = make_ctx (2);
  struct engine_result res;
  arm (src, dst);
  ck_assert (engine_copy (ctx, src, dst, &req, &res));
  struct io_range const holes[] = { { 0, 2 * BUF, true },
                                    { 3 * BUF, 5 * BUF, true } };
  assert_content (dst, 8 * BUF, holes, 2);
  assert_words (&res, "avoided", "no", "SEEK_HOLE");
  /* One read for the data, one that finds the end.  */
  ck_assert_int_eq (fake.reads, 2);
  struct stat d;
  ck_assert_int_eq (fstat (dst, &d), 0);
  ck_assert_int_ge (d.st_blocks * 512, 8 * BUF);
  engine_ctx_free (ctx);
}
END_TEST

/* --reflink=auto: FICLONE first; where it cannot, copy_file_range moves
   the data (no read or write of it), extent by extent for a file with
   holes, which stay holes.  */
START_TEST (test_reflink_auto_offloads)
{
  off_t const size = 8 * BUF + 5;
  int src = temp_file ();
  bool holes = _i && sparse_source (src, size, 2 * BUF, 3 * BUF);
  if (!holes)
    write_pattern (src, 0, size);
  int dst = temp_file ();
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  arm (src, dst);
  ck_assert (engine_copy (ctx, src, dst, &reflink_auto, &res));
  struct io_range const hole[] = { { 0, 2 * BUF, true },
                                   { 5 * BUF, 3 * BUF + 5, true } };
  assert_content (dst, size, hole, holes ? 2 : 0);
  ck_assert (res.report.offloaded);
  if (res.report.facts.clone == ENGINE_CLONE_DONE)
    {
      assert_words (&res, "unknown", "yes", "unknown");
      return;
    }
  ck_assert_int_eq (res.report.facts.clone, ENGINE_CLONE_REFUSED);
  ck_assert_int_eq (res.report.facts.offload, ENGINE_OFFLOAD_MOVED);
  assert_words (&res, "yes", "unsupported", holes ? "SEEK_HOLE" : "no");
  /* No data went through the engine's reads and writes: one read found
     the end.  */
  ck_assert_int_eq (fake.writes, 0);
  ck_assert_int_le (fake.reads, 1);
  if (holes)
    assert_same_holes (src, dst);
  engine_ctx_free (ctx);
}
END_TEST

/* --reflink=auto from a pipe: FICLONE and copy_file_range both refuse
   (EINVAL/EXDEV) without taking any data; read and write copy it.  */
START_TEST (test_reflink_auto_pipe)
{
  size_t const size = 2 * BUF + 7;
  int p[2];
  ck_assert_int_eq (pipe (p), 0);
  pid_t child = fork ();
  ck_assert_int_ge (child, 0);
  if (child == 0)
    {
      close (p[0]);
      _exit (pipe_pattern (p[1], size, 0) ? 0 : 1);
    }
  close (p[1]);
  int dst = temp_file ();
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  ck_assert (engine_copy (ctx, p[0], dst, &reflink_auto, &res));
  assert_copy_of_pattern (dst, size);
  assert_words (&res, "unsupported", "unsupported", "no");
  int status;
  ck_assert_int_eq (waitpid (child, &status, 0), child);
  ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  engine_ctx_free (ctx);
}
END_TEST

/* --reflink=auto on an empty file: copy_file_range says 0 at once, which
   settles nothing ("unknown"), and a read finds the end.  With
   --sparse=always it is not tried ("avoided").  */
START_TEST (test_reflink_auto_empty)
{
  int src = temp_file ();
  int dst = temp_file ();
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  struct engine_request req = reflink_auto;
  if (_i)
    req.sparse = ENGINE_SPARSE_ALWAYS;
  ck_assert (engine_copy (ctx, src, dst, &req, &res));
  assert_content (dst, 0, NULL, 0);
  if (res.report.facts.clone == ENGINE_CLONE_DONE)
    assert_words (&res, "unknown", "yes", "unknown");
  else
    assert_words (&res, _i ? "avoided" : "unknown", "unsupported",
                  _i ? "zeros" : "no");
  engine_ctx_free (ctx);
}
END_TEST

/* The bytes of the stream test: data, zeros, data, zeros to the end.  */
static unsigned char
stream_byte (size_t i)
{
  return (i < 3000 || (13000 <= i && i < 18000)) ? (pattern (i) | 1) : 0;
}
enum { STREAM_SIZE = 26192 };

/* --sparse=always from a pipe into a regular file: zero blocks become
   holes however the data arrives (here in 1000-byte pieces, slowly, so
   reads end off any block boundary); the trailing zeros become the
   size.  */
START_TEST (test_stream_sparse_always)
{
  int p[2];
  ck_assert_int_eq (pipe (p), 0);
  pid_t child = fork ();
  ck_assert_int_ge (child, 0);
  if (child == 0)
    {
      close (p[0]);
      unsigned char piece[1000];
      for (size_t off = 0; off < STREAM_SIZE; off += sizeof piece)
        {
          size_t n = STREAM_SIZE - off < sizeof piece ? STREAM_SIZE - off
                                                       : sizeof piece;
          for (size_t i = 0; i < n; i++)
            piece[i] = stream_byte (off + i);
          if (__real_write (p[1], piece, n) != (ssize_t) n)
            _exit (1);
          usleep (2000);
        }
      _exit (0);
    }
  close (p[1]);
  int dst = temp_file ();
  struct engine_request req = buffered;
  req.sparse = ENGINE_SPARSE_ALWAYS;
  struct engine_ctx *ctx = make_ctx (1);
  struct engine_result res;
  ck_assert (engine_copy (ctx, p[0], dst, &req, &res));
  assert_words (&res, "avoided", "no", "zeros");
  struct stat d;
  ck_assert_int_eq (fstat (dst, &d), 0);
  ck_assert_int_eq (d.st_size, STREAM_SIZE);
  unsigned char got[STREAM_SIZE];
  ck_assert_int_eq (__real_pread (dst, got, STREAM_SIZE, 0), STREAM_SIZE);
  for (size_t i = 0; i < STREAM_SIZE; i++)
    ck_assert_uint_eq (got[i], stream_byte (i));
  /* With 4 KiB blocks: [4096, 12288) and [20480, end) are all zeros.  */
  if (d.st_blksize == 4096)
    {
      ck_assert_int_eq (lseek (dst, 4096, SEEK_DATA), 12288);
      errno = 0;
      ck_assert_int_eq (lseek (dst, 20480, SEEK_DATA), -1);
      ck_assert_int_eq (errno, ENXIO);
    }
  int status;
  ck_assert_int_eq (waitpid (child, &status, 0), child);
  ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  engine_ctx_free (ctx);
}
END_TEST

/* ---- the source changes ---- */

/* As GNU cp: copied to where it ends now, not a failure.  */
START_TEST (test_source_truncated)
{
  int src = source_file (8 * BUF), dst = temp_file ();
  arm (src, dst);
  fake.truncate_after = 2;
  fake.truncate_fd = src;
  fake.truncate_to = 3 * BUF + 5;
  struct engine_ctx *ctx = make_ctx (_i < 2 ? 1 : 4);
  struct engine_result res;
  struct engine_request req = _i % 2 ? direct : buffered;
  req.report_changes = true;
  ck_assert (engine_copy (ctx, src, dst, &req, &res));
  ck_assert (res.src_changed);
  assert_copy_of_pattern (dst, 3 * BUF + 5);
  engine_ctx_free (ctx);
}
END_TEST

/* A source that grows while it is read is copied to its new end (the new
   part reads as zeros here: the fake extends it with a hole).  */
START_TEST (test_source_grown)
{
  off_t size = 8 * BUF, grown = 11 * BUF + 77;
  int src = source_file (size), dst = temp_file ();
  arm (src, dst);
  fake.truncate_after = 2;
  fake.truncate_fd = src;
  fake.truncate_to = grown;
  struct engine_ctx *ctx = make_ctx (_i < 2 ? 1 : 4);
  struct engine_result res;
  struct engine_request req = _i % 2 ? direct : buffered;
  req.report_changes = true;
  ck_assert (engine_copy (ctx, src, dst, &req, &res));
  ck_assert (res.src_changed);
  struct io_range added = { size, grown - size, true };
  assert_content (dst, grown, &added, 1);
  engine_ctx_free (ctx);
}
END_TEST

/* A destination others can see (in_place) never reaches the source's size
   before the last write: an interrupted copy must look short.  Sizes with
   and without a tail, direct and buffered, several I/Os in flight.  */
START_TEST (test_in_place_short_until_done)
{
  off_t size = _i % 2 ? 8 * BUF : 8 * BUF + 100;
  int src = source_file (size), dst = temp_file ();
  arm (src, dst);
  fake.full_size = size;
  struct engine_request req = _i < 2 ? direct : buffered;
  req.in_place = true;
  struct engine_ctx *ctx = make_ctx (4);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &req, &res));
  assert_copy_of_pattern (dst, size);
  ck_assert_int_eq (fake.writes_when_full, 0);
  engine_ctx_free (ctx);
}
END_TEST

/* The same watch sees a hidden destination (not in place) get its space
   before any data moves, so ENOSPC comes first, and its full size.  */
START_TEST (test_hidden_dest_preallocated)
{
  off_t size = 8 * BUF;
  int src = source_file (size), dst = temp_file ();
  arm (src, dst);
  fake.full_size = size;
  struct engine_ctx *ctx = make_ctx (4);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &direct, &res));
  assert_copy_of_pattern (dst, size);
  ck_assert (fake.first_seen);
  ck_assert_int_ge (fake.first_allocated, size);
  ck_assert_int_eq (fake.first_size, size);
  ck_assert_int_gt (fake.writes_when_full, 0);
  engine_ctx_free (ctx);
}
END_TEST

/* Many files, one buffer; direct copies add DEPTH - 1 more, once.  */
START_TEST (test_buffers_allocated_once)
{
  struct engine_ctx *ctx = make_ctx (3);
  for (int i = 1; i <= 20; i++)
    {
      int src = source_file (i * 100), dst = temp_file ();
      struct engine_result res;
      ck_assert (engine_copy (ctx, src, dst, &buffered, &res));
      assert_copy_of_pattern (dst, i * 100);
      close (src);
      close (dst);
    }
  ck_assert_uint_eq (engine_buffer_allocations (ctx), 1);
  for (int i = 0; i < 3; i++)
    {
      int src = source_file (2 * BUF), dst = temp_file ();
      struct engine_result res;
      ck_assert (engine_copy (ctx, src, dst, &direct, &res));
      close (src);
      close (dst);
    }
  ck_assert_uint_le (engine_buffer_allocations (ctx), 3);
  engine_ctx_free (ctx);
}
END_TEST


int
main (void)
{
  Suite *s = suite_create ("engine");

  TCase *tc = tcase_create ("alignment");
  tcase_add_test (tc, test_buffer_alignment);
  tcase_add_test (tc, test_round_up);
  tcase_add_test (tc, test_ctx_config);
  tcase_add_test (tc, test_dio_query_sane);
  tcase_add_test (tc, test_refusal_predicate);
  tcase_add_test (tc, test_dio_enable);
  suite_add_tcase (s, tc);

  tc = tcase_create ("buffered");
  tcase_add_loop_test (tc, test_copy_regular_sizes, 0,
                       sizeof file_sizes / sizeof file_sizes[0]);
  tcase_add_test (tc, test_copy_from_pipe_short_reads);
  tcase_add_test (tc, test_copy_from_pipe_waiting);
  tcase_add_test (tc, test_stream_enomem_smaller_reads);
  tcase_add_test (tc, test_copy_short_writes);
  tcase_add_loop_test (tc, test_copy_eintr, 0, 2);
  tcase_add_loop_test (tc, test_copy_read_error, 0, 2);
  tcase_add_loop_test (tc, test_copy_write_error, 0, 2);
  tcase_add_test (tc, test_copy_write_zero);
  tcase_add_test (tc, test_buffers_allocated_once);
  suite_add_tcase (s, tc);

  tc = tcase_create ("direct");
  tcase_add_loop_test (tc, test_direct_sizes, 0, 14);
  tcase_add_loop_test (tc, test_direct_fallback, 0, 4);
  tcase_add_test (tc, test_auto_decisions);
  tcase_add_test (tc, test_all_cached);
  suite_add_tcase (s, tc);

  tc = tcase_create ("debug words");
  tcase_add_loop_test (tc, test_debug_words, 0,
                       sizeof word_cases / sizeof word_cases[0]);
  tcase_add_test (tc, test_words_never);
  tcase_add_loop_test (tc, test_words_no_data, 0, 2);
  tcase_add_loop_test (tc, test_sparse_never_writes_zeros, 0, 2);
  tcase_add_loop_test (tc, test_reflink_auto_offloads, 0, 2);
  tcase_add_test (tc, test_reflink_auto_pipe);
  tcase_add_loop_test (tc, test_reflink_auto_empty, 0, 2);
  tcase_add_test (tc, test_stream_sparse_always);
  suite_add_tcase (s, tc);

  tc = tcase_create ("sparse");
  tcase_add_loop_test (tc, test_sparse_holes_kept, 0, 2);
  tcase_add_test (tc, test_sparse_always_zeros);
  tcase_add_loop_test (tc, test_sparse_always_odd_sizes, 0, 8);
  tcase_add_loop_test (tc, test_source_truncated, 0, 4);
  tcase_add_loop_test (tc, test_source_grown, 0, 4);
  tcase_add_loop_test (tc, test_in_place_short_until_done, 0, 4);
  tcase_add_test (tc, test_hidden_dest_preallocated);
  suite_add_tcase (s, tc);

  return run_suite_as_tap (s);
}
