/* Per-node policy: the decisions GNU cp makes for each file before and
   after its data moves.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "copy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backupfile.h"
#include "dest.h"
#include "dir.h"
#include "diag.h"
#include "follow.h"
#include "manifest.h"
#include "marks.h"
#include "progress.h"
#include "report.h"
#include "dirname.h"
#include "error.h"
#include "same.h"
#include "same-inode.h"
#include "stat-time.h"
#include "utimecmp.h"
#include "xalloc.h"

/* May SRC be copied onto DST, which exists and may be the same file?
   Both statuses are as copy_node took them (DST's followed or not).  Set
   *RETURN_NOW when there is nothing to do at all.  This is GNU cp's rule
   set: copying a file onto itself would truncate it, but two distinct
   symbolic links, a backup, or a hard link request are fine.  */
static bool
same_file_ok (struct cp8m_options const *o, struct loc const *src,
              struct stat const *sst, struct loc const *dst,
              struct stat const *dst_st, bool *return_now)
{
  struct stat src_l, dst_l, tmp_src, tmp_dst;
  struct stat const *sl = sst, *dl = dst_st;
  bool same = SAME_INODE (*sst, *dst_st);
  bool same_link;

  *return_now = false;
  if (same && o->hard_link)
    {
      *return_now = true;
      return true;
    }

  if (o->dereference == DEREF_NEVER)
    {
      same_link = same;
      if (S_ISLNK (sst->st_mode) && S_ISLNK (dst_st->st_mode))
        {
          bool sn = same_name (src->name, dst->name);
          if (!sn)
            {
              if (o->backup_type != no_backups)
                return true;
              if (same_link)
                {
                  *return_now = true;
                  return true;
                }
            }
          return !sn;
        }
    }
  else
    {
      if (!same)
        return true;
      if (fstatat (dst->dirfd, dst->rel, &dst_l, AT_SYMLINK_NOFOLLOW) != 0
          || fstatat (src->dirfd, src->rel, &src_l, AT_SYMLINK_NOFOLLOW) != 0)
        return true;
      sl = &src_l;
      dl = &dst_l;
      same_link = SAME_INODE (*sl, *dl);
      if (S_ISLNK (sl->st_mode) && S_ISLNK (dl->st_mode)
          && o->remove_destination)
        return true;
    }

  if (o->backup_type != no_backups)
    {
      if (!same_link)
        /* Moving DST aside would leave a symlink SRC dangling.  */
        return !(o->dereference != DEREF_NEVER && S_ISLNK (sl->st_mode)
                 && !S_ISLNK (dl->st_mode));
      return !same_name (src->name, dst->name);
    }

  if (o->remove_destination)
    {
      if (S_ISLNK (dl->st_mode))
        return true;
      if (same_link && 1 < dl->st_nlink
          && !same_name (src->name, dst->name))
        return true;
    }

  if (!S_ISLNK (sl->st_mode) && !S_ISLNK (dl->st_mode))
    {
      if (!SAME_INODE (*sl, *dl))
        return true;
      if (o->hard_link)
        {
          *return_now = true;
          return true;
        }
    }

  /* -s replaces a symbolic link at the destination with a new one, even
     one that leads to the source: nothing is truncated.  */
  if (o->symbolic_link && S_ISLNK (dl->st_mode))
    return true;

  if (o->dereference == DEREF_NEVER)
    {
      if (!S_ISLNK (sl->st_mode))
        tmp_src = *sl;
      else if (fstatat (src->dirfd, src->rel, &tmp_src, 0) != 0)
        return true;
      if (!S_ISLNK (dl->st_mode))
        tmp_dst = *dl;
      else if (fstatat (dst->dirfd, dst->rel, &tmp_dst, 0) != 0)
        return true;
      if (!SAME_INODE (tmp_src, tmp_dst))
        return true;
      if (o->hard_link)
        {
          *return_now = !S_ISLNK (dl->st_mode);
          return true;
        }
    }
  return false;
}

/* Is DST's modification time at least SRC's?  (-u skips then.)  gnulib's
   utimecmp, as GNU cp uses: it allows for the destination filesystem's
   timestamp resolution, and with -p for the source time's truncation.  */
