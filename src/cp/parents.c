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
#include "follow.h"
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
  struct stat dst_st; /* the copy's, as made or met (following a
                         symbolic link, as GNU cp does) */
  struct stat link_st;  /* VIA_LINK: the symbolic link met */
  bool via_link;      /* an existing symbolic link to a directory */
  bool restore_mode;  /* give the copy WANT_MODE at the end */
  bool created;       /* made by this run */
  mode_t want_mode;
};

/* Create the missing directory P (named COMP, relative to AT) for
   P->src in the directory AT.  With HOLD, set *FD to a descriptor of it
   (O_PATH, checked to be the directory made: node.h); else to -1, the
   descriptor closed once the directory's mode allows its contents in
   (and, with no descriptor free at all, none: what it is is then noted
   by name).  Return false after reporting a failure.  */
static bool
make_one (struct cp8m_options const *o, int at, char const *comp,
          struct parent_dir *p, bool hold, int *fd)
{
  *fd = -1;
  mode_t src_mode = p->st.st_mode;
  mode_t omitted = src_mode & (o->preserve_ownership ? S_IRWXG | S_IRWXO
                               : o->preserve_mode ? S_IWGRP | S_IWOTH : 0);
  mode_t mode = (o->explicit_no_preserve_mode ? S_IRWXU | S_IRWXG | S_IRWXO
                 : src_mode) & 07777 & ~omitted;
  /* COMP: one component of the operand, relative to AT.  */
  if (mkdirat (at, comp, mode) != 0)
    {
      error (0, errno, "cannot make directory %s", quote_file (p->dst));
      return false;
    }
  p->created = true;
  if (o->verbose)
    {
      diag_out_begin ();
      printf ("%s -> %s\n", p->src, p->dst);
      diag_out_end ();
    }

  struct loc loc = { at, comp, p->dst, false };
  struct node pin;
  struct stat st;
  bool pinned = node_try_made (&pin, &loc, S_IFDIR, 0, &st);
  int err = errno;
  if (!pinned && (hold || (err != EMFILE && err != ENFILE)
                  || fstatat (at, comp, &st, AT_SYMLINK_NOFOLLOW) != 0
                  || !S_ISDIR (st.st_mode)))
    {
      if (err == EMFILE || err == ENFILE)
        error (0, err, "cannot stat %s", quote_file (p->dst));
      return false;
    }
  p->dst_st = st;
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
  /* Its contents must go in; without a descriptor of it, it is not
     changed at all (never by name).  */
  bool open_to_us = (st.st_mode & S_IRWXU) == S_IRWXU;
  if (!open_to_us && !pinned)
    {
      error (0, err, "setting permissions for %s", quote_file (p->dst));
      return false;
    }
  if (!open_to_us && node_chmod (&pin, st.st_mode | S_IRWXU) != 0)
    {
      error (0, errno, "setting permissions for %s", quote_file (p->dst));
      node_close (&pin);
      return false;
    }
  if (hold)
    *fd = pin.fd;
  else if (pinned)
    node_close (&pin);
  return true;
}

/* The existing directory P, met as MET (O_PATH, its status in
   P->dst_st, following a symbolic link as GNU cp does where follow.h
   allows it; the link's own status in P->link_st).  With HOLD, set *FD
   to MET (taken: *MET becomes -1), else to -1.  Return false after
   reporting a failure.  */
static bool
use_existing (struct parent_dir *p, int *met, bool hold, int *fd)
{
  *fd = -1;
  if (!S_ISDIR (p->dst_st.st_mode))
    {
      error (0, 0, "%s exists but is not a directory", quote_file (p->dst));
      return false;
    }
  p->via_link = S_ISLNK (p->link_st.st_mode);
  if (hold)
    {
      *fd = *met;
      *met = -1;
    }
  return true;
}

/* Open the component COMP (relative to AT) of the operand, named DST in
   messages, following a symbolic link only as follow.h allows (else
   report it, and set *REFUSED).  Return an O_PATH descriptor, or -1 with
   errno.  LINK_ST: as follow_openat's.  */
static int
open_component (int at, char const *comp, char const *dst, bool *refused,
                struct stat *link_st)
{
  /* COMP: one component of the operand (or, held by name, its
     directories), relative to AT.  */
  int fd = follow_openat (at, comp, O_PATH | O_CLOEXEC, 0, refused, link_st);
  if (*refused)
    follow_refused (dst);
  return fd;
}

enum there { THERE_NOT, THERE_ALL, THERE_REFUSED };

/* all_there with no descriptor to spare for the walk (the lowest
   limits, dirfds.c): DIRS, the operand's directories, by their names
   under DIRFD as GNU cp looks at them, each symbolic link among them
   checked by name first (held by nothing, a swap in between goes
   unseen, as with everything held by name).  DST: as all_there's.  */
