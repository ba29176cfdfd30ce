/* The life of a destination, and the undoing of unfinished ones (the
   invariant is written in dest.h).

   A signal handler can only reach what a global holds, so this file keeps
   the one piece of global state in cp8M: what to undo if a fatal signal
   arrives now.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "dest.h"
#include "jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "progress.h"
#include "whole.h"
#include "dirname.h"
#include "error.h"
#include "follow.h"
#include "renameatu.h"
#include "same-inode.h"
#include "xalloc.h"

#ifndef O_TMPFILE
# define O_TMPFILE (020000000 | O_DIRECTORY)   /* Linux's value */
#endif
#ifndef AT_EMPTY_PATH
# define AT_EMPTY_PATH 0x1000
#endif

/* ---- what a fatal signal undoes ---- */

/* Every signal whose default action ends the process, so that none of
   them leaves a hidden temporary or a destination moved to its backup
   name.  SIGUSR1 and SIGUSR2 are left out: they ask for a status line
   and bring a new bandwidth limit (progress.c, limit.h).

   The faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, and
   SIGABRT from abort) are in: the handler reads only the record below,
   whose names were stored before, and makes only system calls, which
   report a bad pointer as EFAULT instead of faulting again; then the
   signal's own default action (a core dump) follows.  A fault in an
   engine thread, which blocks every signal, gets that default action
   at once from the kernel, as does one while the signals are held: the
   state it leaves is that of SIGKILL, which the invariant covers.  */
static int const fatal_signals[] =
{
  SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
  SIGSEGV, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ,
  SIGVTALRM, SIGPROF, SIGSYS,
#ifdef SIGSTKFLT
  SIGSTKFLT,
#endif
#ifdef SIGIO
  SIGIO,
#endif
#ifdef SIGPOLL
  SIGPOLL,
#endif
#ifdef SIGPWR
  SIGPWR,
#endif
#ifdef SIGEMT
  SIGEMT,
#endif
#ifdef SIGLOST
  SIGLOST,
#endif
};

/* All volatile, so that the compiler stores the names before the flags,
   as the handler expects.  */
static struct
{
  volatile sig_atomic_t restore;  /* rename BACKUP to BACKUP_OF */
  volatile int backup_dirfd;
  char const *volatile backup;
  char const *volatile backup_of;
} pending;

/* A name to unlink if a fatal signal comes, one for each thread that
   makes files: the walk's (slot 0) and each of jobs.c's.  The handler
   runs on the walk's thread (the others block every signal); a job's
   thread cannot hold the signals back from it, so it marks its slot
   BUSY instead around a step and its bookkeeping, and the handler waits
   for that step to end.  */
static struct
{
  volatile sig_atomic_t remove;   /* unlink REMOVE_REL in REMOVE_DIRFD */
  volatile int remove_dirfd;
  char const *volatile remove_rel;
  sig_atomic_t busy;              /* atomic: a step under way */
} slots[JOBS_MAX + 1];
static _Thread_local unsigned int my_slot;
static sig_atomic_t dying;        /* atomic: the handler has begun */

void
dest_thread_slot (unsigned int slot)
{
  my_slot = slot;
}

/* The handler: wait for each job's step under way, then undo what each
   slot holds.  */
static void
remove_pending (void)
{
  __atomic_store_n (&dying, 1, __ATOMIC_SEQ_CST);
  for (unsigned int i = 0; i <= JOBS_MAX; i++)
    {
      while (__atomic_load_n (&slots[i].busy, __ATOMIC_SEQ_CST))
        {
          struct timespec ms = { 0, 1000000 };
          nanosleep (&ms, NULL);
        }
      /* The names are relative to their descriptors as the struct loc
         names they were made from are (absolute only with AT_FDCWD).  */
      if (slots[i].remove)
        unlinkat (slots[i].remove_dirfd, slots[i].remove_rel, 0);
      /* Once: another fatal signal may be pending behind this one.  */
      slots[i].remove = 0;
    }
}

