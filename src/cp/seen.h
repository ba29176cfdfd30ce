/* Sets of files met during one run, keyed by device and inode: the
   hard-link table of --preserve=links, the destinations already created
   (for "will not overwrite just-created") and the operands already copied.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_SEEN_H
#define CP8M_SEEN_H

#include <stdbool.h>
#include <sys/types.h>

struct seen;

struct seen *seen_new (void);
void seen_free (struct seen *s);

/* The name stored for DEV/INO, or NULL.  */
char const *seen_lookup (struct seen const *s, dev_t dev, ino_t ino);

/* Store NAME (copied) for DEV/INO unless an entry exists.  Return the
   earlier name if there was one, else NULL.  */
char const *seen_remember (struct seen *s, dev_t dev, ino_t ino,
                           char const *name);

/* Drop the entry for DEV/INO, if any.  */
void seen_forget (struct seen *s, dev_t dev, ino_t ino);

/* The destinations a run created are keyed by name as well as by file,
   as GNU cp keys them: one file may be created under several names
   (hard links made by -l or --preserve=links), and a later operand is
   refused only when it would go to the same name.  A set used this way
   takes only these two calls.  */

/* Add NAME for DEV/INO, beside any other names the file has here.  */
void seen_add_name (struct seen *s, dev_t dev, ino_t ino, char const *name);

/* Does S hold DEV/INO under a name for the same directory entry as NAME
   (gnulib's same_name: same last component, same directory)?  */
bool seen_has_name (struct seen const *s, dev_t dev, ino_t ino,
                    char const *name);

#endif
