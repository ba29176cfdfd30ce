/* treedigest [-n NOW] [-r] PATH...: print a canonical digest of the
   trees at PATH..., one line per entry, for the differential tester
   (tests/differential.sh): two trees that print the same are the same
   copy result.  With -r, remove the trees after (the tester runs this
   thousands of times, and an "rm -rf" less each time counts).

   Entries come in a fixed order: each PATH, then depth-first with the
   names of a directory sorted by their bytes.  A line holds

     NAME t=TYPE m=MODE o=UID:GID [s=SIZE b=BLOCKS c=HASH] mt=MTIME
       h=LINKS [r=MAJ,MIN] [-> TARGET] [x=XATTRS]

   NAME      the path as given, then "/" and the names below it; bytes
             outside printable ASCII, space and backslash as \xHH
   TYPE      f d l p c b s
   MODE      permission bits with set-user-ID, set-group-ID and sticky,
             in octal
   SIZE      regular files and symlinks (directory sizes are the file
             system's business)
   BLOCKS    regular files: "empty" (size 0), "sparse" (fewer blocks
             allocated than the size needs), "full"
   HASH      regular files: a 64-bit hash of the contents
   MTIME     seconds.nanoseconds, or "now" when at or after NOW (a copy
             that does not preserve times stamps its own clock, which
             cannot match between two runs)
   LINKS     hard links, for non-directories: "-" for a single link;
             otherwise the number of the link group (groups numbered in
             the order above) when the inode has several names in the
             digest, and "+" when it has names outside it too
   TARGET    the symlink's contents
   XATTRS    names in byte order with their values' length and hash;
             POSIX ACLs decoded (u::rwx,u:1000:r-x,g::...,m::...,o::...);
             security.selinux left out (a labelling policy, not a copy)

   Not printed: inode numbers, link counts as such, atime, ctime, and
   the order of directory entries on disk.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#define _GNU_SOURCE 1

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

static int status;

static void
warn_errno (char const *what, char const *path)
{
  fprintf (stderr, "treedigest: %s %s: %s\n", what, path, strerror (errno));
  status = 2;
}

static void *
xmalloc (size_t n)
{
  void *p = malloc (n ? n : 1);
  if (!p)
    {
      fputs ("treedigest: out of memory\n", stderr);
      exit (2);
    }
  return p;
}

static char *
xstrdup (char const *s)
{
  return strcpy (xmalloc (strlen (s) + 1), s);
}

/* ------------------------------------------------------------------ */
/* Hashing.  A buffer's hash: each 8-byte little-endian word is xored   */
/* in, multiplied by an odd constant and folded; then the length.  A    */
/* file's: the sum of its 4 KiB blocks' hashes, each mixed with the     */
/* block's number.  Block by block, a hole costs no reading: its        */
/* blocks' hash is the zero block's, known in advance.  So files with   */
/* the same bytes hash the same, holes or not (the block class tells    */
/* those apart), and the many mostly-empty files of the generated trees */
/* cost little to digest thousands of times.                            */
/* ------------------------------------------------------------------ */

#define HASH_PRIME UINT64_C (0x9e3779b97f4a7c15)
enum { BLOCK = 4096 };

static uint64_t
mix64 (uint64_t h)
{
  h = (h ^ (h >> 33)) * UINT64_C (0xff51afd7ed558ccd);
  h = (h ^ (h >> 33)) * UINT64_C (0xc4ceb9fe1a85ec53);
  return h ^ (h >> 33);
}

static uint64_t
load_le (unsigned char const *p, size_t n)
{
  uint64_t w = 0;
  for (size_t i = 0; i < n; i++)
    w |= (uint64_t) p[i] << (8 * i);
  return w;
}

