/* latfs: a pass-through FUSE file system where every request costs time.

   Usage: latfs [-f] [-o OPTIONS] SOURCE MOUNTPOINT

   It mirrors the directory SOURCE at MOUNTPOINT, as a stand-in for NFS:
   each request that would be a round trip to an NFS server (lookup,
   getattr, open, read, write, rename, ...) sleeps DELAY microseconds
   before it is served.  The sleep happens in the worker thread that took
   the request, and THREADS workers take requests at once, so requests a
   program issues concurrently overlap as they do over a network, and
   requests issued one after another add up.  (libfuse's own
   multi-threaded loop starts threads on demand and caps the idle ones;
   a fixed pool of our own keeps the overlap predictable.)

   Options (-o, beside libfuse's: allow_other, default_permissions, ...):
     delay=US       microseconds per request (default 1000)
     threads=N      worker threads (default 64)
     timeout=SEC    how long the kernel may trust names and attributes
                    (default 1.0, about NFS's attribute cache)
     stats=PATH     write the request counters there on SIGUSR1 and when
                    unmounted: one "KIND COUNT" line per kind (counts
                    since the mount), then "max_in_flight N", the most
                    requests served at once since the last write
     direct_io      every open file bypasses the page cache (as NFS's
                    forcedirectio): each read and write is a request

   Like many NFS servers it refuses O_TMPFILE (EOPNOTSUPP) and
   copy_file_range (ENOSYS), and it does not implement fallocate or
   SEEK_DATA.  security.* extended attributes (the kernel asks for
   security.capability before every write) are served without delay
   and counted apart, as "security_xattr"; "forget" is not delayed
   either (the kernel sends it without waiting for an answer).

   Build: cc -O2 -Wall -Wextra latfs.c $(pkg-config --cflags --libs fuse3)
          -lpthread
   Unmount with umount or fusermount3 -u; SIGTERM unmounts too.  */

#define _GNU_SOURCE
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>
#include <linux/fuse.h>   /* the protocol's structures, for amend_reply */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Request kinds and their counters.                                   */

#define KINDS(X) X(lookup) X(getattr) X(setattr) X(readlink) X(mknod) \
  X(mkdir) X(unlink) X(rmdir) X(symlink) X(rename) X(link) X(open) \
  X(read) X(write) X(flush) X(release) X(fsync) X(opendir) X(readdir) \
  X(releasedir) X(fsyncdir) X(statfs) X(setxattr) X(getxattr) \
  X(listxattr) X(removexattr) X(create) X(copy_file_range) \
  X(security_xattr) X(forget)
#define AS_ENUM(k) K_##k,
#define AS_NAME(k) #k,
enum kind { KINDS (AS_ENUM) NKINDS };
static const char *const kind_name[NKINDS] = { KINDS (AS_NAME) };

static atomic_ulong count[NKINDS];
static atomic_long in_flight, max_in_flight;

static struct
{
  unsigned delay_us;     /* -o delay= */
  unsigned threads;      /* -o threads= */
  double timeout;        /* -o timeout= */
  char *stats;           /* -o stats= */
  int direct_io;         /* -o direct_io */
  char *source;          /* the first non-option argument */
} opt = { 1000, 64, 1.0, NULL, 0, NULL };

/* round_trip: count a request of KIND and make it cost the delay, as a
   round trip to a server would.  Runs in the worker serving it.  */
static void
round_trip (enum kind k)
{
  atomic_fetch_add (&count[k], 1);
  if (opt.delay_us)
    {
      struct timespec ts = { opt.delay_us / 1000000,
                             (opt.delay_us % 1000000) * 1000L };
      while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
        continue;
    }
}

/* write_stats: the counters to opt.stats, written whole under a
   temporary name and renamed, so a reader waiting for the file to appear
   never sees half of it.  Starts a new max_in_flight period.  */
