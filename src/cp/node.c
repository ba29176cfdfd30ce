/* Metadata calls on a descriptor of the node, never on its name (the
   rule is written in node.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "node.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "copy.h"
#include "dest.h"
#include "diag.h"
#include "error.h"
#include "same-inode.h"

#ifndef AT_EMPTY_PATH
# define AT_EMPTY_PATH 0x1000
#endif
/* fchmodat2 (Linux 6.6): glibc 2.36 has no name for it.  */
#if !defined SYS_fchmodat2 && defined __linux__ \
    && (defined __x86_64__ || defined __aarch64__ || defined __i386__)
# define SYS_fchmodat2 452
#endif

static void
node_init (struct node *n, int dirfd, char const *rel, char const *name,
           mode_t type)
{
  *n = (struct node) { .fd = -1, .dirfd = dirfd, .rel = rel, .name = name,
                       .type = type };
}

/* Whose is a node this process makes?  Its own (the effective user ID),
   on most file systems.  Some give new nodes another owner: NFS
   exported with root_squash gives root's the anonymous user's, a vfat
   or FUSE mount with uid= gives every node that one.  There, the owner
   is learnt from a node this process made in that directory, unnamed
   or under an O_EXCL name, and seen through its own descriptor
   (dest_new_owner): no one else can have put it there.  It is a rule of
   the mount, so it is remembered per device (a few of them), and asked
   again in a directory where a node does not match it.  */
enum { LEARNT_OWNERS = 8 };
static struct
{
  dev_t dev;
  uid_t uid;
} learnt[LEARNT_OWNERS];
static unsigned int n_learnt;
static pthread_mutex_t learnt_lock = PTHREAD_MUTEX_INITIALIZER;

/* Is UID, the owner of a node on device DEV beside LOC, the one this
   process's new nodes there get?  */
static bool
owner_of_new_nodes (struct loc const *loc, dev_t dev, uid_t uid)
{
  if (uid == geteuid ())
    return true;
  /* Jobs (jobs.h) learn and look up at once.  */
  bool known = false;
  pthread_mutex_lock (&learnt_lock);
  for (unsigned int i = 0; i < n_learnt && i < LEARNT_OWNERS; i++)
    known |= learnt[i].dev == dev && learnt[i].uid == uid;
  pthread_mutex_unlock (&learnt_lock);
  if (known)
    return true;
  uid_t owner;
  if (dest_new_owner (loc, &owner) != 0 || owner != uid)
    return false;
  pthread_mutex_lock (&learnt_lock);
  learnt[n_learnt++ % LEARNT_OWNERS] = (typeof (*learnt)) { dev, owner };
  pthread_mutex_unlock (&learnt_lock);
  return true;
}

/* LOC, open as FD, is not the node this run made: say so, close FD.  */
static bool
not_made (struct loc const *loc, int fd)
{
  error (0, 0, "%s was replaced while being copied", quote_file (loc->name));
  close (fd);
  return false;
}

/* node_open_made, or node_try_made when QUIET_EMFILE.  */
static bool
open_made (struct node *n, struct loc const *loc, mode_t type, dev_t rdev,
           struct stat *st, bool quiet_emfile)
{
  node_init (n, loc->dirfd, loc->rel, loc->name, type);
  int fd = openat (loc->dirfd, loc->rel, O_PATH | O_NOFOLLOW | O_CLOEXEC
                   | (S_ISDIR (type) ? O_DIRECTORY : 0));
  if (fd < 0 && quiet_emfile && (errno == EMFILE || errno == ENFILE))
    return false;
  if (fd < 0 || fstat (fd, st) != 0)
    {
      error (0, errno, "cannot stat %s", quote_file (loc->name));
      if (fd >= 0)
        close (fd);
      return false;
    }
  /* What mkdir, mknod or symlink made has this type and one link (a
     directory has its own count); another file put under the name, or a
     hard link to one, does not.  */
  if ((st->st_mode & S_IFMT) != type
      || (type != S_IFDIR && st->st_nlink != 1)
      || ((S_ISCHR (type) || S_ISBLK (type)) && st->st_rdev != rdev))
    {
      return not_made (loc, fd);
    }
  /* Nor does a node of that type that another user made and put under
     the name meanwhile (renaming cp8M's away): it is theirs, not ours.
     Where the owner of new nodes is learnt, a user whom the file system
     gives the same owner is not told apart: cp8M's changes there are
     no more than that user could make.  */
  if (!owner_of_new_nodes (loc, st->st_dev, st->st_uid))
    return not_made (loc, fd);
  n->fd = fd;
  n->path_only = n->own_fd = true;
  return true;
}

