/* Changing the bandwidth limit of a running copy (limit.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "limit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef __linux__
# include <sys/mman.h>
# include <sys/statfs.h>
# include <sys/syscall.h>
#endif

#include "error.h"
#include "progname.h"
#include "progress.h"

/* The proof a copy holds (limit.h): a memfd of this name, sealed, whose
   whole text is NOTICE_FORMAT with the copy's own process ID.  A new
   way of sending limits gets a new version, so that a copy of an older
   cp8M is told apart from a process that is no copy.  */
#define NOTICE_NAME "cp8M-bwlimit"
#define NOTICE_LINK "/memfd:" NOTICE_NAME " (deleted)"
#define NOTICE_MAGIC NOTICE_NAME "\nversion "
enum { NOTICE_VERSION = 1 };
#define NOTICE_FORMAT NOTICE_MAGIC "%d\npid %jd\n"

/* A copy run with fewer descriptors than this (deep-trees.sh copies
   under ulimit -n 32, few-fds.sh under 4) keeps them all for the copy,
   as GNU cp would, and cannot be given a new limit.  */
enum { NOTICE_MIN_NOFILE = 64 };

#if defined __linux__ && defined MFD_ALLOW_SEALING && defined F_ADD_SEALS
# define HAVE_NOTICE 1
#endif
#if (HAVE_NOTICE && defined SYS_pidfd_open && defined SYS_pidfd_send_signal)
# define HAVE_PIDFD 1
#endif

#ifndef PROC_SUPER_MAGIC
# define PROC_SUPER_MAGIC 0x9fa0
#endif

/* ---- the copy's side ---- */

#if HAVE_NOTICE
/* The text of the notice of the copy whose own process ID is PID.  */
static int
notice_text (char *buf, size_t size, intmax_t pid)
{
  return snprintf (buf, size, NOTICE_FORMAT, (int) NOTICE_VERSION, pid);
}

/* FD, moved above the standard descriptors: a copy started with one of
   them closed must not write its output into the notice.  */
