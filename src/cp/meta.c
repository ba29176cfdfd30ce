/* Metadata: times, ownership, extended attributes and permissions (with
   ACLs), in GNU cp's order and with its tolerance for what cannot be
   kept.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "copy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "acl.h"
#include "diag.h"
#include "error.h"
#include "stat-time.h"

#define ALL_PERMISSIONS (S_IRWXU | S_IRWXG | S_IRWXO)

mode_t
omitted_permissions (struct cp8m_options const *o, mode_t src_mode)
{
  /* Until ownership is final, group and others get nothing: the file
     may be about to change group.  A new directory never starts
     writable by others, whatever the umask.  */
  if (o->preserve_ownership)
    return src_mode & (S_IRWXG | S_IRWXO);
  return S_ISDIR (src_mode) ? src_mode & (S_IWGRP | S_IWOTH) : 0;
}

bool
chown_failure_ok (struct cp8m_options const *o, int err)
{
  return (err == EPERM || err == EINVAL) && !o->chown_privileges;
}

/* The name to give gnulib's ACL functions for a file open as FD (or -1)
   and named NAME.  They use the descriptor, but read and write a
   directory's default ACL by name (there is no call on a descriptor for
   it): a name too long for the kernel, deep in a tree, is then the
   descriptor's name in /proc, in BUF.  (Their messages show that name;
   GNU cp cannot reach such files at all.)  */
static char const *
acl_name (char const *name, int fd, char buf[static 32])
{
  if (fd < 0 || strlen (name) < PATH_MAX)
    return name;
  snprintf (buf, 32, "/proc/self/fd/%d", fd);
  return buf;
}

/* Give DST the owner and group of SST.  Return 1 on success, 0 when it
   failed harmlessly (an unprivileged user cannot give files away: the
   group is still tried), -1 on a reported failure that counts.  */
static int
set_owner (struct copy_ctx *c, struct stat const *sst, struct loc const *dst,
           int fd, struct meta_plan const *plan, struct stat const *dst_st)
{
  struct cp8m_options const *o = c->o;
  /* An existing file gets its final permission bits only after its
     owner changes; until then, nobody but its owner may use it.  This
     goes through the ACL (as in GNU cp), which leaves the set-user-ID,
     set-group-ID and sticky bits alone (mode_for_acl: also without
     ACL support).  */
  if (!plan->dst_new && o->preserve_mode)
    {
      mode_t restrictive = mode_for_acl (dst_st->st_mode & sst->st_mode
                                         & S_IRWXU, dst->dirfd, dst->rel, fd,
                                         dst->name);
      char buf[32];
      if (qset_acl (acl_name (dst->name, fd, buf), fd, restrictive) != 0)
        {
          if (!chown_failure_ok (o, errno))
            error (0, errno, "clearing permissions for %s",
                   quote_file (dst->name));
          return o->require_preserve ? -1 : 0;
        }
    }
  int r = fd >= 0 ? fchown (fd, sst->st_uid, sst->st_gid)
          : fchownat (dst->dirfd, dst->rel, sst->st_uid, sst->st_gid, 0);
  if (r == 0)
    return 1;
  int err = errno;
  if (err == EPERM || err == EINVAL)
    {
      if (fd >= 0)
        r = fchown (fd, -1, sst->st_gid);
      else
        r = fchownat (dst->dirfd, dst->rel, -1, sst->st_gid, 0);
      (void) r;
    }
  if (!chown_failure_ok (o, err))
    {
      error (0, err, "failed to preserve ownership for %s",
             quote_file (dst->name));
      if (o->require_preserve)
        return -1;
    }
  return 0;
}

#if !USE_ACL
/* Could this file carry a POSIX ACL?  Not when its file system has no
   ACL attributes at all (ramfs); an unanswerable question counts as
   yes, the common case.  */
static bool
acls_possible (int fd, char const *name)
{
  ssize_t r = fd >= 0 ? fgetxattr (fd, "system.posix_acl_access", NULL, 0)
              : -1;
  if (fd < 0 || (r < 0 && errno == EBADF))
    r = lgetxattr (name, "system.posix_acl_access", NULL, 0);
  return r >= 0 || (errno != ENOTSUP && errno != EOPNOTSUPP);
}
#endif

mode_t
mode_for_acl (mode_t mode, int dirfd, char const *rel, int fd,
              char const *name)
{
#if !USE_ACL
  mode_t special = S_ISUID | S_ISGID | S_ISVTX;
  struct stat st;
  /* Most files have no special bits: one fstat, no ACL probe.  */
  if (!(mode & special)
      && (fd >= 0 ? fstat (fd, &st)
          : fstatat (dirfd, rel, &st, AT_SYMLINK_NOFOLLOW)) == 0
      && (st.st_mode & special) && acls_possible (fd, name))
    mode |= st.st_mode & special;
#else
  (void) dirfd, (void) rel, (void) fd, (void) name;
#endif
  return mode;
}

static int
chmod_dst (struct loc const *dst, int fd, mode_t mode)
{
  return fd >= 0 ? fchmod (fd, mode) : fchmodat (dst->dirfd, dst->rel, mode, 0);
}