bool
node_open_made (struct node *n, struct loc const *loc, mode_t type,
                dev_t rdev, struct stat *st)
{
  return open_made (n, loc, type, rdev, st, false);
}

bool
node_try_made (struct node *n, struct loc const *loc, mode_t type,
               dev_t rdev, struct stat *st)
{
  return open_made (n, loc, type, rdev, st, true);
}

bool
node_open_seen (struct node *n, int dirfd, char const *rel,
                char const *name, struct stat const *seen, bool follow)
{
  /* REL: relative to DIRFD, absolute only with AT_FDCWD (struct loc).  */
  node_init (n, dirfd, rel, name, seen->st_mode & S_IFMT);
  int fd = openat (dirfd, rel,
                   O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW)
                   | (S_ISDIR (seen->st_mode) ? O_DIRECTORY : 0));
  if (fd < 0)
    return false;
  struct stat st;
  if (fstat (fd, &st) != 0 || !SAME_INODE (st, *seen))
    {
      close (fd);
      /* What was seen is gone from that name.  */
      errno = ENOENT;
      return false;
    }
  n->fd = fd;
  n->path_only = n->own_fd = true;
  return true;
}

void
node_of_fd (struct node *n, struct loc const *loc, int fd, mode_t type,
            bool path_only)
{
  node_init (n, loc->dirfd, loc->rel, loc->name, type);
  n->fd = fd;
  n->path_only = path_only;
}

void
node_close (struct node *n)
{
  if (n->own_fd && n->fd >= 0)
    close (n->fd);
  n->fd = -1;
}

/* ---- the last resort: no /proc ---- */

/* The node's name in /proc/self/fd, in BUF.  */
static char const *
proc_name (struct node const *n, char buf[static NODE_PROC_NAME])
{
  snprintf (buf, NODE_PROC_NAME, "/proc/self/fd/%d", n->fd);
  return buf;
}

/* A call through a /proc name failed with ERR: is that because there is
   no /proc (a chroot, an early boot), rather than the call's own
   failure?  */
static bool
no_proc (int err)
{
  return err == ENOENT && access ("/proc/self/fd", F_OK) != 0;
}

/* Does the node's whole name still hold the node, not following a
   symbolic link?  Then a call by that name that does not follow one
   reaches the node (short of a swap in the instant after this check:
   only where /proc and the descriptor calls are missing).  The check
   looks the name up as the call will: from the working directory, the
   directories on the way included.  */
static bool
name_holds_node (struct node const *n)
{
  struct stat a, b;
  /* The whole name: absolute when the user's is, hence AT_FDCWD.  */
  if (fstat (n->fd, &a) != 0
      || fstatat (AT_FDCWD, n->name, &b, AT_SYMLINK_NOFOLLOW) != 0)
    return false;
  if (!SAME_INODE (a, b))
    {
      errno = ENOENT;
      return false;
    }
  return true;
}

/* ---- the calls ---- */

int
node_stat (struct node const *n, struct stat *st)
{
  if (n->fd < 0)
    return fstatat (n->dirfd, n->rel, st, AT_SYMLINK_NOFOLLOW);
  return fstat (n->fd, st);
}

int
node_chown (struct node const *n, uid_t uid, gid_t gid)
{
  if (!n->path_only)
    return fchown (n->fd, uid, gid);
  /* Of a symbolic link, the link itself, as lchown.  */
  return fchownat (n->fd, "", uid, gid, AT_EMPTY_PATH);
}

int
node_chmod (struct node const *n, mode_t mode)
{
  if (!n->path_only)
    return fchmod (n->fd, mode);
  /* A symbolic link's mode means nothing, and lchmod is refused on
     Linux: GNU cp never sets it.  */
  if (S_ISLNK (n->type))
    {
      errno = EOPNOTSUPP;
      return -1;
    }
  char buf[NODE_PROC_NAME];
  if (chmod (proc_name (n, buf), mode) == 0)
    return 0;
  if (!no_proc (errno))
    return -1;
#ifdef SYS_fchmodat2
  /* Only fchmodat2 (Linux 6.6) changes an O_PATH node's mode without
     /proc.  Tried second: it is new, and some container filters answer
     EPERM for calls they do not know.  */
  if (syscall (SYS_fchmodat2, n->fd, "", mode, AT_EMPTY_PATH) == 0)
    return 0;
  if (errno != ENOSYS && errno != EPERM && errno != EINVAL)
    return -1;
#endif
  /* Only a chmod that follows the name is left: refused.  */
  errno = EOPNOTSUPP;
  return -1;
}

