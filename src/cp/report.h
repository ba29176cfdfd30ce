/* Report files against the run's own files: a --stats-file or
   --checksum-file that names a file the run reads or writes is refused
   before any copy, so that a report never takes the place of a source
   or a copy, nor a copy that of a report.  Part of the cp layer.

   What is compared.  A report stands for a node (device and inode, when
   it exists) and a name (absolute, symbolic links resolved: whole.h's
   WHERE).  It is refused when it is
   - an operand: the node or the name of a source or of the destination
     (a symbolic link operand counts as itself and as what it points
     to);
   - the other report file (unless both are character devices, such as
     /dev/null, where nothing is lost);
   - inside a directory copied recursively (by name: the walk would read
     it, perhaps half written);
   - the copy of an operand: the name the copy gets, with -r also any
     name in the copy's tree whose counterpart in the source exists (the
     copy would write it).
   Files deep in a tree are compared by name at start; the walk then
   compares each file it opens (a source read, a destination written,
   a name about to become a backup) with the report files' nodes
   (report_clash), which catches what names cannot show: a link deep in
   the destination leading to the report, a bind mount, -L.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_REPORT_H
#define CP8M_REPORT_H

#include <stdbool.h>

#include "options.h"
#include "whole.h"

/* One report file and its name in messages ("statistics file").  */
struct report
{
  struct whole *w;
  char const *what;
};

/* Whether report R is clear of the operand OP (false after a message):
   not OP itself (the destination's name if DEST), nor inside OP copied
   RECURSIVEly.  For a name read from --files-from's list.  */
bool report_check_operand (struct report const *r, char const *op,
                           bool dest, bool recursive);

/* Before the target is resolved: exit with a message if report R is one
   of the N operands OPS or lies inside one of them that is copied
   RECURSIVEly.  LAST_IS_DEST: OPS's last is the destination (no -t).  */
void report_check_operands (struct report const *r, char *const *ops,
                            int n, bool last_is_dest, bool recursive);

/* Exit with a message if reports A and B are the same file.  */
void report_check_pair (struct report const *a, struct report const *b);

/* The copy of operand SRC goes to DST (as messages name it).  Return
   false after a message if report R is that copy or, RECURSIVE, in its
   tree where the copy writes.  */
bool report_check_copy (struct report const *r, char const *src,
                        char const *dst, bool recursive);

/* DST, the simple backup the copy of SRC to DST would make (BACKUP):
   return false after a message if report R is that name.  */
bool report_check_backup (struct report const *r, char const *backup,
                          char const *dst);

/* Note in *N the node report R stands for now, once begun.  Return
   false when it is none the walk could meet (no regular file).  */
bool report_node (struct report const *r, struct report_node *n);

/* Return false after a message if ST is one of O's report files: NAME
   IS (e.g. "source" for a file read, "copy of" with the source's name
   for a file written) that report.  */
bool report_clash (struct cp8m_options const *o, struct stat const *st,
                   char const *is, char const *name);

#endif
