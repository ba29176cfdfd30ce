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
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dio.h"
#include "engine.h"
#include "tap-main.h"

ssize_t __real_read (int, void *, size_t);
ssize_t __real_write (int, void const *, size_t);

/* What the fakes do.  Each check test runs in its own process, so these
   start from zero every time.  */
enum { LOG_MAX = 4096 };
static struct
{
  int src, dst;               /* armed descriptors, -1 when none */
  int eintr_every;            /* every Nth armed call fails with EINTR */
  int read_fail_at;           /* the Nth read fails with read_errno */
  int read_errno;
  int write_fail_at;          /* the Nth write fails with write_errno */
  int write_errno;            /* 0: that write returns 0 instead */
  size_t write_max;           /* writes move at most this much (0: all) */
  int calls, reads, writes, eintrs, short_reads;
  size_t read_req[LOG_MAX], write_req[LOG_MAX];
} fake = { .src = -1, .dst = -1 };

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

ssize_t
__wrap_read (int fd, void *buf, size_t size)
{
  if (fd != fake.src)
    return __real_read (fd, buf, size);
  if (interrupt_now ())
    return -1;
  if (fake.reads < LOG_MAX)
    fake.read_req[fake.reads] = size;
  if (++fake.reads == fake.read_fail_at)
    {
      errno = fake.read_errno;
      return -1;
    }
  ssize_t n = __real_read (fd, buf, size);
  if (n > 0 && (size_t) n < size)
    fake.short_reads++;
  return n;
}

ssize_t
__wrap_write (int fd, void const *buf, size_t size)
{
  if (fd != fake.dst)
    return __real_write (fd, buf, size);
  if (interrupt_now ())
    return -1;
  if (fake.writes < LOG_MAX)
    fake.write_req[fake.writes] = size;
  if (++fake.writes == fake.write_fail_at)
    {
      if (fake.write_errno == 0)
        return 0;
      errno = fake.write_errno;
      return -1;
    }
  if (fake.write_max && size > fake.write_max)
    size = fake.write_max;
  return __real_write (fd, buf, size);
}

/* ---- helpers ---- */

enum { BUF = 4096 };  /* small buffers keep the data tests fast */

/* Deterministic, position-dependent bytes, so a lost, duplicated or
   shifted block cannot compare equal.  */
static unsigned char
pattern (size_t i)
{
  return (unsigned char) ((i * 2654435761u) >> 13);
}

static int
temp_file (void)
{
  char name[] = "/tmp/cp8m-unit-XXXXXX";
  int fd = mkstemp (name);
  ck_assert_int_ge (fd, 0);
  unlink (name);
  return fd;
}

static int
source_file (size_t size)
{
  int fd = temp_file ();
  unsigned char *data = malloc (size + 1);
  for (size_t i = 0; i < size; i++)
    data[i] = pattern (i);
  ck_assert_int_eq (__real_write (fd, data, size), (ssize_t) size);
  free (data);
  ck_assert_int_eq (lseek (fd, 0, SEEK_SET), 0);
  return fd;
}

static void
assert_copy_of_pattern (int fd, size_t size)
{
  struct stat st;
  ck_assert_int_eq (fstat (fd, &st), 0);
  ck_assert_int_eq (st.st_size, (off_t) size);
  unsigned char *data = malloc (size + 1);
  ck_assert_int_eq (pread (fd, data, size, 0), (ssize_t) size);
  for (size_t i = 0; i < size; i++)
    if (data[i] != pattern (i))
      ck_abort_msg ("byte %zu differs", i);
  free (data);
}

