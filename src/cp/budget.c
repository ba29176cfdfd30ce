/* The memory budget: the headroom of every memory cgroup from ours up to
   its hierarchy's root, and the system's MemAvailable.

   A cgroup's headroom is its limit less what it uses, where what it uses
   leaves out the clean page cache (the kernel reclaims that before it
   fails a charge): a container that copied files before is full of cache
   and still has room.  Version 2 limits are memory.max and memory.high
   (above which the kernel throttles); version 1's is
   memory.limit_in_bytes.  On a hybrid system the memory controller is in
   one hierarchy only; the other has no limit files and is skipped.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "budget.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read-file.h"
#include "xalloc.h"

/* ---- reading small files ---- */

/* A new string: A, B and C joined.  */
static char *
concat3 (char const *a, char const *b, char const *c)
{
  size_t la = strlen (a), lb = strlen (b), lc = strlen (c);
  char *s = xmalloc (la + lb + lc + 1);
  memcpy (s, a, la);
  memcpy (s + la, b, lb);
  memcpy (s + la + lb, c, lc + 1);
  return s;
}

/* The contents of ROOT followed by PATH (mountinfo can be large on a
   host with many mounts), NUL-terminated, or NULL.  */
static char *
slurp (char const *root, char const *path)
{
  char *name = concat3 (root, path, "");
  size_t len;
  char *text = read_file (name, RF_BINARY, &len);
  free (name);
  return text;
}

/* Read a number of bytes from the one-line file DIR/FILE under ROOT into
   *V: "max" (v2's no limit) is UINT64_MAX.  */
static bool
read_number (char const *root, char const *dir, char const *file,
             uint64_t *v)
{
  char *path = concat3 (dir, "/", file);
  char *s = slurp (root, path);
  free (path);
  if (!s)
    return false;
  bool ok = true;
  if (strncmp (s, "max", 3) == 0)
    *v = UINT64_MAX;
  else
    {
      char *end;
      errno = 0;
      uintmax_t n = strtoumax (s, &end, 10);
      ok = end != s && errno == 0;
      *v = n;
    }
  free (s);
  return ok;
}

/* The value of KEY in the "key value" lines of TEXT, times MULT, or 0.  */
static uint64_t
keyed_value (char const *text, char const *key, uint64_t mult)
{
  size_t len = strlen (key);
  for (char const *p = text; p; p = strchr (p, '\n'), p = p ? p + 1 : NULL)
    if (strncmp (p, key, len) == 0 && (p[len] == ' ' || p[len] == ':'))
      {
        p += len + 1;
        while (*p == ' ' || *p == '\t')
          p++;
        return strtoumax (p, NULL, 10) * mult;
      }
  return 0;
}

/* ---- finding our cgroups ---- */

/* Undo mountinfo's octal escapes (\040 for a space) in S, in place.  */
static void
unescape (char *s)
{
  char *d = s;
  for (; *s; s++)
    if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0'
        && s[2] <= '7' && s[3] >= '0' && s[3] <= '7')
      {
        *d++ = (s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0');
        s += 3;
      }
    else
      *d++ = *s;
  *d = '\0';
}

/* Set *LINE to the next line of *TEXT as a new string, advancing *TEXT;
   return false when there is none.  (Not a NULL return: gcc 12's
   -fanalyzer takes ximemdup0's result to be NULL in the caller's test, and
   reports it leaked.)  */
static bool
next_line (char const **text, char **line)
{
  char const *p = *text;
  if (!p || !*p)
    return false;
  char const *eol = strchr (p, '\n');
  size_t len = eol ? (size_t) (eol - p) : strlen (p);
  *text = eol ? eol + 1 : NULL;
  *line = ximemdup0 (p, len);
  return true;
}

