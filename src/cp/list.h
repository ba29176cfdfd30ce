/* --files-from=FILE: source operands read from a list, one at a time.
   Part of the cp layer.

   The list is read as the copy goes, one name at a time: a list of a
   million names costs the memory of its longest name, not of all of
   them, and a list on a pipe (find ... -print0 | cp8M --null
   --files-from=- -t DIR) starts copying at once.  Names end with a
   newline, or with a null byte (--null, for names that may hold a
   newline); nothing else about them is special: spaces, a leading dash
   or a leading '/' are part of the name.

   A bad entry is reported with the list's name and the entry's number
   (its line, or with --null its place), as GNU du's --files0-from does
   ("cp8M: list:3: invalid zero-length file name"), and skipped: the
   other names are still copied, and the run exits 1.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_LIST_H
#define CP8M_LIST_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct name_list;

/* Open FILE ("-": standard input) as a list whose names end with a null
   byte (NUL) or a newline.  Exit with a message if it cannot be
   opened.  */
struct name_list *list_open (char const *file, bool nul);

/* The next name of L that names something (an lstat finds it), or NULL
   at the end of the list or at a read error.  Each entry skipped
   (empty, holding a null byte when names end with newlines, naming
   nothing) and a read error are reported.  The name stays valid until
   the next call, and may be changed by the caller (as an operand may:
   --strip-trailing-slashes).  */
char *list_next (struct name_list *l);

/* Read from F the next name ending with END (or the file's end) into
   *BUF of *SIZE bytes (getdelim's), END removed: return its length, or
   -1 at the end or a read error.  A name with a null byte in it has a
   length other than strlen's.  Also the progress scan's reader.  */
ssize_t list_read_name (FILE *f, char end, char **buf, size_t *size);

/* Close L and free it.  Return true if every entry could be read and
   used, false if one was reported.  */
bool list_close (struct name_list *l);

#endif
