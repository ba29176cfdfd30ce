/* Everything that is not copied by moving data: symbolic links, FIFOs,
   device nodes and sockets, and the links -l, -s and --preserve=links
   make instead of copies.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "copy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "areadlink.h"
#include "dest.h"
#include "diag.h"
#include "dirname.h"
#include "error.h"
#include "same-inode.h"

/* Make the link MAKE describes at DIRFD/NAME: a symbolic link to TARGET
   (SYMBOLIC), a hard link to the first copy COPY (link_to_earlier:
   FROM_FD, a descriptor of it or -1, and FROM_REL, its whole name), or
   else a hard link to FROM_DIRFD/FROM_REL.  */
struct link_req
{
  bool symbolic;
  char const *target;
  struct seen_copy const *copy;
  int from_fd;
  int from_dirfd;
  char const *from_rel;
  int flags;
};

/* A hard link at DIRFD/NAME to the first copy L->copy: through L->from_fd
   (dest_link_fd).  Where there is no such descriptor (none left under
   the descriptor limit), or neither linkat with AT_EMPTY_PATH nor /proc
   can use it (no CAP_DAC_READ_SEARCH before Linux 6.10, and a chroot
   without /proc), by its whole name L->from_rel, not following a
   symbolic link, right after checking that the name still holds the
   node.  */
