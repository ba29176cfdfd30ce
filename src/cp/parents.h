/* --parents: the directories leading to each copied operand, created
   under the target directory like their sources, and given their
   sources' attributes once the operand is copied.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_PARENTS_H
#define CP8M_PARENTS_H

#include <stdbool.h>

#include "options.h"

struct parent_dir;

/* The directories met on the way, deepest first.  */
struct parents
{
  struct parent_dir *list;
  int fd;       /* the operand's own parent directory, as made or met
                   (O_PATH), or -1 when the operand has no directory or
                   BY_NAME */
  bool by_name; /* set by the caller: hold no descriptor, reach each
                   directory by its name under the target (the lowest
                   descriptor limits, dirfds.c) */
};

/* DST is the target directory's name joined with the operand; REL
   points into DST at the operand.  Make sure every directory of REL
   exists under DIRFD, creating the missing ones (printed under -v as
   "SRC -> DST", unquoted, as GNU does), each in the one before through
   its descriptor; MADE->fd is the last, where the operand is to be
   copied.  Set *DST_ABSENT when the operand's own parent was just
   created.  Report failures and return false.  */
bool parents_make (struct cp8m_options const *o, int dirfd, char *dst,
                   char *rel, struct parents *made, bool *dst_absent);

/* After the operand is copied: give each directory on the way the
   attributes the options preserve, from its source.  */
bool parents_finish (struct cp8m_options const *o, int dirfd,
                     struct parents const *made);

/* --sync: add to L the directories that making the missing ones
   changed: each one made, and the one it was made in (DIRFD being the
   target directory's descriptor).  */
struct sync_dirs;
void parents_sync (struct parents const *made, int dirfd,
                   struct sync_dirs *l);

void parents_free (struct parents *made);

#endif
