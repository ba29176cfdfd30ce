/* treegen [-f FOREIGN] SEED DIR: make DIR, a random file tree that
   depends on SEED alone, for the differential testers
   (tests/differential.sh, tests/differential-shapes.sh).

   DIR gets the copy operands
     src1/  src1/d/  src2/   directories with random contents
     f1                      a regular file (often hard-linked from src1/src2)
     f2                      a regular file; in about one tree in eight
                             larger than 8 MiB (dense or mostly holes)
     l1                      a symbolic link to a regular file
     l2                      a symbolic link to a directory
   and pre/, laid out like a destination the operands were copied into,
   whose entries collide with theirs (older, newer or equal mtimes,
   other types; symlinks that dangle, loop, point to a directory or to
   the very source file that lands there; names a backup would take):
   the tester copies it to the destination first for -u, -n, --backup
   and friends.

   Beside those, for operands that collide with each other and for
   copies within one directory:
     dup1/ dup2/             the same names n0..n3 in both, each a file,
                             a directory or a symlink (to a sibling name,
                             dangling, looping, or to dupt): copied
                             together, the second's copy lands where the
                             first's did
     dupt                    a regular file the dup symlinks may point to
     ip/                     bk, bk~ and perhaps bk.~1~: "cp -b bk~ bk"
                             would back bk up onto its own source

   With -f FOREIGN, some symlinks (l1 and l2 among them) point to
   FOREIGN/file, FOREIGN/dir or FOREIGN/nothing, which the tester lays
   out on another file system: operands and links that cross devices.

   Everything is a function of SEED (and whether -f is given): names,
   contents, hole layouts, modes, owners, xattrs, ACLs and nanosecond
   timestamps.  Only the absolute symlinks depend on where DIR (and
   FOREIGN) is, and the tester runs both tools over the same DIR.  Run as root (owners, devices); it works
   otherwise too but leaves owners and devices out.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024 * 1024)

static char const *program = "treegen";

static void __attribute__ ((noreturn, format (printf, 1, 2)))
die (char const *fmt, ...)
{
  int err = errno;
  va_list ap;
  fprintf (stderr, "%s: ", program);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  if (err)
    fprintf (stderr, ": %s", strerror (err));
  fputc ('\n', stderr);
  exit (99);
}

static void *
xmalloc (size_t n)
{
  void *p = malloc (n ? n : 1);
  if (!p)
    die ("out of memory");
  return p;
}

static char *
xasprintf (char const *fmt, ...)
{
  va_list ap;
  char *s;
  va_start (ap, fmt);
  int r = vasprintf (&s, fmt, ap);
  va_end (ap);
  if (r < 0)
    die ("out of memory");
  return s;
}

/* ------------------------------------------------------------------ */
/* Randomness: splitmix64, so that a seed means the same tree on every  */
/* machine and libc.                                                    */
/* ------------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t
rnd64 (void)
{
  uint64_t z = (rng_state += UINT64_C (0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* A number in [0, N).  */
static uint64_t
rnd (uint64_t n)
{
  return n ? rnd64 () % n : 0;
}

/* True with probability PERCENT/100.  */
static bool
chance (int percent)
{
  return rnd (100) < (uint64_t) percent;
}

static void
fill_random (unsigned char *buf, size_t len)
{
  while (len >= 8)
    {
      uint64_t v = rnd64 ();
      memcpy (buf, &v, 8);
      buf += 8;
      len -= 8;
    }
  uint64_t v = rnd64 ();
  memcpy (buf, &v, len);
}

/* ------------------------------------------------------------------ */
/* The nodes made so far.                                               */
/* ------------------------------------------------------------------ */

enum kind { K_DIR, K_FILE, K_HARD, K_SYMLINK, K_FIFO, K_CHAR };

struct node
{
  char *path;                   /* relative to DIR; "." for DIR */
  char *name;                   /* last component */
  enum kind kind;
  int parent;                   /* index of the directory holding it */
  int depth;                    /* components in PATH */
  bool in_pre;                  /* under pre/ */
  bool aside;                   /* dup1/, dup2/, ip/: not mirrored in pre/ */
  /* Directories: whether a symlink to a directory lies below, which
     rules them out as targets of such symlinks (no loops under -L).  */
  bool has_dirlink;
  bool is_dirlink;              /* symlinks: points to a directory */
  struct timespec times[2];     /* atime, mtime */
};

/* A random timestamp well in the past (so a copy's own "now" never
   looks like one), now and then a whole second, 1970 or before it.  */
