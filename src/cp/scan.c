/* The scan behind --progress's totals.

   Approximate where exactness would cost: hard links are counted at
   each name; a file that changes after it was counted keeps its old
   size; directories whose names are too long to open by name
   (ENAMETOOLONG, deeper than PATH_MAX) are left out, which also ends a
   symbolic-link cycle under -L; beyond SCAN_PENDING_MAX bytes of names
   waiting to be walked, the directories found are left out too.  The
   progress line then reaches its end before 100 %.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
# include <sys/syscall.h>
#endif

#include "filenamecat.h"
#include "list.h"
#include "seen.h"

/* The scan needs little stack: no recursion, no large locals.  A small
   one matters under a memory limit or `ulimit -v`.  */
enum { SCAN_STACK = 256 * 1024 };

/* Bound on the memory held by names of directories not walked yet.  */
enum { SCAN_PENDING_MAX = 16 * 1024 * 1024 };

struct scan
{
  struct cp8m_options const *o;
  char *const *sources;
  int n;
  pthread_t thread;
  bool threaded;
  atomic_bool stop;

  pthread_mutex_t lock;      /* guards TOTALS */
  struct scan_totals totals;
  /* With --preserve=links, the files of several names met so far: the
     copy makes the later names links, so they count once.  Only the
     scan's thread uses it.  */
  struct seen *links;
  /* --files-from's list, opened again for the scan alone; NULL
     without one.  */
  FILE *list;
};

/* Directories found and not walked yet: a stack, so the walk goes depth
   first and holds only the siblings of the directories above it.  */
struct pending
{
  char **names;
  size_t n, alloc;
  size_t bytes;
};

/* Whether the regular file ST is one to count: not a later name of a
   file counted already, where the copy links those names.  */
static bool
counts (struct scan *s, struct stat const *st)
{
  return !s->links || st->st_nlink < 2
         || !seen_remember (s->links, st->st_dev, st->st_ino, "");
}

/* The bytes of data a regular file holds: its holes are not copied.  */
static unsigned long long
data_bytes (struct stat const *st)
{
  unsigned long long allocated = (unsigned long long) st->st_blocks * 512;
  unsigned long long size = st->st_size > 0 ? st->st_size : 0;
  return allocated < size ? allocated : size;
}

static void
add_totals (struct scan *s, unsigned long long bytes, unsigned long files)
{
  pthread_mutex_lock (&s->lock);
  s->totals.bytes += bytes;
  s->totals.files += files;
  pthread_mutex_unlock (&s->lock);
}

/* Push a copy of DIR/NAME (or of DIR alone when NAME is NULL).  Return
   false when memory (or the bound) says no: the directory is left out.  */
static bool
push (struct pending *p, char const *dir, char const *name)
{
  if (p->bytes > SCAN_PENDING_MAX)
    return false;
  if (p->n == p->alloc)
    {
      size_t alloc = p->alloc ? 2 * p->alloc : 64;
      char **names = realloc (p->names, alloc * sizeof *names);
      if (!names)
        return false;
      p->names = names;
      p->alloc = alloc;
    }
  char *full = name ? mfile_name_concat (dir, name, NULL) : strdup (dir);
  if (!full)
    return false;
  p->names[p->n++] = full;
  p->bytes += strlen (full) + 1;
  return true;
}

/* Read the directory DIR whole, counting its regular files and pushing
   its subdirectories on P (those on DEV only, with -x).  One descriptor,
   closed before the subdirectories are walked.  */
static void
scan_dir (struct scan *s, char const *dir, dev_t dev, struct pending *p)
{
  struct cp8m_options const *o = s->o;
  int flags = o->dereference == DEREF_ALWAYS ? 0 : AT_SYMLINK_NOFOLLOW;
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return;
  DIR *d = fdopendir (fd);
  if (!d)
    {
      close (fd);
      return;
    }
  unsigned long long bytes = 0;
  unsigned long files = 0;
  struct dirent *e;
  while (!atomic_load_explicit (&s->stop, memory_order_relaxed)
         && (e = readdir (d)))
    {
      char const *name = e->d_name;
      if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
        continue;
      struct stat st;
      /* NAME: a directory entry, relative to the directory read.  */
      if (fstatat (dirfd (d), name, &st, flags) != 0)
        continue;
      if (S_ISREG (st.st_mode) && counts (s, &st))
        {
          bytes += data_bytes (&st);
          files++;
        }
      else if (S_ISDIR (st.st_mode)
               && (!o->one_file_system || st.st_dev == dev))
        push (p, dir, name);
    }
  closedir (d);
  add_totals (s, bytes, files);
}