static uint64_t
hash_buffer (void const *buf, size_t len)
{
  unsigned char const *p = buf;
  uint64_t h = UINT64_C (0xcbf29ce484222325);
  size_t n = len;
  for (; n >= 8; p += 8, n -= 8)
    {
      uint64_t w;
      memcpy (&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
      w = __builtin_bswap64 (w);
#endif
      h = (h ^ w) * HASH_PRIME;
      h ^= h >> 29;
    }
  if (n)
    {
      h = (h ^ load_le (p, n) ^ (uint64_t) 1 << 63) * HASH_PRIME;
      h ^= h >> 29;
    }
  return mix64 (h ^ len);
}

static uint64_t
block_term (uint64_t block_hash, uint64_t index)
{
  return mix64 (block_hash ^ (index * HASH_PRIME));
}

/* Fills BUF unless at end of file; -1 on error.  */
static ssize_t
pread_full (int fd, unsigned char *buf, size_t len, off_t off)
{
  size_t got = 0;
  while (got < len)
    {
      ssize_t r = pread (fd, buf + got, len - got, off + got);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return -1;
      if (r == 0)
        break;
      got += r;
    }
  return got;
}

/* The hash of SIZE bytes of FD.  Whole blocks inside holes are taken as
   zeros unread; everything else is read, so a file system that
   reports no holes costs time, not correctness.  */
static bool
hash_fd (int fd, off_t size, uint64_t *out)
{
  static unsigned char buf[1 << 20];
  static unsigned char const zeros[BLOCK];
  uint64_t zero_hash = hash_buffer (zeros, BLOCK);
  uint64_t sum = 0;
  off_t off = 0;                /* a multiple of BLOCK throughout */
  while (off < size)
    {
      off_t data = lseek (fd, off, SEEK_DATA);
      if (data < 0)
        data = errno == ENXIO ? size : off;  /* no SEEK_DATA: read all */
      /* The whole blocks of the hole from OFF on; a partial last block
         is read, like data.  */
      off_t hole_end = (data == size ? size : data) / BLOCK * BLOCK;
      if (hole_end > off)
        {
          for (off_t b = off / BLOCK; b < hole_end / BLOCK; b++)
            sum += block_term (zero_hash, b);
          off = hole_end;
          continue;
        }
      /* Data from OFF: read up to the next hole, a buffer at most.  */
      off_t hole = lseek (fd, off, SEEK_HOLE);
      if (hole < 0)
        hole = size;
      if (hole <= off)
        hole = off + BLOCK;     /* data starts inside this block */
      off_t stop = (hole + BLOCK - 1) / BLOCK * BLOCK;
      if (stop > off + (off_t) sizeof buf)
        stop = off + sizeof buf;
      if (stop > size)
        stop = size;
      ssize_t n = pread_full (fd, buf, stop - off, off);
      if (n != stop - off)
        return false;           /* an error, or the file shrank */
      for (ssize_t p = 0; p < n; p += BLOCK)
        {
          size_t len = n - p < BLOCK ? n - p : BLOCK;
          sum += block_term (hash_buffer (buf + p, len), (off + p) / BLOCK);
        }
      off = stop;
    }
  *out = mix64 (sum ^ mix64 (size) ^ HASH_PRIME);
  return true;
}

static bool
hash_file (char const *path, off_t size, uint64_t *out)
{
  /* Reading must not move the access time a test compares next;
     O_NOATIME is refused (EPERM) on another user's file.  */
  int flags = O_RDONLY | O_NOFOLLOW | O_NOCTTY;
  int fd = open (path, flags | O_NOATIME);
  if (fd < 0 && errno == EPERM)
    fd = open (path, flags);
  if (fd < 0)
    return false;
  bool ok = hash_fd (fd, size, out);
  close (fd);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Output helpers.                                                      */
/* ------------------------------------------------------------------ */

static void
put_escaped (char const *s, size_t len)
{
  for (size_t i = 0; i < len; i++)
    {
      unsigned char c = s[i];
      if (c > ' ' && c < 0x7f && c != '\\')
        putchar (c);
      else
        printf ("\\x%02x", c);
    }
}

static char
type_letter (mode_t m)
{
  return (S_ISREG (m) ? 'f' : S_ISDIR (m) ? 'd' : S_ISLNK (m) ? 'l'
          : S_ISFIFO (m) ? 'p' : S_ISCHR (m) ? 'c' : S_ISBLK (m) ? 'b'
          : S_ISSOCK (m) ? 's' : '?');
}

/* Whether the file has fewer blocks than its size needs: a hole
   somewhere.  Extra blocks (extent trees, preallocation) do not count:
   they say nothing about the copy's layout that two tools must share.  */
static char const *
block_class (struct stat const *st)
{
  if (st->st_size == 0)
    return "empty";
  off_t bs = st->st_blksize > 0 ? st->st_blksize : 4096;
  off_t need = (st->st_size + bs - 1) / bs * bs;
  return (off_t) st->st_blocks * 512 < need ? "sparse" : "full";
}

/* ------------------------------------------------------------------ */
/* POSIX ACLs, in the kernel's xattr format.                            */
/* ------------------------------------------------------------------ */

static bool
print_acl (unsigned char const *v, size_t len)
{
  if (len < 4 || (len - 4) % 8 || load_le (v, 4) != 2)
    return false;
  for (size_t off = 4; off < len; off += 8)
    {
      unsigned tag = load_le (v + off, 2);
      unsigned perm = load_le (v + off + 2, 2);
      uint32_t id = load_le (v + off + 4, 4);
      char const *t;
      bool named = false;
      switch (tag)
        {
        case 0x01: t = "u"; break;
        case 0x02: t = "u"; named = true; break;
        case 0x04: t = "g"; break;
        case 0x08: t = "g"; named = true; break;
        case 0x10: t = "m"; break;
        case 0x20: t = "o"; break;
        default: return false;
        }
      if (perm > 7)
        return false;
      printf ("%s%s:", off > 4 ? "," : "", t);
      if (named)
        printf ("%" PRIu32, id);
      printf (":%c%c%c", perm & 4 ? 'r' : '-', perm & 2 ? 'w' : '-',
              perm & 1 ? 'x' : '-');
    }
  return true;
}

static int
compare_strings (void const *a, void const *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static void
print_xattrs (char const *path)
{
  ssize_t len = llistxattr (path, NULL, 0);
  if (len <= 0)
    {
      if (len < 0 && errno != ENOTSUP)
        warn_errno ("listxattr", path);
      return;
    }
  char *list = xmalloc (len + 1);
  len = llistxattr (path, list, len);
  if (len < 0)
    {
      warn_errno ("listxattr", path);
      free (list);
      return;
    }
  size_t n = 0;
  char **names = xmalloc ((len + 1) * sizeof *names);
  for (char *p = list; p < list + len; p += strlen (p) + 1)
    if (strcmp (p, "security.selinux") != 0)
      names[n++] = p;
  qsort (names, n, sizeof *names, compare_strings);
  for (size_t i = 0; i < n; i++)
    {
      fputs (i ? ";" : " x=", stdout);
      put_escaped (names[i], strlen (names[i]));
      ssize_t vlen = lgetxattr (path, names[i], NULL, 0);
      unsigned char *val = xmalloc (vlen > 0 ? vlen : 1);
      if (vlen < 0 || (vlen = lgetxattr (path, names[i], val, vlen)) < 0)
        {
          warn_errno ("getxattr", path);
          free (val);
          continue;
        }
      putchar ('=');
      if (strncmp (names[i], "system.posix_acl_", 17) != 0
          || !print_acl (val, vlen))
        printf ("%zd:%016" PRIx64, vlen, hash_buffer (val, vlen));
      free (val);
    }
  free (names);
  free (list);
}

/* ------------------------------------------------------------------ */
/* The walk.                                                            */
/* ------------------------------------------------------------------ */

struct entry
{
  char *path;
  struct stat st;
  int group;          /* hard-link group number, 0 for none */
  int in_digest;      /* names of the inode in the digest */
  int lstat_errno;    /* nonzero: the path does not exist */
};

static struct entry *entries;
static size_t n_entries, cap_entries;

static void
add_entry (char const *path, struct stat const *st, int err)
{
  if (n_entries == cap_entries)
    {
      cap_entries = cap_entries ? 2 * cap_entries : 256;
      entries = realloc (entries, cap_entries * sizeof *entries);
      if (!entries)
        {
          fputs ("treedigest: out of memory\n", stderr);
          exit (2);
        }
    }
  entries[n_entries].path = xstrdup (path);
  entries[n_entries].st = *st;
  entries[n_entries].group = 0;
  entries[n_entries].in_digest = 1;
  entries[n_entries].lstat_errno = err;
  n_entries++;
}

static void walk (char const *path);

static void
walk_dir (char const *path)
{
  DIR *d = opendir (path);
  if (!d)
    {
      warn_errno ("opendir", path);
      return;
    }
  size_t n = 0, cap = 16;
  char **names = xmalloc (cap * sizeof *names);
  struct dirent *de;
  errno = 0;
  while ((de = readdir (d)))
    {
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      if (n == cap)
        {
          cap *= 2;
          names = realloc (names, cap * sizeof *names);
          if (!names)
            {
              fputs ("treedigest: out of memory\n", stderr);
              exit (2);
            }
        }
      names[n++] = xstrdup (de->d_name);
    }
  if (errno)
    warn_errno ("readdir", path);
  closedir (d);
  qsort (names, n, sizeof *names, compare_strings);
  size_t plen = strlen (path);
  for (size_t i = 0; i < n; i++)
    {
      char *child = xmalloc (plen + strlen (names[i]) + 2);
      sprintf (child, "%s/%s", path, names[i]);
      walk (child);
      free (child);
      free (names[i]);
    }
  free (names);
}

static void
walk (char const *path)
{
  struct stat st;
  if (lstat (path, &st) != 0)
    {
      /* Worth a line of its own: "the copy made nothing here".  */
      memset (&st, 0, sizeof st);
      add_entry (path, &st, errno);
      return;
    }
  add_entry (path, &st, 0);
  if (S_ISDIR (st.st_mode))
    walk_dir (path);
}

/* Numbers hard-link groups in digest order.  Trees are small, so the
   quadratic search is fine.  */
static void
number_link_groups (void)
{
  int groups = 0;
  for (size_t i = 0; i < n_entries; i++)
    {
      struct entry *e = &entries[i];
      if (e->lstat_errno || S_ISDIR (e->st.st_mode) || e->st.st_nlink < 2
          || e->group)
        continue;
      int count = 1;
      for (size_t j = i + 1; j < n_entries; j++)
        if (entries[j].st.st_ino == e->st.st_ino
            && entries[j].st.st_dev == e->st.st_dev)
          count++;
      e->in_digest = count;
      if (count < 2)
        continue;
      e->group = ++groups;
      for (size_t j = i + 1; j < n_entries; j++)
        if (entries[j].st.st_ino == e->st.st_ino
            && entries[j].st.st_dev == e->st.st_dev)
          {
            entries[j].group = groups;
            entries[j].in_digest = count;
          }
    }
}

static void
print_time (struct timespec t, long long now)
{
  if (now >= 0 && t.tv_sec >= now)
    fputs ("now", stdout);
  else
    printf ("%lld.%09ld", (long long) t.tv_sec, t.tv_nsec);
}

static void
print_entry (struct entry const *e, long long now)
{
  struct stat const *st = &e->st;
  put_escaped (e->path, strlen (e->path));
  if (e->lstat_errno)
    {
      printf (" absent (%s)\n", strerror (e->lstat_errno));
      return;
    }
  printf (" t=%c m=%04o o=%lu:%lu", type_letter (st->st_mode),
          (unsigned) (st->st_mode & 07777), (unsigned long) st->st_uid,
          (unsigned long) st->st_gid);
  if (S_ISREG (st->st_mode))
    {
      uint64_t h;
      printf (" s=%jd b=%s", (intmax_t) st->st_size, block_class (st));
      if (hash_file (e->path, st->st_size, &h))
        printf (" c=%016" PRIx64, h);
      else
        {
          warn_errno ("read", e->path);
          fputs (" c=unreadable", stdout);
        }
    }
  else if (S_ISLNK (st->st_mode))
    printf (" s=%jd", (intmax_t) st->st_size);
  fputs (" mt=", stdout);
  print_time (st->st_mtim, now);
  if (!S_ISDIR (st->st_mode))
    {
      fputs (" h=", stdout);
      if (e->group)
        printf ("%d", e->group);
      else if (st->st_nlink < 2)
        putchar ('-');
      if ((nlink_t) e->in_digest < st->st_nlink)
        putchar ('+');
    }
  if (S_ISCHR (st->st_mode) || S_ISBLK (st->st_mode))
    printf (" r=%u,%u", major (st->st_rdev), minor (st->st_rdev));
  if (S_ISLNK (st->st_mode))
    {
      char *buf = xmalloc (st->st_size + 1);
      ssize_t n = readlink (e->path, buf, st->st_size + 1);
      if (n < 0)
        warn_errno ("readlink", e->path);
      else
        {
          fputs (" -> ", stdout);
          put_escaped (buf, n);
        }
      free (buf);
    }
  print_xattrs (e->path);
  putchar ('\n');
}

static int
remove_one (char const *path, struct stat const *st, int flag,
            struct FTW *ftw)
{
  (void) st;
  (void) ftw;
  if ((flag == FTW_DP ? rmdir (path) : unlink (path)) != 0)
    {
      warn_errno ("remove", path);
      status = 3;
    }
  return 0;
}

static void
usage (void)
{
  fputs ("usage: treedigest [-n NOW] [-r] PATH...\n", stderr);
  exit (2);
}

int
main (int argc, char **argv)
{
  long long now = -1;
  bool remove_after = false;
  int opt;
  while ((opt = getopt (argc, argv, "n:r")) != -1)
    {
      char *end;
      if (opt == 'n' && (now = strtoll (optarg, &end, 10), !*end))
        continue;
      if (opt == 'r')
        remove_after = true;
      else
        usage ();
    }
  if (optind == argc)
    usage ();
  /* Walk everything first: link groups span all the PATHs.  */
  for (int i = optind; i < argc; i++)
    walk (argv[i]);
  number_link_groups ();
  for (size_t i = 0; i < n_entries; i++)
    print_entry (&entries[i], now);
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      perror ("treedigest: write");
      return 2;
    }
  /* Root may remove anything; others' unwritable directories are the
     caller's business.  */
  for (int i = optind; remove_after && i < argc; i++)
    if (nftw (argv[i], remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0
        && errno != ENOENT)
      {
        warn_errno ("remove", argv[i]);
        status = 3;
      }
  return status;
}
