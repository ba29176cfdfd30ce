/* LD_PRELOAD shim that injects the faults of tests/crash-faults.sh into
   a copy, driven by environment variables (each one optional):

   FAULTSHIM_LOADED=FILE
       create FILE when the shim is loaded (the test checks the shim
       really is in the process: a static binary ignores LD_PRELOAD).

   FAULTSHIM_CLOSE_EIO=PREFIX
       close() of a writable descriptor whose /proc/self/fd link starts
       with PREFIX closes it, then fails with EIO, as NFS reports a write
       error at close.  Give the destination's directory with a trailing
       slash: that matches the destination, a hidden temporary name in
       the directory, and an unnamed O_TMPFILE (whose link reads
       "DIR/#INODE (deleted)" until it is linked).
   FAULTSHIM_CLOSE_DIRECT_ONLY=1
       only descriptors that have O_DIRECT (the engine's own reopens).

   FAULTSHIM_SRC=PATH
       the source file: its descriptors are recognised by device and
       inode (looked up once, on the first read), whatever their name.
   FAULTSHIM_DIRECT_EOF=OFFSET
       on the source's O_DIRECT descriptors, reads end at OFFSET: a read
       at or past it returns 0, one across it comes back short, as if the
       file ended there.  Plain descriptors read normally.
   FAULTSHIM_DIRECT_WRITE_EINVAL=OFFSET
       a write through any writable O_DIRECT descriptor that is not the
       source and reaches past OFFSET fails with EINVAL (direct I/O
       refused).
   FAULTSHIM_APPEND=FILE
       on the first read of the source's data (read, pread, preadv,
       preadv2 and their 64 forms, copy_file_range), append the contents
       of FILE to the source through a descriptor of its own, as another
       process would; once per process.  All readers of the source wait
       until it is done, so every byte read comes after the change.
   FAULTSHIM_TRUNCATE=SIZE
       the same, truncating the source to SIZE bytes.

   FAULTSHIM_VANISH=PREFIX
       an open for writing without O_CREAT (open, openat and their 64
       and fortified forms) of a regular file whose absolute name starts
       with PREFIX unlinks the file first, as when it vanishes on NFS
       between the copy's stat and its open: the open then fails with
       ENOENT.  Names relative to a directory descriptor are made
       absolute through /proc/self/fd; symlinks, and the files reached
       through them, are left alone (maybe_vanish).

   For --verify (tests/verify.sh):
   FAULTSHIM_FLIP=PREFIX
       the first write of data (write, pwrite, pwritev, pwritev2 and
       their 64 forms) through a descriptor whose /proc/self/fd link
       starts with PREFIX goes out with the first byte of its buffer
       inverted, as a bad cable or controller would send it; the caller's
       buffer is then put back as it was.  Once per process.
   FAULTSHIM_CHANGE=PREFIX
       the first open for reading only of a /proc/self/fd/N name whose
       link starts with PREFIX (how cp8M reopens a destination to read
       it back) first inverts the file's first byte through a descriptor
       of its own, as another process writing meanwhile would.  Once per
       process.
       Where /proc is not used (FAULTSHIM_NOPROC, or a build for another
       system), the first open for reading only of a regular file whose
       absolute name starts with PREFIX does the same, and so does the
       first copy (F_DUPFD_CLOEXEC) of a descriptor whose link starts
       with PREFIX (how cp8M reads back a file it holds open for reading
       and writing).
   FAULTSHIM_NODIRECT=PREFIX
       such an open with O_DIRECT fails with EINVAL, as on a file system
       that refuses direct I/O.
   FAULTSHIM_NOPROC=1
       every open of a /proc/self/fd/N name fails with ENOENT, as where
       /proc is not mounted (the shim's own look-ups still see it).
   FAULTSHIM_NOREREAD=PREFIX
       every way cp8M has to read a destination back fails with EIO, as a
       failing device would answer: opens for reading only of a
       /proc/self/fd/N name whose link starts with PREFIX, or of a
       regular file whose absolute name does, and copies
       (F_DUPFD_CLOEXEC) of a descriptor whose link does.
   Give PREFIX as for FAULTSHIM_CLOSE_EIO.

   Every other call passes through unchanged.  The shim's own I/O uses
   raw system calls so that it never re-enters its wrappers.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* The next definition of NAME (libc's, or a sanitizer's interceptor).  */