static bool
dest_not_older (struct cp8m_options const *o, struct stat const *sst,
                struct loc const *dst, struct stat const *dst_st)
{
  int options = o->preserve_timestamps ? UTIMECMP_TRUNCATE_SOURCE : 0;
  return utimecmpat (dst->dirfd, dst->rel, dst_st, sst, options) >= 0;
}

/* -i: ask whether to overwrite DST.  */
static bool
overwrite_ok (struct cp8m_options const *o, struct loc const *dst,
              struct stat const *dst_st)
{
  progress_prompt_begin ();
  if (!S_ISLNK (dst_st->st_mode)
      && faccessat (dst->dirfd, dst->rel, W_OK, AT_EACCESS) != 0)
    {
      char perms[12];
      diag_strmode (dst_st->st_mode, perms);
      fprintf (stderr, o->remove_destination || o->force
               ? "%s: replace %s, overriding mode %04lo (%s)? "
               : "%s: unwritable %s (mode %04lo, %s); try anyway? ",
               diag_program_name (), quote_file (dst->name),
               (unsigned long) (dst_st->st_mode & 07777), perms);
    }
  else
    fprintf (stderr, "%s: overwrite %s? ", diag_program_name (),
             quote_file (dst->name));
  bool yes = diag_yesno ();
  progress_prompt_end ();
  return yes;
}

/* Is ST one of the directories being copied (a symbolic-link cycle)?  */
static bool
is_ancestor (struct stat const *st, struct ancestor const *a)
{
  for (; a; a = a->parent)
    if (a->ino == st->st_ino && a->dev == st->st_dev)
      return true;
  return false;
}

/* Move DST aside as its backup; return the backup's name relative to
   DST's directory descriptor, or NULL with errno.  gnulib's
   backup_file_rename is given the file's own directory and base name:
   with a name holding a slash, this gnulib (2023) renames the wrong
   path when an "existing" backup falls back to a simple one.  */