static struct timespec
random_time (void)
{
  struct timespec t;
  int r = rnd (100);
  if (r < 3)
    t.tv_sec = -(time_t) rnd (1000000000);
  else if (r < 6)
    t.tv_sec = rnd (3);
  else
    t.tv_sec = 100000000 + rnd (1500000000);
  t.tv_nsec = chance (10) ? 0 : rnd (1000000000);
  return t;
}

static struct node *nodes;
static int n_nodes, cap_nodes;
static char *abs_root;          /* DIR as an absolute name */
static char const *foreign;     /* -f: a directory on another device */

static int
add_node (int parent, char const *name, enum kind kind)
{
  if (n_nodes == cap_nodes)
    {
      cap_nodes = cap_nodes ? 2 * cap_nodes : 64;
      nodes = realloc (nodes, cap_nodes * sizeof *nodes);
      if (!nodes)
        die ("out of memory");
    }
  if (parent < 0 && n_nodes > 0)
    {
      errno = 0;
      die ("internal error: %s has no parent", name);
    }
  struct node *n = &nodes[n_nodes];
  memset (n, 0, sizeof *n);
  n->name = strdup (name);
  n->kind = kind;
  n->parent = parent;
  if (parent < 0)
    {
      n->path = strdup (name);
      n->depth = 0;
    }
  else
    {
      struct node const *p = &nodes[parent];
      n->path = (p->depth == 0 ? strdup (name)
                 : xasprintf ("%s/%s", p->path, name));
      n->depth = p->depth + 1;
      n->in_pre = p->in_pre || (p->depth == 0 && strcmp (name, "pre") == 0);
      n->aside = p->aside;
    }
  if (!n->name || !n->path)
    die ("out of memory");
  n->times[0] = random_time ();
  n->times[1] = random_time ();
  return n_nodes++;
}

static int
find_child (int parent, char const *name)
{
  for (int i = 0; i < n_nodes; i++)
    if (nodes[i].parent == parent && strcmp (nodes[i].name, name) == 0)
      return i;
  return -1;
}

static bool
is_ancestor_or_self (int a, int d)
{
  for (; d >= 0; d = nodes[d].parent)
    if (d == a)
      return true;
  return false;
}

/* ------------------------------------------------------------------ */
/* Names: plain ones mostly, then spaces, newlines, invalid UTF-8,      */
/* leading dashes and dots.                                            */
/* ------------------------------------------------------------------ */

static void
plain_name (char *buf, size_t len)
{
  static char const alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
  for (size_t i = 0; i < len; i++)
    buf[i] = alnum[rnd (sizeof alnum - 1)];
  buf[len] = '\0';
}

static char *
random_name (int parent)
{
  char buf[64];
  for (;;)
    {
      char base[16];
      plain_name (base, 1 + rnd (8));
      int r = rnd (100);
      if (r < 62)
        snprintf (buf, sizeof buf, "%s", base);
      else if (r < 70)
        snprintf (buf, sizeof buf, "%s with space", base);
      else if (r < 76)
        snprintf (buf, sizeof buf, "%s\nnewline", base);
      else if (r < 82)
        snprintf (buf, sizeof buf, "bad\xff%s\xfe", base);
      else if (r < 85)
        snprintf (buf, sizeof buf, "\xc3\x28%s", base);  /* invalid seq */
      else if (r < 89)
        snprintf (buf, sizeof buf, "caf\xc3\xa9-%s", base);  /* valid */
      else if (r < 92)
        snprintf (buf, sizeof buf, "-%s", base);
      else if (r < 96)
        snprintf (buf, sizeof buf, ".%s", base);
      else if (r < 98)
        snprintf (buf, sizeof buf, "%s'quote", base);
      else
        snprintf (buf, sizeof buf, "%s*?[x]", base);
      if (find_child (parent, buf) < 0)
        return strdup (buf);
    }
}

/* ------------------------------------------------------------------ */
/* Regular file contents.                                               */
/* ------------------------------------------------------------------ */

static void
write_at (int fd, unsigned char const *buf, size_t len, off_t off,
          char const *path)
{
  while (len)
    {
      ssize_t w = pwrite (fd, buf, len, off);
      if (w <= 0)
        die ("write %s", path);
      buf += w;
      len -= w;
      off += w;
    }
}

static void
write_random (int fd, off_t off, off_t len, char const *path)
{
  static unsigned char buf[MIB];
  while (len > 0)
    {
      size_t n = len < MIB ? len : MIB;
      fill_random (buf, n);
      write_at (fd, buf, n, off, path);
      off += n;
      len -= n;
    }
}

/* Data with explicit runs of zeros (not holes), which only
   --sparse=always turns into holes.  */
