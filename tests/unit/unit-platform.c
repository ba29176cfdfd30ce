/* The direct-I/O paths of other systems, compiled on Linux by make
   platform-check against stand-in headers (tests/platform/): Solaris's
   directio () and macOS's fcntl (F_NOCACHE).  directio () is the
   recording fake of tests/platform/standin.c; fcntl, the opens and the
   positioned reads and writes are wrapped here (-Wl,--wrap) and recorded
   in the same log.  Checked through the engine's interface, as a copy
   uses it:
   - both descriptors get the call (advice DIRECTIO_ON, or F_NOCACHE 1)
     before any data moves, and lose it (DIRECTIO_OFF, F_NOCACHE 0) when
     the direct pass is done, before the unaligned tail is written;
   - a refusal (ENOTTY, as ZFS answers directio ()) on either side means a
     buffered copy, the other side's call undone, and no second try on
     that device;
   - O_DIRECT is never asked for, by open or by F_SETFL;
   - small files under auto and --direct=never make no call at all;
   - --verify's re-read, which has no /proc to open the destination again
     and asks the caller's engine_reader (a name): the call on the file
     before it is read back and its undoing after; a refusal means a
     buffered re-read, still a check; a changed byte is found; with no
     reader the check cannot be made (ENOSYS), as where the build
     before this one said "Function not implemented" of every copy.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine/dio.h"
#include "engine/engine.h"
#ifdef DIO_WITH_DIRECTIO
# include <sys/fcntl.h>    /* the stand-in's DIRECTIO_ON */
#endif
#include "../platform/standin.h"
#include "tap-main.h"

/* Linux's O_DIRECT bit, whatever the stand-in headers say.  */
enum { LINUX_O_DIRECT = 040000 };

#if defined DIO_WITH_DIRECTIO
enum { CALL = STANDIN_DIRECTIO, ON = DIRECTIO_ON, OFF = DIRECTIO_OFF };
#elif defined DIO_WITH_F_NOCACHE
enum { CALL = STANDIN_NOCACHE, ON = 1, OFF = 0 };
#else
# error "unit-platform is built by make platform-check's stand-in builds"
#endif

/* ---- the wrapped calls ---- */

int __real_fcntl (int, int, ...);
int __real_open (char const *, int, ...);
int __real_openat (int, char const *, int, ...);
ssize_t __real_pread (int, void *, size_t, off_t);
ssize_t __real_pwrite (int, void const *, size_t, off_t);
ssize_t __real_preadv2 (int, struct iovec const *, int, off_t, int);
ssize_t __real_pwritev2 (int, struct iovec const *, int, off_t, int);

int
__wrap_fcntl (int fd, int cmd, ...)
{
  va_list ap;
  va_start (ap, cmd);
  long arg = va_arg (ap, long);
  va_end (ap);
#ifdef DIO_WITH_F_NOCACHE
  /* Its argument is an int: the upper half of ARG is not its.  */
  if (cmd == F_NOCACHE)
    return standin_record (STANDIN_NOCACHE, fd, (int) arg, 0, 0) ? -1 : 0;
#endif
  if (cmd == F_SETFL && (arg & LINUX_O_DIRECT))
    standin_record (STANDIN_O_DIRECT, fd, arg, 0, 0);
  return __real_fcntl (fd, cmd, arg);
}

/* An open asking for Linux's O_DIRECT, which these paths never use.  */
static void
note_o_direct (int flags)
{
  if (flags & LINUX_O_DIRECT)
    standin_record (STANDIN_O_DIRECT, -1, flags, 0, 0);
}

int
__wrap_open (char const *name, int flags, ...)
{
  va_list ap;
  va_start (ap, flags);
  int mode = va_arg (ap, int);
  va_end (ap);
  note_o_direct (flags);
  return __real_open (name, flags, mode);
}

int
__wrap_openat (int dirfd, char const *name, int flags, ...)
{
  va_list ap;
  va_start (ap, flags);
  int mode = va_arg (ap, int);
  va_end (ap);
  note_o_direct (flags);
  return __real_openat (dirfd, name, flags, mode);
}

