/* Following a symbolic link only as protected_symlinks would (follow.h).

   How the open stays race-free.  Checking a link with lstat and then
   opening its name would follow whatever the name holds by then: another
   user can swap an allowed link for their own between the two calls.  So
   the link is never followed by its name:
   1. the name is opened with O_NOFOLLOW; a file that is no symbolic link
      opens there and then (the common case: one call, as before);
   2. on ELOOP (a link), the directory holding it is opened (O_PATH) and
      the link itself in that directory (O_PATH | O_NOFOLLOW), and both
      are looked at through their descriptors: the link's owner, the
      directory's owner.  No one but root can change either owner;
   3. if the rule allows it, the link's text is read through its
      descriptor (readlinkat with an empty name) and opened relative to
      the descriptor of its directory, which is how the kernel resolves
      a link.  A symbolic link's text never changes: what is opened is
      exactly where the link checked leads, whatever its name holds now.
      The last component of that text may itself be a link: it is met
      again at step 1, checked in its own directory, up to 40 links in a
      row (the kernel's limit, ELOOP beyond).
   /proc/self/fd/N of the link's O_PATH descriptor is no way to follow
   it (the kernel refuses with ELOOP), and the text also serves without
   /proc.  The directories named on the way (REL's, or a link's text's,
   but for the last component) are opened one component at a time in
   the same way (walk_dirs), so that every link met is checked, as Linux
   checks every link of a path walk: "shared/sub/x" with another's
   "shared/sub -> /etc" is refused at "sub", and so is a trusted link's
   text "conf/app.cfg" through another's "conf".  "." and ".." are
   resolved by the kernel from the directory's descriptor.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "follow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/vfs.h>

#include "areadlink.h"
#include "diag.h"
#include "dirname.h"
#include "error.h"
#include "same-inode.h"
#include "xalloc.h"

#ifndef PROC_SUPER_MAGIC
# define PROC_SUPER_MAGIC 0x9fa0
#endif

/* Symbolic links followed in a row before ELOOP, as the kernel counts.  */
enum { FOLLOW_MAX_LINKS = 40 };

/* Times a name that changes between looking and opening is looked at
   again, before giving up with ELOOP.  */
enum { FOLLOW_RETRIES = 8 };

/* protected_symlinks, in every directory: LINK (a symbolic link's
   status) may be followed when it is ours or its directory's owner's
   (DIR: that directory's status).  */
static bool
rule_allows (struct stat const *link, struct stat const *dir)
{
  return link->st_uid == geteuid () || link->st_uid == dir->st_uid;
}

/* The status of the directory DIRFD (or the working directory).  */
static int
stat_dir (int dirfd, struct stat *st)
{
  return fstatat (dirfd, "", st, AT_EMPTY_PATH);
}

static int follow_at (int dirfd, char const *rel, int flags, mode_t mode,
                      bool *refused, struct stat *link_st, int *links);

