/* Directories: create the copy and list the source, then give the copy
   its final attributes (dir.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "error.h"
#include "follow.h"
#include "filenamecat.h"
#include "same-inode.h"
#include "sync.h"
#include "xalloc.h"

/* One directory entry, as read.  */
struct dir_entry
{
  ino_t ino;
  size_t read;          /* its place in the reading order */
  unsigned char type;   /* d_type: DT_REG, DT_DIR... or DT_UNKNOWN */
  char *name;
};

/* By inode number, and names of one inode (hard links) in the order
   they were read: glibc's qsort keeps that order for GNU cp, musl's
   need not.  */
static int
by_inode (void const *a, void const *b)
{
  struct dir_entry const *x = a, *y = b;
  if (x->ino != y->ino)
    return (x->ino > y->ino) - (x->ino < y->ino);
  return (x->read > y->read) - (x->read < y->read);
}

/* gcc 12's -fanalyzer loses track of a pointer stored into a heap array
   at a computed index, and reports the entries' names leaked (make
   analyze): a false positive, they are freed with the array, here on
   failure and by copy_dir_entries.  */
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic push
# pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif

/* The entries of the directory open as FD (or -1 with errno), but "."
   and "..", sorted by inode number as GNU cp reads them: -v then lists
   files in the same order, and reading in inode order is faster on most
   disks.  Entries with equal numbers (hard links) keep their reading
   order, as glibc's qsort keeps it for GNU cp.  FD is closed.  Set
   *ENTRIES (to free with its names) and *COUNT and return true, or
   return false with errno.  */
static bool
read_entries (int fd, struct dir_entry **entries, size_t *count)
{
  DIR *dir = fd < 0 ? NULL : fdopendir (fd);
  if (!dir)
    {
      int err = errno;
      if (fd >= 0)
        close (fd);
      errno = err;
      return false;
    }
  size_t n = 0, alloc = 16;
  struct dir_entry *v = xnmalloc (alloc, sizeof *v);
  struct dirent *d;
  for (errno = 0; (d = readdir (dir)); errno = 0)
    {
      if (d->d_name[0] == '.'
          && (d->d_name[1] == '\0'
              || (d->d_name[1] == '.' && d->d_name[2] == '\0')))
        continue;
      if (n == alloc)
        v = x2nrealloc (v, &alloc, sizeof *v);
      v[n].ino = d->d_ino;
      v[n].read = n;
      v[n].type = d->d_type;
      v[n].name = xstrdup (d->d_name);
      n++;
    }
  int err = errno;
  closedir (dir);
  if (err)
    {
      while (n > 0)
        free (v[--n].name);
      free (v);
      errno = err;
      return false;
    }
  if (n > 1)
    qsort (v, n, sizeof *v, by_inode);
  *entries = v;
  *count = n;
  return true;
}
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic pop
#endif

/* Open the existing directory DST with ACCESS (O_RDONLY or O_PATH):
   not following a symbolic link (FOLLOW is O_NOFOLLOW), or, under
   --keep-directory-symlink (FOLLOW 0), following one only as the rule of
   follow.h allows (else *REFUSED).  Return the descriptor, or -1 with
   errno.  */
static int
open_existing_dir (struct loc const *dst, int access, int follow,
                   bool *refused)
{
  int flags = access | O_DIRECTORY | O_CLOEXEC;
  return follow ? openat (dst->dirfd, dst->rel, flags | follow)
         : follow_openat (dst->dirfd, dst->rel, flags, 0, refused, NULL);
}

/* Open the destination directory DST of the level LV: through PIN, the
   directory just made (or -1), else by name (not following a symbolic
   link, but with --keep-directory-symlink), and note what it is.  Held
   by name (NO_FD: no level can be held, dirfds.c), only note what it
   is.  Return false after reporting.  */