static char *
make_backup (struct loc const *dst, enum backup_type type)
{
  char const *base = last_component (dst->rel);
  if (base == dst->rel)
    return backup_file_rename (dst->dirfd, dst->rel, type);
  size_t dirlen = base - dst->rel;
  char *dir = xmalloc (dirlen + 1);
  memcpy (dir, dst->rel, dirlen);
  dir[dirlen] = '\0';
  int fd = openat (dst->dirfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  char *b = NULL;
  if (fd >= 0)
    {
      char *name = backup_file_rename (fd, base, type);
      int err = errno;
      close (fd);
      if (name)
        {
          b = xmalloc (dirlen + strlen (name) + 1);
          memcpy (b, dir, dirlen);
          strcpy (b + dirlen, name);
          free (name);
        }
      errno = err;
    }
  free (dir);
  return b;
}

/* Is BASE "." or ".."?  No backup is made for such a source.  */
static bool
dot_or_dotdot (char const *base)
{
  return base[0] == '.' && (base[1] == '\0'
                            || (base[1] == '.' && base[2] == '\0'));
}

/* The name a simple backup of DST gets, relative to DST->dirfd as
   DST->rel is.  */
static char *
simple_backup_name (struct loc const *dst)
{
  char *backup = xmalloc (strlen (dst->rel) + strlen (simple_backup_suffix)
                          + 1);
  strcpy (stpcpy (backup, dst->rel), simple_backup_suffix);
  return backup;
}

/* Would the backup of DST rename over a report file (report.h)?  Then
   false after a message.  Only a simple backup's name can be one: a
   numbered backup takes a name no file has.  */
static bool
backup_clear_of_reports (struct cp8m_options const *o,
                         struct loc const *dst)
{
  if (o->n_report_nodes == 0 || o->backup_type == numbered_backups)
    return true;
  char *backup = simple_backup_name (dst);
  struct stat st;
  /* BACKUP: relative to DST->dirfd, as DST->rel is; the name itself,
     which the rename would replace.  */
  bool clear = fstatat (dst->dirfd, backup, &st, AT_SYMLINK_NOFOLLOW) != 0
               || report_clash (o, &st, "backup of", dst->name);
  free (backup);
  return clear;
}

/* Is the source, whose last component is SRCBASE, the file that a
   simple backup of DST would replace?  Then making the backup renames
   the source away.  */
static bool
source_is_backup_of (char const *srcbase, struct stat const *sst,
                     struct loc const *dst)
{
  char const *dstbase = last_component (dst->rel);
  size_t dstlen = strlen (dstbase);
  size_t suffixlen = strlen (simple_backup_suffix);
  if (strlen (srcbase) != dstlen + suffixlen
      || memcmp (srcbase, dstbase, dstlen) != 0
      || strcmp (srcbase + dstlen, simple_backup_suffix) != 0)
    return false;
  char *backup = simple_backup_name (dst);
  struct stat st;
  /* BACKUP: relative to DST->dirfd, as DST->rel is.  */
  int r = fstatat (dst->dirfd, backup, &st, 0);
  free (backup);
  return r == 0 && SAME_INODE (*sst, st);
}

/* An existing destination stands in the way: decide, as GNU cp does,
   whether to go on (true, *DST_NEW set if it was moved or removed),
   skip quietly (true, *SKIP set) or fail (false).  *BACKUP gets the
   backup's name, if one was made.  */
static bool
handle_existing (struct copy_ctx *c, struct loc const *src,
                 struct stat const *sst, struct loc const *dst,
                 struct stat const *dst_st, bool command_line,
                 bool *dst_new, bool *skip, char **backup)
{
  struct cp8m_options const *o = c->o;
  mode_t smode = sst->st_mode;
  bool return_now;

  *skip = false;
  if (o->update != UPDATE_NONE && o->update != UPDATE_NONE_FAIL
      && !same_file_ok (o, src, sst, dst, dst_st, &return_now))
    {
      error (0, 0, "%s and %s are the same file",
             quote_file_n (0, src->name), quote_file_n (1, dst->name));
      return false;
    }
  else if (o->update != UPDATE_NONE && o->update != UPDATE_NONE_FAIL
           && return_now)
    {
      *skip = true;
      return true;
    }

  if (!S_ISDIR (smode))
    {
      bool older = o->update == UPDATE_OLDER
                   && dest_not_older (o, sst, dst, dst_st);
      if (o->update == UPDATE_NONE_FAIL)
        {
          error (0, 0, "not replacing %s", quote_file (dst->name));
          return false;
        }
      if (o->update == UPDATE_NONE || older)
        {
          if (o->debug)
            diag_skipped (dst->name);
          *skip = true;
          /* -u still records the pair: a later name of the same source
             file becomes a hard link to DST (replacing whatever is
             there), as GNU cp does, with or without --preserve=links.  */
          char const *earlier = older
            ? seen_remember (c->links, sst->st_dev, sst->st_ino, dst->name)
            : NULL;
          *dst_new = earlier != NULL;   /* replaced by that link */
          if (older && !earlier)
            {
              /* The existing file, as its name shows it now.  */
              c->made_known = false;
              remember_first_copy (c, sst, dst);
            }
          return !earlier || link_to_earlier (c, sst, earlier, dst);
        }
      if (o->interactive && !overwrite_ok (o, dst, dst_st))
        {
          if (o->debug)
            diag_skipped (dst->name);
          return false;
        }
    }

  if (!S_ISDIR (smode) && S_ISDIR (dst_st->st_mode))
    {
      error (0, 0, "cannot overwrite directory %s with non-directory %s",
             quote_file_n (0, dst->name), quote_file_n (1, src->name));
      return false;
    }
  if (S_ISDIR (smode) && !S_ISDIR (dst_st->st_mode))
    {
      error (0, 0, "cannot overwrite non-directory %s with directory %s",
             quote_file_n (0, dst->name), quote_file_n (1, src->name));
      return false;
    }
  if (command_line && c->created && o->backup_type != numbered_backups
      && !S_ISDIR (dst_st->st_mode)
      && marks_has (c->created, marks_of (c->created, dst_st->st_dev,
                                          dst_st->st_ino, dst->name)))
    {
      error (0, 0, "will not overwrite just-created %s with %s",
             quote_file_n (0, dst->name), quote_file_n (1, src->name));
      return false;
    }

  if (S_ISDIR (dst_st->st_mode))
    return true;
  char const *srcbase = last_component (src->name);
  if (o->backup_type != no_backups && !dot_or_dotdot (srcbase))
    {
      /* "cp --backup=simple a~ a" would rename a over its own source.  */
      if (o->backup_type != numbered_backups
          && source_is_backup_of (srcbase, sst, dst))
        {
          error (0, 0, "backing up %s might destroy source;  %s not copied",
                 quote_file_n (0, dst->name), quote_file_n (1, src->name));
          return false;
        }
      if (!backup_clear_of_reports (o, dst))
        return false;
      /* Made and guarded as one step: from now until the copy ends, a
         fatal signal puts the backup back.  */
      dest_hold_signals ();
      char *b = make_backup (dst, o->backup_type);
      int err = errno;
      /* B is relative to DST->dirfd, as DST->rel is (make_backup).  */
      if (b)
        dest_guard_backup (dst->dirfd, b, dst->rel);
      dest_release_signals ();
      if (!b && err != ENOENT)
        {
          error (0, err, "cannot backup %s", quote_file (dst->name));
          return false;
        }
      *backup = b;
      *dst_new = true;
    }
  else if (o->remove_destination
           || (!o->attributes_only
               && ((o->preserve_links && 1 < dst_st->st_nlink)
                   || (o->dereference == DEREF_NEVER && !S_ISREG (smode)))))
    {
      if (unlinkat (dst->dirfd, dst->rel, 0) != 0 && errno != ENOENT)
        {
          error (0, errno, "cannot remove %s", quote_file (dst->name));
          return false;
        }
      *dst_new = true;
      if (o->verbose)
        diag_removed (dst->name);
    }
  return true;
}

/* --sync: an entry of the directory holding the node just copied was
   made, removed or renamed: flush that directory at its end.  */
static void
note_change (struct ancestor *parent, struct walk *w)
{
  if (parent)
    parent->dst_changed = true;
  else
    w->top_changed = true;
}

/* Under --preserve=links, or for directories met again: the name this
   run already gave SRC's inode, or NULL (and remember DST for it: then
   *FIRST is true for a file, whose copy later links will be made to).  */
static char const *
earlier_copy (struct copy_ctx *c, struct stat const *sst,
              struct loc const *dst, bool command_line, bool *first)
{
  struct cp8m_options const *o = c->o;
  *first = false;
  if (o->preserve_links && !o->hard_link
      && (1 < sst->st_nlink
          || (command_line && o->dereference == DEREF_COMMAND_LINE)
          || o->dereference == DEREF_ALWAYS))
    {
      char const *earlier = seen_remember (c->links, sst->st_dev,
                                           sst->st_ino, dst->name);
      *first = !earlier && !S_ISDIR (sst->st_mode);
      return earlier;
    }
  if (S_ISDIR (sst->st_mode))
    return command_line
           ? seen_remember (c->links, sst->st_dev, sst->st_ino, dst->name)
           : seen_lookup (c->links, sst->st_dev, sst->st_ino);
  return NULL;
}

/* Is the directory SRC the entry that EARLIER, the name of a copy made
   this run, names?  The copy's parent is looked up from the operand's
   target directory, as GNU cp 9.11 does (same_nameat on its dirfd): a
   target given as a symbolic link to a directory ("cp -r d~ d" with d ->
   d~) is the directory itself, so copying d~ into it is copying a
   directory into itself, not a hard link to one.  */
static bool
copy_of_itself (struct loc const *src, char const *earlier,
                struct walk const *w)
{
  /* Past the target's prefix, EARLIER is relative to the target
     directory once the slashes after the prefix are skipped (a name
     given as "//t" keeps one); SRC->name is the source's whole name,
     absolute when its operand is, hence AT_FDCWD.  */
  if (w->top_dirfd != AT_FDCWD
      && strncmp (earlier, w->top_dst, w->top_prefix) == 0)
    {
      char const *rel = earlier + w->top_prefix;
      rel += strspn (rel, "/");
      if (*rel)
        /* REL is relative to the target directory; SRC->name absolute when
           its operand is (AT_FDCWD).  */
        return same_nameat (AT_FDCWD, src->name, w->top_dirfd, rel);
    }
  return same_name (src->name, earlier);
}

/* Copy the directory SRC (status SST) to DST, and everything in it: the
   walk's recursion, through copy_node.  */
static bool
copy_tree (struct copy_ctx *c, struct loc const *src, struct stat const *sst,
           struct loc const *dst, bool dst_exists, bool defer,
           struct ancestor *parent, struct walk *w)
{
  struct dir_copy dc;
  if (!dir_begin (c, &dc, src, sst, dst, dst_exists, defer, parent, w))
    return false;
  bool ok = true;
  while (dir_next (&dc, w))
    ok &= copy_node (c, &dc.s, &dc.d, &dc.self, w, false);
  return dir_end (c, &dc, ok);
}

/* Create DST as the kind of file SRC is.  DEFER: a regular file's copy
   (copy_regular), or a directory's attributes (dir_end), may be done
   later.  */
static bool
copy_by_type (struct copy_ctx *c, struct loc const *src,
              struct stat const *sst, struct loc const *dst,
              struct stat const *dst_st, bool *dst_new, bool dst_is_dir,
              struct ancestor *parent, struct walk *w, bool follow,
              bool defer)
{
  struct cp8m_options const *o = c->o;
  mode_t smode = sst->st_mode;

  if (S_ISDIR (smode))
    return copy_tree (c, src, sst, dst, dst_is_dir, defer, parent, w);
  if (o->symbolic_link)
    return make_symbolic_link (c, src, dst);
  if (o->hard_link)
    return make_hard_link (c, src, dst, follow);
  if (S_ISREG (smode) || (o->copy_as_regular && !S_ISLNK (smode)))
    return copy_regular (c, src, sst, dst, dst_new, follow, defer);
  if (S_ISLNK (smode))
    return copy_symlink (c, src, sst, dst, *dst_new, dst_st);
  if (S_ISFIFO (smode) || S_ISBLK (smode) || S_ISCHR (smode)
      || S_ISSOCK (smode))
    return copy_special (c, src, sst, dst);
  error (0, 0, "%s has unknown file type", quote_file (src->name));
  return false;
}

/* The status of the existing destination DST, as the copy of a file of
   mode SMODE will treat it: with USE_LSTAT, the name itself (but a
   symbolic link to a directory under --keep-directory-symlink), else the
   file a symbolic link there leads to.  A symbolic link that another
   user may have planted (follow.h) is not followed: for a directory that
   is the end (*REFUSED, reported); for a file, its own status stands,
   and opening it for the copy refuses it (regular.c), or -f replaces it.
   Return 0, or -1 with errno as fstatat.  */
static int
stat_dest (struct cp8m_options const *o, struct loc const *dst, mode_t smode,
           bool use_lstat, struct stat *st, bool *refused)
{
  *refused = false;
  if (fstatat (dst->dirfd, dst->rel, st, AT_SYMLINK_NOFOLLOW) != 0)
    return -1;
  bool dir_link = S_ISDIR (smode) && o->keep_directory_symlink;
  if (!S_ISLNK (st->st_mode) || (use_lstat && !dir_link))
    return 0;
  struct stat t;
  int r = fstatat (dst->dirfd, dst->rel, &t, 0);
  int err = errno;
  /* A dangling link is written through only under POSIXLY_CORRECT;
     otherwise it gets GNU's refusal (dest.c).  */
  bool followed = use_lstat ? r == 0 && S_ISDIR (t.st_mode)
                  : r == 0 || (err == ENOENT
                               && o->open_dangling_dest_symlink);
  if (followed && !follow_allowed (dst->dirfd, dst->rel, st))
    {
      if (!use_lstat)
        return 0;
      follow_refused (dst->name);
      *refused = true;
      return -1;
    }
  if (use_lstat)
    {
      if (followed)
        *st = t;
      return 0;
    }
  if (r == 0)
    *st = t;
  errno = err;
  return r;
}

static bool copy_node_here (struct copy_ctx *c, struct loc const *src,
                            struct loc const *dst, struct ancestor *parent,
                            struct walk *w, bool command_line);

bool
copy_node (struct copy_ctx *c, struct loc const *src, struct loc const *dst,
           struct ancestor *parent, struct walk *w, bool command_line)
{
  /* Its messages are kept with its names (--stats-file).  */
  struct diag_node saved = diag_node_enter (src->name, dst->name);
  bool ok = copy_node_here (c, src, dst, parent, w, command_line);
  diag_node_leave (saved);
  return ok;
}

static bool
copy_node_here (struct copy_ctx *c, struct loc const *src,
                struct loc const *dst, struct ancestor *parent,
                struct walk *w, bool command_line)
{
  struct cp8m_options const *o = c->o;
  /* Deeper than the stack allows (dirfds.c): refused as GNU cp refuses
     a name too long for the kernel, which stops it far shallower.  */
  if (!dirfds_stack_left (c))
    {
      error (0, ENAMETOOLONG, "cannot stat %s", quote_file (src->name));
      return false;
    }
  bool follow = o->dereference == DEREF_ALWAYS
                || (command_line && o->dereference == DEREF_COMMAND_LINE);
  struct stat sst;
  if (fstatat (src->dirfd, src->rel, &sst,
               follow ? 0 : AT_SYMLINK_NOFOLLOW) != 0)
    {
      error (0, errno, "cannot stat %s", quote_file (src->name));
      return false;
    }
  mode_t smode = sst.st_mode;
  if (S_ISDIR (smode) && !o->recursive)
    {
      error (0, 0, "-r not specified; omitting directory %s",
             quote_file (src->name));
      return false;
    }

  if (command_line && c->operands && o->backup_type == no_backups)
    {
      if (!marks_add (c->operands, marks_of (c->operands, sst.st_dev,
                                             sst.st_ino, src->name)))
        {
          diag_next_is_notice ();
          error (0, 0, "warning: source %s %s specified more than once",
                 S_ISDIR (smode) ? "directory" : "file",
                 quote_file (src->name));
          return true;
        }
    }

  /* A regular file is written through a destination symlink, so look
     through it; anything else replaces the link itself.  */
  bool use_lstat = (!S_ISREG (smode)
                    && (!o->copy_as_regular || S_ISDIR (smode)
                        || S_ISLNK (smode)))
                   || o->symbolic_link || o->hard_link
                   || o->backup_type != no_backups || o->remove_destination;
  struct stat dst_st;
  bool dst_new = dst->absent, dst_is_dir = false, have_dst_st = false;
  char *backup = NULL;
  if (!dst->absent)
    {
      bool refused;
      int r = stat_dest (o, dst, smode, use_lstat, &dst_st, &refused);
      if (refused)
        return false;
      if (r != 0)
        {
          if (errno == ELOOP && !use_lstat && o->force)
            {
              /* A destination symlink that loops: -f replaces it (the
                 open fails, the name is removed and created anew), as
                 GNU cp does, with nothing to compare or back up.  */
            }
          else if (errno != ENOENT)
            {
              error (0, errno, "cannot stat %s", quote_file (dst->name));
              return false;
            }
          else
            dst_new = true;
        }
      else
        {
          bool skip;
          if (!handle_existing (c, src, &sst, dst, &dst_st, command_line,
                                &dst_new, &skip, &backup))
            return false;
          if (skip)
            {
              if (o->sync && dst_new)
                note_change (parent, w);   /* -u made a link instead */
              return true;
            }
          dst_is_dir = S_ISDIR (dst_st.st_mode);
          have_dst_st = true;
        }
    }

  /* An operand must not write through a symbolic link an earlier operand
     of this run created ("cp -dR a/1 b/1 c" where a/1 is a link).  */
  if (command_line && c->created && o->backup_type == no_backups)
    {
      struct stat lst;
      if (fstatat (dst->dirfd, dst->rel, &lst, AT_SYMLINK_NOFOLLOW) == 0
          && S_ISLNK (lst.st_mode)
          && marks_has (c->created, marks_of (c->created, lst.st_dev,
                                              lst.st_ino, dst->name)))
        {
          error (0, 0, "will not copy %s through just-created symlink %s",
                 quote_file_n (0, src->name), quote_file_n (1, dst->name));
          return false;
        }
    }

  if (o->verbose && !S_ISDIR (smode))
    {
      if (backup)
        {
          char *shown = sibling_name (dst->name, last_component (backup));
          diag_verbose_backup (src->name, dst->name, shown);
          free (shown);
        }
      else
        diag_verbose (src->name, dst->name);
    }

  bool ok, first;
  char const *earlier = earlier_copy (c, &sst, dst, command_line, &first);
  if (earlier && S_ISDIR (smode) && copy_of_itself (src, earlier, w))
    {
      error (0, 0, "cannot copy a directory, %s, into itself, %s",
             quote_file_n (0, w->top_src), quote_file_n (1, w->top_dst));
      w->into_self = true;
      ok = false;
    }
  else if (earlier && S_ISDIR (smode) && same_name (dst->name, earlier))
    {
      /* The same directory given twice (with --backup, which the check
         of operands leaves alone): a notice, as GNU's, and nothing
         more to do.  */
      diag_next_is_notice ();
      error (0, 0, "warning: source directory %s specified more than once",
             quote_file (w->top_src));
      ok = true;
    }
  else if (earlier && S_ISDIR (smode) && !follow)
    {
      error (0, 0, "will not create hard link %s to directory %s",
             quote_file_n (0, dst->name), quote_file_n (1, earlier));
      ok = false;
    }
  else if (earlier && !S_ISDIR (smode))
    {
      ok = link_to_earlier (c, &sst, earlier, dst);
      if (ok)
        manifest_link (c->manifest, sst.st_dev, sst.st_ino, dst->name);
    }
  else if (S_ISDIR (smode) && is_ancestor (&sst, parent))
    {
      error (0, 0, "cannot copy cyclic symbolic link %s",
             quote_file (src->name));
      ok = false;
    }
  else
    {
      c->made_known = false;
      /* Only a file whose copy nothing here waits for may end later: not
         an operand (later operands look at what it made), nor one with
         a backup to put back, nor the first of hard links.  */
      bool defer = !command_line && !backup && !first;
      ok = copy_by_type (c, src, &sst, dst,
                         dst_new || !have_dst_st ? NULL : &dst_st,
                         &dst_new, dst_is_dir, parent, w, follow, defer);
      if (ok && first)
        remember_first_copy (c, &sst, dst);
    }

  /* --sync: the entries of DST's directory changed unless DST was a
     directory merged into or a file rewritten in place (a copy that
     failed early may count too: one flush too many is harmless).
     --atomic renames a new file over the old one: the rename is in the
     directory, and without its flush a power loss may bring the old
     file back.  */
  bool kept = have_dst_st && !dst_new && !earlier
              && (dst_is_dir
                  || (!o->symbolic_link && !o->hard_link && !o->atomic
                      && (S_ISREG (smode)
                          || (o->copy_as_regular && !S_ISLNK (smode)))));
  if (o->sync && !kept)
    note_change (parent, w);

  /* A failed copy is no target for later hard links to the same file.  */
  if (!ok && !earlier)
    seen_forget (c->links, sst.st_dev, sst.st_ino);
  if (!ok && backup)
    {
      /* A directory's walk may have closed and reopened DST's directory
         (dirfds.c): its descriptor is the parent level's now.  */
      struct loc now = *dst;
      if (parent && !parent->by_name)
        now.dirfd = parent->dst_fd;
      dest_undo_backup (o, &now, backup);
    }
  else if (backup)
    dest_unguard_backup ();
  free (backup);

  /* Remember what an operand made: a later operand must not overwrite it,
     nor write through it.  A link to an earlier copy is not remembered,
     as GNU cp does not.  */
  struct stat made;
  if (ok && command_line && c->created && !earlier
      && fstatat (dst->dirfd, dst->rel, &made, AT_SYMLINK_NOFOLLOW) == 0)
    marks_add (c->created, marks_of (c->created, made.st_dev, made.st_ino,
                                     dst->name));
  return ok;
}
