/* Report files against the run's own files (report.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "canonicalize.h"
#include "diag.h"
#include "filenamecat.h"
#include "xalloc.h"

/* Whether W's node is ST's.  */
static bool
same_node (struct whole const *w, struct stat const *st)
{
  return w->exists && w->dev == st->st_dev && w->ino == st->st_ino;
}

/* Whether the report W is NAME: the same node, found with or without
   following a last symbolic link, or the same absolute name.  */
static bool
is_name (struct whole const *w, char const *name)
{
  struct stat st;
  if ((stat (name, &st) == 0 && same_node (w, &st))
      || (lstat (name, &st) == 0 && same_node (w, &st)))
    return true;
  if (!w->where)
    return false;
  char *real = canonicalize_filename_mode (name, CAN_MISSING);
  bool same = real && strcmp (real, w->where) == 0;
  free (real);
  return same;
}

/* The real name of NAME when it is a directory that a RECURSIVE copy
   walks, else NULL.  */
static char *
walked_dir (char const *name, bool recursive)
{
  struct stat st;
  if (!recursive || stat (name, &st) != 0 || !S_ISDIR (st.st_mode))
    return NULL;
  return realpath (name, NULL);
}

/* Say that the report R is the IS NAME: refused (false).  */
static bool
refuse (struct report const *r, char const *is, char const *name)
{
  error (0, 0, "%s %s is the %s %s", r->what,
         quote_file_n (0, r->w->file), is, quote_file_n (1, name));
  return false;
}

bool
report_check_operand (struct report const *r, char const *op, bool dest,
                      bool recursive)
{
  if (is_name (r->w, op))
    return refuse (r, dest ? "destination" : "source", op);
  /* Inside a tree being copied, the copy would take the report as it
     stood, perhaps half written: refused, as GNU cp refuses to copy a
     directory into itself.  */
  char *tree = dest || !r->w->where ? NULL : walked_dir (op, recursive);
  bool inside = tree && (strcmp (r->w->where, tree) == 0
                         || whole_below (r->w->where, tree));
  if (inside)
    error (0, 0, "cannot write %s %s inside %s, which is being copied",
           r->what, quote_file_n (0, r->w->file), quote_file_n (1, op));
  free (tree);
  return !inside;
}

void
report_check_operands (struct report const *r, char *const *ops, int n,
                       bool last_is_dest, bool recursive)
{
  for (int i = 0; i < n; i++)
    if (!report_check_operand (r, ops[i], last_is_dest && i == n - 1,
                               recursive))
      exit (EXIT_FAILURE);
}

void
report_check_pair (struct report const *a, struct report const *b)
{
  struct whole const *x = a->w, *y = b->w;
  bool same = (x->exists && y->exists && x->dev == y->dev
               && x->ino == y->ino)
              || (x->where && y->where && strcmp (x->where, y->where) == 0);
  /* Two reports into /dev/null lose nothing.  */
  if (same && !(S_ISCHR (x->mode) && S_ISCHR (y->mode)))
    {
      refuse (a, b->what, b->w->file);
      exit (EXIT_FAILURE);
    }
}

bool
report_check_copy (struct report const *r, char const *src,
                   char const *dst, bool recursive)
{
  if (is_name (r->w, dst))
    {
      error (0, 0, "%s %s is the copy of %s", r->what,
             quote_file_n (0, r->w->file), quote_file_n (1, src));
      return false;
    }
  char *tree = r->w->where ? walked_dir (src, recursive) : NULL;
  if (!tree)
    return true;
  free (tree);
  /* DST's tree: its name as the copy will find it, links followed.  */
  char *copy = canonicalize_filename_mode (dst, CAN_MISSING);
  char const *rest = copy ? whole_below (r->w->where, copy) : NULL;
  char *from = rest ? file_name_concat (src, rest, NULL) : NULL;
  struct stat st;
  bool clash = from && lstat (from, &st) == 0;
  if (clash)
    error (0, 0, "%s %s is the copy of %s", r->what,
           quote_file_n (0, r->w->file), quote_file_n (1, from));
  free (from);
  free (copy);
  return !clash;
}

bool
report_check_backup (struct report const *r, char const *backup,
                     char const *dst)
{
  if (!is_name (r->w, backup))
    return true;
  error (0, 0, "%s %s is the backup of %s", r->what,
         quote_file_n (0, r->w->file), quote_file_n (1, dst));
  return false;
}

bool
report_node (struct report const *r, struct report_node *n)
{
  struct whole const *w = r->w;
  struct stat st;
  /* W->base: a last component, relative to W->dirfd (whole.h).  */
  int got = w->kind == WHOLE_REPLACE
            ? fstatat (w->dirfd, w->base, &st, AT_SYMLINK_NOFOLLOW)
            : fstat (w->fd, &st);
  if (got != 0 || !S_ISREG (st.st_mode))
    return false;
  *n = (struct report_node) { st.st_dev, st.st_ino, w->file, r->what };
  return true;
}

bool
report_clash (struct cp8m_options const *o, struct stat const *st,
              char const *is, char const *name)
{
  for (int i = 0; i < o->n_report_nodes; i++)
    {
      struct report_node const *n = &o->report_nodes[i];
      if (n->dev == st->st_dev && n->ino == st->st_ino)
        {
          error (0, 0, "%s %s is the %s %s", n->what,
                 quote_file_n (0, n->file), is, quote_file_n (1, name));
          return false;
        }
    }
  return true;
}
