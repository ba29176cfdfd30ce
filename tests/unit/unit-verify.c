/* Unit tests for --verify in the engine: engine_copy with the request's
   verify flag, then engine_verify on the result, as it is and after the
   destination was changed behind the copy's back (a byte, its size, a
   hole filled).  Real files in $TMPDIR, direct and buffered.  Where the
   destination cannot be opened again through /proc (a build for another
   system; on Linux, a test process given a mount namespace whose /proc
   is empty, when it may make one), it is opened by the caller's
   engine_reader, by name: it must be the destination's file, and
   without a reader the check cannot be made.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
# include <sched.h>
# include <sys/mount.h>
#endif

#include "engine/engine.h"
#include "tap-main.h"

enum { BUF = 65536 };

static int
temp_file (void)
{
  char const *dir = getenv ("TMPDIR");
  char name[4096];
  snprintf (name, sizeof name, "%s/cp8m-unit-verify.XXXXXX",
            dir && *dir ? dir : "/tmp");
  int fd = mkstemp (name);
  ck_assert_int_ge (fd, 0);
  unlink (name);
  return fd;
}

/* A source of SIZE bytes of a pattern no two 4 KiB blocks share; with
   HOLE, the range [BUF, 3 * BUF) is a hole.  */
static int
source_file (off_t size, bool hole)
{
  int fd = temp_file ();
  char *buf = malloc (BUF);
  for (off_t off = 0; off < size; off += BUF)
    {
      size_t n = size - off < BUF ? size - off : BUF;
      if (hole && off >= BUF && off < 3 * BUF)
        continue;
      for (size_t i = 0; i < n; i++)
        buf[i] = (char) ((off + i) * 7 + (off + i) / 4096);
      ck_assert_int_eq (pwrite (fd, buf, n, off), (ssize_t) n);
    }
  ck_assert_int_eq (ftruncate (fd, size), 0);
  free (buf);
  return fd;
}

static struct engine_ctx *
make_ctx (void)
{
  struct engine_config cfg = { .buffer_size = BUF, .queue_depth = 4 };
  struct engine_ctx *ctx = engine_ctx_new (&cfg);
  ck_assert_ptr_nonnull (ctx);
  return ctx;
}

/* Copy SRC into a new file with REQ (verify set); return the copy.  */
static int
copy (struct engine_ctx *ctx, int src, struct engine_request req)
{
  int dst = temp_file ();
  struct engine_result res;
  req.verify = true;
  ck_assert (engine_copy (ctx, src, dst, &req, &res));
  return dst;
}

/* An engine_reader giving a copy of the descriptor *ARG (open for
   reading too: mkstemp's are), as the cp layer gives one of an unnamed
   file: what the other systems' re-read needs where the tests' files
   have no name left.  */
static int
dup_fd (void *arg)
{
  return fcntl (*(int const *) arg, F_DUPFD_CLOEXEC, 0);
}

static struct engine_request const requests[] = {
  { .direct = ENGINE_DIRECT_ALWAYS, .sparse = ENGINE_SPARSE_AUTO },
  { .direct = ENGINE_DIRECT_NEVER, .sparse = ENGINE_SPARSE_AUTO },
  { .direct = ENGINE_DIRECT_ALWAYS, .sparse = ENGINE_SPARSE_ALWAYS },
  { .direct = ENGINE_DIRECT_NEVER, .sparse = ENGINE_SPARSE_NEVER },
};
enum { N_REQ = sizeof requests / sizeof requests[0] };
static off_t const sizes[] = { 0, 1, 4095, 4096, 3 * BUF + 100, 8 * BUF };
enum { N_SIZES = sizeof sizes / sizeof sizes[0] };

/* Good copies check out, whatever the size and the way they were made.  */
START_TEST (test_good_copies)
{
  struct engine_request req = requests[_i % N_REQ];
  off_t size = sizes[_i / N_REQ];
  struct engine_ctx *ctx = make_ctx ();
  int src = source_file (size, size >= 4 * BUF), dst = copy (ctx, src, req);
  struct engine_reader reader = { dup_fd, &dst };
  struct engine_verify_result vr;
  ck_assert (engine_verify (ctx, src, dst, &reader, &vr));
  ck_assert (vr.checked);
  ck_assert_int_eq (vr.mismatch_at, -1);
  engine_ctx_free (ctx);
}
END_TEST

/* One byte changed anywhere is found, at or before it.  */
START_TEST (test_byte_changed)
{
  off_t const at[] = { 0, 4095, BUF + 1, 2 * BUF, 5 * BUF - 1, 8 * BUF - 1 };
  struct engine_request req = requests[_i % N_REQ];
  off_t where = at[_i / N_REQ];
  struct engine_ctx *ctx = make_ctx ();
  int src = source_file (8 * BUF, true), dst = copy (ctx, src, req);
  unsigned char c;
  ck_assert_int_eq (pread (dst, &c, 1, where), 1);
  c ^= 0x40;
  ck_assert_int_eq (pwrite (dst, &c, 1, where), 1);
  struct engine_reader reader = { dup_fd, &dst };
  struct engine_verify_result vr;
  ck_assert (!engine_verify (ctx, src, dst, &reader, &vr));
  ck_assert (vr.checked);
  ck_assert_int_eq (vr.err, 0);
  ck_assert_int_ge (vr.mismatch_at, 0);
  ck_assert_int_le (vr.mismatch_at, where);
  engine_ctx_free (ctx);
}
END_TEST

