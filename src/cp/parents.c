/* --parents.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "parents.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acl.h"
#include "copy.h"
#include "diag.h"
#include "progress.h"
#include "error.h"
#include "stat-time.h"
#include "sync.h"
#include "xalloc.h"

struct parent_dir
{
  struct parent_dir *next;
  char *src;          /* the source directory, as named by the operand */
  char *dst;          /* its copy, as messages name it */
  char *rel;          /* its copy, relative to the target directory */
  struct stat st;     /* the source's status */
  bool restore_mode;  /* give the copy WANT_MODE at the end */
  bool created;       /* made by this run */
  mode_t want_mode;
};

/* Create the missing directory P->rel for P->src.  */
static bool
make_one (struct cp8m_options const *o, int dirfd, struct parent_dir *p)
{
  mode_t src_mode = p->st.st_mode;
  mode_t omitted = src_mode & (o->preserve_ownership ? S_IRWXG | S_IRWXO
                               : o->preserve_mode ? S_IWGRP | S_IWOTH : 0);
  mode_t mode = (o->explicit_no_preserve_mode ? S_IRWXU | S_IRWXG | S_IRWXO
                 : src_mode) & 07777 & ~omitted;
  if (mkdirat (dirfd, p->rel, mode) != 0)
    {
      error (0, errno, "cannot make directory %s", quote_file (p->dst));
      return false;
    }
  p->created = true;
  if (o->verbose)
    {
      progress_out_begin ();
      printf ("%s -> %s\n", p->src, p->dst);
      progress_out_end ();
    }

  struct stat st;
  if (fstatat (dirfd, p->rel, &st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      error (0, errno, "cannot stat %s", quote_file (p->dst));
      return false;
    }
  if (!o->preserve_mode)
    {
      if (omitted & ~st.st_mode)
        omitted &= ~o->umask;
      if ((omitted & ~st.st_mode) || (st.st_mode & S_IRWXU) != S_IRWXU)
        {
          p->restore_mode = true;
          p->want_mode = (st.st_mode | omitted) & 07777;
        }
    }
  if ((st.st_mode & S_IRWXU) != S_IRWXU
      && fchmodat (dirfd, p->rel, st.st_mode | S_IRWXU, 0) != 0)
    {
      error (0, errno, "setting permissions for %s", quote_file (p->dst));
      return false;
    }
  return true;
}

bool
parents_make (struct cp8m_options const *o, int dirfd, char *dst, char *rel,
              struct parents *made, bool *dst_absent)
{
  made->list = NULL;
  *dst_absent = false;
  /* REL may be absolute (cp --parents /etc/x dir); under DIRFD it is
     relative all the same.  */
  char *src = rel;
  char *relpath = rel;
  while (*relpath == '/')
    relpath++;
  char *slash = relpath;
  while ((slash = strchr (slash, '/')))
    {
      *slash = '\0';
      struct parent_dir *p = xzalloc (sizeof *p);
      p->next = made->list;
      made->list = p;
      p->src = xstrdup (src);
      p->dst = xstrdup (dst);
      p->rel = xstrdup (relpath);
      *slash = '/';
      while (*slash == '/')
        slash++;

      int err = stat (p->src, &p->st) != 0 ? errno
                : S_ISDIR (p->st.st_mode) ? 0 : ENOTDIR;
      if (err)
        {
          error (0, err, "failed to get attributes of %s",
                 quote_file (p->src));
          return false;
        }
      struct stat st;
      if (fstatat (dirfd, p->rel, &st, 0) != 0)
        {
          if (!make_one (o, dirfd, p))
            return false;
          *dst_absent = true;
        }
      else if (!S_ISDIR (st.st_mode))
        {
          error (0, 0, "%s exists but is not a directory",
                 quote_file (p->dst));
          return false;
        }
      else
        *dst_absent = false;
    }
  return true;
}

bool
parents_finish (struct cp8m_options const *o, int dirfd,
                struct parents const *made)
{
  for (struct parent_dir *p = made->list; p; p = p->next)
    {
      if (o->preserve_timestamps)
        {
          struct timespec ts[2] = { get_stat_atime (&p->st),
                                    get_stat_mtime (&p->st) };
          if (utimensat (dirfd, p->rel, ts, 0) != 0)
            {
              error (0, errno, "failed to preserve times for %s",
                     quote_file (p->dst));
              return false;
            }
        }
      if (o->preserve_ownership
          && fchownat (dirfd, p->rel, p->st.st_uid, p->st.st_gid,
                       AT_SYMLINK_NOFOLLOW) != 0
          && !chown_failure_ok (o, errno))
        {
          error (0, errno, "failed to preserve ownership for %s",
                 quote_file (p->dst));
          return false;
        }
      if (o->preserve_mode)
        {
          if (copy_acl (p->src, -1, p->dst, -1,
                        mode_for_acl (p->st.st_mode, dirfd, p->rel, -1,
                                      p->dst))
              != 0)
            return false;
        }
      else if (p->restore_mode
               && fchmodat (dirfd, p->rel, p->want_mode, 0) != 0)
        {
          error (0, errno, "failed to preserve permissions for %s",
                 quote_file (p->dst));
          return false;
        }
    }
  return true;
}

void
parents_sync (struct parents const *made, int dirfd, char const *target,
              struct sync_dirs *l)
{
  /* The list goes deepest first: each one's parent is the next.  */
  for (struct parent_dir const *p = made->list; p; p = p->next)
    if (p->created)
      {
        sync_dirs_add (l, dirfd, p->rel, p->dst);
        if (p->next)
          sync_dirs_add (l, dirfd, p->next->rel, p->next->dst);
        else
          sync_dirs_add (l, dirfd, ".", target);
      }
}

void
parents_free (struct parents *made)
{
  struct parent_dir *p = made->list;
  while (p)
    {
      struct parent_dir *next = p->next;
      free (p->src);
      free (p->dst);
      free (p->rel);
      free (p);
      p = next;
    }
  made->list = NULL;
}