ssize_t
__wrap_pread (int fd, void *buf, size_t len, off_t off)
{
  standin_record (STANDIN_READ, fd, 0, off, len);
  return __real_pread (fd, buf, len, off);
}

ssize_t
__wrap_pwrite (int fd, void const *buf, size_t len, off_t off)
{
  standin_record (STANDIN_WRITE, fd, 0, off, len);
  return __real_pwrite (fd, buf, len, off);
}

ssize_t
__wrap_preadv2 (int fd, struct iovec const *iov, int n, off_t off, int fl)
{
  standin_record (STANDIN_READ, fd, 0, off, iov[0].iov_len);
  return __real_preadv2 (fd, iov, n, off, fl);
}

ssize_t
__wrap_pwritev2 (int fd, struct iovec const *iov, int n, off_t off, int fl)
{
  standin_record (STANDIN_WRITE, fd, 0, off, iov[0].iov_len);
  return __real_pwritev2 (fd, iov, n, off, fl);
}

/* ---- helpers ---- */

enum { BUF = 65536 };

static struct engine_request const always = {
  .direct = ENGINE_DIRECT_ALWAYS, .sparse = ENGINE_SPARSE_AUTO,
  .reflink = ENGINE_REFLINK_NEVER };

static unsigned char
pattern (off_t i)
{
  return (unsigned char) (((uint64_t) i * 2654435761u) >> 13);
}

/* A file of SIZE pattern bytes (or empty), unlinked, beside the build.  */
static int
temp_file (off_t size)
{
  char name[] = "cp8m-platform-XXXXXX";
  int fd = mkstemp (name);
  ck_assert_int_ge (fd, 0);
  unlink (name);
  unsigned char *data = malloc (size + 1);
  for (off_t i = 0; i < size; i++)
    data[i] = pattern (i);
  ck_assert_int_eq (__real_pwrite (fd, data, size, 0), (ssize_t) size);
  free (data);
  return fd;
}

static ino_t
ino_of (int fd)
{
  struct stat st;
  ck_assert_int_eq (fstat (fd, &st), 0);
  return st.st_ino;
}

static void
assert_copy (int fd, off_t size)
{
  struct stat st;
  ck_assert_int_eq (fstat (fd, &st), 0);
  ck_assert_int_eq (st.st_size, size);
  unsigned char *data = malloc (size + 1);
  ck_assert_int_eq (__real_pread (fd, data, size, 0), (ssize_t) size);
  for (off_t i = 0; i < size; i++)
    if (data[i] != pattern (i))
      ck_abort_msg ("byte %jd differs", (intmax_t) i);
  free (data);
}

/* Where in the log the first call WHAT on INO with ARG (or any ARG when
   ARG is -1) is, at or after FROM; -1 when there is none.  */
static int
find (enum standin_what what, ino_t ino, long arg, int from)
{
  for (int i = from; i < standin.n; i++)
    if (standin.calls[i].what == what && standin.calls[i].ino == ino
        && (arg < 0 || standin.calls[i].arg == arg))
      return i;
  return -1;
}

static int
count (enum standin_what what)
{
  int n = 0;
  for (int i = 0; i < standin.n; i++)
    n += standin.calls[i].what == what;
  return n;
}

static struct engine_ctx *
make_ctx (unsigned int depth)
{
  struct engine_config cfg = { .buffer_size = BUF, .queue_depth = depth };
  struct engine_ctx *ctx = engine_ctx_new (&cfg);
  ck_assert_ptr_nonnull (ctx);
  return ctx;
}

/* The direct plan of RES's copy, or NULL.  */
static struct engine_plan const *
direct_plan (struct engine_result const *res)
{
  return engine_direct_plan (&res->report, NULL);
}

/* ---- the tests ---- */

START_TEST (test_method)
{
  ck_assert_str_eq (dio_method (), CALL == STANDIN_DIRECTIO ? "directio"
                                                            : "F_NOCACHE");
  ck_assert_str_eq (dio_enable_step (), dio_method ());
  ck_assert (dio_refusal (ENOTTY));
}
END_TEST