static void
write_zero_runs (int fd, off_t size, char const *path)
{
  static unsigned char const zero[3 * 4096];
  off_t off = 0;
  while (off < size)
    {
      off_t n = 1 + rnd (sizeof zero);
      if (n > size - off)
        n = size - off;
      if (chance (50))
        write_at (fd, zero, n, off, path);
      else
        write_random (fd, off, n, path);
      off += n;
    }
}

/* Mostly holes: the size set by ftruncate, a few random pieces of
   data, and perhaps none at all.  */
static void
write_sparse (int fd, off_t size, char const *path)
{
  if (ftruncate (fd, size) != 0)
    die ("truncate %s", path);
  int pieces = rnd (4);
  for (int i = 0; i < pieces; i++)
    {
      off_t len = 1 + rnd (chance (50) ? 100 : 20000);
      off_t off = rnd (size);
      if (chance (30))
        off &= ~(off_t) 4095;
      if (off + len > size)
        len = size - off;
      write_random (fd, off, len, path);
    }
  if (chance (30))              /* data right up to the end */
    {
      off_t len = 1 + rnd (size < 100 ? size : 100);
      write_random (fd, size - len, len, path);
    }
}

static void
write_text (int fd, off_t size, char const *path)
{
  char *buf = xmalloc (size);
  static char const words[] = "lorem ipsum dolor sit amet\n";
  for (off_t i = 0; i < size; i++)
    buf[i] = words[(i + rnd (3)) % (sizeof words - 1)];
  write_at (fd, (unsigned char *) buf, size, 0, path);
  free (buf);
}

/* BIG: larger than cp8M's 8 MiB buffer.  */
static void
fill_file (char const *path, bool big)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0)
    die ("create %s", path);
  if (big)
    {
      off_t size = 8 * MIB + rnd (MIB + 1);
      if (chance (50))
        write_random (fd, 0, size, path);
      else
        write_sparse (fd, size, path);
    }
  else
    {
      int r = rnd (100);
      if (r < 10)
        ;                                   /* empty */
      else if (r < 35)
        write_random (fd, 0, 1 + rnd (5000), path);
      else if (r < 45)
        write_text (fd, 1 + rnd (3000), path);
      else if (r < 55)
        write_random (fd, 0, (1 + rnd (4)) * 4096 + (chance (50) ? 0 : 1),
                      path);
      else if (r < 65)
        write_random (fd, 0, 1 + rnd (300000), path);
      else if (r < 77)
        write_zero_runs (fd, 1 + rnd (100000), path);
      else
        write_sparse (fd, 4096 + rnd (3 * MIB), path);
    }
  if (close (fd) != 0)
    die ("close %s", path);
}

/* ------------------------------------------------------------------ */
/* Making the tree.                                                     */
/* ------------------------------------------------------------------ */

static int
make_dir (int parent, char const *name)
{
  int i = add_node (parent, name, K_DIR);
  if (mkdir (nodes[i].path, 0755) != 0)
    die ("mkdir %s", nodes[i].path);
  return i;
}

static int
make_file (int parent, char const *name, bool big)
{
  int i = add_node (parent, name, K_FILE);
  fill_file (nodes[i].path, big);
  return i;
}

/* A random directory under src1 or src2 (not in pre/).  */
static int
random_src_dir (void)
{
  for (;;)
    {
      int i = rnd (n_nodes);
      if (nodes[i].kind == K_DIR && nodes[i].depth > 0 && !nodes[i].in_pre)
        return i;
    }
}

/* A random regular file outside pre/, or -1.  */
static int
random_file (void)
{
  int count = 0;
  for (int i = 0; i < n_nodes; i++)
    count += nodes[i].kind == K_FILE && !nodes[i].in_pre;
  if (!count)
    return -1;
  int pick = rnd (count);
  for (int i = 0; i < n_nodes; i++)
    if (nodes[i].kind == K_FILE && !nodes[i].in_pre && pick-- == 0)
      return i;
  return -1;
}

/* TARGET named relative to the directory that holds a new entry.  */
static char *
relative_name (int dir, int target)
{
  size_t len = 3 * nodes[dir].depth + strlen (nodes[target].path) + 1;
  char *s = xmalloc (len);
  s[0] = '\0';
  for (int i = 0; i < nodes[dir].depth; i++)
    strcat (s, "../");
  strcat (s, nodes[target].path);
  return s;
}

/* A directory a new symlink in DIR may point to without making a loop
   for -L: nothing below it points to a directory (so following links
   only ever leads to newer links) and it does not hold DIR.  */