static void
write_stats (void)
{
  if (!opt.stats)
    return;
  char tmp[PATH_MAX];
  snprintf (tmp, sizeof tmp, "%s.tmp", opt.stats);
  FILE *f = fopen (tmp, "w");
  if (!f)
    {
      perror (tmp);
      return;
    }
  for (int k = 0; k < NKINDS; k++)
    fprintf (f, "%s %lu\n", kind_name[k], atomic_load (&count[k]));
  fprintf (f, "max_in_flight %ld\n",
           atomic_exchange (&max_in_flight, atomic_load (&in_flight)));
  if (fclose (f) != 0 || rename (tmp, opt.stats) != 0)
    perror (opt.stats);
}

/* ------------------------------------------------------------------ */
/* Inodes: the kernel's node id is a pointer to one of these.  Each
   holds an O_PATH descriptor of its file in SOURCE, and the number of
   lookups the kernel has not yet forgotten.  One node per (dev, ino)
   so that hard links share a node id, as they share an inode.  */

struct node
{
  dev_t dev;
  ino_t ino;
  int fd;
  uint64_t nlookup;
  struct node *next;    /* in its hash chain */
};

#define NBUCKETS 4096
static struct node *bucket[NBUCKETS];
static pthread_mutex_t node_lock = PTHREAD_MUTEX_INITIALIZER;
static struct node root;

static struct node *
node_of (fuse_ino_t ino)
{
  return ino == FUSE_ROOT_ID ? &root : (struct node *) (uintptr_t) ino;
}

static size_t
hash (dev_t dev, ino_t ino)
{
  return (ino ^ (dev * 31)) % NBUCKETS;
}

/* node_get: the node of the file FD (O_PATH) whose status is ST, with
   one more lookup; FD is kept by a new node or closed.  NULL when out
   of memory (FD closed).  */
static struct node *
node_get (int fd, const struct stat *st)
{
  pthread_mutex_lock (&node_lock);
  struct node **b = &bucket[hash (st->st_dev, st->st_ino)], *n;
  for (n = *b; n; n = n->next)
    if (n->dev == st->st_dev && n->ino == st->st_ino)
      break;
  if (!n && (n = calloc (1, sizeof *n)))
    {
      n->dev = st->st_dev, n->ino = st->st_ino, n->fd = fd;
      n->next = *b;
      *b = n;
    }
  else
    close (fd);
  if (n)
    n->nlookup++;
  pthread_mutex_unlock (&node_lock);
  return n;
}

static void
node_forget (struct node *n, uint64_t nlookup)
{
  if (n == &root)
    return;
  pthread_mutex_lock (&node_lock);
  n->nlookup -= nlookup;
  if (n->nlookup == 0)
    {
      struct node **p = &bucket[hash (n->dev, n->ino)];
      while (*p != n)
        p = &(*p)->next;
      *p = n->next;
      close (n->fd);
      free (n);
    }
  pthread_mutex_unlock (&node_lock);
}

/* proc_path: a name that reaches node N's file through /proc, for the
   calls that take no O_PATH descriptor (open, chmod, truncate, xattrs).  */
static void
proc_path (char buf[64], const struct node *n)
{
  snprintf (buf, 64, "/proc/self/fd/%d", n->fd);
}

/* ------------------------------------------------------------------ */
/* Replies.                                                            */

/* entry_of: look NAME up in directory PARENT and fill E (a new lookup
   of its node).  0 or an errno value.  */
