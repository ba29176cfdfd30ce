/* Marks: a run's operands and the entries they created (marks.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "marks.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dirname.h"
#include "sha256.h"
#include "xalloc.h"

struct marks
{
  uint64_t *slots;   /* open addressing; 0 is an empty slot */
  size_t size;       /* a power of two */
  size_t used;
  unsigned char key[32];
};

struct marks *
marks_new (void)
{
  struct marks *m = xzalloc (sizeof *m);
  m->size = 64;
  m->slots = xcalloc (m->size, sizeof *m->slots);
  /* Without the kernel's random bytes (an old kernel, a seccomp
     filter), a key from the clock and the process: still not one a
     user who plants names can know in advance.  */
  if (getrandom (m->key, sizeof m->key, GRND_NONBLOCK) != sizeof m->key)
    {
      struct timespec ts;
      clock_gettime (CLOCK_REALTIME, &ts);
      uintptr_t mix[4] = { ts.tv_sec, ts.tv_nsec, getpid (),
                           (uintptr_t) m };
      sha256_buffer ((char const *) mix, sizeof mix, m->key);
    }
  return m;
}

void
marks_free (struct marks *m)
{
  if (m)
    free (m->slots);
  free (m);
}

uint64_t
marks_of (struct marks const *m, dev_t dev, ino_t ino, char const *name)
{
  /* The directory as gnulib's same_name finds it: by its name, links
     followed.  One that cannot be found counts as the name itself.  */
  char *dir = mdir_name (name);
  if (!dir)
    xalloc_die ();
  struct stat st;
  bool found = stat (dir, &st) == 0;
  free (dir);
  char const *base = found ? last_component (name) : name;
  size_t base_size = found ? base_len (base) : strlen (name);
  uint64_t ids[4] = { dev, ino, found ? st.st_dev : 0,
                      found ? st.st_ino : 0 };

  struct sha256_ctx ctx;
  sha256_init_ctx (&ctx);
  sha256_process_bytes (m->key, sizeof m->key, &ctx);
  sha256_process_bytes (ids, sizeof ids, &ctx);
  sha256_process_bytes (base, base_size, &ctx);
  unsigned char sum[SHA256_DIGEST_SIZE];
  sha256_finish_ctx (&ctx, sum);
  uint64_t mark;
  memcpy (&mark, sum, sizeof mark);
  return mark ? mark : 1;
}

/* The slot holding MARK in M, or the empty one where it would go.  */
static uint64_t *
slot (uint64_t *slots, size_t size, uint64_t mark)
{
  /* MARK is a hash already: its low bits pick the slot.  */
  for (size_t i = mark & (size - 1);; i = (i + 1) & (size - 1))
    if (slots[i] == mark || slots[i] == 0)
      return &slots[i];
}

bool
marks_add (struct marks *m, uint64_t mark)
{
  uint64_t *s = slot (m->slots, m->size, mark);
  if (*s)
    return false;
  *s = mark;
  /* Up to seven eighths full, between 9 and 18 bytes a mark: a full
     table costs a few more probes, each in memory that is already in
     the cache, where a name's copy costs system calls.  */
  if (8 * ++m->used > 7 * m->size)
    {
      size_t size = 2 * m->size;
      uint64_t *slots = xcalloc (size, sizeof *slots);
      for (size_t i = 0; i < m->size; i++)
        if (m->slots[i])
          *slot (slots, size, m->slots[i]) = m->slots[i];
      free (m->slots);
      m->slots = slots;
      m->size = size;
    }
  return true;
}

bool
marks_has (struct marks const *m, uint64_t mark)
{
  return *slot (m->slots, m->size, mark) != 0;
}