static int
dirlink_target (int dir)
{
  for (int tries = 0; tries < 20; tries++)
    {
      int t = rnd (n_nodes);
      if (nodes[t].kind == K_DIR && nodes[t].depth > 0 && !nodes[t].in_pre
          && !nodes[t].has_dirlink && !is_ancestor_or_self (t, dir))
        return t;
    }
  return -1;
}

static void
mark_dirlink (int dir)
{
  for (; dir >= 0; dir = nodes[dir].parent)
    nodes[dir].has_dirlink = true;
}

static int
make_symlink (int parent, char const *name)
{
  char *target = NULL;
  bool to_dir = false;
  int r = rnd (100);
  int t;
  if (foreign && chance (15))
    {
      /* Across devices: -L and -H follow it onto the other one.  */
      static char const *const names[] = { "file", "dir", "nothing" };
      int k = rnd (3);
      target = xasprintf ("%s/%s", foreign, names[k]);
      to_dir = k == 1;
    }
  else if (r < 30 && (t = random_file ()) >= 0)
    target = (chance (60) ? relative_name (parent, t)
              : xasprintf ("%s/%s", abs_root, nodes[t].path));
  else if (r < 50 && (t = dirlink_target (parent)) >= 0)
    {
      target = (chance (60) ? relative_name (parent, t)
                : xasprintf ("%s/%s", abs_root, nodes[t].path));
      to_dir = true;
    }
  else if (r < 58)
    target = strdup ("/etc/hostname");
  else if (r < 70)
    target = xasprintf ("no-such-%d", (int) rnd (100));
  else if (r < 78)
    target = strdup ("/nonexistent/dangling");
  else if (r < 80)
    target = strdup (name);                       /* a loop */
  else if (r < 92)
    {
      /* A link to a sibling symlink or FIFO, if one exists.  */
      for (int i = 0; i < n_nodes && !target; i++)
        if (nodes[i].parent == parent
            && (nodes[i].kind == K_FIFO
                || (nodes[i].kind == K_SYMLINK && !nodes[i].is_dirlink)))
          target = strdup (nodes[i].name);
      if (!target)
        target = strdup ("dangling target");
    }
  else
    target = strdup ("no-such-dir/");
  int i = add_node (parent, name, K_SYMLINK);
  if (symlink (target, nodes[i].path) != 0)
    die ("symlink %s", nodes[i].path);
  if (to_dir)
    {
      nodes[i].is_dirlink = true;
      mark_dirlink (parent);
    }
  free (target);
  return i;
}

static void
make_entry (int parent, bool allow_symlink)
{
  char *name = random_name (parent);
  int r = rnd (100);
  int t;
  if (r < 42)
    make_file (parent, name, false);
  else if (r < 60)
    make_dir (parent, name);
  else if (r < 72 && (t = random_file ()) >= 0)
    {
      int i = add_node (parent, name, K_HARD);
      if (link (nodes[t].path, nodes[i].path) != 0)
        die ("link %s", nodes[i].path);
    }
  else if (r < 78)
    {
      int i = add_node (parent, name, K_FIFO);
      if (mkfifo (nodes[i].path, 0644) != 0)
        die ("mkfifo %s", nodes[i].path);
    }
  else if (r < 80 && geteuid () == 0)
    {
      /* Like /dev/null: reading it by mistake ends at once.  */
      int i = add_node (parent, name, K_CHAR);
      if (mknod (nodes[i].path, S_IFCHR | 0644, makedev (1, 3)) != 0)
        die ("mknod %s", nodes[i].path);
    }
  else if (allow_symlink)
    make_symlink (parent, name);
  else
    make_file (parent, name, false);
  free (name);
}

/* ------------------------------------------------------------------ */
/* pre/: the destination as it was before the copy.                     */
/* ------------------------------------------------------------------ */

/* The directory in pre/ that mirrors source directory DIR, made (with
   its parents) on first use; -1 if a non-directory in pre/ is in the
   way.  */
static int
pre_dir (int pre, int dir)
{
  if (nodes[dir].depth == 0)
    return pre;
  int parent = pre_dir (pre, nodes[dir].parent);
  if (parent < 0)
    return -1;                  /* a file in pre/ stands in the way */
  int i = find_child (parent, nodes[dir].name);
  if (i >= 0)
    return nodes[i].kind == K_DIR ? i : -1;
  return make_dir (parent, nodes[dir].name);
}

/* A time near T: older, newer, equal or a nanosecond apart, which is
   what -u decides on.  */