/* A file of 3 buffers and a tail, with 1 or 4 I/Os in flight.  */
START_TEST (test_on_then_off)
{
  off_t const size = 3 * BUF + 1000;
  int src = temp_file (size), dst = temp_file (0);
  ino_t si = ino_of (src), di = ino_of (dst);
  struct engine_ctx *ctx = make_ctx (_i == 0 ? 1 : 4);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &always, &res));
  assert_copy (dst, size);
  bool fell_back;
  struct engine_plan const *d = engine_direct_plan (&res.report, &fell_back);
  ck_assert_ptr_nonnull (d);
  ck_assert_str_eq (d->dio, dio_method ());
  ck_assert_int_eq (d[1].then, ENGINE_THEN_TAIL);
  ck_assert_int_eq (d[1].bytes, 1000);

  int src_on = find (CALL, si, ON, 0), dst_on = find (CALL, di, ON, 0);
  int src_off = find (CALL, si, OFF, 0), dst_off = find (CALL, di, OFF, 0);
  ck_assert_int_ge (src_on, 0);
  ck_assert_int_ge (dst_on, 0);
  ck_assert_int_gt (src_off, src_on);
  ck_assert_int_gt (dst_off, dst_on);
  /* On before the data, off before the tail, and off exactly once.  */
  int first_write = find (STANDIN_WRITE, di, -1, 0);
  ck_assert_int_gt (first_write, dst_on);
  int tail = -1;
  for (int i = 0; i < standin.n; i++)
    if (standin.calls[i].what == STANDIN_WRITE && standin.calls[i].ino == di
        && standin.calls[i].off == 3 * BUF)
      tail = i;
  ck_assert_int_gt (tail, dst_off);
  ck_assert_int_eq (find (CALL, si, OFF, src_off + 1), -1);
  ck_assert_int_eq (find (CALL, di, OFF, dst_off + 1), -1);
  ck_assert_int_eq (count (STANDIN_O_DIRECT), 0);
  engine_ctx_free (ctx);
}
END_TEST

/* The file system refuses (ENOTTY) on the source (_i 0) or the
   destination (_i 1): a buffered copy, the source's advice taken back,
   and the next file on that device copied without asking again.  */
START_TEST (test_refused)
{
  off_t const size = 2 * BUF + 7;
  int src = temp_file (size), dst = temp_file (0);
  ino_t si = ino_of (src), di = ino_of (dst);
  standin.refuse_errno = ENOTTY;
  standin.refuse_ino = _i == 0 ? si : di;
  struct engine_ctx *ctx = make_ctx (4);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &always, &res));
  assert_copy (dst, size);
  ck_assert (!direct_plan (&res));
  ck_assert_str_eq (res.report.plans[0].why, dio_method ());
  ck_assert_int_eq (res.report.plans[0].why_errno, ENOTTY);
  if (_i == 1)
    ck_assert_int_gt (find (CALL, si, OFF, 0), find (CALL, si, ON, 0));
  else
    ck_assert_int_eq (find (CALL, di, -1, 0), -1);
  ck_assert_int_eq (count (STANDIN_O_DIRECT), 0);

  int before = standin.n;
  int src2 = temp_file (size), dst2 = temp_file (0);
  ck_assert (engine_copy (ctx, src2, dst2, &always, &res));
  assert_copy (dst2, size);
  ck_assert (!direct_plan (&res));
  ck_assert_int_eq (res.report.plans[0].why_errno, ENOTTY);
  ck_assert_int_eq (find (CALL, ino_of (src2), -1, before), -1);
  ck_assert_int_eq (find (CALL, ino_of (dst2), -1, before), -1);
  engine_ctx_free (ctx);
}
END_TEST

/* No call where no direct I/O is wanted: a file smaller than a buffer
   under auto, anything under never; and never an open with O_DIRECT,
   which these systems lack, even for copies that do go direct.  */