static void
on_fatal_signal (int sig, siginfo_t *info, void *context)
{
  (void) context;
  /* Writing past the file size limit (ulimit -f) makes the kernel send
     SIGXFSZ to the writer as if it had sent it itself, and the write
     fails with EFBIG: an ordinary error of that file, reported and
     undone as any other.  A SIGXFSZ from elsewhere is fatal.  */
  if (sig == SIGXFSZ && info && info->si_code == SI_USER
      && info->si_pid == getpid ())
    return;
  remove_pending ();
  if (pending.restore)
    /* BACKUP and BACKUP_OF: relative to BACKUP_DIRFD, as the struct loc
       names they come from.  */
    renameat (pending.backup_dirfd, pending.backup, pending.backup_dirfd,
              pending.backup_of);
  /* Once: another fatal signal may be pending behind this one.  */
  pending.restore = 0;
  /* --stats-file: the run did not end, and SIG ended it.  */
  whole_on_fatal_signal (sig);
  progress_clear_from_signal ();
  /* Die of the same signal, so the caller sees what happened.  */
  signal (sig, SIG_DFL);
  raise (sig);
}

static void
fatal_set (sigset_t *set)
{
  sigemptyset (set);
  for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
    sigaddset (set, fatal_signals[i]);
#ifdef SIGRTMIN
  /* Those the C library keeps for itself lie below SIGRTMIN.  */
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
    sigaddset (set, sig);
#endif
}

/* Handle SIG, one of the fatal signals SET, unless its disposition is
   not the default: one ignored by whoever started us stays ignored, and
   a handler already there (a profiler's SIGPROF, a sanitizer's SIGSEGV)
   stays.  */
static void
install_one (int sig, sigset_t const *set)
{
  struct sigaction old;
  if (sigaction (sig, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO)
      || old.sa_handler != SIG_DFL)
    return;
  struct sigaction sa = { .sa_sigaction = on_fatal_signal,
                          .sa_flags = SA_SIGINFO | SA_RESTART,
                          .sa_mask = *set };
  sigaction (sig, &sa, NULL);
}

void
dest_install_signals (void)
{
  sigset_t set;
  fatal_set (&set);
  for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
    install_one (fatal_signals[i], &set);
#ifdef SIGRTMIN
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
    install_one (sig, &set);
#endif
}

void
dest_hold_signals (void)
{
  if (my_slot)
    {
      __atomic_store_n (&slots[my_slot].busy, 1, __ATOMIC_SEQ_CST);
      if (!__atomic_load_n (&dying, __ATOMIC_SEQ_CST))
        return;
      /* The handler runs: it may have passed this slot already, so this
         step must not begin.  The process ends in a moment.  */
      __atomic_store_n (&slots[my_slot].busy, 0, __ATOMIC_SEQ_CST);
      for (;;)
        pause ();
    }
  sigset_t set;
  fatal_set (&set);
  sigprocmask (SIG_BLOCK, &set, NULL);
}

void
dest_release_signals (void)
{
  if (my_slot)
    {
      __atomic_store_n (&slots[my_slot].busy, 0, __ATOMIC_SEQ_CST);
      return;
    }
  sigset_t set;
  fatal_set (&set);
  sigprocmask (SIG_UNBLOCK, &set, NULL);
}

static void
arm_removal (int dirfd, char const *rel)
{
  slots[my_slot].remove_dirfd = dirfd;
  slots[my_slot].remove_rel = rel;
  slots[my_slot].remove = 1;
}

void
dest_guard_backup (int dirfd, char const *backup, char const *rel)
{
  pending.backup_dirfd = dirfd;
  pending.backup = backup;
  pending.backup_of = rel;
  pending.restore = 1;
}

void
dest_unguard_backup (void)
{
  pending.restore = 0;
}

void
dest_undo_backup (struct cp8m_options const *o, struct loc const *dst,
                  char const *backup)
{
  dest_hold_signals ();
  /* BACKUP is relative to DST->dirfd, as DST->rel is (make_backup).  */
  int r = renameat (dst->dirfd, backup, dst->dirfd, dst->rel);
  int err = errno;
  dest_unguard_backup ();
  dest_release_signals ();
  if (r != 0)
    error (0, err, "cannot un-backup %s", quote_file (dst->name));
  else if (o->verbose)
    {
      char *shown = sibling_name (dst->name, last_component (backup));
      diag_print ("%s -> %s (unbackup)\n", quote_file_n (0, shown),
                  quote_file_n (1, dst->name));
      free (shown);
    }
}