static struct timespec
near_time (struct timespec t)
{
  switch (rnd (5))
    {
    case 0:
      t.tv_sec -= 1 + rnd (100000000);
      break;
    case 1:
      t.tv_sec += 1 + rnd (100000000);
      break;
    case 2:
      break;
    case 3:
      if (t.tv_nsec > 0)
        t.tv_nsec--;
      else
        t.tv_nsec++;
      break;
    default:
      if (t.tv_nsec < 999999999)
        t.tv_nsec++;
      else
        t.tv_nsec--;
      break;
    }
  return t;
}

/* A symlink NAME in DIR to TARGET.  */
static int
make_link_to (int dir, char const *name, char const *target)
{
  int i = add_node (dir, name, K_SYMLINK);
  if (symlink (target, nodes[i].path) != 0)
    die ("symlink %s", nodes[i].path);
  return i;
}

/* A directory NAME in DIR with a file in it.  */
static int
make_full_dir (int dir, char const *name)
{
  int i = make_dir (dir, name);
  make_file (i, "inside", false);
  return i;
}

/* Beside the collision NAME in DIR, now and then, the names its backup
   would take: NAME~ (a file, a directory a rename cannot replace, or a
   symlink back to NAME) and NAME.~1~ (so that numbered backups go on
   from 2).  */
static void
make_backup_names (int dir, char const *name)
{
  if (chance (12))
    {
      char *b = xasprintf ("%s~", name);
      if (find_child (dir, b) < 0)
        {
          int r = rnd (100);
          if (r < 50)
            make_file (dir, b, false);
          else if (r < 75)
            make_full_dir (dir, b);
          else
            make_link_to (dir, b, name);
        }
      free (b);
    }
  if (chance (8))
    {
      char *b = xasprintf ("%s.~1~", name);
      if (find_child (dir, b) < 0)
        make_file (dir, b, false);
      free (b);
    }
}

static void
make_collision (int pre, int src)
{
  int dir = pre_dir (pre, nodes[src].parent);
  if (dir < 0 || find_child (dir, nodes[src].name) >= 0)
    return;
  char const *name = nodes[src].name;
  enum kind sk = nodes[src].kind;
  bool regular = sk == K_FILE || sk == K_HARD;
  int r = rnd (100);
  int i;
  if (sk == K_DIR)
    {
      /* Not src1 or src2 as files: that would leave nothing to merge.  */
      if (r < 75 || nodes[src].depth <= 1)
        i = make_dir (dir, name);
      else if (r < 88)
        i = make_file (dir, name, false);     /* cannot overwrite with dir */
      else
        {
          /* A symlink to a directory beside it.  */
          char *sib = xasprintf ("sibdir-%d", (int) rnd (3));
          if (find_child (dir, sib) < 0)
            make_full_dir (dir, sib);
          i = make_link_to (dir, name, sib);
          free (sib);
        }
    }
  else if (r < 58)
    i = make_file (dir, name, false);
  else if (r < 66)
    i = make_full_dir (dir, name);            /* cannot overwrite dir */
  else if (r < 74)
    /* Dangling, and never pointing out of the destination, which a
       copy could write through.  */
    i = make_link_to (dir, name, "nowhere");
  else if (r < 79)
    i = make_link_to (dir, name, name);       /* ln -s loop loop */
  else if (r < 84 && !regular && sk != K_SYMLINK)
    {
      /* Not where a regular file (or a link to one, for -L) goes:
         opening the FIFO to write would wait for a reader forever.  */
      i = add_node (dir, name, K_FIFO);
      if (mkfifo (nodes[i].path, 0644) != 0)
        die ("mkfifo %s", nodes[i].path);
    }
  else if (r < 89 && regular)
    {
      /* The very file that is copied here, by its absolute name, as
         "cp -s" leaves it: GNU cp recreates it with -sf and refuses
         ("are the same file") to write through it otherwise, so that
         the source never changes.  */
      char *t = xasprintf ("%s/%s", abs_root, nodes[src].path);
      i = make_link_to (dir, name, t);
      free (t);
    }
  else if (r < 93)
    {
      /* A symlink to a directory beside it.  */
      char *sib = xasprintf ("sibdir-%d", (int) rnd (3));
      if (find_child (dir, sib) < 0)
        make_full_dir (dir, sib);
      i = make_link_to (dir, name, sib);
      free (sib);
    }
  else
    {
      /* A symlink to a sibling regular file in pre/.  */
      char *sib = xasprintf ("sibling-%d", (int) rnd (10));
      if (find_child (dir, sib) < 0)
        make_file (dir, sib, false);
      i = make_link_to (dir, name, sib);
      free (sib);
    }
  nodes[i].times[0] = random_time ();
  nodes[i].times[1] = near_time (nodes[src].times[1]);
  make_backup_names (dir, name);
}

