/* Marks: the set of directory entries a run's operands used, kept small
   enough for a list of a million names.  Part of the cp layer.

   GNU cp remembers each operand it copied and each destination an
   operand created, to warn of a source named twice and to refuse to
   overwrite a file it has just made ("will not overwrite just-created
   'd/a' with 'b/a'").  Both compare a file and a directory entry the
   way gnulib's same_name does: the same file, the same directory, the
   same last component.  Kept as names, that costs several times the
   names' own text, which matters for --files-from's long lists; a mark
   is instead 8 bytes: a keyed hash (SHA-256 under a key drawn at
   random each run) of the file's and its directory's device and inode
   numbers and the last component.  Two entries share a mark only by
   chance, about once in 10^9 runs of 100,000 operands, and no one can
   choose names that collide without the key.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_MARKS_H
#define CP8M_MARKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct marks;

/* A new empty set, with a key of its own.  */
struct marks *marks_new (void);

/* Free M (NULL is fine).  */
void marks_free (struct marks *m);

/* The mark of the directory entry NAME (absolute, or relative to the
   working directory: a name as the user gave it) for the file DEV/INO,
   in M's key.  */
uint64_t marks_of (struct marks const *m, dev_t dev, ino_t ino,
                   char const *name);

/* Add MARK to M: return false if it was there already.  */
bool marks_add (struct marks *m, uint64_t mark);

/* Whether M holds MARK.  */
bool marks_has (struct marks const *m, uint64_t mark);

#endif
