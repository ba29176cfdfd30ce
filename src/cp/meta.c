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
#include "node.h"
#include "quote.h"
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

/* gnulib's ACL calls on the node N, with their messages naming N as
   the user knows it (gnulib's own would name its /proc name).  */
static int
node_qset_acl (struct node const *n, mode_t mode)
{
  char buf[NODE_PROC_NAME];
  int desc;
  char const *name = node_acl_name (n, &desc, buf);
  return name ? qset_acl (name, desc, mode) : -1;
}

static int
node_set_acl (struct node const *n, mode_t mode)
{
  int r = node_qset_acl (n, mode);
  if (r != 0)
    error (0, errno, "setting permissions for %s", quote (n->name));
  return r;
}

int
copy_node_acl (struct node const *src, struct node const *dst, mode_t mode)
{
  char sbuf[NODE_PROC_NAME], dbuf[NODE_PROC_NAME];
  int sdesc, ddesc;
  char const *sname = node_acl_name (src, &sdesc, sbuf);
  char const *dname = sname ? node_acl_name (dst, &ddesc, dbuf) : NULL;
  int r = !sname ? -2 : !dname ? -1 : qcopy_acl (sname, sdesc, dname, ddesc,
                                                 mode);
  if (r == -2)
    error (0, errno, "%s", quote (src->name));
  else if (r == -1)
    error (0, errno, "preserving permissions for %s", quote (dst->name));
  return r;
}

/* Give DST the owner and group of SST.  Return 1 on success, 0 when it
   failed harmlessly (an unprivileged user cannot give files away: the
   group is still tried), -1 on a reported failure that counts.  */
static int
set_owner (struct copy_ctx *c, struct stat const *sst, struct node const *dst,
           struct meta_plan const *plan, struct stat const *dst_st)
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
                                         & S_IRWXU, dst);
      if (node_qset_acl (dst, restrictive) != 0)
        {
          if (!chown_failure_ok (o, errno))
            error (0, errno, "clearing permissions for %s",
                   quote_file (dst->name));
          return o->require_preserve ? -1 : 0;
        }
    }
  if (node_chown (dst, sst->st_uid, sst->st_gid) == 0)
    return 1;
  int err = errno;
  if (err == EPERM || err == EINVAL)
    (void) node_chown (dst, -1, sst->st_gid);
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
/* Could the node N carry a POSIX ACL?  Not when its file system has no
   ACL attributes at all (ramfs); an unanswerable question counts as
   yes, the common case.  */
static bool
acls_possible (struct node const *n)
{
  ssize_t r = node_getxattr (n, "system.posix_acl_access", NULL, 0);
  return r >= 0 || (errno != ENOTSUP && errno != EOPNOTSUPP);
}
#endif

mode_t
mode_for_acl (mode_t mode, struct node const *n)
{
#if !USE_ACL
  mode_t special = S_ISUID | S_ISGID | S_ISVTX;
  struct stat st;
  /* Most files have no special bits: one fstat, no ACL probe.  */
  if (!(mode & special) && node_stat (n, &st) == 0
      && (st.st_mode & special) && acls_possible (n))
    mode |= st.st_mode & special;
#else
  (void) n;
#endif
  return mode;
}

/* The mode step when the mode is not preserved: --no-preserve=mode
   gives new files the default mode; otherwise permissions held back at
   creation are given back (less the umask), and a directory made
   writable for its contents gets its mode back.  */
static bool
settle_mode (struct copy_ctx *c, struct stat const *sst,
             struct node const *dst, struct meta_plan const *plan)
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
      if (S_ISDIR (smode) && node_stat (dst, &st) == 0)
        mode |= st.st_mode & S_ISGID;
      return node_set_acl (dst, mode_for_acl (mode, dst)) == 0;
    }

  if (plan->extra)
    {
      /* The mode the file would have had from the start.  */
      if (node_chmod (dst, smode & ALL_PERMISSIONS & ~o->umask) != 0)
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
      if (node_stat (dst, &st) != 0)
        {
          error (0, errno, "cannot stat %s", quote_file (dst->name));
          return false;
        }
      want = st.st_mode;
      restore = (omitted & ~want) != 0;
    }
  if (restore && node_chmod (dst, (want | omitted) & 07777) != 0)
    {
      error (0, errno, "preserving permissions for %s",
             quote_file (dst->name));
      return !o->require_preserve;
    }
  return true;
}

bool
apply_metadata (struct copy_ctx *c, struct node const *src,
                struct stat const *sst, struct node const *dst,
                struct meta_plan const *plan)
{
  struct cp8m_options const *o = c->o;
  mode_t src_mode = sst->st_mode;

  if (o->preserve_timestamps)
    {
      struct timespec ts[2] = { get_stat_atime (sst), get_stat_mtime (sst) };
      if (node_utimens (dst, ts) != 0)
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
      else if (node_stat (dst, &dst_st) != 0)
        {
          error (0, errno, "cannot stat %s", quote_file (dst->name));
          return false;
        }
      if ((plan->dst_new && !plan->regular) || dst_st.st_uid != sst->st_uid
          || dst_st.st_gid != sst->st_gid)
        switch (set_owner (c, sst, dst, plan, &dst_st))
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
      && !copy_xattrs (c, src, dst) && o->require_preserve_xattr)
    {
      if (!plan->regular)
        return false;
      ok = false;
    }

  if (plan->is_link)
    return ok;
  if (o->preserve_mode)
    return (copy_node_acl (src, dst, mode_for_acl (src_mode, dst)) == 0
            || !o->require_preserve) && ok;
  return settle_mode (c, sst, dst, plan) && ok;
}