START_TEST (test_no_call)
{
  struct engine_request req = always;
  req.direct = _i == 0 ? ENGINE_DIRECT_AUTO : ENGINE_DIRECT_NEVER;
  off_t const size = _i == 0 ? BUF - 1 : 3 * BUF;
  int src = temp_file (size), dst = temp_file (0);
  struct engine_ctx *ctx = make_ctx (4);
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &req, &res));
  assert_copy (dst, size);
  ck_assert (!direct_plan (&res));
  ck_assert_int_eq (count (CALL), 0);

  int next = temp_file (4 * BUF), dst2 = temp_file (0), dst3 = temp_file (0);
  ck_assert (engine_copy (ctx, src, dst2, &always, &res));
  ck_assert (engine_copy (ctx, next, dst3, &always, &res));
  assert_copy (dst3, 4 * BUF);
  ck_assert_int_eq (count (STANDIN_O_DIRECT), 0);
  engine_ctx_free (ctx);
}
END_TEST

/* engine_reader for test_verify: opens the file named ARG.  */
static int
open_named (void *arg)
{
  return open (arg, O_RDONLY | O_CLOEXEC);
}

/* --verify's re-read: as it is (_i 0), refused (_i 1), after a byte of
   the copy changed (_i 2), and without a reader (_i 3).  */
START_TEST (test_verify)
{
  off_t const size = 3 * BUF + 1000;
  int src = temp_file (size);
  char name[] = "cp8m-platform-XXXXXX";
  int dst = mkstemp (name);
  ck_assert_int_ge (dst, 0);
  ino_t di = ino_of (dst);
  struct engine_ctx *ctx = make_ctx (4);
  struct engine_request req = always;
  req.verify = true;
  struct engine_result res;
  ck_assert (engine_copy (ctx, src, dst, &req, &res));
  if (_i == 1)
    {
      standin.refuse_errno = ENOTTY;
      standin.refuse_ino = di;
    }
  if (_i == 2)
    {
      unsigned char c = pattern (BUF + 5) ^ 0x10;
      ck_assert_int_eq (__real_pwrite (dst, &c, 1, BUF + 5), 1);
    }
  int before = standin.n;
  struct engine_reader reader = { open_named, name };
  struct engine_verify_result vr;
  bool ok = engine_verify (ctx, src, dst, _i == 3 ? NULL : &reader, &vr);
  unlink (name);
  if (_i == 3)
    {
      ck_assert (!ok);
      ck_assert (!vr.checked);
      ck_assert_int_eq (vr.side, ENGINE_SIDE_NONE);
      ck_assert_int_eq (vr.err, ENOSYS);
      engine_ctx_free (ctx);
      return;
    }
  ck_assert (vr.checked);
  ck_assert (ok == (_i != 2));
  if (_i == 2)
    {
      ck_assert_int_ge (vr.mismatch_at, 0);
      ck_assert_int_le (vr.mismatch_at, BUF + 5);
    }
  int on = find (CALL, di, ON, before);
  int first_read = find (STANDIN_READ, di, -1, before);
  ck_assert_int_ge (first_read, 0);
  if (_i == 1)
    {
      /* Asked once, refused, and read all the same.  */
      ck_assert (!vr.direct);
      ck_assert_int_eq (vr.note_errno, ENOTTY);
      ck_assert_int_lt (on, first_read);
      ck_assert_int_eq (find (CALL, di, ON, on + 1), -1);
    }
  else
    {
      ck_assert (vr.direct);
      ck_assert_int_ge (on, 0);
      ck_assert_int_lt (on, first_read);
      int off = find (CALL, di, OFF, on);
      int last_read = first_read;
      for (int i = first_read; i < standin.n; i++)
        if (standin.calls[i].what == STANDIN_READ
            && standin.calls[i].ino == di)
          last_read = i;
      ck_assert_int_gt (off, last_read);
    }
  ck_assert_int_eq (count (STANDIN_O_DIRECT), 0);
  engine_ctx_free (ctx);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("platform");
  TCase *tc = tcase_create (CALL == STANDIN_DIRECTIO ? "directio"
                                                     : "F_NOCACHE");
  tcase_add_test (tc, test_method);
  tcase_add_loop_test (tc, test_on_then_off, 0, 2);
  tcase_add_loop_test (tc, test_refused, 0, 2);
  tcase_add_loop_test (tc, test_no_call, 0, 2);
  tcase_add_loop_test (tc, test_verify, 0, 4);
  suite_add_tcase (s, tc);
  return run_suite_as_tap (s);
}