static bool
open_dst_dir (struct cp8m_options const *o, struct loc const *dst,
              struct node const *pin, bool no_fd, struct ancestor *lv)
{
  int follow = o->keep_directory_symlink ? 0 : O_NOFOLLOW;
  struct stat st;
  if (no_fd)
    {
      if ((pin->fd >= 0 ? fstat (pin->fd, &st)
           : fstatat (dst->dirfd, dst->rel, &st,
                      follow ? AT_SYMLINK_NOFOLLOW : 0)) != 0)
        {
          error (0, errno, "cannot stat %s", quote_file (dst->name));
          return false;
        }
      lv->dst_dev = st.st_dev;
      lv->dst_ino = st.st_ino;
      return true;
    }
  /* A new directory is opened through the descriptor of the one made,
     so that what is copied goes into it whatever its name holds now.  */
  bool refused = false;
  int fd = pin->fd >= 0
           ? openat (pin->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
           : open_existing_dir (dst, O_RDONLY, follow, &refused);
  if (fd < 0 && errno == EACCES && !refused)
    {
      /* A directory this user may not read or search: as in GNU cp, each
         entry then fails on its own ("cannot stat") and the directory
         still gets its attributes, through an O_PATH descriptor.  */
      fd = pin->fd >= 0 ? dup (pin->fd)
           : open_existing_dir (dst, O_PATH, follow, &refused);
      lv->dst_path_only = fd >= 0;
    }
  if (refused)
    {
      follow_refused (dst->name);
      return false;
    }
  if (fd < 0)
    {
      error (0, errno, "cannot access %s", quote_file (dst->name));
      return false;
    }
  if (fstat (fd, &st) != 0)
    {
      error (0, errno, "cannot stat %s", quote_file (dst->name));
      close (fd);
      return false;
    }
  lv->dst_fd = fd;
  lv->dst_dev = st.st_dev;
  lv->dst_ino = st.st_ino;
  return true;
}

/* Create the directory DST for SRC, and open it as *PIN (O_PATH,
   checked to be the directory made: node.h).  Fill PLAN with what must
   happen to its mode once its contents are in.  */
static bool
make_dir (struct copy_ctx *c, struct loc const *src, struct stat const *sst,
          struct loc const *dst, struct walk *w, struct meta_plan *plan,
          struct node *pin)
{
  struct cp8m_options const *o = c->o;
  /* mkdir decides what to do with set-group-ID and sticky; ask for all
     the bits, less those held back until ownership is settled.  */
  if (mkdirat (dst->dirfd, dst->rel,
               (sst->st_mode & 07777) & ~plan->omitted) != 0)
    {
      error (0, errno, "cannot create directory %s", quote_file (dst->name));
      return false;
    }
  struct stat st;
  bool pinned = node_try_made (pin, dst, S_IFDIR, 0, &st);
  if (!pinned)
    {
      /* No descriptor left (ulimit -n 4): as GNU cp, go on to fail at
         opening the source, and give the directory its attributes at
         the end, when one is free again (what it is is noted here, not
         following a symbolic link).  */
      if (errno != EMFILE && errno != ENFILE)
        return false;
      if (fstatat (dst->dirfd, dst->rel, &st, AT_SYMLINK_NOFOLLOW) != 0)
        {
          error (0, errno, "cannot stat %s", quote_file (dst->name));
          return false;
        }
      if (!S_ISDIR (st.st_mode))
        {
          error (0, 0, "%s was replaced while being copied",
                 quote_file (dst->name));
          return false;
        }
    }
  /* The contents must go in: make it searchable and writable for now.  */
  if ((st.st_mode & S_IRWXU) != S_IRWXU && pinned)
    {
      plan->restore_mode = true;
      plan->want_mode = st.st_mode;
      if (node_chmod (pin, st.st_mode | S_IRWXU) != 0)
        {
          error (0, errno, "setting permissions for %s",
                 quote_file (dst->name));
          node_close (pin);
          return false;
        }
    }
  /* The operand's first new directory: meeting it again while walking
     the source means the copy is inside the source.  */
  if (!w->first_dir_created)
    {
      seen_remember (c->links, st.st_dev, st.st_ino, dst->name);
      w->first_dir_created = true;
    }
  if (o->verbose)
    diag_verbose (src->name, dst->name);
  return true;
}

/* Give the copy DST of the level SELF the attributes of SRC (of status
   SST), through descriptors (node.h): its own, or, held by name, one
   opened for it and checked to be the directory the walk made or met.  */
static bool
finish_dir (struct copy_ctx *c, struct loc const *src, struct stat const *sst,
            struct loc const *dst, struct ancestor const *self,
            struct meta_plan const *plan)
{
  /* The names are for messages, and for the last resort without /proc:
     the whole names (absolute when the user's are: hence AT_FDCWD), as
     the parents' descriptors may be closed by now (dirfds.c).  */
  struct loc src_name = { AT_FDCWD, src->name, src->name, false };
  struct loc dst_name = { AT_FDCWD, dst->name, dst->name, false };
  struct node sn, dn;
  node_of_fd (&sn, &src_name, self->src_fd, S_IFDIR, false);
  sn.source = true;
  if (!self->by_name)
    node_of_fd (&dn, &dst_name, self->dst_fd, S_IFDIR, self->dst_path_only);
  else
    {
      struct stat seen = { .st_dev = self->dst_dev, .st_ino = self->dst_ino,
                           .st_mode = S_IFDIR };
      if (!node_open_seen (&dn, dst->dirfd, dst->rel, dst->name, &seen,
                           self->dst_follow))
        {
          error (0, errno, "cannot access %s", quote_file (dst->name));
          return false;
        }
    }
  bool ok = apply_metadata (c, &sn, sst, &dn, plan);
  node_close (&dn);
  return ok;
}

bool
dir_begin (struct copy_ctx *c, struct dir_copy *dc, struct loc const *src,
           struct stat const *sst, struct loc const *dst, bool dst_exists,
           bool defer, struct ancestor *parent, struct walk *w)
{
  struct cp8m_options const *o = c->o;
  *dc = (struct dir_copy) {
    .src = src, .dst = dst, .sst = sst, .dst_exists = dst_exists,
    .defer = defer, .plan = { .dst_new = !dst_exists }, .ok = true };
  dc->plan.omitted = dst_exists ? 0 : omitted_permissions (o, sst->st_mode);
  struct node pin = { .fd = -1 };
  if (!dst_exists && !make_dir (c, src, sst, dst, w, &dc->plan, &pin))
    return false;

  struct ancestor *self = &dc->self;
  *self = (struct ancestor) {
    .parent = parent, .dev = sst->st_dev, .ino = sst->st_ino,
    .src_fd = -1, .dst_fd = -1, .src = src, .dst = dst,
    .dst_follow = o->keep_directory_symlink };
  /* With no level held (dirfds.c), the destination is reached by name
     alone, as GNU cp reaches it, and what it is is noted before the
     source is opened: one descriptor at a time may be all there is.  */
  bool no_fd = c->max_open_levels == 0;
  bool opened = !no_fd || open_dst_dir (o, dst, &pin, true, self);
  if (no_fd)
    node_close (&pin);

  /* SRC was stat'ed through a symlink exactly when copy_node followed
     one, so it is opened following links, and checked to be the same
     directory.  */
  int src_fd = !opened ? -1 : openat (src->dirfd, src->rel,
                                      O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct stat st;
  if (src_fd >= 0 && (fstat (src_fd, &st) != 0 || !SAME_INODE (st, *sst)))
    {
      close (src_fd);
      src_fd = -1;
      errno = ENOENT;
    }
  if (opened && src_fd < 0)
    {
      error (0, errno, "cannot access %s", quote_file (src->name));
      dc->ok = false;
    }
  self->src_fd = src_fd;
  if (opened && !no_fd)
    opened = open_dst_dir (o, dst, &pin, false, self);
  node_close (&pin);
  if (!opened)
    {
      if (src_fd >= 0)
        close (src_fd);
      return false;
    }
  dirfds_push (c, self);
  /* Made (or there to merge into): counted whatever its entries do.  */
  stats_made (c->stats, STATS_DIRECTORY, true);

  /* -x: a mount point is copied as an empty directory.  */
  if (!dc->ok || (o->one_file_system && parent && parent->dev != sst->st_dev))
    return true;
  if (!read_entries (dirfds_listing (self), &dc->names, &dc->n))
    {
      error (0, errno, "cannot access %s", quote_file (src->name));
      dc->ok = false;
    }
  return true;
}

bool
dir_next (struct dir_copy *dc, struct walk *w)
{
  struct ancestor *self = &dc->self;
  free (dc->src_name);
  free (dc->dst_name);
  dc->src_name = dc->dst_name = NULL;
  /* Going on after copying into itself would copy the copy again.  */
  if (dc->next >= dc->n || w->into_self)
    return false;
  /* Open again if the walk below closed them (dirfds.c).  */
  if (!dirfds_ensure (self))
    {
      dc->ok = false;
      return false;
    }
  size_t i = dc->next++;
  bool dst_new = !dc->dst_exists;
  char const *name = dc->names[i].name;
  dc->src_name = file_name_concat (dc->src->name, name, NULL);
  dc->dst_name = file_name_concat (dc->dst->name, name, NULL);
  /* Entry names: relative to the level's descriptors.  */
  dc->s = (struct loc) { self->src_fd, name, dc->src_name, false };
  dc->d = (struct loc) { self->dst_fd, name, dc->dst_name, dst_new };
  if (self->by_name)
    {
      /* No descriptor held (dirfds.c): whole names, the source's
         absolute when its operand is (hence AT_FDCWD), and the
         destination's relative to the operand's target directory, as
         its own is.  */
      dc->s = (struct loc) { AT_FDCWD, dc->src_name, dc->src_name, false };
      dc->d = (struct loc) { w->top_dirfd, dc->dst_name + w->top_prefix,
                             dc->dst_name, dst_new };
    }
  return true;
}

/* Whether a directory's own attributes are due (--sync): unless it was
   merged into and nothing in it or about it changed.  */
static bool
sync_due (struct cp8m_options const *o, struct dir_copy const *dc)
{
  struct ancestor const *self = &dc->self;
  return o->sync && !self->lost && (self->by_name || self->dst_fd >= 0)
         && (!dc->dst_exists || self->dst_changed || sync_attributes_set (o));
}

/* A directory's end, waiting for its entries' jobs (jobs_after): its
   level's descriptors are its own now.  */
struct dir_finish
{
  struct copy_ctx *c;
  struct loc src, dst;      /* names only: the descriptors are SELF's */
  struct stat sst;
  struct meta_plan plan;
  struct ancestor self;
  bool sync;
};

static void
finish_later (void *arg)
{
  struct dir_finish *f = arg;
  bool ok = finish_dir (f->c, &f->src, &f->sst, &f->dst, &f->self, &f->plan);
  if (f->sync)
    ok &= sync_dir (f->self.dst_fd, f->self.dst_path_only, f->dst.name);
  if (!ok)
    f->c->jobs_failed = true;
  close (f->self.src_fd);
  close (f->self.dst_fd);
  free ((char *) f->src.name);
  free ((char *) f->dst.name);
  free (f);
}

bool
dir_end (struct copy_ctx *c, struct dir_copy *dc, bool ok)
{
  struct cp8m_options const *o = c->o;
  struct ancestor *self = &dc->self;
  for (size_t i = 0; i < dc->n; i++)
    free (dc->names[i].name);
  free (dc->names);
  ok &= dc->ok;
  /* Even when the source could not be read: the copy still gets the
     attributes, as GNU cp gives them.  */
  bool open = dirfds_ensure (self);
  if (open && dc->defer && c->jobs && !self->by_name && self->src_fd >= 0
      && self->dst_fd >= 0)
    {
      /* Its entries' jobs may still use the level's descriptors: they
         stay open, the end's own, and the walk goes on.  */
      struct dir_finish *f = xmalloc (sizeof *f);
      *f = (struct dir_finish) {
        .c = c, .src = { AT_FDCWD, NULL, xstrdup (dc->src->name), false },
        .dst = { AT_FDCWD, NULL, xstrdup (dc->dst->name), false },
        .sst = *dc->sst, .plan = dc->plan, .self = *self,
        .sync = sync_due (o, dc) };
      f->src.rel = f->src.name;
      f->dst.rel = f->dst.name;
      f->self.parent = NULL;
      f->self.src = f->self.dst = NULL;
      ok &= dirfds_pop (self, true);
      jobs_after (c->jobs, finish_later, f);
      return ok;
    }
  /* Its entries' copies are done before its own attributes are set
     (and its descriptors closed).  */
  jobs_drain (c->jobs);
  if (!open)
    ok = false;
  else
    ok &= finish_dir (c, dc->src, dc->sst, dc->dst, self, &dc->plan);
  /* --sync: after its entries and its own attributes (sync.h).  */
  if (sync_due (o, dc))
    ok &= self->by_name ? sync_dir_at (dc->dst->dirfd, dc->dst->rel,
                                       dc->dst->name, NULL)
          : sync_dir (self->dst_fd, self->dst_path_only, dc->dst->name);
  ok &= dirfds_pop (self, false);
  return ok;
}