#define REAL(name)                                              \
  static __typeof__ (&name) real_##name;                        \
  if (!real_##name)                                             \
    real_##name = (__typeof__ (&name)) dlsym (RTLD_NEXT, #name)

static long long
env_offset (char const *name)
{
  char const *v = getenv (name);
  if (!v || !*v)
    return -1;
  return strtoll (v, NULL, 0);
}

__attribute__ ((constructor)) static void
announce (void)
{
  char const *f = getenv ("FAULTSHIM_LOADED");
  if (f && *f)
    {
      int fd = syscall (SYS_openat, AT_FDCWD, f,
                        O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd >= 0)
        syscall (SYS_close, fd);
    }
}

/* ---- descriptor tests ---- */

static int
fd_flags (int fd)
{
  return (int) syscall (SYS_fcntl, fd, F_GETFL);
}

static bool
writable (int flags)
{
  return flags >= 0 && ((flags & O_ACCMODE) == O_WRONLY
                        || (flags & O_ACCMODE) == O_RDWR);
}

/* True if the link NAME (a /proc/self/fd entry) leads to a name that
   starts with the prefix in the environment variable VAR.  */
static bool
link_matches (char const *name, char const *var)
{
  char const *prefix = getenv (var);
  if (!prefix || !*prefix)
    return false;
  char target[PATH_MAX];
  ssize_t n = readlink (name, target, sizeof target - 1);
  if (n <= 0)
    return false;
  target[n] = '\0';
  return strncmp (target, prefix, strlen (prefix)) == 0;
}

static bool
fd_matches (int fd, char const *var)
{
  char link[64];
  snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  return link_matches (link, var);
}

static struct
{
  pthread_once_t once;
  bool known;
  dev_t dev;
  ino_t ino;
} src = { PTHREAD_ONCE_INIT, false, 0, 0 };

static void
find_source (void)
{
  char const *p = getenv ("FAULTSHIM_SRC");
  struct stat st;
  if (p && *p && stat (p, &st) == 0)
    {
      src.dev = st.st_dev;
      src.ino = st.st_ino;
      src.known = true;
    }
}

static bool
is_source (int fd)
{
  pthread_once (&src.once, find_source);
  struct stat st;
  return src.known && fstat (fd, &st) == 0
         && st.st_dev == src.dev && st.st_ino == src.ino;
}

/* ---- the source changes on its first read ---- */

static pthread_once_t change_once = PTHREAD_ONCE_INIT;

static void
change_source (void)
{
  char const *path = getenv ("FAULTSHIM_SRC");
  char const *extra = getenv ("FAULTSHIM_APPEND");
  long long size = env_offset ("FAULTSHIM_TRUNCATE");
  if (!path || !*path)
    return;
  if (size >= 0)
    syscall (SYS_truncate, path, (off_t) size);
  if (extra && *extra)
    {
      int in = syscall (SYS_openat, AT_FDCWD, extra, O_RDONLY | O_CLOEXEC);
      int out = syscall (SYS_openat, AT_FDCWD, path,
                         O_WRONLY | O_APPEND | O_CLOEXEC);
      static char buf[1 << 16];
      long n;
      while (in >= 0 && out >= 0
             && (n = syscall (SYS_read, in, buf, sizeof buf)) > 0)
        {
          long done = 0;
          while (done < n)
            {
              long w = syscall (SYS_write, out, buf + done, n - done);
              if (w <= 0)
                break;
              done += w;
            }
        }
      if (in >= 0)
        syscall (SYS_close, in);
      if (out >= 0)
        syscall (SYS_close, out);
    }
}

/* Called before every read of FD: the first one of the source triggers
   the change, the others wait for it to finish.  */
static void
before_read (int fd)
{
  if ((getenv ("FAULTSHIM_APPEND") || getenv ("FAULTSHIM_TRUNCATE"))
      && is_source (fd))
    pthread_once (&change_once, change_source);
}

/* How many of LEN bytes at OFF the source's O_DIRECT descriptor FD may
   read: LEN, or less when FAULTSHIM_DIRECT_EOF cuts it.  */
static size_t
direct_read_limit (int fd, off_t off, size_t len)
{
  long long eof = env_offset ("FAULTSHIM_DIRECT_EOF");
  if (eof < 0 || off < 0)
    return len;
  int fl = fd_flags (fd);
  if (fl < 0 || !(fl & O_DIRECT) || !is_source (fd))
    return len;
  if (off >= eof)
    return 0;
  if ((unsigned long long) off + len > (unsigned long long) eof)
    return eof - off;
  return len;
}

/* True if a write of LEN bytes at OFF through FD is to be refused.  */
static bool
refuse_write (int fd, off_t off, size_t len)
{
  long long from = env_offset ("FAULTSHIM_DIRECT_WRITE_EINVAL");
  if (from < 0 || off < 0)
    return false;
  int fl = fd_flags (fd);
  if (!writable (fl) || !(fl & O_DIRECT) || is_source (fd))
    return false;
  return (unsigned long long) off + len > (unsigned long long) from;
}

static off_t
current_offset (int fd)
{
  return (off_t) syscall (SYS_lseek, fd, 0, SEEK_CUR);
}

static size_t
iov_total (struct iovec const *iov, int n)
{
  size_t t = 0;
  for (int i = 0; i < n; i++)
    t += iov[i].iov_len;
  return t;
}

/* A read that moved N bytes, reported as moving at most LIMIT: the
   kernel did the whole read, the caller sees it come back short.  */
static ssize_t
clip (ssize_t n, size_t limit)
{
  return n > (ssize_t) limit ? (ssize_t) limit : n;
}

/* ---- reads ---- */

ssize_t
read (int fd, void *buf, size_t len)
{
  REAL (read);
  before_read (fd);
  if (!getenv ("FAULTSHIM_DIRECT_EOF"))
    return real_read (fd, buf, len);
  off_t off = current_offset (fd);
  size_t lim = direct_read_limit (fd, off, len);
  if (lim == 0)
    return 0;
  ssize_t n = real_read (fd, buf, len);
  if (n > (ssize_t) lim)
    {
      syscall (SYS_lseek, fd, off + (off_t) lim, SEEK_SET);
      n = lim;
    }
  return n;
}

#define WRAP_PREAD(name)                                                \
  ssize_t                                                               \
  name (int fd, void *buf, size_t len, off_t off)                       \
  {                                                                     \
    REAL (name);              \
    before_read (fd);                                                   \
    size_t lim = direct_read_limit (fd, off, len);                      \
    if (lim == 0)                                                       \
      return 0;                                                         \
    return clip (real_##name (fd, buf, len, off), lim);                 \
  }

#define WRAP_PREADV(name)                                               \
  ssize_t                                                               \
  name (int fd, struct iovec const *iov, int n, off_t off)              \
  {                                                                     \
    REAL (name);   \
    before_read (fd);                                                   \
    size_t total = iov_total (iov, n);                                  \
    size_t lim = direct_read_limit (fd, off, total);                    \
    if (lim == 0)                                                       \
      return 0;                                                         \
    return clip (real_##name (fd, iov, n, off), lim);                   \
  }

#define WRAP_PREADV2(name)                                              \
  ssize_t                                                               \
  name (int fd, struct iovec const *iov, int n, off_t off, int flags)   \
  {                                                                     \
    REAL (name); \
    before_read (fd);                                                   \
    size_t total = iov_total (iov, n);                                  \
    size_t lim = direct_read_limit (fd, off == -1 ? current_offset (fd) \
                                                  : off, total);        \
    if (lim == 0)                                                       \
      return 0;                                                         \
    return clip (real_##name (fd, iov, n, off, flags), lim);            \
  }

WRAP_PREAD (pread)
WRAP_PREADV (preadv)
/* Other C libraries (musl) may lack some of these; a shim built there
   is never loaded anyway (their binaries are static).  */
#ifdef __GLIBC__
WRAP_PREAD (pread64)
WRAP_PREADV (preadv64)
WRAP_PREADV2 (preadv2)
WRAP_PREADV2 (preadv64v2)

ssize_t
copy_file_range (int in, off_t *in_off, int out, off_t *out_off,
                 size_t len, unsigned int flags)
{
  REAL (copy_file_range);
  before_read (in);
  return real_copy_file_range (in, in_off, out, out_off, len, flags);
}
#endif

/* ---- writes ---- */

static int flipped;   /* FAULTSHIM_FLIP's one flip happened */

/* If this write of LEN bytes of BUF through FD is the one FAULTSHIM_FLIP
   corrupts, invert BUF's first byte and return true: the caller writes,
   then calls unflip.  */
static bool
flip (int fd, void const *buf, size_t len)
{
  if (len == 0 || !buf || __atomic_load_n (&flipped, __ATOMIC_SEQ_CST)
      || !fd_matches (fd, "FAULTSHIM_FLIP")
      || __atomic_exchange_n (&flipped, 1, __ATOMIC_SEQ_CST))
    return false;
  *(unsigned char *) buf ^= 0xff;
  return true;
}

static void
unflip (bool did, void const *buf)
{
  if (did)
    *(unsigned char *) buf ^= 0xff;
}

/* The first nonempty piece of IOV, and its length in *LEN.  */
static void const *
first_base (struct iovec const *iov, int n, size_t *len)
{
  for (int i = 0; i < n; i++)
    if (iov[i].iov_len > 0)
      {
        *len = iov[i].iov_len;
        return iov[i].iov_base;
      }
  *len = 0;
  return NULL;
}

ssize_t
write (int fd, void const *buf, size_t len)
{
  REAL (write);
  if (getenv ("FAULTSHIM_DIRECT_WRITE_EINVAL")
      && refuse_write (fd, current_offset (fd), len))
    {
      errno = EINVAL;
      return -1;
    }
  bool did = flip (fd, buf, len);
  ssize_t r = real_write (fd, buf, len);
  unflip (did, buf);
  return r;
}

#define WRAP_PWRITE(name)                                               \
  ssize_t                                                               \
  name (int fd, void const *buf, size_t len, off_t off)                 \
  {                                                                     \
    REAL (name);        \
    if (refuse_write (fd, off, len))                                    \
      {                                                                 \
        errno = EINVAL;                                                 \
        return -1;                                                      \
      }                                                                 \
    bool did = flip (fd, buf, len);                                     \
    ssize_t r = real_##name (fd, buf, len, off);                        \
    unflip (did, buf);                                                  \
    return r;                                                           \
  }

#define WRAP_PWRITEV(name)                                              \
  ssize_t                                                               \
  name (int fd, struct iovec const *iov, int n, off_t off)              \
  {                                                                     \
    REAL (name);   \
    if (refuse_write (fd, off, iov_total (iov, n)))                     \
      {                                                                 \
        errno = EINVAL;                                                 \
        return -1;                                                      \
      }                                                                 \
    size_t len;                                                         \
    void const *b = first_base (iov, n, &len);                          \
    bool did = flip (fd, b, len);                                       \
    ssize_t r = real_##name (fd, iov, n, off);                          \
    unflip (did, b);                                                    \
    return r;                                                           \
  }

#define WRAP_PWRITEV2(name)                                             \
  ssize_t                                                               \
  name (int fd, struct iovec const *iov, int n, off_t off, int flags)   \
  {                                                                     \
    REAL (name); \
    if (refuse_write (fd, off == -1 ? current_offset (fd) : off,        \
                      iov_total (iov, n)))                              \
      {                                                                 \
        errno = EINVAL;                                                 \
        return -1;                                                      \
      }                                                                 \
    size_t len;                                                         \
    void const *b = first_base (iov, n, &len);                          \
    bool did = flip (fd, b, len);                                       \
    ssize_t r = real_##name (fd, iov, n, off, flags);                   \
    unflip (did, b);                                                    \
    return r;                                                           \
  }

WRAP_PWRITE (pwrite)
WRAP_PWRITEV (pwritev)
#ifdef __GLIBC__
WRAP_PWRITE (pwrite64)
WRAP_PWRITEV (pwritev64)
WRAP_PWRITEV2 (pwritev2)
WRAP_PWRITEV2 (pwritev64v2)
#endif

/* ---- close ---- */

int
close (int fd)
{
  REAL (close);
  char const *prefix = getenv ("FAULTSHIM_CLOSE_EIO");
  if (!prefix || !*prefix)
    return real_close (fd);
  int fl = fd_flags (fd);
  bool direct_only = getenv ("FAULTSHIM_CLOSE_DIRECT_ONLY") != NULL;
  bool victim = false;
  if (writable (fl) && (!direct_only || (fl & O_DIRECT)))
    victim = fd_matches (fd, "FAULTSHIM_CLOSE_EIO");
  int r = real_close (fd);
  if (victim && r == 0)
    {
      errno = EIO;
      return -1;
    }
  return r;
}

/* ---- a destination that vanishes before it is opened ---- */

/* True if DIRFD/PATH names something under the prefix in the
   environment variable VAR.  */
static bool
name_matches (int dirfd, char const *path, char const *var)
{
  char const *prefix = getenv (var);
  if (!prefix || !*prefix)
    return false;
  char base[PATH_MAX], full[2 * PATH_MAX + 2];
  if (path[0] == '/')
    base[0] = '\0';
  else if (dirfd == AT_FDCWD)
    {
      if (!getcwd (base, sizeof base))
        return false;
    }
  else
    {
      char link[64];
      snprintf (link, sizeof link, "/proc/self/fd/%d", dirfd);
      ssize_t n = readlink (link, base, sizeof base - 1);
      if (n <= 0)
        return false;
      base[n] = '\0';
    }
  snprintf (full, sizeof full, "%s%s%s", base, *base ? "/" : "", path);
  return strncmp (full, prefix, strlen (prefix)) == 0;
}

/* ---- a destination read back (--verify) ---- */

static int changed;   /* FAULTSHIM_CHANGE's one change happened */

static bool
proc_fd_name (char const *path)
{
  return strncmp (path, "/proc/self/fd/", 14) == 0;
}

/* Invert the first byte of the file DIRFD/PATH, once per process.  */
static void
flip_first_byte (int dirfd, char const *path)
{
  if (__atomic_load_n (&changed, __ATOMIC_SEQ_CST)
      || __atomic_exchange_n (&changed, 1, __ATOMIC_SEQ_CST))
    return;
  int fd = syscall (SYS_openat, dirfd, path, O_RDWR | O_CLOEXEC);
  unsigned char c;
  if (fd >= 0 && syscall (SYS_pread64, fd, &c, 1, (off_t) 0) == 1)
    {
      c ^= 0xff;
      syscall (SYS_pwrite64, fd, &c, 1, (off_t) 0);
    }
  if (fd >= 0)
    syscall (SYS_close, fd);
}

/* Before an open of PATH with FLAGS: FAULTSHIM_NOPROC's refusal (errno
   ENOENT) and FAULTSHIM_CHANGE's change.  Return false when
   FAULTSHIM_NOPROC or FAULTSHIM_NODIRECT refuses the open (errno
   EINVAL).  */
static bool
before_reread (char const *path, int flags)
{
  if (proc_fd_name (path) && getenv ("FAULTSHIM_NOPROC"))
    {
      errno = ENOENT;
      return false;
    }
  if ((flags & O_ACCMODE) != O_RDONLY || !proc_fd_name (path))
    return true;
  if (link_matches (path, "FAULTSHIM_NOREREAD"))
    {
      errno = EIO;
      return false;
    }
  if ((flags & O_DIRECT) && link_matches (path, "FAULTSHIM_NODIRECT"))
    {
      errno = EINVAL;
      return false;
    }
  if (link_matches (path, "FAULTSHIM_CHANGE"))
    flip_first_byte (AT_FDCWD, path);
  return true;
}

/* Before an open of DIRFD/PATH with FLAGS: FAULTSHIM_NOREREAD's
   refusal and FAULTSHIM_CHANGE's change when it reads a regular file by
   its name (how cp8M opens a destination again where it cannot through
   /proc).  Return false when the open is refused (errno set).  */
static bool
before_reread_by_name (int dirfd, char const *path, int flags)
{
  struct stat st;
  if ((!getenv ("FAULTSHIM_NOREREAD") && !getenv ("FAULTSHIM_CHANGE"))
      || (flags & O_ACCMODE) != O_RDONLY || (flags & (O_PATH | O_DIRECTORY))
      || proc_fd_name (path) || fstatat (dirfd, path, &st, 0) != 0
      || !S_ISREG (st.st_mode))
    return true;
  if (name_matches (dirfd, path, "FAULTSHIM_NOREREAD"))
    {
      errno = EIO;
      return false;
    }
  if (name_matches (dirfd, path, "FAULTSHIM_CHANGE"))
    flip_first_byte (dirfd, path);
  return true;
}

/* FAULTSHIM_CHANGE's change of the file open as FD (the shim itself
   still sees /proc).  */
static void
change_through (int fd)
{
  char name[sizeof "/proc/self/fd/" + 3 * sizeof (int)];
  snprintf (name, sizeof name, "/proc/self/fd/%d", fd);
  flip_first_byte (AT_FDCWD, name);
}

/* fcntl: FAULTSHIM_NOREREAD's refusal of F_DUPFD_CLOEXEC, and
   FAULTSHIM_CHANGE's change before it.  */
#define WRAP_FCNTL(name)                                                \
  int                                                                   \
  name (int fd, int cmd, ...)                                           \
  {                                                                     \
    REAL (name);                                                        \
    va_list ap;                                                         \
    va_start (ap, cmd);                                                 \
    void *arg = va_arg (ap, void *);                                    \
    va_end (ap);                                                        \
    if (cmd == F_DUPFD_CLOEXEC && fd_matches (fd, "FAULTSHIM_NOREREAD")) \
      {                                                                 \
        errno = EIO;                                                    \
        return -1;                                                      \
      }                                                                 \
    if (cmd == F_DUPFD_CLOEXEC && fd_matches (fd, "FAULTSHIM_CHANGE"))  \
      change_through (fd);                                              \
    return real_##name (fd, cmd, arg);                                  \
  }

WRAP_FCNTL (fcntl)
#ifdef __GLIBC__
WRAP_FCNTL (fcntl64)
#endif

/* A file reached through a symbolic link is left alone, whoever
   follows the link: GNU cp's open follows it in the kernel; cp8M opens
   the link with O_NOFOLLOW, which fails with ELOOP, then the link's
   target by its own name (src/cp/follow.c).  Set by such an ELOOP under
   the prefix, this thread's next open for writing is that target's.  */
static __thread bool vanish_through_link;

static void
maybe_vanish (int dirfd, char const *path, int flags)
{
  struct stat st;
  if (!(flags & O_CREAT) && (flags & O_ACCMODE) != O_RDONLY
      && !vanish_through_link
      && name_matches (dirfd, path, "FAULTSHIM_VANISH")
      && fstatat (dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0
      && S_ISREG (st.st_mode))
    syscall (SYS_unlinkat, dirfd, path, 0);
  if (!(flags & O_CREAT) && (flags & O_ACCMODE) != O_RDONLY)
    vanish_through_link = false;
}

/* After an open of PATH (relative to DIRFD) with FLAGS that returned R:
   note an O_NOFOLLOW open of a symbolic link under the prefix (see
   above).  Return R, errno as it was.  */
static int
vanish_after (int dirfd, char const *path, int flags, int r)
{
  int err = errno;
  if (r < 0 && err == ELOOP && (flags & O_NOFOLLOW)
      && name_matches (dirfd, path, "FAULTSHIM_VANISH"))
    vanish_through_link = true;
  errno = err;
  return r;
}

/* The mode argument, there when FLAGS create a file.  */
#define OPEN_MODE(flags, last)                                          \
  mode_t mode = 0;                                                      \
  if ((flags) & O_CREAT || ((flags) & O_TMPFILE) == O_TMPFILE)          \
    {                                                                   \
      va_list ap;                                                       \
      va_start (ap, last);                                              \
      mode = va_arg (ap, int);                                          \
      va_end (ap);                                                      \
    }

#define WRAP_OPEN(name)                                                 \
  int                                                                   \
  name (char const *path, int flags, ...)                               \
  {                                                                     \
    REAL (name);                                                        \
    OPEN_MODE (flags, flags);                                           \
    maybe_vanish (AT_FDCWD, path, flags);                               \
    if (!before_reread (path, flags))                                   \
      return -1;                                                        \
    return vanish_after (AT_FDCWD, path, flags,                         \
                         real_##name (path, flags, mode));              \
  }

#define WRAP_OPENAT(name)                                               \
  int                                                                   \
  name (int dirfd, char const *path, int flags, ...)                    \
  {                                                                     \
    REAL (name);                                                        \
    OPEN_MODE (flags, flags);                                           \
    maybe_vanish (dirfd, path, flags);                                  \
    if (!before_reread (path, flags))                                   \
      return -1;                                                        \
    if (!before_reread_by_name (dirfd, path, flags))                    \
      return -1;                                                        \
    return vanish_after (dirfd, path, flags,                            \
                         real_##name (dirfd, path, flags, mode));       \
  }

/* The fortified forms, called when the flags are not known to need no
   mode at compile time.  */
#define WRAP_OPEN_2(name)                                               \
  int                                                                   \
  name (char const *path, int flags)                                    \
  {                                                                     \
    REAL (name);                                                        \
    maybe_vanish (AT_FDCWD, path, flags);                               \
    if (!before_reread (path, flags))                                   \
      return -1;                                                        \
    return vanish_after (AT_FDCWD, path, flags,                         \
                         real_##name (path, flags));                    \
  }

#define WRAP_OPENAT_2(name)                                             \
  int                                                                   \
  name (int dirfd, char const *path, int flags)                         \
  {                                                                     \
    REAL (name);                                                        \
    maybe_vanish (dirfd, path, flags);                                  \
    if (!before_reread (path, flags))                                   \
      return -1;                                                        \
    if (!before_reread_by_name (dirfd, path, flags))                    \
      return -1;                                                        \
    return vanish_after (dirfd, path, flags,                            \
                         real_##name (dirfd, path, flags));             \
  }

WRAP_OPEN (open)
WRAP_OPENAT (openat)
#ifdef __GLIBC__
WRAP_OPEN (open64)
WRAP_OPENAT (openat64)
int __open_2 (char const *, int);
int __open64_2 (char const *, int);
int __openat_2 (int, char const *, int);
int __openat64_2 (int, char const *, int);
WRAP_OPEN_2 (__open_2)
WRAP_OPEN_2 (__open64_2)
WRAP_OPENAT_2 (__openat_2)
WRAP_OPENAT_2 (__openat64_2)
#endif