/* ---- creating ---- */

/* The directory part of REL ("." when it has none), for O_TMPFILE.  */
static char *
dir_part (char const *rel)
{
  size_t len = last_component (rel) - rel;
  return len ? ximemdup0 (rel, len) : xstrdup (".");
}

/* Errors of open (O_TMPFILE) that mean "not here", not a failure:
   filesystems without it, and kernels older than 3.11 (which see a plain
   O_DIRECTORY open).  */
static bool
tmpfile_refused (int err)
{
  return err == EOPNOTSUPP || err == ENOTSUP || err == EISDIR
         || err == EINVAL;
}

/* Make a file under a hidden, unused name beside D->loc: MAKE (with
   ARG) makes it under D->temp (LOC->rel's directory part and a hidden
   last part, relative to LOC->dirfd as LOC->rel is), with the fatal
   signals held, and the name is armed for removal.  Return what MAKE
   returned (-1 with errno on failure); EEXIST tries another name.  */
static int
make_tempname (struct dest *d, int (*make) (struct dest const *, void *),
               void *arg)
{
  struct loc const *loc = d->loc;
  size_t dirlen = last_component (loc->rel) - loc->rel;
  static char const digits[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  struct timespec now;
  clock_gettime (CLOCK_REALTIME, &now);
  unsigned long long x = now.tv_nsec ^ ((unsigned long long) getpid () << 32);
  d->temp = xmalloc (dirlen + sizeof ".cp8M-XXXXXX");
  memcpy (d->temp, loc->rel, dirlen);
  for (int tries = 0; tries < 1000; tries++)
    {
      char *p = stpcpy (d->temp + dirlen, ".cp8M-");
      for (int i = 0; i < 6; i++)
        {
          x = x * 6364136223846793005ULL + 1442695040888963407ULL;
          *p++ = digits[(x >> 33) % (sizeof digits - 1)];
        }
      *p = '\0';
      dest_hold_signals ();
      int r = make (d, arg);
      int err = errno;
      if (r >= 0)
        arm_removal (loc->dirfd, d->temp);
      dest_release_signals ();
      if (r >= 0 || err != EEXIST)
        {
          errno = err;
          return r;
        }
    }
  errno = EEXIST;
  return -1;
}

struct open_args { mode_t mode; int accmode; };

static int
open_excl (struct dest const *d, void *arg)
{
  struct open_args const *a = arg;
  /* D->temp is relative to LOC->dirfd, as LOC->rel is.  */
  return openat (d->loc->dirfd, d->temp,
                 a->accmode | O_CREAT | O_EXCL | O_CLOEXEC, a->mode);
}

/* A new file under a hidden name beside D->loc (D->temp), with O_EXCL
   and ACCMODE.  Return the descriptor, or -1 with errno (and D->temp
   NULL).  */
static int
create_tempname (struct dest *d, mode_t mode, int accmode)
{
  struct open_args a = { mode, accmode };
  int fd = make_tempname (d, open_excl, &a);
  if (fd < 0)
    {
      free (d->temp);
      d->temp = NULL;
    }
  return fd;
}

/* Create LOC under its own name with ACCMODE, armed for removal if
   ARM.  */
static int
create_at_name (struct loc const *loc, mode_t mode, int accmode, bool arm)
{
  dest_hold_signals ();
  int fd = openat (loc->dirfd, loc->rel,
                   accmode | O_CREAT | O_CLOEXEC | O_EXCL, mode);
  int err = errno;
  if (fd >= 0 && arm)
    arm_removal (loc->dirfd, loc->rel);
  dest_release_signals ();
  errno = err;
  return fd;
}

/* LOC is a symbolic link whose target does not exist.  */
static bool
dangling_symlink (struct loc const *loc)
{
  char dummy[1];
  struct stat st;
  return readlinkat (loc->dirfd, loc->rel, dummy, sizeof dummy) >= 0
         && fstatat (loc->dirfd, loc->rel, &st, 0) != 0 && errno == ENOENT;
}

/* An unnamed file beside LOC, open with ACCMODE (O_WRONLY or O_RDWR).  */
static int
open_tmpfile (struct loc const *loc, mode_t mode, int accmode)
{
  /* LOC->rel's directory part, relative as LOC->rel is.  */
  char *dir = dir_part (loc->rel);
  int fd = openat (loc->dirfd, dir, O_TMPFILE | accmode | O_CLOEXEC, mode);
  int err = errno;
  free (dir);
  errno = err;
  return fd;
}

bool
dest_create (struct dest *d, struct cp8m_options const *o,
             struct loc const *loc, mode_t mode, bool stream, bool *reported)
{
  *d = (struct dest) { .loc = loc, .fd = -1, .kind = DEST_TMPFILE };
  *reported = false;
  /* --verify reads the copy back: a file made here (with O_EXCL, or
     unnamed) is opened for reading too, so that its own descriptor can
     serve where no other open can (an unnamed file without /proc, a mode
     that lets its owner only write).  Not a file that may exist already
     (through a symlink): that one must be opened as GNU cp opens it.  */
  int accmode = o->verify || o->checksum_file ? O_RDWR : O_WRONLY;
  size_t len = strlen (loc->rel);
  if (len > 0 && loc->rel[len - 1] == '/')
    {
      /* This open fails, and its error is the one GNU reports.  */
      d->kind = DEST_AT_NAME;
      d->fd = create_at_name (loc, mode, O_WRONLY, true);
      return d->fd >= 0;
    }
  /* A name known not to exist is no link (one that appears meanwhile
     makes the final link fail, and is reported then).  */
  if (!loc->absent && dangling_symlink (loc))
    {
      if (!o->open_dangling_dest_symlink)
        {
          /* GNU's open (O_EXCL) fails on the link before anything else
             (a read-only or unwritable directory) can.  */
          error (0, 0, "not writing through dangling symlink %s",
                 quote_file (loc->name));
          *reported = true;
          return false;
        }
      /* The file made is the link's target, left as it is on failure,
         as GNU cp leaves it (LOC's name is the user's symlink, not ours
         to remove): nothing is armed.  Only through a link whose owner
         may be trusted (follow.h).  */
      d->kind = DEST_THROUGH_LINK;
      bool refused;
      d->fd = follow_openat (loc->dirfd, loc->rel,
                             O_WRONLY | O_CREAT | O_CLOEXEC, mode, &refused,
                             &d->link_st);
      if (refused)
        {
          follow_refused (loc->name);
          *reported = true;
        }
      return d->fd >= 0;
    }
  if (stream)
    {
      d->kind = DEST_STREAM;
      d->fd = create_at_name (loc, mode, accmode, false);
      /* A fatal signal keeps what was read (and a --backup beside it),
         as GNU cp does: it must not put the backup back over it.  A
         failure still does, as GNU's does.  */
      if (d->fd >= 0)
        dest_unguard_backup ();
      return d->fd >= 0;
    }

  d->fd = open_tmpfile (loc, mode, accmode);
  int err = errno;
  if (d->fd < 0 && tmpfile_refused (err))
    {
      d->kind = DEST_TEMPNAME;
      d->fd = create_tempname (d, mode, accmode);
      err = errno;
    }
  errno = err;
  return d->fd >= 0;
}

void
dest_existing (struct dest *d, struct loc const *loc, int fd)
{
  *d = (struct dest) { .loc = loc, .fd = fd, .kind = DEST_EXISTING };
}

/* May this process write the file LOC, open as the O_PATH descriptor
   FD?  The check an open for writing makes, asked of the node.  */
static bool
writable (struct loc const *loc, int fd)
{
  struct node n;
  node_of_fd (&n, loc, fd, S_IFREG, true);
  return node_access (&n, W_OK) == 0;
}

int
dest_open_old (struct loc const *loc, struct stat const *lst)
{
  /* LOC->rel: relative to LOC->dirfd, as the struct loc names are.  */
  int fd = openat (loc->dirfd, loc->rel, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (fd >= 0
      && (fstat (fd, &st) != 0 || !SAME_INODE (st, *lst)
          || !writable (loc, fd)))
    {
      close (fd);
      fd = -1;
    }
  return fd;
}

/* Give the replacement D (open as FD) what a rewrite in place keeps of
   the old file OLD (an O_PATH descriptor; of status ST): owner, then
   extended attributes, then ACL and mode.  Return false after
   reporting.  */
static bool
keep_old_attributes (struct loc const *loc, int old, int fd,
                     struct stat const *st)
{
  /* The owner first: a change of owner clears the set-user-ID bit.  One
     this process may not give (not root) stays its own.  */
  if (st->st_uid != geteuid () || st->st_gid != getegid ())
    (void) fchown (fd, st->st_uid, st->st_gid);
  struct node on, nn;
  node_of_fd (&on, loc, old, S_IFREG, true);
  on.source = true;
  node_of_fd (&nn, loc, fd, S_IFREG, false);
  /* The mode with the ACL: qcopy_acl gives the old mode, special bits
     included, when the old file has no ACL.  */
  return keep_xattrs (&on, &nn) && copy_node_acl (&on, &nn, st->st_mode) == 0;
}

bool
dest_replace (struct dest *d, struct cp8m_options const *o,
              struct loc const *loc, int old_fd, bool *reported)
{
  *reported = false;
  struct stat st;
  int err = fstat (old_fd, &st) == 0 ? 0 : errno;
  *d = (struct dest) { .loc = loc, .fd = -1, .kind = DEST_REPLACE };
  if (err)
    {
      close (old_fd);
      errno = err;
      return false;
    }
  /* Owner-only until its mode is set below, past the umask.  */
  int accmode = o->verify || o->checksum_file ? O_RDWR : O_WRONLY;
  d->fd = open_tmpfile (loc, S_IRUSR | S_IWUSR, accmode);
  if (d->fd < 0 && tmpfile_refused (errno))
    d->fd = create_tempname (d, S_IRUSR | S_IWUSR, accmode);
  if (d->fd >= 0 && !keep_old_attributes (loc, old_fd, d->fd, &st))
    {
      /* Reported: the old file stays as it is.  */
      dest_abort (d);
      *reported = true;
    }
  err = errno;
  close (old_fd);
  errno = err;
  return d->fd >= 0;
}

bool
dest_visible (struct dest const *d)
{
  return d->kind == DEST_EXISTING || d->kind == DEST_AT_NAME
         || d->kind == DEST_THROUGH_LINK || d->kind == DEST_STREAM;
}

char const *
dest_describe (struct dest const *d)
{
  switch (d->kind)
    {
    case DEST_EXISTING:
      return "existing file, overwritten in place";
    case DEST_THROUGH_LINK:
      return "new file, created through a dangling symbolic link";
    case DEST_TMPFILE:
      return "new file, unnamed until complete (O_TMPFILE)";
    case DEST_TEMPNAME:
      return "new file, under a temporary name until complete";
    case DEST_STREAM:
      return "new file under its name, written as the stream arrives";
    case DEST_REPLACE:
      return "existing file, replaced by a new one when complete (--atomic)";
    default:
      return "new file, created under its name";
    }
}

/* ---- finishing ---- */

/* Write the data of the new file open as FD to its device and wait until
   it is there: then give it its name.  Without this, a power loss can
   find the name and not the data.  The name goes into the filesystem's
   journal with the next commit (ext4 commits every 5 s, and at any
   program's fsync on the same filesystem), while data written through
   the page cache waits for writeback (up to 30 s): ext4 then shows the
   file empty under its final name, and had writeback started but not
   ended, it could show the size and zeros.  Once writeback has ended,
   the blocks and size are in the journal at or before the name's commit
   (ext4's unwritten extents are converted before the pages leave
   writeback).  sync_file_range rather than fdatasync: it commits no
   journal and flushes no device cache, which the name does not need
   (--sync flushes, sync.h); on 10,000 small files fdatasync took some
   4 times as long as this again.  The wait is one device round trip per
   file written through the page cache (the manual, "Data safety", has its
   cost); data written with direct I/O leaves nothing to wait for.
   Return true, or false after reporting.  */
static bool
data_before_name (int fd, char const *name)
{
#ifdef HAVE_SYNC_FILE_RANGE
  if (sync_file_range (fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE
                                 | SYNC_FILE_RANGE_WRITE
                                 | SYNC_FILE_RANGE_WAIT_AFTER) == 0)
    return true;
  int err = errno;
  if (err != EINVAL && err != ENOSYS && err != ESPIPE)
    {
      error (0, err, "error writing %s", quote_file (name));
      return false;
    }
#endif
  /* Elsewhere, and where the call is refused, the portable way.  */
  if (fdatasync (fd) == 0 || errno == EINVAL)
    return true;
  error (0, errno, "error writing %s", quote_file (name));
  return false;
}

/* Give the unnamed file open as FD the name REL in DIRFD (relative to it,
   as the struct loc names it comes from are).  */
static int
link_tmpfile (int fd, int dirfd, char const *rel)
{
  if (linkat (fd, "", dirfd, rel, AT_EMPTY_PATH) == 0)
    return 0;
  /* Without CAP_DAC_READ_SEARCH (before Linux 6.10), only the magic link
     in /proc names an unlinked file: an absolute name, on purpose.  */
  char path[32];
  snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
  return linkat (AT_FDCWD, path, dirfd, rel, AT_SYMLINK_FOLLOW);
}

int
dest_link_fd (int fd, int dirfd, char const *rel)
{
  /* REL: relative to DIRFD, as the struct loc names are.  */
  return link_tmpfile (fd, dirfd, rel);
}

int
dest_new_owner (struct loc const *loc, uid_t *owner)
{
  struct dest d = { .loc = loc, .fd = -1, .kind = DEST_TMPFILE };
  /* Unnamed: no one can put anything else in its place.  */
  d.fd = open_tmpfile (loc, S_IRUSR | S_IWUSR, O_WRONLY);
  if (d.fd < 0 && tmpfile_refused (errno))
    {
      /* O_EXCL: the descriptor is of the file this made, whatever its
         name holds by the time it is removed again.  */
      d.kind = DEST_TEMPNAME;
      d.fd = create_tempname (&d, S_IRUSR | S_IWUSR, O_WRONLY);
    }
  if (d.fd < 0)
    return -1;
  struct stat st;
  int r = fstat (d.fd, &st);
  int err = errno;
  if (r == 0)
    *owner = st.st_uid;
  /* Closed, and a hidden name removed (and disarmed).  */
  dest_abort (&d);
  errno = err;
  return r;
}

static int
link_excl (struct dest const *d, void *arg)
{
  return link_tmpfile (*(int const *) arg, d->loc->dirfd, d->temp);
}

/* Report that D could not take its name, for the cause ERR.  */
static void
report_name_failure (struct dest const *d, int err)
{
  if (err == EEXIST && dangling_symlink (d->loc))
    error (0, 0, "not writing through dangling symlink %s",
           quote_file (d->loc->name));
  else
    error (0, err, "cannot create regular file %s",
           quote_file (d->loc->name));
}

/* dest_commit of the --atomic replacement D, open as FD: its data on
   the device, a hidden name if it has none (rename needs one), then that
   name renamed over the old file, in one step.  */
static bool
commit_replace (struct dest *d, int fd)
{
  struct loc const *loc = d->loc;
  bool ok = data_before_name (fd, loc->name);
  if (ok && !d->temp && make_tempname (d, link_excl, &fd) < 0)
    {
      /* No name was made: D->temp is none of ours to remove.  */
      int err = errno;
      free (d->temp);
      d->temp = NULL;
      error (0, err, "cannot create regular file %s", quote_file (loc->name));
      ok = false;
    }
  int close_err = close (fd) != 0 ? errno : 0;
  if (ok && close_err)
    {
      error (0, close_err, "failed to close %s", quote_file (loc->name));
      ok = false;
    }
  /* Nothing in the step may allocate (its messages do): a fatal signal's
     handler, on the walk's thread and perhaps within malloc, waits for
     the steps of files in flight to end.  */
  int rename_err = 0;
  dest_hold_signals ();
  /* D->temp is relative to LOC->dirfd, as LOC->rel is.  */
  if (ok && renameat (loc->dirfd, d->temp, loc->dirfd, loc->rel) != 0)
    {
      rename_err = errno;
      ok = false;
    }
  if (!ok && d->temp)
    /* D->temp: relative to LOC->dirfd, as LOC->rel is.  */
    unlinkat (loc->dirfd, d->temp, 0);
  slots[my_slot].remove = 0;
  dest_release_signals ();
  if (rename_err)
    error (0, rename_err, "cannot create regular file %s",
           quote_file (loc->name));
  free (d->temp);
  d->temp = NULL;
  return ok;
}

bool
dest_commit (struct dest *d)
{
  struct loc const *loc = d->loc;
  int fd = d->fd;
  d->fd = -1;
  if (d->kind == DEST_TMPFILE)
    {
      if (!data_before_name (fd, loc->name))
        {
          close (fd);
          return false;
        }
      if (link_tmpfile (fd, loc->dirfd, loc->rel) != 0)
        {
          report_name_failure (d, errno);
          close (fd);
          return false;
        }
      if (close (fd) != 0)
        {
          /* The data may not have reached the file (NFS reports late
             write errors here): the name must not stay.  */
          error (0, errno, "failed to close %s", quote_file (loc->name));
          unlinkat (loc->dirfd, loc->rel, 0);
          return false;
        }
      return true;
    }

  if (d->kind == DEST_REPLACE)
    return commit_replace (d, fd);

  /* A hidden temporary's data, like an O_TMPFILE's, before its name.  */
  bool data_ok = d->kind != DEST_TEMPNAME || data_before_name (fd, loc->name);
  int close_err = close (fd) != 0 ? errno : 0;
  if (close_err && data_ok)
    error (0, close_err, "failed to close %s", quote_file (loc->name));
  if (d->kind == DEST_EXISTING || d->kind == DEST_THROUGH_LINK
      || d->kind == DEST_STREAM)
    return !close_err;

  /* Nothing in the step may allocate (commit_replace says why).  */
  int name_err = 0;
  dest_hold_signals ();
  bool ok = data_ok && !close_err;
  /* D->temp is relative to LOC->dirfd, as LOC->rel is.  */
  if (d->kind == DEST_TEMPNAME)
    {
      if (ok && renameatu (loc->dirfd, d->temp, loc->dirfd, loc->rel,
                           RENAME_NOREPLACE) != 0)
        {
          name_err = errno;
          ok = false;
        }
      if (!ok)
        /* D->temp: relative to LOC->dirfd, as LOC->rel is.  */
        unlinkat (loc->dirfd, d->temp, 0);
    }
  else if (!ok)
    unlinkat (loc->dirfd, loc->rel, 0);
  slots[my_slot].remove = 0;
  dest_release_signals ();
  if (name_err)
    report_name_failure (d, name_err);
  free (d->temp);
  d->temp = NULL;
  return ok;
}

void
dest_abort (struct dest *d)
{
  if (d->fd >= 0)
    close (d->fd);
  d->fd = -1;
  /* Remove and disarm as one step: a signal in between would remove the
     name a second time, perhaps someone else's new file.  */
  dest_hold_signals ();
  /* D->temp is relative to the directory, as D->loc->rel is.  */
  if (d->temp)
    unlinkat (d->loc->dirfd, d->temp, 0);
  else if (d->kind == DEST_AT_NAME)
    unlinkat (d->loc->dirfd, d->loc->rel, 0);
  slots[my_slot].remove = 0;
  dest_release_signals ();
  free (d->temp);
  d->temp = NULL;
}

char *
sibling_name (char const *name, char const *base)
{
  size_t dirlen = last_component (name) - name;
  char *s = xmalloc (dirlen + strlen (base) + 1);
  memcpy (s, name, dirlen);
  strcpy (s + dirlen, base);
  return s;
}