static struct engine_ctx *
small_ctx (void)
{
  struct engine_ctx *ctx = engine_ctx_new (BUF);
  ck_assert_ptr_nonnull (ctx);
  ck_assert_uint_eq (engine_buffer_size (ctx), BUF);
  return ctx;
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

START_TEST (test_ctx_rounds_buffer)
{
  struct engine_ctx *ctx = engine_ctx_new (1);
  ck_assert_uint_eq (engine_buffer_size (ctx), 4096);
  engine_ctx_free (ctx);
  ctx = engine_ctx_new (8 * 1000 * 1000);
  ck_assert_uint_eq (engine_buffer_size (ctx), 8003584);
  /* Nothing large is allocated until a copy needs it.  */
  ck_assert_uint_eq (engine_buffer_allocations (ctx), 0);
  engine_ctx_free (ctx);
  errno = 0;
  ck_assert_ptr_null (engine_ctx_new (0));
  ck_assert_int_eq (errno, EINVAL);
  ck_assert_ptr_null (engine_ctx_new (SIZE_MAX));
}
END_TEST

/* statx(STATX_DIOALIGN) either says nothing or something usable.  */
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
  /* A pipe never supports direct I/O.  */
  int p[2];
  ck_assert_int_eq (pipe (p), 0);
  ck_assert (!dio_query_fd (p[0], &a));
  close (fd);
}
END_TEST

/* ---- copy loop ---- */

/* Sizes around the buffer size, from a regular file: every read asks for
   the whole buffer, every write but the last is a whole buffer.  */
static size_t const file_sizes[] =
  { 0, 1, 41, BUF - 1, BUF, BUF + 1, 3 * BUF + 17, 10 * BUF };

START_TEST (test_copy_regular_sizes)
{
  size_t size = file_sizes[_i];
  int src = source_file (size), dst = temp_file ();
  fake.src = src;
  fake.dst = dst;
  struct engine_ctx *ctx = small_ctx ();
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &res));
  ck_assert_int_eq (res.err, 0);
  ck_assert_int_eq (res.bytes, (off_t) size);
  ck_assert_int_eq (res.method, ENGINE_METHOD_READ_WRITE);
  assert_copy_of_pattern (dst, size);

  /* One read per buffer, then one that returns 0 at end of file.  */
  ck_assert_int_eq (fake.reads, (int) ((size + BUF - 1) / BUF) + 1);
  for (int i = 0; i < fake.reads; i++)
    ck_assert_uint_eq (fake.read_req[i], BUF);
  ck_assert_int_eq (fake.writes, (int) ((size + BUF - 1) / BUF));
  for (int i = 0; i < fake.writes; i++)
    ck_assert_uint_eq (fake.write_req[i],
                       i + 1 < fake.writes ? BUF : size - (size_t) i * BUF);
  engine_ctx_free (ctx);
}
END_TEST

/* A writer that trickles 1000-byte pieces into a pipe: the engine must
   gather them into whole buffers before writing.  */
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
      unsigned char piece[1000];
      for (size_t off = 0; off < size; off += sizeof piece)
        {
          size_t n = size - off < sizeof piece ? size - off : sizeof piece;
          for (size_t i = 0; i < n; i++)
            piece[i] = pattern (off + i);
          if (__real_write (p[1], piece, n) != (ssize_t) n)
            _exit (1);
          usleep (200);
        }
      _exit (0);
    }
  close (p[1]);

  int dst = temp_file ();
  fake.src = p[0];
  fake.dst = dst;
  struct engine_ctx *ctx = small_ctx ();
  struct engine_result res;
  ck_assert (engine_copy (ctx, p[0], dst, &res));
  ck_assert_int_eq (res.bytes, (off_t) size);
  assert_copy_of_pattern (dst, size);
  ck_assert_int_gt (fake.short_reads, 0);
  ck_assert_int_eq (fake.writes, 6);
  for (int i = 0; i < 5; i++)
    ck_assert_uint_eq (fake.write_req[i], BUF);
  ck_assert_uint_eq (fake.write_req[5], 123);
  int status;
  ck_assert_int_eq (waitpid (child, &status, 0), child);
  ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  engine_ctx_free (ctx);
}
END_TEST