static void
make_pre (void)
{
  int pre = make_dir (0, "pre");
  int n_src = n_nodes;
  for (int s = 1; s < n_src; s++)
    if (!nodes[s].in_pre && !nodes[s].aside && chance (35))
      make_collision (pre, s);
  /* Bystanders that no copy touches.  */
  int extra = rnd (3);
  for (int e = 0; e < extra; e++)
    {
      int d = pre;
      for (int i = 0; i < n_nodes; i++)
        if (nodes[i].in_pre && nodes[i].kind == K_DIR && chance (30))
          d = i;
      char *name = xasprintf ("extra-%d", e);
      if (find_child (d, name) < 0)
        make_file (d, name, false);
      free (name);
    }
}

/* ------------------------------------------------------------------ */
/* Operands that collide with each other, and copies in place.          */
/* ------------------------------------------------------------------ */

/* One of dup1/NAME, dup2/NAME.  Copied as "dup1/n0 ... dup2/n0 ... dst",
   the second lands on what the first made in the same run: a file on
   a file, a file through a just-created symlink (GNU refuses), a
   directory on a file, and so on.  No FIFOs: a copy without -R would
   read one and wait.  */
static void
make_dup (int dir, char const *name)
{
  int r = rnd (100);
  if (r < 35)
    make_file (dir, name, false);
  else if (r < 50)
    make_full_dir (dir, name);
  else if (r < 65)
    {
      /* To a sibling name, which in the destination is a copy made
         before this one, after it, or never.  */
      char *t = xasprintf ("n%d", (int) rnd (4));
      make_link_to (dir, name, t);
      free (t);
    }
  else if (r < 75)
    make_link_to (dir, name, "nowhere");
  else if (r < 82)
    make_link_to (dir, name, name);
  else if (r < 91)
    {
      /* Out of the destination to an existing file, absolute: writing
         through the copy of this link would change dupt, a source.  */
      char *t = xasprintf ("%s/dupt", abs_root);
      make_link_to (dir, name, t);
      free (t);
    }
  else
    /* The same by a relative name ("ln -s ../t"): in a destination
       in DIR it points to the source dupt again, in one elsewhere to
       nothing (dangling).  */
    make_link_to (dir, name, "../dupt");
}

static void
make_aside (void)
{
  make_file (0, "dupt", false);
  int d1 = make_dir (0, "dup1"), d2 = make_dir (0, "dup2");
  nodes[d1].aside = nodes[d2].aside = true;
  for (int k = 0; k < 4; k++)
    {
      char name[8];
      snprintf (name, sizeof name, "n%d", k);
      make_dup (d1, name);
      make_dup (d2, name);
    }

  /* ip/: "cp -b bk~ bk" (and the like) in ip itself.  */
  int ip = make_dir (0, "ip");
  nodes[ip].aside = true;
  int r = rnd (100);
  if (r < 80)
    make_file (ip, "bk", false);
  else if (r < 90)
    make_full_dir (ip, "bk");
  else
    make_link_to (ip, "bk", "bk~");
  r = rnd (100);
  if (r < 60)
    make_file (ip, "bk~", false);
  else if (r < 75)
    make_link_to (ip, "bk~", "bk");
  else if (r < 85)
    make_full_dir (ip, "bk~");
  else if (r < 92)
    make_link_to (ip, "bk~", "nowhere");
  else
    {
      int i = make_file (ip, "other", false);
      int h = add_node (ip, "bk~", K_HARD);       /* bk~ and other: one file */
      if (link (nodes[i].path, nodes[h].path) != 0)
        die ("link %s", nodes[h].path);
    }
  if (chance (70))
    make_file (ip, "bk.~1~", false);
}

/* ------------------------------------------------------------------ */
/* Attributes.                                                          */
/* ------------------------------------------------------------------ */

static mode_t const file_modes[] = {
  0644, 0644, 0644, 0600, 0755, 0444, 0000, 0200, 0640, 0604,
  04755, 02755, 01644, 0777, 0664, 02644, 06711,
};
static mode_t const dir_modes[] = {
  0755, 0755, 0755, 0700, 02775, 02755, 01777, 0555, 0750, 0000, 0711,
  03775,
};

/* The kernel's POSIX ACL xattr format (linux/posix_acl_xattr.h).  */
enum
{
  ACL_XATTR_VERSION = 2,
  TAG_USER_OBJ = 0x01, TAG_USER = 0x02, TAG_GROUP_OBJ = 0x04,
  TAG_GROUP = 0x08, TAG_MASK = 0x10, TAG_OTHER = 0x20,
};

struct acl_buf
{
  unsigned char bytes[4 + 8 * 8];
  size_t len;
};