/* Count the operand NAME as the copy will meet it.  */
static void
scan_operand (struct scan *s, char const *name)
{
  struct cp8m_options const *o = s->o;
  struct stat st;
  int r = o->dereference == DEREF_NEVER ? lstat (name, &st)
                                        : stat (name, &st);
  if (r != 0)
    return;
  if (S_ISREG (st.st_mode) && counts (s, &st))
    add_totals (s, data_bytes (&st), 1);
  if (!S_ISDIR (st.st_mode) || !o->recursive)
    return;

  struct pending p = { NULL, 0, 0, 0 };
  push (&p, name, NULL);
  while (p.n > 0)
    {
      char *dir = p.names[--p.n];
      p.bytes -= strlen (dir) + 1;
      if (!atomic_load_explicit (&s->stop, memory_order_relaxed))
        scan_dir (s, dir, st.st_dev, &p);
      free (dir);
    }
  free (p.names);
}

/* The list of --files-from, open as F: count each name as an operand.
   Its bad entries are the copy's to report.  */
static void
scan_list (struct scan *s, FILE *f)
{
  char end = s->o->null_names ? '\0' : '\n';
  char *name = NULL;
  size_t size = 0;
  ssize_t len;
  while (!atomic_load_explicit (&s->stop, memory_order_relaxed)
         && (len = list_read_name (f, end, &name, &size)) >= 0)
    if (len > 0 && strlen (name) == (size_t) len)
      scan_operand (s, name);
  free (name);
}

static void
scan_all (struct scan *s)
{
  for (int i = 0; i < s->n; i++)
    if (!atomic_load_explicit (&s->stop, memory_order_relaxed))
      scan_operand (s, s->sources[i]);
  if (s->list)
    scan_list (s, s->list);
  pthread_mutex_lock (&s->lock);
  s->totals.done = !atomic_load (&s->stop);
  pthread_mutex_unlock (&s->lock);
}

static void *
scan_main (void *arg)
{
  /* Nice, so that the copy keeps the CPU; Linux gives each thread its own
     priority.  Failure only costs fairness.  */
#if defined __linux__ && defined SYS_gettid
  (void) setpriority (PRIO_PROCESS, syscall (SYS_gettid), 19);
#endif
  scan_all (arg);
  return NULL;
}

bool
scan_thread_start (pthread_t *thread, void *(*fn) (void *), void *arg,
                   size_t stack)
{
  /* With every signal blocked in the new thread: the fatal ones belong to
     the main thread, whose handler undoes its work (dest.c), and the
     status ones to the monitor's sigtimedwait.  */
  sigset_t all, old;
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &old);
  pthread_attr_t attr;
  bool have_attr = pthread_attr_init (&attr) == 0;
  if (have_attr)
    pthread_attr_setstacksize (&attr, stack);
  bool ok = pthread_create (thread, have_attr ? &attr : NULL, fn, arg) == 0;
  if (have_attr)
    pthread_attr_destroy (&attr);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  return ok;
}

/* Is the only source something other than a directory?  Then counting
   it is one stat, with no thread.  */
static bool
single_file (struct scan const *s)
{
  struct stat st;
  return s->n == 1 && !s->o->files_from
         && (!s->o->recursive
             || (stat (s->sources[0], &st) == 0 && !S_ISDIR (st.st_mode)));
}

struct scan *
scan_start (struct cp8m_options const *o, char *const *sources, int n)
{
  struct scan *s = calloc (1, sizeof *s);
  if (!s)
    return NULL;
  *s = (struct scan) { .o = o, .sources = sources, .n = n,
                       .links = o->preserve_links ? seen_new () : NULL };
  atomic_init (&s->stop, false);
  pthread_mutex_init (&s->lock, NULL);
  /* A list in a file is read twice, by the copy and by the scan; one
     read once (a pipe, standard input) leaves no total to show.  Its
     type is known before it is opened: opening a pipe's name again (as
     /dev/fd/63 from bash's <(...)) would share the pipe and take names
     from the copy.  FROM: the user's operand, absolute or relative to
     the working directory.  */
  char const *from = o->files_from;
  struct stat st, opened;
  if (from && (strcmp (from, "-") == 0
               || stat (from, &st) != 0 || !S_ISREG (st.st_mode)
               || !(s->list = fopen (from, "re"))
               || fstat (fileno (s->list), &opened) != 0
               || !S_ISREG (opened.st_mode)))
    {
      scan_stop (s);
      return NULL;
    }
  if (single_file (s))
    {
      scan_all (s);
      return s;
    }

  s->threaded = scan_thread_start (&s->thread, scan_main, s, SCAN_STACK);
  if (!s->threaded)
    {
      scan_stop (s);
      return NULL;
    }
  return s;
}

void
scan_read (struct scan *s, struct scan_totals *t)
{
  pthread_mutex_lock (&s->lock);
  *t = s->totals;
  pthread_mutex_unlock (&s->lock);
}

void
scan_stop (struct scan *s)
{
  if (!s)
    return;
  if (s->threaded)
    {
      atomic_store (&s->stop, true);
      pthread_join (s->thread, NULL);
    }
  pthread_mutex_destroy (&s->lock);
  seen_free (s->links);
  if (s->list)
    fclose (s->list);
  free (s);
}
