/* Destinations made early: while one file is copied, an unnamed
   O_TMPFILE for each of the next few regular files, so that the
   engine can write their first chunks beside the writes of the copy
   under way (engine_lookahead).  Part of the cp layer.

   Nothing of dest.h's invariant changes: such a file has no name until
   its own copy is complete and dest_commit links it, so a kill leaves
   nothing of it; one not used is closed, which frees it.  Its copy
   takes it only where dest_create would make the same file (the same
   source, still regular; the same directory entry of the same listing;
   the same permissions), and the engine cuts it to nothing first if
   what was written to it is not the source as it is now.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_PREDEST_H
#define CP8M_PREDEST_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "copy.h"

/* Made for at most this many of the next files: for the first two,
   and for more only while every file before has one and all of them
   hold no more than the queue's worth of chunks (regular.c,
   open_next_files).  Two sufficed while the buffers were scattered
   4 KiB pages (eight were no faster then).  With buffers in huge
   pages, on a tree of 16 MiB files (two chunks a file), two kept 10
   requests in the device's queue on average, eight 19 (fio through the
   same files: 26), for a copy 2 to 7 % faster in interleaved runs,
   about the host's noise.  Trees of files of half the window or more
   keep two.  */
enum { PREDEST_FILES = 8 };
enum { PREDEST_ALWAYS = 2 };

struct predest_file
{
  int fd;                  /* the O_TMPFILE, or -1: a free slot */
  dev_t src_dev;           /* the source it was made for */
  ino_t src_ino;
  int dirfd;               /* the destination it was made for */
  char *rel;
  unsigned long listing;   /* in which listing of the walk */
  mode_t mode;             /* the permissions it was created with */
};

struct predest
{
  struct predest_file f[PREDEST_FILES];
};

/* An empty set.  */
void predest_init (struct predest *p);

/* The file made early for the next file whose fstat is SRC_ST, to be
   copied to the new destination DEST with permissions MODE, in the
   listing of the walk C is in: the one made before for it if there is
   one, else a new O_TMPFILE (none that would take a descriptor at or
   above C->ahead_fd_limit, none where the directory refuses O_TMPFILE:
   no hidden name is ever made ahead).  Return its descriptor (P still
   owns it) or -1.  */
int predest_make (struct predest *p, struct copy_ctx const *c,
                  struct loc const *dest, struct stat const *src_st,
                  mode_t mode);

/* Close the files made early whose descriptors are not in KEEP[0..N).  */
void predest_keep (struct predest *p, int const *keep, unsigned int n);

/* The file made early for copying SRC_ST to DEST with MODE in listing
   LISTING, which the caller now owns, or -1 (any other is left).  */
int predest_take (struct predest *p, struct loc const *dest,
                  struct stat const *src_st, mode_t mode,
                  unsigned long listing);

/* Close them all.  */
void predest_free (struct predest *p);

#endif
