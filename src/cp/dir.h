/* Directories: dir.c makes or opens the copy of one and lists it; copy.c
   copies each entry (the walk's recursion is copy.c's alone); dir.c then
   gives the copy its attributes (after its contents, so that their
   creation does not change its times and a read-only mode does not stop
   them).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_DIR_H
#define CP8M_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "copy.h"

struct dir_entry;

/* One directory being copied: a level of the walk.  */
struct dir_copy
{
  struct ancestor self;       /* the level: its entries' parent */
  struct loc const *src, *dst;
  struct stat const *sst;     /* SRC's status */
  bool dst_exists;            /* DST was a directory already: merged */
  bool defer;                 /* its end may wait for its entries' jobs
                                 while the walk goes on (dir_end) */
  struct meta_plan plan;      /* what its mode needs at the end */
  bool ok;                    /* nothing has failed yet */
  struct dir_entry *names;    /* the listing, or NULL */
  size_t n;
  size_t next;                /* the entry dir_next hands out next */
  char *src_name, *dst_name;  /* the entry being copied's whole names */
  struct loc s, d;            /* the entry being copied */
};

/* Begin copying the directory SRC (status SST) to DST: make it (unless
   DST_EXISTS: merge into it), open both sides and list SRC, in *DC.
   Return false after reporting when the level cannot be opened (nothing
   to end); true otherwise, failures so far in DC->ok.  */
bool dir_begin (struct copy_ctx *c, struct dir_copy *dc,
                struct loc const *src, struct stat const *sst,
                struct loc const *dst, bool dst_exists, bool defer,
                struct ancestor *parent, struct walk *w);

/* The next entry of DC to copy, in DC->s and DC->d (their parent
   DC->self): true, or false when there is none left (or the walk must
   stop).  */
bool dir_next (struct dir_copy *dc, struct walk *w);

/* Give the copy of DC its attributes (and with --sync, flush it) and
   close the level, now, or with files in flight and DC->defer once its
   entries' jobs have ended (a failure then fails the run: c->jobs_failed).
   OK: its entries were copied.  Return the outcome so far.  */
bool dir_end (struct copy_ctx *c, struct dir_copy *dc, bool ok);

#endif