static enum there
all_there_by_name (int dirfd, char *dirs, char const *dst, int *fd)
{
  for (char *p = dirs;;)
    {
      char *slash = strchr (p, '/');
      if (slash)
        *slash = '\0';
      struct stat st;
      /* DIRS up to P's end: relative to DIRFD (the leading '/' of the
         operand skipped).  */
      bool allowed = fstatat (dirfd, dirs, &st, AT_SYMLINK_NOFOLLOW) != 0
                     || !S_ISLNK (st.st_mode)
                     || follow_allowed (dirfd, dirs, &st);
      if (!allowed)
        follow_refused (dst);
      if (slash)
        *slash = '/';
      if (!allowed)
        return THERE_REFUSED;
      if (!slash)
        break;
      p = slash + strspn (slash, "/");
    }
  struct stat st;
  /* DIRS: relative to DIRFD, as above.  */
  if (fstatat (dirfd, dirs, &st, 0) != 0)
    return THERE_NOT;
  *fd = openat (dirfd, dirs, O_PATH | O_DIRECTORY | O_CLOEXEC);
  return THERE_ALL;
}

/* Is the directory part of RELPATH (under DIRFD) there already?  Then,
   as in GNU cp, none of the directories on the way is made or given
   attributes; *FD gets a descriptor (O_PATH) of the last, or of what is
   there when it is no directory (the copy into it then fails as GNU's
   does).  Each is looked up in the one before, through its descriptor,
   following a symbolic link only as follow.h allows: THERE_REFUSED after
   reporting one that is not.  DST: the name shown in messages, which
   ends where RELPATH ends (RELPATH is part of it).  */
static enum there
all_there (int dirfd, char *relpath, char const *dst, int *fd)
{
  *fd = -1;
  char *last = strrchr (relpath, '/');
  if (!last)
    return THERE_NOT;
  *last = '\0';
  enum there there = THERE_ALL;
  int at = dirfd;
  char *comp = relpath;
  for (;;)
    {
      char *slash = strchr (comp, '/');
      if (slash)
        *slash = '\0';
      bool refused;
      int next = open_component (at, comp, dst, &refused, NULL);
      int err = next < 0 ? errno : 0;
      struct stat st;
      /* One on the way that is no directory: the walk below reports it.  */
      if (next >= 0 && slash
          && (fstat (next, &st) != 0 || !S_ISDIR (st.st_mode)))
        {
          close (next);
          next = -1;
        }
      if (at != dirfd)
        close (at);
      if (slash)
        *slash = '/';
      if (next < 0 && !refused && (err == EMFILE || err == ENFILE))
        {
          there = all_there_by_name (dirfd, relpath, dst, fd);
          break;
        }
      if (next < 0)
        {
          there = refused ? THERE_REFUSED : THERE_NOT;
          break;
        }
      at = next;
      if (!slash)
        {
          *fd = next;
          break;
        }
      comp = slash + strspn (slash, "/");
    }
  *last = '/';
  return there;
}

static void
free_one (struct parent_dir *p)
{
  free (p->src);
  free (p->dst);
  free (p->rel);
  free (p);
}

bool
parents_make (struct cp8m_options const *o, int dirfd, char *dst, char *rel,
              struct parents *made, bool *dst_absent)
{
  made->list = NULL;
  made->fd = -1;
  *dst_absent = false;
  /* REL may be absolute (cp --parents /etc/x dir); under DIRFD it is
     relative all the same.  */
  char *src = rel;
  char *relpath = rel;
  while (*relpath == '/')
    relpath++;
  int there_fd = -1;
  enum there there = all_there (dirfd, relpath, dst, &there_fd);
  if (there == THERE_REFUSED)
    return false;
  if (there == THERE_ALL)
    {
      if (made->by_name && there_fd >= 0)
        close (there_fd);
      else
        made->fd = there_fd;
      return true;
    }
  /* Each directory is made or met in the one before, through its
     descriptor: a name swapped for a symbolic link meanwhile cannot send
     the rest of the chain, nor the operand's copy, elsewhere.  Those
     made are given their sources' attributes at the end, and, with -p,
     those met too.  */
  bool keep_met = o->preserve_ownership || o->preserve_mode
                  || o->preserve_timestamps;
  int at = dirfd;
  char *comp = relpath;   /* one component, relative to AT */
  char *slash = relpath;
  while ((slash = strchr (slash, '/')))
    {
      *slash = '\0';
      /* Held by name (the lowest descriptor limits: dirfds.c), each is
         reached from DIRFD by its whole name under it, as GNU cp does.  */
      if (made->by_name)
        comp = relpath;
      struct parent_dir *p = xzalloc (sizeof *p);
      p->src = xstrdup (src);
      p->dst = xstrdup (dst);
      p->rel = xstrdup (relpath);
      /* COMP: one component, relative to AT.  */
      bool refused;
      int met = open_component (at, comp, p->dst, &refused, &p->link_st);
      bool missing = met < 0 || fstat (met, &p->dst_st) != 0;
      bool kept = missing || keep_met;
      int err = refused || !kept ? 0
                : stat (p->src, &p->st) != 0 ? errno
                : S_ISDIR (p->st.st_mode) ? 0 : ENOTDIR;
      int next = -1;
      bool hold = !made->by_name;
      bool ok = !refused && !err
                && (missing ? make_one (o, at, comp, p, hold, &next)
                    : use_existing (p, &met, hold, &next));
      if (met >= 0)
        close (met);
      if (err)
        error (0, err, "failed to get attributes of %s", quote_file (p->src));
      *dst_absent = missing;
      if (kept)
        {
          p->next = made->list;
          made->list = p;
        }
      else
        free_one (p);
      *slash = '/';
      while (*slash == '/')
        slash++;
      comp = slash;
      if (!ok)
        return false;
      if (hold)
        {
          if (made->fd >= 0)
            close (made->fd);
          made->fd = at = next;
        }
    }
  return true;
}