int
node_utimens (struct node const *n, struct timespec const ts[2])
{
  if (!n->path_only)
    return futimens (n->fd, ts);
  if (utimensat (n->fd, "", ts, AT_EMPTY_PATH) == 0)
    return 0;
  /* EINVAL: a kernel without AT_EMPTY_PATH here.  The /proc name ends
     on the node, a symbolic link included, and goes no further.  */
  if (errno != EINVAL)
    return -1;
  char buf[NODE_PROC_NAME];
  /* The absolute /proc name, on purpose.  */
  if (utimensat (AT_FDCWD, proc_name (n, buf), ts, 0) == 0)
    return 0;
  if (!no_proc (errno) || !name_holds_node (n))
    return -1;
  /* The whole name (absolute when the user's is), as checked.  */
  return utimensat (AT_FDCWD, n->name, ts, AT_SYMLINK_NOFOLLOW);
}

int
node_access (struct node const *n, int mode)
{
  char buf[NODE_PROC_NAME];
  /* The absolute /proc name, on purpose: it ends on the node.  */
  if (faccessat (AT_FDCWD, proc_name (n, buf), mode, AT_EACCESS) == 0)
    return 0;
  if (!no_proc (errno))
    return -1;
  /* REL: relative to DIRFD, as the struct loc names are.  */
  return faccessat (n->dirfd, n->rel, mode,
                    AT_EACCESS | AT_SYMLINK_NOFOLLOW);
}

/* The extended-attribute calls: on the descriptor when it can read and
   write, else on its /proc name (which ends on the node), else on the
   checked name without following it.  A source not opened (FD -1) is
   read by its name, as it always was; a symbolic link without following
   it (its own attributes).  */

ssize_t
node_listxattr (struct node const *n, char *buf, size_t size)
{
  if (n->fd < 0)
    return S_ISLNK (n->type) ? llistxattr (n->name, buf, size)
           : listxattr (n->name, buf, size);
  if (!n->path_only)
    return flistxattr (n->fd, buf, size);
  char p[NODE_PROC_NAME];
  ssize_t r = listxattr (proc_name (n, p), buf, size);
  if (r < 0 && no_proc (errno) && name_holds_node (n))
    r = llistxattr (n->name, buf, size);
  return r;
}

ssize_t
node_getxattr (struct node const *n, char const *attr, void *buf,
               size_t size)
{
  if (n->fd < 0)
    return S_ISLNK (n->type) ? lgetxattr (n->name, attr, buf, size)
           : getxattr (n->name, attr, buf, size);
  if (!n->path_only)
    return fgetxattr (n->fd, attr, buf, size);
  char p[NODE_PROC_NAME];
  ssize_t r = getxattr (proc_name (n, p), attr, buf, size);
  if (r < 0 && no_proc (errno) && name_holds_node (n))
    r = lgetxattr (n->name, attr, buf, size);
  return r;
}

int
node_setxattr (struct node const *n, char const *attr, void const *buf,
               size_t size)
{
  if (!n->path_only)
    return fsetxattr (n->fd, attr, buf, size, 0);
  char p[NODE_PROC_NAME];
  int r = setxattr (proc_name (n, p), attr, buf, size, 0);
  if (r < 0 && no_proc (errno) && name_holds_node (n))
    r = lsetxattr (n->name, attr, buf, size, 0);
  return r;
}

char const *
node_acl_name (struct node const *n, int *desc,
               char buf[static NODE_PROC_NAME])
{
  *desc = n->path_only ? -1 : n->fd;
  /* A source not opened is read by name; a regular file open for I/O
     never needs one (gnulib uses the descriptor on Linux).  */
  if (n->fd < 0 || (!n->path_only && !S_ISDIR (n->type)))
    return n->name;
  if (access (proc_name (n, buf), F_OK) == 0)
    return buf;
  if (n->source || (!n->path_only && name_holds_node (n)))
    return n->name;
  errno = EOPNOTSUPP;
  return NULL;
}