static void
put_le (unsigned char *p, uint32_t v, int n)
{
  for (int i = 0; i < n; i++)
    p[i] = v >> (8 * i);
}

static void
acl_start (struct acl_buf *a)
{
  put_le (a->bytes, ACL_XATTR_VERSION, 4);
  a->len = 4;
}

/* Entries must come in the kernel's order: by tag, then by id.  */
static void
acl_add (struct acl_buf *a, int tag, int perm, uint32_t id)
{
  put_le (a->bytes + a->len, tag, 2);
  put_le (a->bytes + a->len + 2, perm, 2);
  put_le (a->bytes + a->len + 4, id, 4);
  a->len += 8;
}

/* An ACL with a named user and group and a mask, around MODE's bits.  */
static void
build_acl (struct acl_buf *a, mode_t mode)
{
  int uperm = rnd (8), gperm = rnd (8);
  acl_start (a);
  acl_add (a, TAG_USER_OBJ, (mode >> 6) & 7, UINT32_MAX);
  acl_add (a, TAG_USER, uperm, 1000 + rnd (2));
  acl_add (a, TAG_GROUP_OBJ, (mode >> 3) & 7, UINT32_MAX);
  acl_add (a, TAG_GROUP, gperm, 1001 + rnd (2) * 5);
  acl_add (a, TAG_MASK, chance (70) ? ((mode >> 3) & 7) | uperm | gperm
                                    : rnd (8), UINT32_MAX);
  acl_add (a, TAG_OTHER, mode & 7, UINT32_MAX);
}

/* A cp8M built without ACL support (cp8m_acl=no in the environment)
   copies permission bits only, as GNU cp built so does; against GNU cp
   built with ACLs its trees must then have none.  The ACLs are still
   drawn, so that a seed names the same tree in every build.  */
static bool without_acls;

static void
set_xattr (char const *path, char const *name, void const *val, size_t len)
{
  if (without_acls && strncmp (name, "system.posix_acl_", 17) == 0)
    return;
  if (lsetxattr (path, name, val, len, 0) != 0)
    {
      /* A file system without xattrs or ACLs: trees just lack them.  */
      if (errno == ENOTSUP)
        return;
      die ("setxattr %s %s", path, name);
    }
}

static void
set_attributes (int i)
{
  struct node *n = &nodes[i];
  if (n->kind == K_HARD)
    return;                     /* one inode: attributes via its first name */
  char const *p = n->path;
  if (n->depth == 0)
    return;
  if (geteuid () == 0 && chance (15))
    {
      static int const owners[][2] = {
        {1000, 1000}, {65534, 65534}, {0, 1000}, {1001, 0},
      };
      int o = rnd (4);
      if (lchown (p, owners[o][0], owners[o][1]) != 0)
        die ("chown %s", p);
    }
  mode_t mode = 0;
  if (n->kind == K_DIR)
    mode = dir_modes[rnd (sizeof dir_modes / sizeof *dir_modes)];
  else if (n->kind == K_FILE)
    mode = file_modes[rnd (sizeof file_modes / sizeof *file_modes)];
  else if (n->kind == K_FIFO || n->kind == K_CHAR)
    mode = chance (70) ? 0644 : 0600 | rnd (0100);
  if (n->kind == K_DIR && geteuid () != 0)
    mode |= 0700;               /* or the rest of the tree could not be made */
  if (n->kind != K_SYMLINK && chmod (p, mode) != 0)
    die ("chmod %s", p);
  if (n->kind == K_DIR || n->kind == K_FILE)
    {
      int nx = chance (30) ? 1 + rnd (3) : 0;
      for (int x = 0; x < nx; x++)
        {
          unsigned char val[80];
          size_t len = rnd (chance (20) ? 1 : 70);
          fill_random (val, len);
          if (chance (50))
            for (size_t k = 0; k < len; k++)
              val[k] = 'a' + val[k] % 26;
          char *name = xasprintf ("user.%s", x == 0 ? "comment"
                                  : x == 1 ? "test.key" : "z");
          set_xattr (p, name, val, len);
          free (name);
        }
      if (chance (15))
        {
          struct acl_buf a;
          build_acl (&a, mode);
          set_xattr (p, "system.posix_acl_access", a.bytes, a.len);
        }
    }
  if (n->kind == K_DIR && chance (15))
    {
      struct acl_buf a;
      acl_start (&a);
      acl_add (&a, TAG_USER_OBJ, 7, UINT32_MAX);
      acl_add (&a, TAG_USER, 5, 1000);
      acl_add (&a, TAG_GROUP_OBJ, 5, UINT32_MAX);
      if (chance (50))
        acl_add (&a, TAG_GROUP, 7, 1001);
      acl_add (&a, TAG_MASK, 7, UINT32_MAX);
      acl_add (&a, TAG_OTHER, rnd (2) ? 5 : 0, UINT32_MAX);
      set_xattr (p, "system.posix_acl_default", a.bytes, a.len);
    }
}