/* The mode step when the mode is not preserved: --no-preserve=mode
   gives new files the default mode; otherwise permissions held back at
   creation are given back (less the umask), and a directory made
   writable for its contents gets its mode back.  */
static bool
settle_mode (struct copy_ctx *c, struct stat const *sst,
             struct loc const *dst, int fd, struct meta_plan const *plan)
{
  struct cp8m_options const *o = c->o;
  mode_t smode = sst->st_mode;
  if (o->explicit_no_preserve_mode)
    {
      if (!plan->dst_new)
        return true;
      mode_t mode = (S_ISDIR (smode) || S_ISSOCK (smode)
                     ? ALL_PERMISSIONS
                     : ALL_PERMISSIONS & ~(S_IXUSR | S_IXGRP | S_IXOTH))
                    & ~o->umask;
      struct stat st;
      /* A new directory keeps the set-group-ID bit it inherited (GNU
         9.5 and later).  */
      if (S_ISDIR (smode)
          && (fd >= 0 ? fstat (fd, &st)
              : fstatat (dst->dirfd, dst->rel, &st, 0)) == 0)
        mode |= st.st_mode & S_ISGID;
      mode = mode_for_acl (mode, dst->dirfd, dst->rel, fd, dst->name);
      char buf[32];
      return set_acl (acl_name (dst->name, fd, buf), fd, mode) == 0;
    }

  if (plan->extra)
    {
      /* The mode the file would have had from the start.  */
      if (chmod_dst (dst, fd, smode & ALL_PERMISSIONS & ~o->umask) != 0)
        {
          error (0, errno, "preserving permissions for %s",
                 quote_file (dst->name));
          return !o->require_preserve;
        }
      return true;
    }

  mode_t omitted = plan->omitted & ~o->umask;
  bool restore = plan->restore_mode;
  mode_t want = plan->want_mode;
  if (omitted && !restore)
    {
      struct stat st;
      if ((fd >= 0 ? fstat (fd, &st)
           : fstatat (dst->dirfd, dst->rel, &st, AT_SYMLINK_NOFOLLOW)) != 0)
        {
          error (0, errno, "cannot stat %s", quote_file (dst->name));
          return false;
        }
      want = st.st_mode;
      restore = (omitted & ~want) != 0;
    }
  if (restore && chmod_dst (dst, fd, (want | omitted) & 07777) != 0)
    {
      error (0, errno, "preserving permissions for %s",
             quote_file (dst->name));
      return !o->require_preserve;
    }
  return true;
}

bool
apply_metadata (struct copy_ctx *c, struct loc const *src, int src_fd,
                struct stat const *sst, struct loc const *dst, int fd,
                struct meta_plan const *plan)
{
  struct cp8m_options const *o = c->o;
  mode_t src_mode = sst->st_mode;

  if (o->preserve_timestamps)
    {
      struct timespec ts[2] = { get_stat_atime (sst), get_stat_mtime (sst) };
      int r = fd >= 0 ? futimens (fd, ts)
              : utimensat (dst->dirfd, dst->rel, ts,
                           plan->is_link ? AT_SYMLINK_NOFOLLOW : 0);
      if (r != 0)
        {
          error (0, errno, "preserving times for %s", quote_file (dst->name));
          if (o->require_preserve)
            return false;
        }
    }

  if (o->preserve_ownership && !plan->is_link)
    {
      struct stat dst_st;
      if (plan->dst_st)
        dst_st = *plan->dst_st;
      else if ((fd >= 0 ? fstat (fd, &dst_st)
                : fstatat (dst->dirfd, dst->rel, &dst_st,
                           AT_SYMLINK_NOFOLLOW)) != 0)
        {
          error (0, errno, "cannot stat %s", quote_file (dst->name));
          return false;
        }
      if ((plan->dst_new && !plan->regular) || dst_st.st_uid != sst->st_uid
          || dst_st.st_gid != sst->st_gid)
        switch (set_owner (c, sst, dst, fd, plan, &dst_st))
          {
          case -1:
            return false;
          case 0:
            /* Not the owner: these bits would now mean something else.  */
            src_mode &= ~(S_ISUID | S_ISGID | S_ISVTX);
            break;
          }
    }

  /* After the owner: changing it clears file capabilities.  A regular
     file still gets its mode when its attributes failed (GNU cp's copy of
     a regular file goes on; of anything else, it stops).  */
  bool ok = true;
  if (o->preserve_xattr && !plan->is_link
      && !copy_xattrs (c, src, src_fd, dst, fd) && o->require_preserve_xattr)
    {
      if (!plan->regular)
        return false;
      ok = false;
    }

  if (plan->is_link)
    return ok;
  if (o->preserve_mode)
    {
      char sbuf[32], dbuf[32];
      mode_t mode = mode_for_acl (src_mode, dst->dirfd, dst->rel, fd,
                                  dst->name);
      return (copy_acl (acl_name (src->name, src_fd, sbuf), src_fd,
                        acl_name (dst->name, fd, dbuf), fd, mode) == 0
              || !o->require_preserve) && ok;
    }
  return settle_mode (c, sst, dst, fd, plan) && ok;
}
