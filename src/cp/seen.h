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

/* Drop the entry for DEV/INO, if any (closing its copy's descriptor).  */
void seen_forget (struct seen *s, dev_t dev, ino_t ino);

/* The hard-link table also holds, for each source file, the node its
   first copy is (the copy cp8M made, not whatever has its name now), so
   that a later link is made to that node, never to a name someone may
   have pointed elsewhere meanwhile (special.c).  */
struct seen_copy
{
  dev_t dev;        /* the first copy's device and inode */
  ino_t ino;
  int fd;           /* an O_PATH descriptor of it, or -1 (none kept) */
  nlink_t left;     /* later links still expected while FD is kept */
};

/* At most MAX descriptors are kept in S at a time (0: none): a copy
   past that is held by its device and inode only.  */
void seen_limit_fds (struct seen *s, unsigned int max);

/* Note COPY for the entry DEV/INO (which must exist): taken as is, or,
   when S keeps its limit of descriptors already, with COPY->fd closed
   and -1.  */
void seen_set_copy (struct seen *s, dev_t dev, ino_t ino,
                    struct seen_copy const *copy);

/* The copy noted for DEV/INO, or NULL.  */
struct seen_copy *seen_get_copy (struct seen const *s, dev_t dev, ino_t ino);

/* Close the descriptor of COPY, an entry of S, when kept.  */
void seen_drop_fd (struct seen *s, struct seen_copy *copy);

#endif
