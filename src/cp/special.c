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
#include "diag.h"
#include "dirname.h"
#include "error.h"
#include "same-inode.h"

/* Make the link MAKE describes at DIRFD/NAME: a symbolic link to TARGET
   (SYMBOLIC), or a hard link to FROM_DIRFD/FROM_REL.  */
struct link_req
{
  bool symbolic;
  char const *target;
  int from_dirfd;
  char const *from_rel;
  int flags;
};

static int
make_link (struct link_req const *l, int dirfd, char const *name)
{
  /* NAME: relative to DIRFD as the struct loc names are; FROM_REL too,
     or an earlier copy's whole name with AT_FDCWD (link_to_earlier:
     absolute when the user named it so).  */
  return l->symbolic
         ? symlinkat (l->target, dirfd, name)
         : linkat (l->from_dirfd, l->from_rel, dirfd, name, l->flags);
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

/* Link DST to the file at FROM_DIRFD/FROM_REL (named FROM in messages);
   an existing DST is replaced when REPLACE (and -v says so).  */
static bool
hard_link (struct cp8m_options const *o, int from_dirfd, char const *from_rel,
           char const *from, struct loc const *dst, bool follow, bool replace)
{
  struct link_req l = { .from_dirfd = from_dirfd, .from_rel = from_rel,
                        .flags = follow ? AT_SYMLINK_FOLLOW : 0 };
  bool replaced;
  if (force_link (&l, dst, replace, &replaced) != 0)
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
  return stats_made (c->stats, STATS_HARD_LINK,
                     hard_link (c->o, src->dirfd, src->rel, src->name, dst,
                                follow, c->o->force || c->o->interactive));
}

bool
link_to_earlier (struct copy_ctx *c, char const *earlier,
                 struct loc const *dst)
{
  return stats_made (c->stats, STATS_HARD_LINK,
                     hard_link (c->o, AT_FDCWD, earlier, earlier, dst, false,
                                true));
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