static int
entry_of (fuse_ino_t parent, const char *name, struct fuse_entry_param *e)
{
  memset (e, 0, sizeof *e);
  int fd = openat (node_of (parent)->fd, name, O_PATH | O_NOFOLLOW);
  if (fd < 0)
    return errno;
  if (fstatat (fd, "", &e->attr, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0)
    {
      int err = errno;
      close (fd);
      return err;
    }
  struct node *n = node_get (fd, &e->attr);
  if (!n)
    return ENOMEM;
  e->ino = (uintptr_t) n;
  e->attr_timeout = e->entry_timeout = opt.timeout;
  return 0;
}

static void
reply_entry (fuse_req_t req, fuse_ino_t parent, const char *name)
{
  struct fuse_entry_param e;
  int err = entry_of (parent, name, &e);
  if (err)
    fuse_reply_err (req, err);
  else
    fuse_reply_entry (req, &e);
}

/* owned_by_caller: give a node just made as root (NAME in PARENT) to the
   user who asked for it, as a server would; the group stays as made
   where the directory is set-group-ID.  */
static int
owned_by_caller (fuse_req_t req, fuse_ino_t parent, const char *name)
{
  const struct fuse_ctx *c = fuse_req_ctx (req);
  struct stat dir;
  int pfd = node_of (parent)->fd;
  if (c->uid == 0 && c->gid == 0)
    return 0;
  if (fstatat (pfd, "", &dir, AT_EMPTY_PATH) != 0)
    return errno;
  gid_t gid = dir.st_mode & S_ISGID ? (gid_t) -1 : c->gid;
  return fchownat (pfd, name, c->uid, gid, AT_SYMLINK_NOFOLLOW) ? errno : 0;
}

/* made: the reply to a request that made NAME in PARENT (RES is the
   making call's result).  */
static void
made (fuse_req_t req, fuse_ino_t parent, const char *name, int res)
{
  int err = res == 0 ? owned_by_caller (req, parent, name) : errno;
  if (err)
    fuse_reply_err (req, err);
  else
    reply_entry (req, parent, name);
}

/* ------------------------------------------------------------------ */
/* Two flags libfuse 3.14.0 cannot send (it drops PARALLEL_DIROPS from
   its answer to INIT, and has no field for PARALLEL_DIRECT_WRITES): a
   handler about to reply sets amend_flags in its own thread, and our
   writev of the reply adds them, to the INIT answer's flags or to the
   open answer at the end of an open or create reply.  */

static __thread uint32_t amend_flags;

static ssize_t
io_writev (int fd, struct iovec *iov, int count, void *data)
{
  (void) data;
  struct iovec *last = &iov[count - 1];
  if (amend_flags && count > 1
      && last->iov_len >= sizeof (struct fuse_open_out))
    {
      if (amend_flags & FUSE_PARALLEL_DIROPS
          && last->iov_len >= sizeof (struct fuse_init_out))
        ((struct fuse_init_out *) last->iov_base)->flags |= amend_flags;
      else if (amend_flags & FOPEN_PARALLEL_DIRECT_WRITES)
        ((struct fuse_open_out *) ((char *) last->iov_base + last->iov_len
                                   - sizeof (struct fuse_open_out)))
          ->open_flags |= amend_flags;
    }
  amend_flags = 0;
  return writev (fd, iov, count);
}

static ssize_t
io_read (int fd, void *buf, size_t len, void *data)
{
  (void) data;
  return read (fd, buf, len);
}

/* io_splice_send: read replies move from SOURCE's file to the kernel
   through a pipe, uncopied (without it, a custom io copies them).  */
static ssize_t
io_splice_send (int fdin, off_t *offin, int fdout, off_t *offout,
                size_t len, unsigned flags, void *data)
{
  (void) data;
  return splice (fdin, offin, fdout, offout, len, flags);
}

/* ------------------------------------------------------------------ */
/* The operations.                                                     */

static void
lat_init (void *data, struct fuse_conn_info *conn)
{
  (void) data;
  /* Read-ahead and asynchronous requests may be as many as the workers,
     as an NFS client keeps many READs outstanding.  */
  conn->max_background = opt.threads;
  /* Lookups and creations in one directory run at once, as on NFS
     (without this the kernel serializes them per directory).  */
  if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
    amend_flags = FUSE_PARALLEL_DIROPS;
}

static void
lat_lookup (fuse_req_t req, fuse_ino_t parent, const char *name)
{
  round_trip (K_lookup);
  reply_entry (req, parent, name);
}

static void
lat_forget (fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
  atomic_fetch_add (&count[K_forget], 1);
  node_forget (node_of (ino), nlookup);
  fuse_reply_none (req);
}

static void
lat_getattr (fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
  struct stat st;
  round_trip (K_getattr);
  int res = fi ? fstat (fi->fh, &st)
    : fstatat (node_of (ino)->fd, "", &st,
               AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
  if (res != 0)
    fuse_reply_err (req, errno);
  else
    fuse_reply_attr (req, &st, opt.timeout);
}

/* lat_setattr: chmod, chown, truncate and utimens, each through the
   open file when the kernel gives one.  Symbolic links take only
   ownership and times (Linux has no mode for them).  */
static void
lat_setattr (fuse_req_t req, fuse_ino_t ino, struct stat *a, int set,
             struct fuse_file_info *fi)
{
  struct node *n = node_of (ino);
  char path[64];
  int res = 0;
  round_trip (K_setattr);
  proc_path (path, n);
  if (set & FUSE_SET_ATTR_MODE)
    res = fi ? fchmod (fi->fh, a->st_mode) : chmod (path, a->st_mode);
  if (res == 0 && set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID))
    res = fchownat (n->fd, "",
                    set & FUSE_SET_ATTR_UID ? a->st_uid : (uid_t) -1,
                    set & FUSE_SET_ATTR_GID ? a->st_gid : (gid_t) -1,
                    AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
  if (res == 0 && set & FUSE_SET_ATTR_SIZE)
    res = fi ? ftruncate (fi->fh, a->st_size) : truncate (path, a->st_size);
  if (res == 0 && set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME))
    {
      struct timespec tv[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };
      if (set & FUSE_SET_ATTR_ATIME_NOW)
        tv[0].tv_nsec = UTIME_NOW;
      else if (set & FUSE_SET_ATTR_ATIME)
        tv[0] = a->st_atim;
      if (set & FUSE_SET_ATTR_MTIME_NOW)
        tv[1].tv_nsec = UTIME_NOW;
      else if (set & FUSE_SET_ATTR_MTIME)
        tv[1] = a->st_mtim;
      res = utimensat (n->fd, "", tv, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
    }
  if (res != 0)
    {
      fuse_reply_err (req, errno);
      return;
    }
  struct stat st;
  if (fstatat (n->fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0)
    fuse_reply_err (req, errno);
  else
    fuse_reply_attr (req, &st, opt.timeout);
}

static void
lat_readlink (fuse_req_t req, fuse_ino_t ino)
{
  char buf[PATH_MAX + 1];
  round_trip (K_readlink);
  ssize_t len = readlinkat (node_of (ino)->fd, "", buf, sizeof buf - 1);
  if (len < 0)
    fuse_reply_err (req, errno);
  else
    {
      buf[len] = '\0';
      fuse_reply_readlink (req, buf);
    }
}

static void
lat_mknod (fuse_req_t req, fuse_ino_t parent, const char *name,
           mode_t mode, dev_t rdev)
{
  round_trip (K_mknod);
  made (req, parent, name, mknodat (node_of (parent)->fd, name, mode, rdev));
}

static void
lat_mkdir (fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
  round_trip (K_mkdir);
  made (req, parent, name, mkdirat (node_of (parent)->fd, name, mode));
}

static void
lat_symlink (fuse_req_t req, const char *target, fuse_ino_t parent,
             const char *name)
{
  round_trip (K_symlink);
  made (req, parent, name, symlinkat (target, node_of (parent)->fd, name));
}

static void
lat_link (fuse_req_t req, fuse_ino_t ino, fuse_ino_t parent,
          const char *name)
{
  round_trip (K_link);
  if (linkat (node_of (ino)->fd, "", node_of (parent)->fd, name,
              AT_EMPTY_PATH) != 0)
    fuse_reply_err (req, errno);
  else
    reply_entry (req, parent, name);
}

static void
lat_unlink (fuse_req_t req, fuse_ino_t parent, const char *name)
{
  round_trip (K_unlink);
  fuse_reply_err (req, unlinkat (node_of (parent)->fd, name, 0) ? errno : 0);
}

static void
lat_rmdir (fuse_req_t req, fuse_ino_t parent, const char *name)
{
  round_trip (K_rmdir);
  fuse_reply_err (req, unlinkat (node_of (parent)->fd, name, AT_REMOVEDIR)
                       ? errno : 0);
}

static void
lat_rename (fuse_req_t req, fuse_ino_t parent, const char *name,
            fuse_ino_t newparent, const char *newname, unsigned flags)
{
  round_trip (K_rename);
  fuse_reply_err (req, renameat2 (node_of (parent)->fd, name,
                                  node_of (newparent)->fd, newname, flags)
                       ? errno : 0);
}

/* The file in SOURCE is opened without O_DIRECT: the kernel's direct
   I/O reaches us whatever its alignment, and the daemon's own I/O may
   be buffered, as a server's is.  */

/* opened: the reply to open or create once FD is open (E: create's new
   entry, or NULL for open).  */
static void
opened (fuse_req_t req, int fd, struct fuse_file_info *fi,
        const struct fuse_entry_param *e)
{
  fi->fh = fd;
  fi->direct_io = opt.direct_io;
  /* As NFS lets O_DIRECT writes to one file run at once.  */
  if (opt.direct_io)
    amend_flags = FOPEN_PARALLEL_DIRECT_WRITES;
  if (e)
    fuse_reply_create (req, e, fi);
  else
    fuse_reply_open (req, fi);
}

static void
lat_open (fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
  char path[64];
  round_trip (K_open);
  if ((fi->flags & O_TMPFILE) == O_TMPFILE)
    {
      fuse_reply_err (req, EOPNOTSUPP);
      return;
    }
  proc_path (path, node_of (ino));
  int fd = open (path, fi->flags & ~(O_CREAT | O_EXCL | O_NOCTTY
                                     | O_NOFOLLOW | O_DIRECT));
  if (fd < 0)
    fuse_reply_err (req, errno);
  else
    opened (req, fd, fi, NULL);
}

static void
lat_create (fuse_req_t req, fuse_ino_t parent, const char *name,
            mode_t mode, struct fuse_file_info *fi)
{
  struct fuse_entry_param e;
  round_trip (K_create);
  int fd = openat (node_of (parent)->fd, name,
                   (fi->flags | O_CREAT) & ~(O_NOFOLLOW | O_DIRECT), mode);
  int err = fd < 0 ? errno : owned_by_caller (req, parent, name);
  if (!err)
    err = entry_of (parent, name, &e);
  if (err)
    {
      if (fd >= 0)
        close (fd);
      fuse_reply_err (req, err);
    }
  else
    opened (req, fd, fi, &e);
}

static void
lat_read (fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
          struct fuse_file_info *fi)
{
  (void) ino;
  round_trip (K_read);
  struct fuse_bufvec data = FUSE_BUFVEC_INIT (size);
  data.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
  data.buf[0].fd = fi->fh;
  data.buf[0].pos = off;
  fuse_reply_data (req, &data, FUSE_BUF_SPLICE_MOVE);
}

static void
lat_write (fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
           off_t off, struct fuse_file_info *fi)
{
  (void) ino;
  round_trip (K_write);
  ssize_t n = pwrite (fi->fh, buf, size, off);
  if (n < 0)
    fuse_reply_err (req, errno);
  else
    fuse_reply_write (req, n);
}

/* lat_flush: close(2) of a descriptor.  NFS sends its dirty pages and a
   COMMIT there; here the data is already in SOURCE, so the round trip
   is all it costs.  */
static void
lat_flush (fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
  (void) ino, (void) fi;
  round_trip (K_flush);
  fuse_reply_err (req, 0);
}

static void
lat_release (fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
  (void) ino;
  round_trip (K_release);
  close (fi->fh);
  fuse_reply_err (req, 0);
}

static void
lat_fsync (fuse_req_t req, fuse_ino_t ino, int datasync,
           struct fuse_file_info *fi)
{
  (void) ino;
  round_trip (K_fsync);
  int res = datasync ? fdatasync (fi->fh) : fsync (fi->fh);
  fuse_reply_err (req, res ? errno : 0);
}

/* An open directory: its stream and the offset the stream is at.  */
struct dir
{
  DIR *dp;
  off_t pos;
};

static void
lat_opendir (fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
  char path[64];
  round_trip (K_opendir);
  proc_path (path, node_of (ino));
  struct dir *d = malloc (sizeof *d);
  int fd = d ? open (path, O_RDONLY | O_DIRECTORY) : -1;
  if (d && fd >= 0 && (d->dp = fdopendir (fd)))
    {
      d->pos = 0;
      fi->fh = (uintptr_t) d;
      fuse_reply_open (req, fi);
      return;
    }
  int err = d ? errno : ENOMEM;
  if (fd >= 0)
    close (fd);
  free (d);
  fuse_reply_err (req, err);
}

/* lat_readdir: entries from offset OFF on, as many as fit in SIZE bytes;
   each entry's offset is where the next one starts (telldir's).  */
static void
lat_readdir (fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
             struct fuse_file_info *fi)
{
  (void) ino;
  struct dir *d = (struct dir *) (uintptr_t) fi->fh;
  round_trip (K_readdir);
  char *buf = malloc (size);
  if (!buf)
    {
      fuse_reply_err (req, ENOMEM);
      return;
    }
  if (off != d->pos)
    {
      seekdir (d->dp, off);
      d->pos = off;
    }
  size_t used = 0;
  for (;;)
    {
      errno = 0;
      struct dirent *de = readdir (d->dp);
      if (!de)
        break;
      struct stat st = { .st_ino = de->d_ino, .st_mode = DTTOIF (de->d_type) };
      off_t next = telldir (d->dp);
      size_t len = fuse_add_direntry (req, buf + used, size - used,
                                      de->d_name, &st, next);
      if (len > size - used)
        {
          seekdir (d->dp, d->pos);   /* it did not fit: give it next time */
          break;
        }
      used += len;
      d->pos = next;
    }
  if (errno && used == 0)
    fuse_reply_err (req, errno);
  else
    fuse_reply_buf (req, buf, used);
  free (buf);
}

static void
lat_releasedir (fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
  (void) ino;
  round_trip (K_releasedir);
  closedir (((struct dir *) (uintptr_t) fi->fh)->dp);
  free ((struct dir *) (uintptr_t) fi->fh);
  fuse_reply_err (req, 0);
}

static void
lat_fsyncdir (fuse_req_t req, fuse_ino_t ino, int datasync,
              struct fuse_file_info *fi)
{
  (void) ino, (void) datasync;
  round_trip (K_fsyncdir);
  int fd = dirfd (((struct dir *) (uintptr_t) fi->fh)->dp);
  fuse_reply_err (req, fsync (fd) ? errno : 0);
}

static void
lat_statfs (fuse_req_t req, fuse_ino_t ino)
{
  struct statvfs sv;
  round_trip (K_statfs);
  if (fstatvfs (node_of (ino)->fd, &sv) != 0)
    fuse_reply_err (req, errno);
  else
    fuse_reply_statfs (req, &sv);
}

/* Extended attributes go through /proc's name of the file, which
   reaches the file itself; a symbolic link's /proc name would be
   followed to the link's target, so symbolic links show none and take
   none (Linux allows only trusted.* and security.* there anyway).  */

static int
is_link (const struct node *n)
{
  struct stat st;
  return fstatat (n->fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) == 0
         && S_ISLNK (st.st_mode);
}

/* xattr_trip: the round trip of an xattr request of KIND on NAME; the
   kernel's security.* questions are counted apart and cost nothing.  */
static void
xattr_trip (enum kind k, const char *name)
{
  if (strncmp (name, "security.", 9) == 0)
    atomic_fetch_add (&count[K_security_xattr], 1);
  else
    round_trip (k);
}

/* reply_size: the answer to a get or list request with SIZE 0 (how big)
   or a buffer of SIZE bytes, from a call that returned LEN.  */
static void
reply_size (fuse_req_t req, size_t size, ssize_t len, const char *buf)
{
  if (len < 0)
    fuse_reply_err (req, errno);
  else if (size == 0)
    fuse_reply_xattr (req, len);
  else
    fuse_reply_buf (req, buf, len);
}

/* xattr_path: the /proc path of INO's node in PATH for an xattr call,
   or false once REQ is answered for a symbolic link, whose attributes
   are not served (through /proc they would be the target's): with
   LINK_ERR, or an empty list when LINK_ERR is 0.  */
static int
xattr_path (fuse_req_t req, fuse_ino_t ino, int link_err, size_t size,
            char path[64])
{
  struct node *n = node_of (ino);
  if (is_link (n))
    {
      if (link_err)
        fuse_reply_err (req, link_err);
      else
        reply_size (req, size, 0, "");
      return 0;
    }
  proc_path (path, n);
  return 1;
}

static void
lat_setxattr (fuse_req_t req, fuse_ino_t ino, const char *name,
              const char *value, size_t size, int flags)
{
  char path[64];
  xattr_trip (K_setxattr, name);
  if (xattr_path (req, ino, EPERM, size, path))
    fuse_reply_err (req,
                    setxattr (path, name, value, size, flags) ? errno : 0);
}

static void
lat_getxattr (fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
  char path[64];
  xattr_trip (K_getxattr, name);
  if (!xattr_path (req, ino, ENODATA, size, path))
    return;
  char *buf = size ? malloc (size) : NULL;
  if (size && !buf)
    fuse_reply_err (req, ENOMEM);
  else
    reply_size (req, size, getxattr (path, name, buf, size), buf);
  free (buf);
}

static void
lat_listxattr (fuse_req_t req, fuse_ino_t ino, size_t size)
{
  char path[64];
  round_trip (K_listxattr);
  if (!xattr_path (req, ino, 0, size, path))
    return;
  char *buf = size ? malloc (size) : NULL;
  if (size && !buf)
    fuse_reply_err (req, ENOMEM);
  else
    reply_size (req, size, listxattr (path, buf, size), buf);
  free (buf);
}

static void
lat_removexattr (fuse_req_t req, fuse_ino_t ino, const char *name)
{
  char path[64];
  xattr_trip (K_removexattr, name);
  if (xattr_path (req, ino, ENODATA, 0, path))
    fuse_reply_err (req, removexattr (path, name) ? errno : 0);
}

/* lat_copy_file_range: refused, as by servers without NFS 4.2's COPY;
   the kernel then copies through read and write itself.  */
static void
lat_copy_file_range (fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
                     struct fuse_file_info *fi_in, fuse_ino_t ino_out,
                     off_t off_out, struct fuse_file_info *fi_out,
                     size_t len, int flags)
{
  (void) ino_in, (void) off_in, (void) fi_in, (void) ino_out;
  (void) off_out, (void) fi_out, (void) len, (void) flags;
  round_trip (K_copy_file_range);
  fuse_reply_err (req, ENOSYS);
}

static const struct fuse_lowlevel_ops ops = {
  .init = lat_init,
  .lookup = lat_lookup,
  .forget = lat_forget,
  .getattr = lat_getattr,
  .setattr = lat_setattr,
  .readlink = lat_readlink,
  .mknod = lat_mknod,
  .mkdir = lat_mkdir,
  .unlink = lat_unlink,
  .rmdir = lat_rmdir,
  .symlink = lat_symlink,
  .rename = lat_rename,
  .link = lat_link,
  .open = lat_open,
  .read = lat_read,
  .write = lat_write,
  .flush = lat_flush,
  .release = lat_release,
  .fsync = lat_fsync,
  .opendir = lat_opendir,
  .readdir = lat_readdir,
  .releasedir = lat_releasedir,
  .fsyncdir = lat_fsyncdir,
  .statfs = lat_statfs,
  .setxattr = lat_setxattr,
  .getxattr = lat_getxattr,
  .listxattr = lat_listxattr,
  .removexattr = lat_removexattr,
  .create = lat_create,
  .copy_file_range = lat_copy_file_range,
};

/* ------------------------------------------------------------------ */
/* The workers and main.                                               */

static struct fuse_session *se;
static pthread_t main_thread;

/* worker: take requests and serve them, until the file system is
   unmounted; then tell the main thread (SIGUSR2).  */
static void *
worker (void *arg)
{
  struct fuse_buf buf = { .mem = NULL };
  (void) arg;
  while (!fuse_session_exited (se))
    {
      int res = fuse_session_receive_buf (se, &buf);
      if (res == -EINTR)
        continue;
      if (res <= 0)
        break;
      long now = atomic_fetch_add (&in_flight, 1) + 1;
      long max = atomic_load (&max_in_flight);
      while (now > max
             && !atomic_compare_exchange_weak (&max_in_flight, &max, now))
        continue;
      amend_flags = 0;
      fuse_session_process_buf (se, &buf);
      atomic_fetch_sub (&in_flight, 1);
    }
  free (buf.mem);
  pthread_kill (main_thread, SIGUSR2);
  return NULL;
}

enum { KEY_DIRECT_IO };
#define LAT_OPT(t, p) { t, offsetof (__typeof__ (opt), p), 1 }
static const struct fuse_opt lat_opts[] = {
  LAT_OPT ("delay=%u", delay_us),
  LAT_OPT ("threads=%u", threads),
  LAT_OPT ("timeout=%lf", timeout),
  LAT_OPT ("stats=%s", stats),
  LAT_OPT ("direct_io", direct_io),
  FUSE_OPT_END
};

/* take_source: the first non-option argument is SOURCE; the rest go on
   to libfuse's parser.  */
static int
take_source (void *data, const char *arg, int key, struct fuse_args *args)
{
  (void) data, (void) args;
  if (key == FUSE_OPT_KEY_NONOPT && !opt.source)
    {
      opt.source = strdup (arg);
      return 0;
    }
  return 1;
}

int
main (int argc, char **argv)
{
  struct fuse_args args = FUSE_ARGS_INIT (argc, argv);
  struct fuse_cmdline_opts cl;
  if (fuse_opt_parse (&args, &opt, lat_opts, take_source) != 0
      || fuse_parse_cmdline (&args, &cl) != 0)
    return 2;
  if (!opt.source || !cl.mountpoint || opt.threads == 0)
    {
      fprintf (stderr, "usage: %s [-f] [-o delay=US,threads=N,timeout=SEC,"
               "stats=PATH,direct_io,...] SOURCE MOUNTPOINT\n", argv[0]);
      return 2;
    }
  if (opt.stats && opt.stats[0] != '/')
    {
      /* fuse_daemonize changes to /.  */
      char *abs = realpath (".", NULL), *s;
      if (!abs || asprintf (&s, "%s/%s", abs, opt.stats) < 0)
        return 1;
      opt.stats = s;
    }
  root.fd = open (opt.source, O_PATH | O_DIRECTORY);
  if (root.fd < 0)
    {
      perror (opt.source);
      return 1;
    }
  root.nlookup = 1;
  umask (0);   /* the kernel has applied the caller's umask */

  se = fuse_session_new (&args, &ops, sizeof ops, NULL);
  static const struct fuse_custom_io io = {
    .writev = io_writev, .read = io_read, .splice_send = io_splice_send };
  if (!se || fuse_session_mount (se, cl.mountpoint) != 0
      || fuse_session_custom_io (se, &io, fuse_session_fd (se)) != 0)
    return 1;
  fuse_daemonize (cl.foreground);

  /* Signals go to the main thread only, which waits for them.  */
  sigset_t set;
  sigemptyset (&set);
  sigaddset (&set, SIGUSR1);
  sigaddset (&set, SIGUSR2);
  sigaddset (&set, SIGTERM);
  sigaddset (&set, SIGINT);
  sigaddset (&set, SIGHUP);
  pthread_sigmask (SIG_BLOCK, &set, NULL);
  signal (SIGPIPE, SIG_IGN);
  main_thread = pthread_self ();
  pthread_t *tid = calloc (opt.threads, sizeof *tid);
  unsigned started = 0;
  while (tid && started < opt.threads
         && pthread_create (&tid[started], NULL, worker, NULL) == 0)
    started++;
  if (started == 0)
    {
      fuse_session_unmount (se);
      return 1;
    }

  int sig;
  while (sigwait (&set, &sig) == 0 && sig == SIGUSR1)
    write_stats ();
  if (sig != SIGUSR2)
    {
      /* Asked to stop: unmount; the workers end with the connection,
         when the process exits.  */
      fuse_session_unmount (se);
      write_stats ();
      return 0;
    }
  for (unsigned i = 0; i < started; i++)
    pthread_join (tid[i], NULL);
  write_stats ();
  fuse_session_unmount (se);
  fuse_session_destroy (se);
  return 0;
}