/* The destination takes at most 1000 bytes a call.  */
START_TEST (test_copy_short_writes)
{
  size_t const size = 3 * BUF + 5;
  int src = source_file (size), dst = temp_file ();
  fake.src = src;
  fake.dst = dst;
  fake.write_max = 1000;
  struct engine_ctx *ctx = small_ctx ();
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &res));
  ck_assert_int_eq (res.bytes, (off_t) size);
  assert_copy_of_pattern (dst, size);
  /* Each 4096-byte buffer takes five calls; the 5-byte tail one.  */
  ck_assert_int_eq (fake.writes, 3 * 5 + 1);
  ck_assert_uint_eq (fake.write_req[1], BUF - 1000);
  engine_ctx_free (ctx);
}
END_TEST

/* Every other read and write is interrupted.  */
START_TEST (test_copy_eintr)
{
  size_t const size = 7 * BUF + 99;
  int src = source_file (size), dst = temp_file ();
  fake.src = src;
  fake.dst = dst;
  fake.eintr_every = 2;
  struct engine_ctx *ctx = small_ctx ();
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &res));
  ck_assert_int_eq (res.err, 0);
  assert_copy_of_pattern (dst, size);
  ck_assert_int_ge (fake.eintrs, 8);
  engine_ctx_free (ctx);
}
END_TEST

/* Copy a 5-buffer file with the fakes already set to fail; the engine
   must report ERR on SIDE after BYTES.  */
static void
assert_copy_fails (int src, int dst, int err, enum engine_side side,
                   off_t bytes)
{
  struct engine_ctx *ctx = small_ctx ();
  struct engine_result res;
  ck_assert (!engine_copy (ctx, src, dst, &res));
  ck_assert_int_eq (res.err, err);
  ck_assert_int_eq (res.side, side);
  ck_assert_int_eq (res.bytes, bytes);
  engine_ctx_free (ctx);
}

START_TEST (test_copy_read_error)
{
  int src = source_file (5 * BUF), dst = temp_file ();
  fake.src = src;
  fake.dst = dst;
  fake.read_fail_at = 3;
  fake.read_errno = EIO;
  assert_copy_fails (src, dst, EIO, ENGINE_SIDE_READ, 2 * BUF);
}
END_TEST

START_TEST (test_copy_write_error)
{
  int src = source_file (5 * BUF), dst = temp_file ();
  fake.src = src;
  fake.dst = dst;
  fake.write_fail_at = 2;
  fake.write_errno = ENOSPC;
  assert_copy_fails (src, dst, ENOSPC, ENGINE_SIDE_WRITE, BUF);
}
END_TEST

/* A write that moves nothing must not loop forever.  */
START_TEST (test_copy_write_zero)
{
  int src = source_file (5 * BUF), dst = temp_file ();
  fake.src = src;
  fake.dst = dst;
  fake.write_fail_at = 1;
  fake.write_errno = 0;
  assert_copy_fails (src, dst, ENOSPC, ENGINE_SIDE_WRITE, 0);
}
END_TEST

/* Many files, one buffer.  */
START_TEST (test_buffer_allocated_once)
{
  struct engine_ctx *ctx = small_ctx ();
  for (int i = 0; i < 20; i++)
    {
      int src = source_file (i * 100), dst = temp_file ();
      struct engine_result res;
      ck_assert (engine_copy (ctx, src, dst, &res));
      assert_copy_of_pattern (dst, i * 100);
      close (src);
      close (dst);
    }
  ck_assert_uint_eq (engine_buffer_allocations (ctx), 1);
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
  tcase_add_test (tc, test_ctx_rounds_buffer);
  tcase_add_test (tc, test_dio_query_sane);
  suite_add_tcase (s, tc);

  tc = tcase_create ("copy");
  tcase_add_loop_test (tc, test_copy_regular_sizes, 0,
                       sizeof file_sizes / sizeof file_sizes[0]);
  tcase_add_test (tc, test_copy_from_pipe_short_reads);
  tcase_add_test (tc, test_copy_short_writes);
  tcase_add_test (tc, test_copy_eintr);
  tcase_add_test (tc, test_copy_read_error);
  tcase_add_test (tc, test_copy_write_error);
  tcase_add_test (tc, test_copy_write_zero);
  tcase_add_test (tc, test_buffer_allocated_once);
  suite_add_tcase (s, tc);

  return run_suite_as_tap (s);
}
