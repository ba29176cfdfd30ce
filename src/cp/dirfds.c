/* The walk's directory descriptors, bounded; and its depth, bounded by
   the stack.

   Every name below a directory is looked up relative to that directory's
   descriptor, never by a path from the top: no length limit, and no race
   in which a directory of the destination is swapped for a symbolic link
   between the check and the use.  Two descriptors a level (source and
   destination) would run out in a deep tree, though: 40 levels under
   `ulimit -n 64`.  So only the nearest levels, as many as the limit
   allows (up to 16), keep theirs; a level above them is closed while the
   walk is deeper and opened again when the walk comes back to it:
   1. through ".." of the level below, which is still open then, checked
      to be the same directory by device and inode;
   2. when that check fails (a directory reached through a symbolic link,
      whose ".." is elsewhere, or one moved meanwhile), by name from the
      nearest open level above, or from the operand, each level checked
      in the same way.
   A level reopened by name is found again only if no one renamed a
   directory on its way in the meantime: the walk then stops there with
   an error, rather than copy into some other directory.

   Under a limit too low for even one level (`ulimit -n 6`: three
   descriptors free, where GNU cp copies with two), no level is held,
   and the walk goes as GNU cp's does: a source directory is open only
   until listed, its entries are reached by their whole names (from the
   working directory, and for the destination from the operand's target
   directory), and the copy of a directory gets its attributes through a
   descriptor opened for that by name and checked to be the directory
   made or met (node.h).  Names past PATH_MAX then fail, as with GNU cp;
   and a directory on the way swapped for a symbolic link meanwhile can
   send later entries elsewhere, as with GNU cp (a node once made is
   still changed only through its own descriptor).

   The walk recurses, a level of the tree taking about 1.6 KiB of stack
   (twice that under AddressSanitizer): with descriptors no longer a
   limit, a deep enough tree (some 9000 levels under the usual 8 MiB
   stack) would overflow it.  Entries deeper than the stack allows, less
   a margin (some 4000 levels), are refused with the message GNU cp gives
   for names too long for the kernel, which stops it far earlier.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "copy.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/resource.h>
#include <unistd.h>

#include "diag.h"
#include "error.h"

/* Descriptors a run needs besides the walk's and those open when it
   starts: a file's two descriptors and the engine's direct reopenings of
   them, a directory being listed, a level being reopened, and some for
   the C library (locale files).  */
enum { RESERVED_FDS = 12, MAX_OPEN_LEVELS = 16, MIN_OPEN_LEVELS = 1 };

/* Holding a level takes its two descriptors and, while a file in it is
   copied, the file's two; while the walk steps down, the next level's
   two and the O_PATH descriptor of the directory just made, which its
   destination is opened through (node.h).  GNU cp holds none and copies
   with two: with fewer free than this, no level is held.  */
enum { HELD_LEVEL_FDS = 5 };

/* How many descriptors are open now (those a parent left open count
   against the limit too), or -1 if /proc cannot say.  */
static long
open_fds (void)
{
  DIR *d = opendir ("/proc/self/fd");
  if (!d)
    return -1;
  long n = 0;
  struct dirent *e;
  while ((e = readdir (d)))
    if (e->d_name[0] != '.')
      n++;
  closedir (d);
  return n - 1;   /* the listing's own */
}

/* Descriptors left under the limit once those open now are counted,
   or LONG_MAX without a limit.  */
