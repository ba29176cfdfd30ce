/* --sync: flushing files and directories (what and when: sync.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "sync.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "dirname.h"
#include "error.h"
#include "seen.h"
#include "xalloc.h"

/* fsync, not fdatasync: after the data, the cp layer sets the file's
   times, owner, xattrs and mode, and fdatasync need not flush those
   (only what reading the data back requires, such as the size).  The
   promise is that the copy as a whole survives, so one fsync.  It costs
   about the same here: a file just written needs its inode logged for
   its size and blocks anyway, and the other fields ride along.  The
   words are those of GNU's sync(1).  */
/* Flush FD, the file NAME or (DIR) the directory NAME, which holds the
   entry ENTRY when that is known (else NULL): a directory's message
   says which file's name may be lost with it.  */
/* Flushes that failed, for --stats-file.  */
static unsigned long failures;

unsigned long
sync_failures (void)
{
  return failures;
}

static bool
flush (int fd, char const *name, bool dir, char const *entry)
{
  if (fd >= 0 && fsync (fd) == 0)
    return true;
  int err = errno;
  /* A pipe, a terminal or /dev/null holds nothing to make durable, and
     says EINVAL: that copy is as done as it can be.  */
  struct stat st;
  if (fd >= 0 && err == EINVAL && fstat (fd, &st) == 0
      && (S_ISFIFO (st.st_mode) || S_ISCHR (st.st_mode)
          || S_ISSOCK (st.st_mode)))
    return true;
  __atomic_fetch_add (&failures, 1, __ATOMIC_RELAXED);   /* jobs too */
  if (!dir)
    error (0, err, "error syncing %s", quote_file (name));
  else if (entry)
    error (0, err, "error syncing directory %s, which holds %s",
           quote_file_n (0, name), quote_file_n (1, entry));
  else
    error (0, err, "error syncing directory %s", quote_file (name));
  return false;
}

bool
sync_file (int fd, char const *name)
{
  return flush (fd, name, false, NULL);
}

bool
sync_dir_at (int dirfd, char const *rel, char const *name,
             char const *entry)
{
  /* fsync needs a descriptor open for reading (or writing, which a
     directory cannot be); an O_PATH one fails with EBADF.  One that
     cannot be opened (mode 0333, to a user who is not root) cannot be
     flushed: the same failure, with open's cause.  */
  /* REL: relative to DIRFD, as the struct loc names it comes from (absolute
     only with AT_FDCWD).  */
  int fd = openat (dirfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  bool ok = flush (fd, name, true, entry);
  if (fd >= 0)
    close (fd);
  return ok;
}

bool
sync_dir (int fd, bool path_only, char const *name)
{
  return path_only ? sync_dir_at (fd, ".", name, NULL)
                   : flush (fd, name, true, NULL);
}

bool
sync_attributes_set (struct cp8m_options const *o)
{
  /* What apply_metadata sets on a directory that already existed.  */
  return o->preserve_timestamps || o->preserve_ownership
         || o->preserve_mode || o->preserve_xattr;
}

/* ---- directories flushed at the end of the run ---- */

struct pending_dir
{
  int dirfd;
  char *rel;
  char *name;
  char *entry;   /* the first entry it was remembered for, or NULL */
};

struct sync_dirs
{
  struct seen *known;   /* (dev, ino) of those in V */
  struct pending_dir *v;
  size_t n, alloc;
};

struct sync_dirs *
sync_dirs_new (void)
{
  struct sync_dirs *l = xzalloc (sizeof *l);
  l->known = seen_new ();
  return l;
}

/* gcc 12's -fanalyzer loses track of pointers stored into a heap array
   at a computed index, and reports the copied names leaked (make
   analyze): a false positive, sync_dirs_flush frees them.  */
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic push
# pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif
static void
add (struct sync_dirs *l, int dirfd, char const *rel, char const *name,
     char const *entry)
{
  /* One that does not exist has nothing to flush (a copy into it
     failed, and said so).  One that cannot be looked at for another
     reason is kept, for the flush to report.  */
  struct stat st;
  /* REL: relative to DIRFD, as the struct loc names it comes from (absolute
     only with AT_FDCWD).  */
  if (fstatat (dirfd, rel, &st, 0) == 0
      ? seen_remember (l->known, st.st_dev, st.st_ino, name) != NULL
      : errno == ENOENT || errno == ENOTDIR)
    return;
  if (l->n == l->alloc)
    l->v = x2nrealloc (l->v, &l->alloc, sizeof *l->v);
  l->v[l->n++] = (struct pending_dir) { dirfd, xstrdup (rel),
                                        xstrdup (name),
                                        entry ? xstrdup (entry) : NULL };
}
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic pop
#endif

void
sync_dirs_add (struct sync_dirs *l, int dirfd, char const *rel,
               char const *name)
{
  add (l, dirfd, rel, name, NULL);
}

void
sync_dirs_add_parent (struct sync_dirs *l, int dirfd, char const *rel,
                      char const *name)
{
  char *rel_dir = dir_name (rel);
  char *name_dir = dir_name (name);
  /* REL's directory part: relative as REL is.  */
  add (l, dirfd, rel_dir, name_dir, name);
  free (rel_dir);
  free (name_dir);
}

bool
sync_dirs_flush (struct sync_dirs *l)
{
  if (!l)
    return true;
  bool ok = true;
  for (size_t i = 0; i < l->n; i++)
    {
      ok &= sync_dir_at (l->v[i].dirfd, l->v[i].rel, l->v[i].name,
                         l->v[i].entry);
      free (l->v[i].rel);
      free (l->v[i].name);
      free (l->v[i].entry);
    }
  free (l->v);
  seen_free (l->known);
  free (l);
  return ok;
}