/* Is NAME one of the comma-separated words of LIST?  */
static bool
in_list (char const *list, char const *name)
{
  size_t len = strlen (name);
  for (char const *p = list; p; p = strchr (p, ','), p = p ? p + 1 : NULL)
    if (strncmp (p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
      return true;
  return false;
}

/* Is ROOT, a directory of a cgroup hierarchy, PATH or above it?  */
static bool
contains (char const *root, char const *path)
{
  size_t len = strlen (root);
  return strcmp (root, "/") == 0
         || (strncmp (path, root, len) == 0
             && (path[len] == '/' || path[len] == '\0'));
}

/* Find in MOUNTINFO a mount of the v2 hierarchy (V1 false) or of the v1
   hierarchy with the memory controller, from which the cgroup PATH can
   be reached (the one mounting the deepest directory above PATH; else
   the first one, whose root then stands for PATH, as in a container that
   sees only its own cgroup): set *MNT and *MROOT (new strings: where it
   is mounted, and which of its directories is mounted there).  */
static bool
find_mount (char const *mountinfo, bool v1, char const *path, char **mnt,
            char **mroot)
{
  char *l;
  bool found = false, reaches = false;
  while (next_line (&mountinfo, &l))
    {
      /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE SOURCE
         SUPER-OPTIONS */
      char *sep = strstr (l, " - ");
      char *f[5], *save;
      int n = 0;
      if (sep)
        {
          *sep = '\0';
          for (char *p = l; n < 5 && (f[n] = strtok_r (p, " ", &save)); n++)
            p = NULL;
        }
      char *type = n == 5 ? strtok_r (sep + 3, " ", &save) : NULL;
      char *source = type ? strtok_r (NULL, " ", &save) : NULL;
      char *super = source ? strtok_r (NULL, " ", &save) : NULL;
      bool match = type && (v1 ? strcmp (type, "cgroup") == 0 && super
                                 && in_list (super, "memory")
                               : strcmp (type, "cgroup2") == 0);
      if (match)
        {
          unescape (f[3]);
          unescape (f[4]);
          bool r = contains (f[3], path);
          if (!found || (r && (!reaches || strlen (f[3]) > strlen (*mroot))))
            {
              if (found)
                {
                  free (*mroot);
                  free (*mnt);
                }
              *mroot = xstrdup (f[3]);
              *mnt = xstrdup (f[4]);
              found = true;
              reaches = r;
            }
        }
      free (l);
    }
  return found;
}

/* Our cgroup in the v2 hierarchy ("0::PATH") or in the v1 hierarchy with
   the memory controller ("N:...,memory,...:PATH"), from /proc/self/cgroup's
   TEXT: a new string, or NULL.  */
static char *
own_cgroup (char const *text, bool v1)
{
  char *l;
  while (next_line (&text, &l))
    {
      /* ID:CONTROLLERS:PATH */
      char *c1 = strchr (l, ':');
      char *c2 = c1 ? strchr (c1 + 1, ':') : NULL;
      char *path = NULL;
      if (c2)
        {
          *c2 = '\0';
          bool match = v1 ? in_list (c1 + 1, "memory")
                          : strcmp (l, "0:") == 0;
          if (match)
            path = xstrdup (c2 + 1);
        }
      free (l);
      if (path)
        return path;
    }
  return NULL;
}

/* The directory of cgroup PATH in a hierarchy whose directory MROOT is
   mounted at MNT (a new string).  A path outside what is mounted (a
   container that sees only its own part) is the mount's root.  */
static char *
cgroup_dir (char const *mnt, char const *mroot, char const *path)
{
  if (strcmp (mroot, "/") == 0)
    return concat3 (mnt, strcmp (path, "/") == 0 ? "" : path, "");
  if (contains (mroot, path))
    return concat3 (mnt, path + strlen (mroot), "");
  return xstrdup (mnt);
}

/* ---- headroom ---- */

/* Keep HEADROOM if it is the smallest yet.  */
static void
consider (struct budget *b, uint64_t limit, uint64_t usage,
          char const *source, char const *dir, char const *file)
{
  uint64_t room = limit > usage ? limit - usage : 0;
  if (room >= b->headroom)
    return;
  b->headroom = room;
  b->limit = limit;
  b->usage = usage;
  b->source = source;
  b->limit_file = file;
  free (b->cgroup);
  b->cgroup = dir ? xstrdup (dir) : NULL;
}

/* The value of KEY in memory.stat's TEXT; v1's hierarchical totals are
   "total_"KEY.  */
static uint64_t
stat_value (char const *text, bool v1, char const *key)
{
  if (!v1)
    return keyed_value (text, key, 1);
  char *total = concat3 ("total_", key, "");
  uint64_t v = keyed_value (text, total, 1);
  free (total);
  return v;
}

/* What the cgroup DIR uses, less its clean page cache: the kernel drops
   that before it fails a charge.  Shared memory (tmpfs) counts as cache
   but cannot be dropped without swap, and dirty pages only after they
   are written.  */
static uint64_t
cgroup_usage (char const *root, char const *dir, bool v1)
{
  uint64_t used;
  if (!read_number (root, dir, v1 ? "memory.usage_in_bytes"
                                  : "memory.current", &used))
    return 0;
  char *path = concat3 (dir, "/memory.stat", "");
  char *stat = slurp (root, path);
  free (path);
  uint64_t cache = 0, held = 0;
  if (stat)
    {
      cache = stat_value (stat, v1, v1 ? "cache" : "file");
      held = stat_value (stat, v1, "shmem")
             + stat_value (stat, v1, v1 ? "dirty" : "file_dirty")
             + stat_value (stat, v1, v1 ? "writeback" : "file_writeback");
    }
  free (stat);
  uint64_t clean = cache > held ? cache - held : 0;
  return used > clean ? used - clean : 0;
}

/* Walk from our cgroup in one hierarchy up to the root mounted, taking
   each level's headroom.  */
static void
measure_cgroups (char const *root, char const *mountinfo, char const *self,
                 bool v1, struct budget *b)
{
  char *mnt = NULL, *mroot = NULL;
  char *path = own_cgroup (self, v1);
  if (!path)
    return;
  if (!find_mount (mountinfo, v1, path, &mnt, &mroot))
    {
      free (path);
      return;
    }
  char *dir = cgroup_dir (mnt, mroot, path);
  size_t top = strlen (mnt);
  char const *source = v1 ? "cgroup v1" : "cgroup v2";
  for (;;)
    {
      static char const *const v2_limits[] = { "memory.max", "memory.high" };
      static char const *const v1_limits[] = { "memory.limit_in_bytes" };
      char const *const *files = v1 ? v1_limits : v2_limits;
      size_t n_files = v1 ? 1 : 2;
      for (size_t i = 0; i < n_files; i++)
        {
          uint64_t limit;
          if (read_number (root, dir, files[i], &limit)
              && limit != UINT64_MAX)
            consider (b, limit, cgroup_usage (root, dir, v1), source, dir,
                      files[i]);
        }
      /* Up one level, but not above the mount.  */
      char *slash = strrchr (dir, '/');
      if (strlen (dir) <= top || !slash || (size_t) (slash - dir) < top)
        break;
      *slash = '\0';
    }
  free (dir);
  free (mnt);
  free (mroot);
  free (path);
}

void
budget_measure (char const *root, struct budget *b)
{
  *b = (struct budget) { .headroom = UINT64_MAX, .bytes = SIZE_MAX };
  char *self = slurp (root, "/proc/self/cgroup");
  char *mountinfo = slurp (root, "/proc/self/mountinfo");
  if (self && mountinfo)
    {
      measure_cgroups (root, mountinfo, self, false, b);
      measure_cgroups (root, mountinfo, self, true, b);
    }
  free (self);
  free (mountinfo);

  char *meminfo = slurp (root, "/proc/meminfo");
  if (meminfo)
    {
      uint64_t avail = keyed_value (meminfo, "MemAvailable", 1024);
      /* Kernels before 3.14 do not say: estimate as they then did.  */
      if (avail == 0)
        avail = keyed_value (meminfo, "MemFree", 1024)
                + keyed_value (meminfo, "Cached", 1024);
      if (avail > 0)
        consider (b, avail, 0, "MemAvailable", NULL, NULL);
      free (meminfo);
    }
  if (b->headroom != UINT64_MAX)
    b->bytes = b->headroom / BUDGET_SHARE > SIZE_MAX
               ? SIZE_MAX : b->headroom / BUDGET_SHARE;
}

void
budget_free (struct budget *b)
{
  free (b->cgroup);
  b->cgroup = NULL;
}

bool
budget_fit (size_t bytes, unsigned int *depth, size_t *size)
{
  if ((uint64_t) *depth * *size <= bytes)
    return false;
  if (bytes / *size >= 1)
    {
      *depth = bytes / *size;
      return true;
    }
  /* Not room for one: one smaller buffer, in whole MiB down to 1 MiB (or
     the size asked for, when that was smaller).  */
  size_t smaller = bytes - bytes % ENGINE_MIN_BUFFER;
  if (smaller < ENGINE_MIN_BUFFER)
    smaller = ENGINE_MIN_BUFFER;
  if (smaller > *size)
    smaller = *size;
  bool changed = *depth != 1 || smaller != *size;
  *depth = 1;
  *size = smaller;
  return changed;
}

void
budget_plan (struct memory_plan *p, char const *root, unsigned int depth,
             size_t size, bool explicit_depth, bool explicit_size)
{
  *p = (struct memory_plan) {
    .asked_depth = depth, .depth = depth, .asked_size = size, .size = size,
    .explicit_depth = explicit_depth, .explicit_size = explicit_size };
  budget_measure (root, &p->budget);
  p->capped = budget_fit (p->budget.bytes, &p->depth, &p->size);
}