static int
link_first_copy (struct link_req const *l, int dirfd, char const *name)
{
  if (l->from_fd >= 0)
    {
      if (dest_link_fd (l->from_fd, dirfd, name) == 0)
        return 0;
      if (errno != ENOENT || access ("/proc/self/fd", F_OK) == 0)
        return -1;
    }
  struct stat st;
  /* FROM_REL: the earlier copy's whole name, absolute when the user's
     is.  */
  if (fstatat (AT_FDCWD, l->from_rel, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return -1;
  if (st.st_dev != l->copy->dev || st.st_ino != l->copy->ino)
    {
      errno = ENOENT;
      return -1;
    }
  /* As checked: FROM_REL, absolute when the user's is.  */
  return linkat (AT_FDCWD, l->from_rel, dirfd, name, 0);
}

static int
make_link (struct link_req const *l, int dirfd, char const *name)
{
  /* NAME: relative to DIRFD as the struct loc names are.  */
  if (l->symbolic)
    return symlinkat (l->target, dirfd, name);
  if (l->copy)
    return link_first_copy (l, dirfd, name);
  /* NAME: relative to DIRFD as the struct loc names are; FROM_REL too
     (a source, from its directory's descriptor; an operand from the
     working directory, absolute when the user named it so).  */
  return linkat (l->from_dirfd, l->from_rel, dirfd, name, l->flags);
}

/* Make DST the link L.  With REPLACE, an existing DST is replaced through
   a temporary name beside it (relative to DST->dirfd, as DST->rel is)
   and rename, so that DST never disappears (and, as with GNU cp, a
   directory in the way says "Is a directory").  Return 0, or -1 with
   errno; set *REPLACED when an existing DST was replaced.  */
static int
force_link (struct link_req const *l, struct loc const *dst, bool replace,
            bool *replaced)
{
  *replaced = false;
  if (make_link (l, dst->dirfd, dst->rel) == 0)
    return 0;
  if (errno != EEXIST || !replace)
    return -1;
  size_t dirlen = last_component (dst->rel) - dst->rel;
  char *name = malloc (dirlen + 64);
  if (!name)
    return -1;
  memcpy (name, dst->rel, dirlen);
  int r = -1;
  for (unsigned int i = 0; i < 100; i++)
    {
      snprintf (name + dirlen, 64, ".cp8M-%ld-%u", (long) getpid (), i);
      if (make_link (l, dst->dirfd, name) != 0)
        {
          if (errno == EEXIST)
            continue;
          break;
        }
      r = renameat (dst->dirfd, name, dst->dirfd, dst->rel);
      int err = errno;
      /* Also after a success: renaming one hard link onto another of
         the same file does nothing, and leaves NAME.  */
      unlinkat (dst->dirfd, name, 0);
      *replaced = r == 0;
      errno = err;
      break;
    }
  free (name);
  return r;
}

static int
force_symlinkat (char const *target, struct loc const *dst, bool replace)
{
  struct link_req l = { .symbolic = true, .target = target };
  bool replaced;
  return force_link (&l, dst, replace, &replaced);
}

static bool open_special_source (struct node *sn, struct loc const *src,
                                 struct stat const *sst, bool follow);

/* The extended attributes of the symbolic link SRC itself (of status
   SST), as GNU cp copies them (trusted.* and security.* may be set on a
   link), onto DN, the link made for it.  Both ends are reached through
   O_PATH descriptors of the links, never following them: node.c's
   attribute calls go through the descriptor's /proc name, which ends on
   the link itself (a link cannot be opened otherwise, and setxattrat
   of Linux 6.13 refuses an O_PATH descriptor with EBADF).  Return false
   if the copy must count as failed.  */
static bool
copy_link_xattrs (struct copy_ctx *c, struct loc const *src,
                  struct stat const *sst, struct node const *dn)
{
  struct node sn;
  if (!open_special_source (&sn, src, sst, false))
    return false;
  /* As GNU cp: a failure fails the copy only where xattrs were asked
     for by name.  */
  bool ok = copy_xattrs (c, &sn, dn) || !c->o->require_preserve_xattr;
  node_close (&sn);
  return ok;
}

bool
copy_symlink (struct copy_ctx *c, struct loc const *src,
              struct stat const *sst, struct loc const *dst, bool dst_new,
              struct stat const *dst_st)
{
  struct cp8m_options const *o = c->o;
  char *target = areadlinkat_with_size (src->dirfd, src->rel, sst->st_size);
  if (!target)
    {
      error (0, errno, "cannot read symbolic link %s", quote_file (src->name));
      return false;
    }
  int r = force_symlinkat (target, dst, o->force);
  if (r != 0 && errno == EEXIST && o->update != UPDATE_ALL && !dst_new
      && dst_st && S_ISLNK (dst_st->st_mode)
      && (size_t) dst_st->st_size == strlen (target))
    {
      /* -u: the destination may already be this very link.  */
      char *old = areadlinkat_with_size (dst->dirfd, dst->rel,
                                         dst_st->st_size);
      if (old && strcmp (old, target) == 0)
        r = 0;
      free (old);
    }
  int err = errno;
  free (target);
  if (r != 0)
    {
      error (0, err, "cannot create symbolic link %s", quote_file (dst->name));
      return false;
    }

  /* Its owner and times (its mode means nothing), on the link itself
     as lchown and lutimes would set them, through a descriptor of the
     link made (node.h).  */
  struct node sn, dn;
  struct stat st;
  if (!node_open_made (&dn, dst, S_IFLNK, 0, &st))
    return false;
  note_made (c, &st, NULL);
  bool ok = true;
  if (o->preserve_ownership
      && node_chown (&dn, sst->st_uid, sst->st_gid) != 0
      && !chown_failure_ok (o, errno))
    {
      error (0, errno, "failed to preserve ownership for %s",
             quote_file (dst->name));
      ok = !o->require_preserve;
    }
  node_of_fd (&sn, src, -1, S_IFLNK, false);
  sn.source = true;
  struct meta_plan plan = { .dst_new = true, .is_link = true };
  ok = ok && apply_metadata (c, &sn, sst, &dn, &plan);
  if (ok && o->preserve_xattr)
    ok = copy_link_xattrs (c, src, sst, &dn);
  node_close (&dn);
  return stats_made (c->stats, STATS_SYMLINK, ok);
}

/* The source special file SRC (of status SST) for reading its
   attributes: through a descriptor of the file the walk saw, or, when
   no descriptor is left for it, by its name.  Return false after
   reporting that the name holds another file now: its attributes are
   not the ones to copy.  FOLLOW: SRC is a symbolic link to follow (SST
   is what -L or -H found at its end); else a symbolic link SRC is the
   node itself.  */
static bool
open_special_source (struct node *sn, struct loc const *src,
                     struct stat const *sst, bool follow)
{
  if (!node_open_seen (sn, src->dirfd, src->rel, src->name, sst, follow))
    {
      if (errno != EMFILE && errno != ENFILE)
        {
          error (0, 0, "%s was replaced while being copied",
                 quote_file (src->name));
          return false;
        }
      node_of_fd (sn, src, -1, sst->st_mode & S_IFMT, false);
    }
  sn->source = true;
  return true;
}

bool
copy_special (struct copy_ctx *c, struct loc const *src,
              struct stat const *sst, struct loc const *dst)
{
  mode_t omitted = omitted_permissions (c->o, sst->st_mode);
  mode_t mode = sst->st_mode & ~omitted;
  if (S_ISFIFO (sst->st_mode))
    {
      if (mknodat (dst->dirfd, dst->rel, mode, 0) != 0
          && mkfifoat (dst->dirfd, dst->rel, mode & ~S_IFIFO) != 0)
        {
          error (0, errno, "cannot create fifo %s", quote_file (dst->name));
          return false;
        }
    }
  else if (mknodat (dst->dirfd, dst->rel, mode, sst->st_rdev) != 0)
    {
      error (0, errno, "cannot create special file %s",
             quote_file (dst->name));
      return false;
    }
  /* Its metadata through a descriptor of the node made, checked to be
     it: the name may be someone else's symbolic link by now (node.h).  */
  struct node sn, dn;
  struct stat st;
  if (!node_open_made (&dn, dst, sst->st_mode & S_IFMT, sst->st_rdev, &st))
    return false;
  note_made (c, &st, NULL);
  if (!open_special_source (&sn, src, sst, true))
    {
      node_close (&dn);
      return false;
    }
  struct meta_plan plan = { .dst_new = true, .omitted = omitted };
  bool ok = apply_metadata (c, &sn, sst, &dn, &plan);
  node_close (&sn);
  node_close (&dn);
  return stats_made (c->stats, STATS_SPECIAL, ok);
}

/* Link DST as L says (the file named FROM in messages); an existing DST
   is replaced when REPLACE (and -v says so).  */
static bool
hard_link (struct cp8m_options const *o, struct link_req const *l,
           char const *from, struct loc const *dst, bool replace)
{
  bool replaced;
  if (force_link (l, dst, replace, &replaced) != 0)
    {
      error (0, errno, "cannot create hard link %s to %s",
             quote_file_n (0, dst->name), quote_file_n (1, from));
      return false;
    }
  if (replaced && o->verbose)
    diag_removed (dst->name);
  return true;
}

bool
make_hard_link (struct copy_ctx *c, struct loc const *src,
                struct loc const *dst, bool follow)
{
  struct link_req l = { .from_dirfd = src->dirfd, .from_rel = src->rel,
                        .flags = follow ? AT_SYMLINK_FOLLOW : 0 };
  return stats_made (c->stats, STATS_HARD_LINK,
                     hard_link (c->o, &l, src->name, dst,
                                c->o->force || c->o->interactive));
}

/* The later links of one file, and the table's descriptors.  Linking
   a later name to the earlier copy's whole name, as GNU cp does, links
   whatever that name reaches by then: a user who may rename the copy's
   top directory (it is in their directory) and put a symbolic link to a
   tree of theirs in its place would get their own file linked into
   root's copy.  So the table holds the node the first copy is (its
   device and inode, from the descriptor it was made through), and a
   later link is made to that node through a descriptor of it: one kept
   from the first copy on, while later links are expected and the
   table's limit of descriptors allows (cp8M.c sets it from the
   descriptor limit, beside the walk's: none under `ulimit -n 32`); else
   one opened by the earlier name, not following a symbolic link at its
   end, and checked to be that node.  A name that no longer reaches it
   (the directory moved, or another file put there) fails the link with
   "No such file or directory", as a name removed meanwhile does: never
   a link to anything else.  */

void
note_made (struct copy_ctx *c, struct stat const *st,
           struct stat const *link_st)
{
  c->made_known = true;
  c->made_dev = st->st_dev;
  c->made_ino = st->st_ino;
  c->made_via_link = link_st && S_ISLNK (link_st->st_mode);
  if (c->made_via_link)
    {
      c->made_link_dev = link_st->st_dev;
      c->made_link_ino = link_st->st_ino;
    }
}

void
remember_first_copy (struct copy_ctx *c, struct stat const *sst,
                     struct loc const *dst)
{
  struct seen_copy copy = { .fd = -1 };
  struct stat st;
  if (c->made_known)
    {
      /* Written through the symbolic link the destination was: GNU cp
         links that name, which is the link itself, leading to the copy;
         so does cp8M, but only the link its open followed.  Looking at
         the name again would take whatever is there now: a user who
         renames the copy away and puts a link to it in its place would
         get root's later names linked to their own link.  */
      copy.dev = c->made_via_link ? c->made_link_dev : c->made_dev;
      copy.ino = c->made_via_link ? c->made_link_ino : c->made_ino;
    }
  else if (fstatat (dst->dirfd, dst->rel, &st, AT_SYMLINK_NOFOLLOW) == 0)
    {
      /* Not made through a descriptor (-u kept an existing file, -s
         made a link): the node its name holds now, not following it, is
         the one GNU cp would link.  */
      copy.dev = st.st_dev;
      copy.ino = st.st_ino;
    }
  else
    return;
  /* SST's other names, or (with -L or -H) names of it met through
     symbolic links: at least one more.  */
  copy.left = sst->st_nlink > 1 ? sst->st_nlink - 1 : 1;
  struct stat seen = { .st_dev = copy.dev, .st_ino = copy.ino,
                       .st_mode = S_IFREG };
  struct node n;
  /* DST->rel: relative to DST->dirfd, as the struct loc names are.  */
  if (node_open_seen (&n, dst->dirfd, dst->rel, dst->name, &seen, false))
    copy.fd = n.fd;
  seen_set_copy (c->links, sst->st_dev, sst->st_ino, &copy);
}

bool
link_to_earlier (struct copy_ctx *c, struct stat const *sst,
                 char const *earlier, struct loc const *dst)
{
  struct seen_copy *copy = seen_get_copy (c->links, sst->st_dev,
                                          sst->st_ino);
  struct node n = { .fd = -1 };
  /* Not noted: its first copy could not be looked at.  */
  bool ok = copy != NULL;
  int err = ENOENT;
  if (copy && copy->fd >= 0)
    n.fd = copy->fd;
  else if (copy)
    {
      struct stat seen = { .st_dev = copy->dev, .st_ino = copy->ino,
                           .st_mode = S_IFREG };
      /* EARLIER: the copy's whole name, absolute when the user's is.
         With no descriptor left, link_first_copy checks the name.  */
      ok = node_open_seen (&n, AT_FDCWD, earlier, earlier, &seen, false)
           || errno == EMFILE || errno == ENFILE;
      err = errno;
    }
  if (!ok)
    error (0, err, "cannot create hard link %s to %s",
           quote_file_n (0, dst->name), quote_file_n (1, earlier));
  else
    {
      struct link_req l = { .copy = copy, .from_fd = n.fd,
                            .from_rel = earlier };
      ok = hard_link (c->o, &l, earlier, dst, true);
    }
  node_close (&n);
  if (ok && copy->fd >= 0 && --copy->left == 0)
    seen_drop_fd (c->links, copy);
  return stats_made (c->stats, STATS_HARD_LINK, ok);
}

bool
make_symbolic_link (struct copy_ctx *c, struct loc const *src,
                    struct loc const *dst)
{
  /* A relative target only means the same thing from the current
     directory.  */
  if (src->name[0] != '/')
    {
      char *parent = dir_name (dst->name);
      struct stat dot, pst;
      bool here = strcmp (parent, ".") == 0
                  || stat (".", &dot) != 0 || stat (parent, &pst) != 0
                  || SAME_INODE (dot, pst);
      free (parent);
      if (!here)
        {
          error (0, 0, "%s: can make relative symbolic links only in "
                 "current directory", quote_file_if_needed (dst->name));
          return false;
        }
    }
  if (force_symlinkat (src->name, dst, c->o->force) != 0)
    {
      error (0, errno, "cannot create symbolic link %s to %s",
             quote_file_n (0, dst->name), quote_file_n (1, src->name));
      return false;
    }
  return stats_made (c->stats, STATS_SYMLINK, true);
}