static long
free_fds (void)
{
  struct rlimit r;
  if (getrlimit (RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
    return LONG_MAX;
  long used = open_fds ();
  if (used < 0)
    used = 3;
  return (long) (r.rlim_cur > LONG_MAX ? LONG_MAX : r.rlim_cur) - used;
}

/* The same, less the reserved ones.  */
static long
spare_fds (void)
{
  long n = free_fds ();
  return n == LONG_MAX ? n : n - RESERVED_FDS;
}

unsigned int
dirfds_max_levels (unsigned int held)
{
  long n = free_fds ();
  if (n != LONG_MAX)
    n -= held;
  if (n < HELD_LEVEL_FDS)
    return 0;
  n = (n == LONG_MAX ? n : n - RESERVED_FDS) / 2;
  return n > MAX_OPEN_LEVELS ? MAX_OPEN_LEVELS
         : n < MIN_OPEN_LEVELS ? MIN_OPEN_LEVELS : n;
}

unsigned int
dirfds_jobs_room (unsigned int levels, unsigned int want)
{
  /* Half of what is left (dirfds_link_room takes the other half); a job
     holds its file's two, and the engine may open them again for direct
     I/O: four each; and as many directories' ends may wait for jobs
     (jobs_after), holding a level's two each.  */
  long room = spare_fds ();
  if (room != LONG_MAX)
    room = (room - 2 * (long) levels) / 2 / 6;
  return room < (long) want ? (room < 0 ? 0 : room) : want;
}

/* The hard-link table's descriptors: at most this many.  */
enum { MAX_LINK_FDS = 256 };

unsigned int
dirfds_link_room (unsigned int levels)
{
  long room = spare_fds ();
  if (room == LONG_MAX)
    return MAX_LINK_FDS;
  /* The walk's two a level: half of what is left (the other half is the
     jobs', dirfds_jobs_room).  */
  room = (room - 2 * (long) levels) / 2;
  return room <= 0 ? 0 : room > MAX_LINK_FDS ? MAX_LINK_FDS : room;
}

/* The stack: how far from BASE (an address near the top of the main
   thread's stack) the walk may go, keeping a margin for what one level
   calls below it (the engine, the C library).  */
enum { STACK_MARGIN = 1024 * 1024, STACK_CAP = 256 * 1024 * 1024 };

void
dirfds_stack_init (struct copy_ctx *c, void const *base)
{
  struct rlimit r;
  size_t limit = STACK_CAP;
  if (getrlimit (RLIMIT_STACK, &r) == 0 && r.rlim_cur != RLIM_INFINITY
      && r.rlim_cur < STACK_CAP)
    limit = r.rlim_cur;
  c->stack_base = (uintptr_t) base;
  c->stack_room = limit > 2 * STACK_MARGIN ? limit - STACK_MARGIN
                                           : limit / 2;
}

bool
dirfds_stack_left (struct copy_ctx const *c)
{
  char here;
  uintptr_t at = (uintptr_t) &here;
  /* Stacks grow down on most machines, up on a few.  */
  uintptr_t used = c->stack_base > at ? c->stack_base - at
                                      : at - c->stack_base;
  return used < c->stack_room;
}

static bool
is_open (struct ancestor const *lv)
{
  return lv->src_fd >= 0 || lv->dst_fd >= 0;
}

static void
close_level (struct ancestor *lv)
{
  if (!is_open (lv))
    return;
  if (lv->src_fd >= 0)
    close (lv->src_fd);
  if (lv->dst_fd >= 0)
    close (lv->dst_fd);
  lv->src_fd = lv->dst_fd = -1;
}

void
dirfds_push (struct copy_ctx const *c, struct ancestor *lv)
{
  /* Held by name: no level above is open, and its destination was
     never opened (dir.c).  */
  if (c->max_open_levels == 0)
    {
      lv->by_name = true;
      return;
    }
  /* The open levels are always the deepest ones: only the first level
     above the C->max_open_levels nearest can be open too.  */
  struct ancestor *a = lv;
  for (unsigned int i = 1; i < c->max_open_levels && a; i++)
    a = a->parent;
  if (a && a->parent)
    {
      /* Files in flight may be in it (jobs.h).  */
      jobs_drain (c->jobs);
      close_level (a->parent);
    }
}

/* Open the directory LOC of LV's side DST (or source) relative to BASE,
   as the walk first opened it, and check that it is the same directory.
   Return the descriptor, or -1 with errno.  */
static int
open_checked (int base, char const *rel, struct ancestor const *lv, bool dst)
{
  int flags = (dst && lv->dst_path_only ? O_PATH : O_RDONLY)
              | O_DIRECTORY | O_CLOEXEC;
  if (dst && !lv->dst_follow)
    flags |= O_NOFOLLOW;
  int fd = openat (base, rel, flags);
  if (fd < 0)
    return -1;
  struct stat st;
  if (fstat (fd, &st) != 0
      || st.st_dev != (dst ? lv->dst_dev : lv->dev)
      || st.st_ino != (dst ? lv->dst_ino : lv->ino))
    {
      close (fd);
      /* What was there is gone from where the walk left it.  */
      errno = ENOENT;
      return -1;
    }
  return fd;
}

/* Open LV's side again by name: from its parent's descriptor if that is
   open, else from the parent opened the same way (recursively, up to
   the operand, whose directory is never closed).  */
static int
reopen_by_name (struct ancestor const *lv, bool dst)
{
  struct loc const *loc = dst ? lv->dst : lv->src;
  struct ancestor const *p = lv->parent;
  if (!p)
    return open_checked (loc->dirfd, loc->rel, lv, dst);
  int base = dst ? p->dst_fd : p->src_fd;
  bool own_base = base < 0;
  if (own_base)
    base = reopen_by_name (p, dst);
  if (base < 0)
    return -1;
  /* LOC->rel: an entry name, relative to its parent's BASE.  */
  int fd = open_checked (base, loc->rel, lv, dst);
  if (own_base)
    {
      int err = errno;
      close (base);
      errno = err;
    }
  return fd;
}

/* Open LV's side again, through the ".." of CHILD_FD when there is one.
   Report a failure.  */
static int
reopen_side (struct ancestor const *lv, bool dst, int child_fd)
{
  int fd = child_fd >= 0 ? open_checked (child_fd, "..", lv, dst) : -1;
  if (fd < 0)
    fd = reopen_by_name (lv, dst);
  if (fd < 0)
    error (0, errno, "cannot access %s",
           quote_file (dst ? lv->dst->name : lv->src->name));
  return fd;
}

/* Open LV again; CHILD (or NULL) is the open level below it.  Only a
   level whose two sides were open is ever closed (one whose source could
   not be read has no levels below it).  */
static bool
reopen_level (struct ancestor *lv, struct ancestor *child)
{
  if (is_open (lv))
    return true;
  /* Reported once: the rest of its walk is given up.  */
  if (lv->lost)
    return false;
  int dst = reopen_side (lv, true, child ? child->dst_fd : -1);
  int src = dst < 0 ? -1 : reopen_side (lv, false,
                                        child ? child->src_fd : -1);
  if (src < 0)
    {
      if (dst >= 0)
        close (dst);
      lv->lost = true;
      return false;
    }
  lv->src_fd = src;
  lv->dst_fd = dst;
  return true;
}

bool
dirfds_ensure (struct ancestor *lv)
{
  /* Its entries are reached by name.  */
  if (lv->by_name)
    return true;
  /* A level is only closed while the walk is below it, and the walk
     reaches it again through a child that reopens it (dirfds_pop): this
     is the fallback, with both sides, the source having been open.  */
  return reopen_level (lv, NULL);
}

int
dirfds_listing (struct ancestor *lv)
{
  if (!lv->by_name)
    return dup (lv->src_fd);
  /* Not needed after: the entries are reached by name.  */
  int fd = lv->src_fd;
  lv->src_fd = -1;
  return fd;
}

bool
dirfds_pop (struct ancestor *lv, bool keep)
{
  bool ok = true;
  /* A level held by name needs no level above it open.  */
  if (lv->parent && !lv->by_name)
    ok = reopen_level (lv->parent, lv);
  if (!keep)
    close_level (lv);
  lv->src_fd = lv->dst_fd = -1;
  return ok;
}
