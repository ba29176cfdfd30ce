/* An open-addressing hash table from (dev, ino) to a name.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "seen.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "xalloc.h"

struct slot
{
  dev_t dev;
  ino_t ino;
  char *name;   /* NULL: empty; TOMBSTONE: forgotten */
  struct seen_copy *copy;   /* the hard-link table's first copy, or NULL */
};

static char tombstone;
#define TOMBSTONE (&tombstone)

struct seen
{
  struct slot *slots;
  size_t size;    /* a power of two */
  size_t used;    /* live entries plus tombstones */
  unsigned int fds, max_fds;  /* descriptors of copies kept, and limit */
};

struct seen *
seen_new (void)
{
  struct seen *s = xmalloc (sizeof *s);
  s->size = 64;
  s->used = 0;
  s->fds = s->max_fds = 0;
  s->slots = xcalloc (s->size, sizeof *s->slots);
  return s;
}

void
seen_free (struct seen *s)
{
  if (!s)
    return;
  for (size_t i = 0; i < s->size; i++)
    if (s->slots[i].name != TOMBSTONE)
      {
        free (s->slots[i].name);
        if (s->slots[i].copy)
          seen_drop_fd (s, s->slots[i].copy);
        free (s->slots[i].copy);
      }
  free (s->slots);
  free (s);
}

static size_t
hash (dev_t dev, ino_t ino)
{
  uint64_t h = (uint64_t) ino * 0x9E3779B97F4A7C15u ^ (uint64_t) dev;
  return h ^ (h >> 29);
}

/* The slot holding DEV/INO, or the empty slot where it would go.  */
static struct slot *
find (struct seen const *s, dev_t dev, ino_t ino)
{
  size_t mask = s->size - 1;
  struct slot *free_slot = NULL;
  for (size_t i = hash (dev, ino) & mask;; i = (i + 1) & mask)
    {
      struct slot *sl = &s->slots[i];
      if (!sl->name)
        return free_slot ? free_slot : sl;
      if (sl->name == TOMBSTONE)
        {
          if (!free_slot)
            free_slot = sl;
        }
      else if (sl->dev == dev && sl->ino == ino)
        return sl;
    }
}

/* Double the table.  Each entry goes to the first empty slot of its
   probe sequence.  */
static void
grow (struct seen *s)
{
  struct slot *old = s->slots;
  size_t old_size = s->size;
  s->size *= 2;
  s->slots = xcalloc (s->size, sizeof *s->slots);
  s->used = 0;
  size_t mask = s->size - 1;
  for (size_t i = 0; i < old_size; i++)
    if (old[i].name && old[i].name != TOMBSTONE)
      {
        size_t j = hash (old[i].dev, old[i].ino) & mask;
        while (s->slots[j].name)
          j = (j + 1) & mask;
        s->slots[j] = old[i];
        s->used++;
      }
  free (old);
}

char const *
seen_lookup (struct seen const *s, dev_t dev, ino_t ino)
{
  struct slot *sl = find (s, dev, ino);
  return sl->name && sl->name != TOMBSTONE ? sl->name : NULL;
}

/* gcc 12's -fanalyzer loses track of a pointer stored into a heap array
   at a computed index, and reports the copied name leaked (make analyze):
   a false positive, the table owns its names (seen_forget, seen_free).  */
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic push
# pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif
char const *
seen_remember (struct seen *s, dev_t dev, ino_t ino, char const *name)
{
  struct slot *sl = find (s, dev, ino);
  if (sl->name && sl->name != TOMBSTONE)
    return sl->name;
  if (!sl->name)
    s->used++;
  *sl = (struct slot) { dev, ino, xstrdup (name), NULL };
  if (2 * s->used > s->size)
    grow (s);
  return NULL;
}
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic pop
#endif

void
seen_forget (struct seen *s, dev_t dev, ino_t ino)
{
  struct slot *sl = find (s, dev, ino);
  if (sl->name && sl->name != TOMBSTONE)
    {
      free (sl->name);
      sl->name = TOMBSTONE;
      if (sl->copy)
        seen_drop_fd (s, sl->copy);
      free (sl->copy);
      sl->copy = NULL;
    }
}

void
seen_limit_fds (struct seen *s, unsigned int max)
{
  s->max_fds = max;
}

/* The copy's record is reported leaked as the names are in
   seen_remember: a false positive of gcc 12's -fanalyzer (the table owns
   it: seen_forget, seen_free).  */
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic push
# pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif
void
seen_set_copy (struct seen *s, dev_t dev, ino_t ino,
               struct seen_copy const *copy)
{
  struct slot *sl = find (s, dev, ino);
  if (!sl->name || sl->name == TOMBSTONE)
    {
      /* No such entry (not one of the calls' contract): nothing kept.  */
      if (copy->fd >= 0)
        close (copy->fd);
      return;
    }
  if (!sl->copy)
    sl->copy = xmalloc (sizeof *sl->copy);
  else
    seen_drop_fd (s, sl->copy);
  *sl->copy = *copy;
  if (copy->fd >= 0 && s->fds < s->max_fds)
    s->fds++;
  else if (copy->fd >= 0)
    {
      close (copy->fd);
      sl->copy->fd = -1;
    }
}

#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic pop
#endif

struct seen_copy *
seen_get_copy (struct seen const *s, dev_t dev, ino_t ino)
{
  struct slot *sl = find (s, dev, ino);
  return sl->name && sl->name != TOMBSTONE ? sl->copy : NULL;
}

void
seen_drop_fd (struct seen *s, struct seen_copy *copy)
{
  if (copy->fd < 0)
    return;
  close (copy->fd);
  copy->fd = -1;
  s->fds--;
}
