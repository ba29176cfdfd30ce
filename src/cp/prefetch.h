/* Warming the page cache for the small files a directory walk is about
   to copy, so that their reads overlap the work on the files before them.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_PREFETCH_H
#define CP8M_PREFETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A copy of a small file waits for its data, one read at a time, and a
   tree of thousands of them spends much of its time so.  A thread asks
   for the data of the next few files ahead of the walk (an fadvise, the
   reads themselves left to the kernel), so that the walk finds them in
   the cache.  Only data the copy will read buffered anyway: files of at
   most PREFETCH_MAX_SIZE, and smaller than the engine's buffer unless
   --direct=never (the engine copies a file of a buffer or more with
   direct I/O, unless most of it is cached: warming it would make it
   so).  */
enum { PREFETCH_WINDOW = 16, PREFETCH_MAX_SIZE = 1024 * 1024 };

struct prefetch;

/* A prefetcher of files of at most MAX_SIZE bytes, its thread not
   started yet, or NULL if none can be made (out of memory, not Linux):
   the walk then goes on without one.  It keeps no descriptor numbered
   FD_LIMIT or above (the copy's own need them): one it gets so is closed
   at once, unused.  LOCKSTEP (the tests' CP8M_PREFETCH_LOCKSTEP) makes
   prefetch_settle wait.  */
struct prefetch *prefetch_new (int fd_limit, off_t max_size, bool lockstep);

/* Stop P's thread (a file under way ends first), close what it holds and
   free it.  P may be NULL.  */
void prefetch_free (struct prefetch *p);

/* The walk is at entry AT of the listing LISTING (a number the caller
   gives each directory listing it walks, never twice), whose directory
   is open as DIRFD.  Files queued from an earlier entry of it are
   dropped if not done yet; those of another listing, all of them.  */
void prefetch_at (struct prefetch *p, unsigned long listing, int dirfd,
                  size_t at);

/* Queue entry INDEX (past the last AT) of the current listing, named
   NAME, relative to its directory.  Return false when the queue is full
   or P does not follow the listing (no descriptor for it, a file system
   whose reads may skip the cache, its files found cached already, no
   thread).  */
bool prefetch_add (struct prefetch *p, char const *name, size_t index);

/* With LOCKSTEP, wait until P's thread has looked at every file queued;
   otherwise return at once.  The walk calls it once it has queued files,
   before it copies anything more: what the thread does then depends on
   the files alone, not on which of the two threads the machine's load
   lets run first, which the tests need.  */
void prefetch_settle (struct prefetch *p);

#endif