/* A copy cut short or grown is not the copy that was made.  */
START_TEST (test_size_changed)
{
  struct engine_ctx *ctx = make_ctx ();
  off_t size = 3 * BUF + 100;
  int src = source_file (size, false), dst = copy (ctx, src, requests[0]);
  ck_assert_int_eq (ftruncate (dst, _i ? size + 1 : size - 1), 0);
  struct engine_reader reader = { dup_fd, &dst };
  struct engine_verify_result vr;
  ck_assert (!engine_verify (ctx, src, dst, &reader, &vr));
  ck_assert_int_ge (vr.mismatch_at, 0);
  ck_assert_int_le (vr.mismatch_at, _i ? size : size - 1);
  engine_ctx_free (ctx);
}
END_TEST

/* Without the request's flag there is nothing to check against.  */
START_TEST (test_not_asked)
{
  struct engine_ctx *ctx = make_ctx ();
  int src = source_file (BUF, false), dst = temp_file ();
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &requests[0], &res));
  struct engine_reader reader = { dup_fd, &dst };
  struct engine_verify_result vr;
  ck_assert (engine_verify (ctx, src, dst, &reader, &vr));
  ck_assert (!vr.checked);
  engine_ctx_free (ctx);
}
END_TEST

/* A file in $TMPDIR whose name stays, in NAME (of 4096 bytes).  */
static int
named_file (char *name)
{
  char const *dir = getenv ("TMPDIR");
  snprintf (name, 4096, "%s/cp8m-unit-verify.XXXXXX",
            dir && *dir ? dir : "/tmp");
  int fd = mkstemp (name);
  ck_assert_int_ge (fd, 0);
  return fd;
}

/* The engine_reader of the tests: opens NAME, and counts its calls.  */
struct by_name
{
  char const *name;
  int calls;
};

static int
open_by_name (void *arg)
{
  struct by_name *b = arg;
  b->calls++;
  return open (b->name, O_RDONLY | O_CLOEXEC);
}

/* Make /proc/self/fd unusable to this test's process, as where /proc is
   not mounted: a private mount namespace with an empty /proc.  Return
   whether the engine now needs a reader (always on other systems).  */
static bool
hide_proc (void)
{
#ifdef __linux__
  /* check runs each test in a process of its own: the namespace dies
     with it.  */
  return unshare (CLONE_NEWNS) == 0
         && mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0
         && mount ("none", "/proc", "tmpfs", 0, "size=64k") == 0;
#else
  return true;
#endif
}

/* /proc back, as hide_proc found it: LeakSanitizer reads it when the
   test's process ends.  */
static void
show_proc (bool hidden)
{
#ifdef __linux__
  if (hidden)
    umount2 ("/proc", MNT_DETACH);
#else
  (void) hidden;
#endif
}

/* Checked through a reader that opens the copy by its name: a good copy
   passes, a changed byte is found, a name that leads to another file is
   refused (EXDEV), and with no reader nothing can be checked.  */
START_TEST (test_by_name)
{
  struct engine_request req = requests[_i];
  struct engine_ctx *ctx = make_ctx ();
  int src = source_file (8 * BUF + 100, true);
  char name[4096];
  int dst = named_file (name);
  struct engine_result res;
  req.verify = true;
  ck_assert (engine_copy (ctx, src, dst, &req, &res));
  bool hidden = hide_proc ();
  if (!hidden)
    fprintf (stderr, "# /proc not hidden (no mount namespace): "
             "the reader is not needed\n");
  struct by_name b = { name, 0 };
  struct engine_reader reader = { open_by_name, &b };
  struct engine_verify_result vr;
  ck_assert (engine_verify (ctx, src, dst, &reader, &vr));
  ck_assert (vr.checked);
  ck_assert_int_eq (vr.mismatch_at, -1);
  ck_assert_int_eq (b.calls, hidden ? 1 : 0);

  unsigned char c;
  ck_assert_int_eq (pread (dst, &c, 1, 5 * BUF), 1);
  c ^= 1;
  ck_assert_int_eq (pwrite (dst, &c, 1, 5 * BUF), 1);
  ck_assert (!engine_verify (ctx, src, dst, &reader, &vr));
  ck_assert (vr.checked);
  ck_assert_int_ge (vr.mismatch_at, 0);
  ck_assert_int_le (vr.mismatch_at, 5 * BUF);

  if (hidden)
    {
      char other[4096];
      int ofd = named_file (other);
      b.name = other;
      ck_assert (!engine_verify (ctx, src, dst, &reader, &vr));
      ck_assert (!vr.checked);
      ck_assert_int_eq (vr.side, ENGINE_SIDE_NONE);
      ck_assert_int_eq (vr.err, EXDEV);
      ck_assert (!engine_verify (ctx, src, dst, NULL, &vr));
      ck_assert (!vr.checked);
      ck_assert_int_eq (vr.side, ENGINE_SIDE_NONE);
      ck_assert_int_eq (vr.err, ENOSYS);
      unlink (other);
      close (ofd);
    }
  show_proc (hidden);
  unlink (name);
  engine_ctx_free (ctx);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("verify");
  TCase *tc = tcase_create ("verify");
  tcase_set_timeout (tc, 60);
  tcase_add_loop_test (tc, test_good_copies, 0, N_REQ * N_SIZES);
  tcase_add_loop_test (tc, test_byte_changed, 0, N_REQ * 6);
  tcase_add_loop_test (tc, test_size_changed, 0, 2);
  tcase_add_test (tc, test_not_asked);
  tcase_add_loop_test (tc, test_by_name, 0, 2);
  suite_add_tcase (s, tc);
  return run_suite_as_tap (s);
}