/* Is the directory PFD in /proc?  */
static bool
in_proc (int pfd)
{
  struct statfs fs;
  return fstatfs (pfd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

/* Follow the symbolic link NAME (one component; SLASH: slashes follow
   it), open as LFD (O_PATH, status LST), in the directory PFD, if the
   rule allows.  Return what opening its target with FLAGS and MODE
   returns.  *LINKS counts the links followed in this resolution.  */
static int
through_link (int pfd, char const *name, int lfd, struct stat const *lst,
              bool slash, int flags, mode_t mode, bool *refused, int *links)
{
  if (FOLLOW_MAX_LINKS < ++*links)
    {
      errno = ELOOP;
      return -1;
    }
  struct stat dir;
  if (stat_dir (pfd, &dir) != 0)
    return -1;
  if (!rule_allows (lst, &dir))
    {
      *refused = true;
      errno = EACCES;
      return -1;
    }
  /* A link of /proc (/proc/self/fd/1, where /dev/stdout leads) stands
     for an open file, and its text ("pipe:[1234]") is no name: it is
     followed only by opening its name.  No one plants a name in /proc:
     what is there is what the kernel or a process put there.  NAME: one
     component, relative to PFD.  */
  if (in_proc (pfd))
    return openat (pfd, name, flags, mode);
  /* The text of the very link checked (an empty name: LFD itself).  */
  char *target = areadlinkat_with_size (lfd, "", lst->st_size);
  if (!target)
    return -1;
  if (slash)
    {
      size_t len = strlen (target);
      target = xrealloc (target, len + 2);
      strcpy (target + len, "/");
    }
  /* TARGET: relative to the link's directory PFD, as the kernel resolves
     a link, or absolute when the link says so (then meant).  */
  int fd = follow_at (pfd, target, flags, mode, refused, NULL, links);
  int err = errno;
  free (target);
  errno = err;
  return fd;
}

/* Is FD, just opened from the name LAST of PFD, what looking at the name
   found (LST, or nothing when !FOUND)?  Without a final slash, O_NOFOLLOW
   kept any link out, but for O_PATH, which opens a link itself.  With
   one, the kernel follows a link whatever the flags: the file must be
   the one seen.  */
static bool
opened_what_was_seen (int fd, bool found, struct stat const *lst,
                      bool slash, int flags)
{
  if (!slash && !(flags & O_PATH))
    return true;
  struct stat st;
  if (fstat (fd, &st) != 0)
    return false;
  if (!slash)
    return !S_ISLNK (st.st_mode);
  return found && SAME_INODE (st, *lst);
}

/* Open LAST, a component of a name (LEN bytes of it, then, when SLASH,
   only slashes to its end), in the directory PFD: follow_openat's
   second step, and each step of walk_dirs.  */
static int
open_last (int pfd, char const *last, size_t len, bool slash, int flags,
           mode_t mode, bool *refused, struct stat *link_st, int *links)
{
  char *name = ximemdup0 (last, len);
  int fd = -1, err = ELOOP;
  for (int tries = 0; tries < FOLLOW_RETRIES; tries++)
    {
      struct stat lst = { 0 };
      /* NAME: one component, relative to PFD.  */
      int lfd = openat (pfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      bool found = lfd >= 0;
      if (!found && errno != ENOENT)
        {
          err = errno;
          break;
        }
      if (found && fstat (lfd, &lst) != 0)
        {
          err = errno;
          close (lfd);
          break;
        }
      if (found && S_ISLNK (lst.st_mode))
        {
          fd = through_link (pfd, name, lfd, &lst, slash, flags, mode,
                             refused, links);
          err = errno;
          close (lfd);
          if (fd >= 0 && link_st)
            *link_st = lst;
          break;
        }
      if (found)
        close (lfd);
      /* No link there when looked at: opened without following one.
         LAST (NAME and its slashes): relative to PFD.  */
      fd = openat (pfd, slash ? last : name,
                   flags | (slash ? 0 : O_NOFOLLOW), mode);
      err = errno;
      if (fd >= 0 && !opened_what_was_seen (fd, found, &lst, slash, flags))
        {
          close (fd);
          fd = -1;
          continue;
        }
      /* A link put there meanwhile: look again.  NAME: relative to PFD.  */
      struct stat now;
      if (fd < 0 && (err == ELOOP || err == ENOTDIR) && !slash
          && fstatat (pfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0
          && S_ISLNK (now.st_mode))
        {
          err = ELOOP;
          continue;
        }
      break;
    }
  free (name);
  errno = err;
  return fd;
}

/* Close FD unless it is KEEP, keeping errno.  */
static void
close_unless (int fd, int keep)
{
  if (fd != keep)
    {
      int err = errno;
      close (fd);
      errno = err;
    }
}

/* Open the component P (N bytes) of a directory name in CUR, O_PATH, a
   symbolic link followed only as the rule allows.  */
static int
open_dir_component (int cur, char const *p, size_t n, bool *refused,
                    int *links)
{
  int flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
    {
      /* "." or "..": no link, resolved by the kernel from CUR.  */
      char name[3] = { p[0], p[n - 1], '\0' };
      name[n] = '\0';
      /* NAME: "." or "..", relative to CUR.  */
      return openat (cur, name, flags);
    }
  return open_last (cur, p, n, false, flags, 0, refused, NULL, links);
}

/* Open the directory DIR (its first LEN bytes; relative to DIRFD, or
   absolute), O_PATH, one component at a time: every symbolic link met
   on the way is followed only as the rule allows, as Linux checks
   every link of a path walk.  Return DIRFD itself when DIR names no
   component (""); else a new descriptor; or -1 with errno (*REFUSED
   set for a link refused).  */
static int
walk_dirs (int dirfd, char const *dir, size_t len, bool *refused, int *links)
{
  char const *p = dir, *end = dir + len;
  int cur = dirfd;
  if (p < end && *p == '/')
    {
      /* "/": the name is absolute, and means it.  */
      cur = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (cur < 0)
        return -1;
    }
  for (;;)
    {
      while (p < end && *p == '/')
        p++;
      if (p == end)
        return cur;
      char const *q = p;
      while (q < end && *q != '/')
        q++;
      int next = open_dir_component (cur, p, q - p, refused, links);
      close_unless (cur, dirfd);
      if (next < 0)
        return -1;
      cur = next;
      p = q;
    }
}

static int
follow_at (int dirfd, char const *rel, int flags, mode_t mode, bool *refused,
           struct stat *link_st, int *links)
{
  if (!strchr (rel, '/'))
    {
      /* The common case, one call: REL, one component, relative to
         DIRFD, as the caller's (or a link's text, relative to the
         link's directory).  */
      int fd = openat (dirfd, rel, flags | O_NOFOLLOW, mode);
      if (fd >= 0 && !opened_what_was_seen (fd, true, NULL, false, flags))
        close (fd);
      else if (fd >= 0
               || (errno != ELOOP
                   && !(errno == ENOTDIR && (flags & O_DIRECTORY))))
        return fd;
    }
  char const *base = last_component (rel);
  size_t base_bytes = base_len (base);
  if (base_bytes == 0)
    /* "/" or "": no last component to be a link.  REL: relative to
       DIRFD as above, or absolute (then meant).  */
    return openat (dirfd, rel, flags, mode);
  /* REL's directories, one at a time.  */
  int pfd = walk_dirs (dirfd, rel, base - rel, refused, links);
  if (pfd == -1)  /* (DIRFD itself may be AT_FDCWD, negative too.)  */
    return -1;
  int fd = open_last (pfd, base, base_bytes, base[base_bytes] != '\0',
                      flags, mode, refused, link_st, links);
  close_unless (pfd, dirfd);
  return fd;
}

int
follow_openat (int dirfd, char const *rel, int flags, mode_t mode,
               bool *refused, struct stat *link_st)
{
  *refused = false;
  if (link_st)
    link_st->st_mode = 0;
  int links = 0;
  /* REL: the caller's, relative to DIRFD (or absolute with AT_FDCWD).  */
  return follow_at (dirfd, rel, flags, mode, refused, link_st, &links);
}

int
follow_dirs (int dirfd, char const *rel, char const **base, bool *refused)
{
  *refused = false;
  *base = last_component (rel);
  if (**base == '\0')
    *base = rel;
  int links = 0;
  /* REL: the caller's, relative to DIRFD (or absolute).  */
  return walk_dirs (dirfd, rel, *base - rel, refused, &links);
}

bool
follow_allowed (int dirfd, char const *rel, struct stat const *link_st)
{
  char const *base = last_component (rel);
  struct stat dir;
  int r;
  if (base == rel)
    r = stat_dir (dirfd, &dir);
  else
    {
      char *d = ximemdup0 (rel, base - rel);
      /* D: REL's directories, relative to DIRFD as REL is.  */
      r = fstatat (dirfd, d, &dir, 0);
      free (d);
    }
  return r == 0 && rule_allows (link_st, &dir);
}

void
follow_refused (char const *name)
{
  error (0, 0, "not following symbolic link %s owned by another user",
         quote_file (name));
}