/* Give P's copy, open as DN, the attributes the options preserve.  */
static bool
finish_one (struct cp8m_options const *o, int dirfd, struct parent_dir *p,
            struct node const *dn)
{
  if (o->preserve_timestamps)
    {
      struct timespec ts[2] = { get_stat_atime (&p->st),
                                get_stat_mtime (&p->st) };
      if (node_utimens (dn, ts) != 0)
        {
          error (0, errno, "failed to preserve times for %s",
                 quote_file (p->dst));
          return false;
        }
    }
  if (o->preserve_ownership)
    {
      /* As GNU cp: of a symbolic link met on the way, the link itself.  */
      struct node ln;
      /* P->rel: relative to DIRFD (the operand's leading '/' skipped).  */
      if (p->via_link && !node_open_seen (&ln, dirfd, p->rel, p->dst,
                                          &p->link_st, false))
        {
          error (0, errno, "cannot access %s", quote_file (p->dst));
          return false;
        }
      struct node const *on = p->via_link ? &ln : dn;
      int r = node_chown (on, p->st.st_uid, p->st.st_gid);
      int err = errno;
      /* Not allowed to give it away: the group, at least, as GNU cp.  */
      if (r != 0 && chown_failure_ok (o, err))
        (void) node_chown (on, -1, p->st.st_gid);
      if (p->via_link)
        node_close (&ln);
      if (r != 0 && !chown_failure_ok (o, err))
        {
          error (0, err, "failed to preserve ownership for %s",
                 quote_file (p->dst));
          return false;
        }
    }
  if (o->preserve_mode)
    {
      /* The source directory as the operand names it: absolute when the
         operand is.  */
      struct loc at = { AT_FDCWD, p->src, p->src, false };
      struct node sn;
      node_of_fd (&sn, &at, -1, S_IFDIR, false);
      sn.source = true;
      return copy_node_acl (&sn, dn, mode_for_acl (p->st.st_mode, dn)) == 0;
    }
  if (p->restore_mode && node_chmod (dn, p->want_mode) != 0)
    {
      error (0, errno, "failed to preserve permissions for %s",
             quote_file (p->dst));
      return false;
    }
  return true;
}

bool
parents_finish (struct cp8m_options const *o, int dirfd,
                struct parents const *made)
{
  bool work = o->preserve_timestamps || o->preserve_ownership
              || o->preserve_mode;
  for (struct parent_dir *p = made->list; p; p = p->next)
    {
      if (!work && !p->restore_mode)
        continue;
      /* By name again, but checked to be the directory made or met: a
         directory swapped meanwhile for a symbolic link (or anything
         else) is not what gets the attributes.  */
      struct node dn;
      /* P->rel: relative to DIRFD (the operand's leading '/' skipped).  */
      if (!node_open_seen (&dn, dirfd, p->rel, p->dst, &p->dst_st, true))
        {
          error (0, errno, "cannot access %s", quote_file (p->dst));
          return false;
        }
      bool ok = finish_one (o, dirfd, p, &dn);
      node_close (&dn);
      if (!ok)
        return false;
    }
  return true;
}

void
parents_sync (struct parents const *made, int dirfd, struct sync_dirs *l)
{
  /* P->rel is relative to DIRFD (the operand's leading '/' skipped).  */
  for (struct parent_dir const *p = made->list; p; p = p->next)
    if (p->created)
      {
        /* P->rel: relative to DIRFD (the operand's leading '/' skipped).  */
        sync_dirs_add (l, dirfd, p->rel, p->dst);
        sync_dirs_add_parent (l, dirfd, p->rel, p->dst);
      }
}

void
parents_free (struct parents *made)
{
  if (made->fd >= 0)
    close (made->fd);
  made->fd = -1;
  struct parent_dir *p = made->list;
  while (p)
    {
      struct parent_dir *next = p->next;
      free_one (p);
      p = next;
    }
  made->list = NULL;
}