static int
above_std (int fd)
{
  if (fd < 0 || fd > STDERR_FILENO)
    return fd;
  int moved = fcntl (fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  close (fd);
  return moved;
}
#endif

int
limit_advertise (void)
{
#if HAVE_NOTICE
  struct rlimit r;
  if (getrlimit (RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY
      && r.rlim_cur < NOTICE_MIN_NOFILE)
    return -1;
  /* Close-on-exec: no program started from the copy inherits it.
     Sealed, so that its text is the copy's as long as it exists.  */
  int fd = above_std (memfd_create (NOTICE_NAME,
                                    MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd < 0)
    return -1;
  char text[128];
  int n = notice_text (text, sizeof text, getpid ());
  if (write (fd, text, n) != n
      || fcntl (fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW
                                 | F_SEAL_WRITE) != 0)
    {
      close (fd);
      return -1;
    }
  return fd;
#else
  return -1;
#endif
}

void
limit_withdraw (int fd)
{
  if (fd >= 0)
    close (fd);
}

bool
limit_receive (siginfo_t const *info, _Atomic uintptr_t *limit)
{
  if (info->si_signo != LIMIT_SIGNAL || info->si_code != SI_QUEUE)
    return false;
  atomic_store (limit, (uintptr_t) info->si_value.sival_ptr);
  return true;
}

/* ---- the sender's side ---- */

/* Nothing sent to PID, for the reason WHY (or ERR's text).  */
static bool
refuse (intmax_t pid, int err, char const *why)
{
  error (0, err, "cannot change the limit of process %jd%s%s", pid,
         why ? ": " : "", why ? why : "");
  return false;
}

#if HAVE_PIDFD

/* The number after TAG in /proc/PID/status ("Tgid:"), or -1.  */
static intmax_t
status_field (intmax_t pid, char const *tag)
{
  char name[64];
  snprintf (name, sizeof name, "/proc/%jd/status", pid);
  FILE *f = fopen (name, "re");
  if (!f)
    return -1;
  char line[256];
  intmax_t n = -1;
  size_t len = strlen (tag);
  while (fgets (line, sizeof line, f))
    if (strncmp (line, tag, len) == 0)
      {
        n = strtoimax (line + len, NULL, 10);
        break;
      }
  fclose (f);
  return n;
}

/* pidfd_open refused PID (errno ERR): say why.  */
static bool
refuse_open (intmax_t pid, int err)
{
  if (err == ENOSYS)
    return refuse (pid, 0, "this system has no pidfd_open (Linux 5.3 or"
                           " later has), so the process cannot be pinned");
  if (err != EINVAL && err != ENOENT)
    return refuse (pid, err, NULL);
  /* A thread that does not lead its thread group (EINVAL; ENOENT since
     Linux 6.15 or so): a signal to it would go to its whole process.  */
  intmax_t tgid = status_field (pid, "Tgid:");
  char why[96];
  if (tgid > 0 && tgid != pid)
    snprintf (why, sizeof why, "a thread of process %jd, not a process",
              tgid);
  else if (err == EINVAL)
    snprintf (why, sizeof why, "a thread, not a process");
  else
    return refuse (pid, ESRCH, NULL);
  return refuse (pid, 0, why);
}

/* /proc, open, or -1 with *WHY set when it is not the proc file
   system.  */
static int
open_proc (char const **why)
{
  int fd = open ("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct statfs s;
  if (fd >= 0 && fstatfs (fd, &s) == 0 && s.f_type == PROC_SUPER_MAGIC)
    return fd;
  if (fd >= 0)
    close (fd);
  *why = "/proc is not mounted, so the process cannot be checked";
  return -1;
}

/* The last number of LINE: in "NSpid:\t812\t7", the process ID in its
   own namespace.  */
static intmax_t
last_number (char const *line)
{
  intmax_t n = -1;
  for (char *end;; line = end)
    {
      intmax_t v = strtoimax (line, &end, 10);
      if (end == line)
        return n;
      n = v;
    }
}

/* Read, in the pidfd PIDFD's fdinfo under /proc (PROCFD), its process's
   ID as this /proc numbers it into *SEEN (-1: it has ended, 0: this
   /proc does not show it) and as the process itself knows it into
   *OWN; a kernel that shows neither leaves them as they were.  Return
   false when there is no such fdinfo: this /proc is not of this
   process's PID namespace (no "self" in it).  */
static bool
pidfd_ids (int procfd, int pidfd, intmax_t *seen, intmax_t *own)
{
  char name[64];
  snprintf (name, sizeof name, "self/fdinfo/%d", pidfd);
  /* NAME is relative to /proc.  */
  int fd = openat (procfd, name, O_RDONLY | O_CLOEXEC);
  FILE *f = fd < 0 ? NULL : fdopen (fd, "r");
  if (!f)
    {
      if (fd >= 0)
        close (fd);
      return false;
    }
  char line[256];
  while (fgets (line, sizeof line, f))
    if (strncmp (line, "Pid:", 4) == 0)
      *seen = *own = strtoimax (line + 4, NULL, 10);
    else if (strncmp (line, "NSpid:", 6) == 0)
      *own = last_number (line + 6);
  fclose (f);
  return true;
}

/* Whether the descriptor NAME of the process whose fd directory is
   FDDIR is the notice of a copy whose own ID is OWN: 1 yes, 2 the
   notice of another version, 0 no.  */
static int
is_notice (int fddir, char const *name, intmax_t own)
{
  char link[sizeof NOTICE_LINK + 1];
  /* NAME is relative to FDDIR, an entry read from it.  */
  ssize_t n = readlinkat (fddir, name, link, sizeof link);
  if (n != sizeof NOTICE_LINK - 1 || memcmp (link, NOTICE_LINK, n) != 0)
    return 0;
  /* NAME is relative to FDDIR; its link names no file of the file
     system, only the memfd, which the open reaches.  */
  int fd = openat (fddir, name, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char got[128], want[128];
  int seals = fcntl (fd, F_GET_SEALS);
  /* Sealed against writing: a memfd whose text stays what it was.  */
  ssize_t len = seals >= 0 && seals & F_SEAL_WRITE
                ? pread (fd, got, sizeof got - 1, 0) : -1;
  close (fd);
  if (len < 0)
    return 0;
  got[len] = '\0';
  int wlen = notice_text (want, sizeof want, own);
  if (len == wlen && memcmp (got, want, len) == 0)
    return 1;
  bool other = strncmp (got, NOTICE_MAGIC, sizeof NOTICE_MAGIC - 1) == 0
               && strtol (got + sizeof NOTICE_MAGIC - 1, NULL, 10)
                  != NOTICE_VERSION;
  return other ? 2 : 0;
}

/* Look through the descriptors of the process SEEN (its ID in /proc,
   PROCFD) for the notice of a copy whose own ID is OWN.  Return NULL
   when found, or why not (with *ERR set to an errno value, or 0).  */
static char const *
find_notice (int procfd, intmax_t seen, intmax_t own, int *err)
{
  char name[64];
  snprintf (name, sizeof name, "%jd/fd", seen);
  /* NAME is relative to /proc.  */
  int fd = openat (procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = fd < 0 ? NULL : fdopendir (fd);
  if (!d)
    {
      *err = errno;
      if (fd >= 0)
        close (fd);
      return "";
    }
  int found = 0;
  for (struct dirent *e; !found && (e = readdir (d));)
    if (e->d_name[0] != '.')
      found = is_notice (dirfd (d), e->d_name, own);
  closedir (d);
  return found == 1 ? NULL
         : found == 2 ? "a cp8M copy that takes new limits another way"
                        " (another version of cp8M)"
         : "not a cp8M copy that takes a new limit";
}

/* Whether the process of PIDFD has ended.  */
static bool
ended (int pidfd)
{
  struct pollfd p = { .fd = pidfd, .events = POLLIN };
  return poll (&p, 1, 0) != 0;
}

/* Prove that PIDFD's process (PID to the user) is a cp8M copy that takes
   a new limit now: NULL, or why not (and *ERR).  */
static char const *
prove (int pidfd, intmax_t pid, int *err)
{
  char const *why = NULL;
  int procfd = open_proc (&why);
  if (procfd < 0)
    return why;
  intmax_t seen = pid, own = pid;
  if (!pidfd_ids (procfd, pidfd, &seen, &own) || seen == 0)
    why = "/proc shows another PID namespace, so the process cannot be"
          " checked";
  else if (seen < 0)
    *err = ESRCH, why = "";
  else
    why = find_notice (procfd, seen, own, err);
  close (procfd);
  /* /proc names processes by number: what was read there was this
     process's only if it was still alive after the reading (a number is
     not reused before its process has ended).  An ended one (a zombie
     too, whose descriptors are gone) is no process to change.  */
  if (ended (pidfd))
    *err = ESRCH, why = "";
  return why;
}

/* Send RATE to PIDFD's process, as sigqueue would.  */
static int
send_rate (int pidfd, uintmax_t rate)
{
  siginfo_t info;
  memset (&info, 0, sizeof info);
  info.si_signo = LIMIT_SIGNAL;
  info.si_code = SI_QUEUE;
  info.si_pid = getpid ();
  info.si_uid = getuid ();
  /* A limit beyond what a pointer holds (32-bit systems: 4 GiB/s) is
     none in practice: the largest it holds.  */
  info.si_value.sival_ptr = (void *) (uintptr_t)
                            (rate > UINTPTR_MAX ? UINTPTR_MAX : rate);
  return syscall (SYS_pidfd_send_signal, pidfd, LIMIT_SIGNAL, &info, 0);
}

/* Say what was done.  */
static void
report (intmax_t pid, uintmax_t rate)
{
  if (rate == 0)
    {
      printf ("%s: bandwidth limit of PID %jd lifted\n", program_name, pid);
      return;
    }
  char r[32];
  progress_format_bytes (r, sizeof r, rate);
  printf ("%s: bandwidth limit of PID %jd set to %s/s\n", program_name, pid,
          r);
}

bool
limit_send (intmax_t pid, uintmax_t rate)
{
  int pidfd = syscall (SYS_pidfd_open, (pid_t) pid, 0);
  if (pidfd < 0)
    return refuse_open (pid, errno);
  int err = 0;
  char const *why = NULL;
  /* Permission first, as kill(1) would have it: may this user signal
     the process at all?  */
  if (syscall (SYS_pidfd_send_signal, pidfd, 0, NULL, 0) != 0)
    err = errno;
  else
    why = prove (pidfd, pid, &err);
  if (!err && !why && send_rate (pidfd, rate) != 0)
    err = errno;
  close (pidfd);
  if (err || why)
    return refuse (pid, err, why && *why ? why : NULL);
  report (pid, rate);
  return true;
}

#else /* !HAVE_PIDFD */

bool
limit_send (intmax_t pid, uintmax_t rate)
{
  (void) rate;
  return refuse (pid, 0, "this system has no pidfds, so the process"
                         " cannot be pinned");
}

#endif