static void
set_times (int i)
{
  struct node const *n = &nodes[i];
  if (n->kind == K_HARD)
    return;
  if (utimensat (AT_FDCWD, n->path, n->times, AT_SYMLINK_NOFOLLOW) != 0)
    die ("utimensat %s", n->path);
}

/* Directories last and deepest first, as making an entry in a
   directory changes its mtime.  */
static void
set_all_times (void)
{
  int max_depth = 0;
  for (int i = 0; i < n_nodes; i++)
    {
      if (nodes[i].kind != K_DIR)
        set_times (i);
      if (nodes[i].depth > max_depth)
        max_depth = nodes[i].depth;
    }
  for (int d = max_depth; d >= 0; d--)
    for (int i = 0; i < n_nodes; i++)
      if (nodes[i].kind == K_DIR && nodes[i].depth == d)
        set_times (i);
}

int
main (int argc, char **argv)
{
  char const *acl = getenv ("cp8m_acl");
  without_acls = acl && strcmp (acl, "no") == 0;
  if (argc == 5 && strcmp (argv[1], "-f") == 0)
    {
      foreign = argv[2];
      argv += 2;
      argc -= 2;
    }
  if (argc != 3 || (foreign && foreign[0] != '/'))
    {
      fprintf (stderr, "usage: %s [-f /FOREIGN] SEED DIR\n", program);
      return 2;
    }
  char *end;
  errno = 0;
  uint64_t seed = strtoull (argv[1], &end, 10);
  if (errno || *end || end == argv[1])
    die ("invalid seed '%s'", argv[1]);
  rng_state = seed * UINT64_C (0x2545f4914f6cdd1d) + 1;

  umask (0);
  if (mkdir (argv[2], 0755) != 0 || chdir (argv[2]) != 0)
    die ("%s", argv[2]);
  abs_root = getcwd (NULL, 0);
  if (!abs_root)
    die ("getcwd");

  add_node (-1, ".", K_DIR);
  int src1 = make_dir (0, "src1");
  make_dir (src1, "d");
  make_dir (0, "src2");
  make_file (0, "f1", false);
  make_file (0, "f2", chance (12));
  if (chance (10))              /* a big, mostly empty file deeper down */
    {
      int i = add_node (random_src_dir (), "big sparse", K_FILE);
      int fd = open (nodes[i].path, O_WRONLY | O_CREAT | O_EXCL, 0644);
      if (fd < 0)
        die ("create %s", nodes[i].path);
      write_sparse (fd, 8 * MIB + 1 + rnd (3 * MIB), nodes[i].path);
      close (fd);
    }

  /* Entries, then symlinks among them, so they have things to point
     to; a few more entries after, so that links are not always last.  */
  int entries = 4 + rnd (24);
  for (int e = 0; e < entries; e++)
    make_entry (random_src_dir (), false);
  int links = 1 + rnd (8);
  for (int l = 0; l < links; l++)
    {
      int dir = random_src_dir ();
      char *name = random_name (dir);
      make_symlink (dir, name);
      free (name);
    }
  for (int e = rnd (4); e > 0; e--)
    make_entry (random_src_dir (), true);

  /* Top-level symlinks: to a regular file, to a directory.  */
  int t = random_file ();
  int l1 = add_node (0, "l1", K_SYMLINK);
  char *target = (foreign && chance (30)
                  ? xasprintf ("%s/file", foreign)
                  : chance (70) ? strdup (nodes[t].path)
                  : xasprintf ("%s/%s", abs_root, nodes[t].path));
  if (symlink (target, "l1") != 0)
    die ("symlink l1");
  free (target);
  int l2 = add_node (0, "l2", K_SYMLINK);
  int td = dirlink_target (0);
  if (td < 0)
    td = src1 + 1;              /* src1/d */
  target = (foreign && chance (30) ? xasprintf ("%s/dir", foreign)
            : strdup (chance (50) ? nodes[td].path : "src2"));
  if (symlink (target, "l2") != 0)
    die ("symlink l2");
  free (target);
  nodes[l1].is_dirlink = false;
  nodes[l2].is_dirlink = true;

  make_aside ();
  make_pre ();
  for (int i = 0; i < n_nodes; i++)
    if (!nodes[i].in_pre || chance (20))
      set_attributes (i);
  set_all_times ();
  return 0;
}
