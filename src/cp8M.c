/* cp8M: copy files with large aligned I/O, behaving as GNU cp.

   Copyright (C) 2026 The cp8M authors.

   This program is free software: you can redistribute it and/or modify
   it under the terms of the GNU General Public License as published by
   the Free Software Foundation, either version 3 of the License, or
   (at your option) any later version.

   This program is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
   GNU General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program.  If not, see <https://www.gnu.org/licenses/>.  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backupfile.h"

#include "cp/budget.h"
#include "cp/dest.h"
#include "cp/copy.h"
#include "cp/diag.h"
#include "cp/follow.h"
#include "cp/limit.h"
#include "cp/list.h"
#include "cp/manifest.h"
#include "cp/marks.h"
#include "dirname.h"
#include "engine/engine.h"
#include "error.h"
#include "filenamecat.h"
#include "cp/options.h"
#include "cp/parents.h"
#include "cp/report.h"
#include "cp/sync.h"
#include "cp/stats.h"
#include "cp/progress.h"
#include "progname.h"
#include "quote.h"
#include "xalloc.h"

/* Where the operands go.  */
struct target
{
  char const *dir;   /* directory to copy into, or NULL for SOURCE DEST */
  int dirfd;         /* open DIR, or -1 */
  char **sources;
  int n_sources;
  char const *dest;  /* DEST when DIR is NULL */
};

static _Noreturn void
usage_error (char const *message, char const *operand)
{
  if (operand)
    error (0, 0, message, quote_file (operand));
  else
    error (0, 0, "%s", message);
  cp8m_usage (EXIT_FAILURE);
}

/* Open NAME as the directory to copy into, or return -1 with errno.  Only
   its name is needed (O_PATH, as GNU cp opens it): a directory this user
   may not read is still the target, and each copy into it then fails on
   its own ("cannot stat 'dir/a'"), as with GNU cp.  NAME may be a
   symbolic link, followed as any other at the destination: only when
   its owner is this user or its directory's (else *REFUSED; follow.h).
   "cp f /some/link" goes on working for root's own links and for links
   in directories of their owners.  */
static int
open_target_dir (char const *name, bool *refused)
{
  /* NAME: the user's operand, absolute or relative to the working
     directory (AT_FDCWD).  */
  return follow_openat (AT_FDCWD, name, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
                        refused, NULL);
}

/* The target NAME is a symbolic link not to follow: say so and exit, as
   with any target that cannot be used.  */
static _Noreturn void
refuse_target (char const *name)
{
  follow_refused (name);
  exit (EXIT_FAILURE);
}

/* Sort the N operands in FILES into sources and a destination, as GNU cp
   does: -t names the directory; -T forbids one; otherwise a last operand
   that is a directory receives the others.  With --files-from the
   sources may all come from the list, and the target is a directory.
   Exit on usage errors.  */
static void
resolve_target (struct cp8m_options const *o, int n, char **files,
                struct target *t)
{
  *t = (struct target) { .dirfd = -1, .sources = files, .n_sources = n };

  if (n == 0 && o->files_from && !o->target_directory)
    usage_error ("missing destination file operand", NULL);
  if (n == 0 && !o->files_from)
    usage_error ("missing file operand", NULL);

  bool refused;
  if (o->target_directory)
    {
      t->dirfd = open_target_dir (o->target_directory, &refused);
      if (refused)
        refuse_target (o->target_directory);
      if (t->dirfd < 0)
        error (EXIT_FAILURE, errno, "target directory %s",
               quote_file (o->target_directory));
      t->dir = o->target_directory;
      return;
    }

  if (n == 1 && !o->files_from)
    usage_error ("missing destination file operand after %s", files[0]);

  if (o->no_target_directory)
    {
      if (n > 2)
        usage_error ("extra operand %s", files[2]);
    }
  else
    {
      char const *last = files[n - 1];
      t->dirfd = open_target_dir (last, &refused);
      if (t->dirfd >= 0)
        {
          t->dir = last;
          t->n_sources = n - 1;
          return;
        }
      /* A link to a directory, or with more than one source, would be
         the target: refused as such.  One to anything else is SOURCE
         DEST's DEST, refused (or replaced with -f) as the copy opens
         it.  LAST: the user's operand (AT_FDCWD), only looked at.  */
      struct stat st;
      bool several = n > 2 || o->files_from;
      if (refused && (several || (stat (last, &st) == 0
                                  && S_ISDIR (st.st_mode))))
        refuse_target (last);
      if (several)
        error (EXIT_FAILURE, errno, "target %s", quote_file (last));
    }
  if (o->parents)
    usage_error ("with --parents, the destination must be a directory",
                 NULL);
  t->n_sources = 1;
  t->dest = files[1];
}

/* Remove the slashes that end NAME (but not a lone "/").  */
static void
strip_slashes (char *name)
{
  char *base = last_component (name);
  if (*base == '\0')
    base = name;
  char *end = base + base_len (base);
  *end = '\0';
}

/* Copy the operand SRC to D.  LASTING names D too, relative to a
   directory open until the end of the run, where --sync finds the
   directory D is in to flush it.  */
static bool
copy_top (struct copy_ctx *c, char const *src, struct loc const *d,
          struct loc const *lasting)
{
  struct walk w = { .top_src = src, .top_dst = d->name,
                    .top_dirfd = d->dirfd,
                    .top_prefix = strlen (d->name) - strlen (d->rel) };
  /* SRC as the user named it: absolute, or relative to the working
     directory (AT_FDCWD).  */
  struct loc s = { AT_FDCWD, src, src, false };
  bool ok = copy_node (c, &s, d, NULL, &w, true);
  if (w.top_changed && c->sync_dirs)
    sync_dirs_add_parent (c->sync_dirs, lasting->dirfd, lasting->rel,
                          lasting->name);
  return ok;
}

/* The name the copy of the operand ARG gets in the target directory
   T->dir (to free), and in *REL where its part below T->dir starts: the
   whole operand with --parents, else its last component ("." for
   "..": 'cp -R src/.. dest' copies into dest itself).  */
static char *
copy_name (struct cp8m_options const *o, struct target const *t,
           char const *arg, char **rel)
{
  char *plain = xstrdup (o->parents ? arg : last_component (arg));
  strip_slashes (plain);
  if (!o->parents && strcmp (plain, "..") == 0)
    strcpy (plain, ".");
  char *dst = file_name_concat (t->dir, plain, rel);
  free (plain);
  return dst;
}

/* Copy the operand ARG into the target directory.  */
static bool
copy_into (struct copy_ctx *c, struct target const *t, char *arg)
{
  struct cp8m_options const *o = c->o;
  if (o->strip_trailing_slashes)
    strip_slashes (arg);

  bool ok;
  char *rel;
  char *dst = copy_name (o, t, arg, &rel);
  if (o->parents)
    {
      /* An absolute operand (cp --parents /etc/fstab dir) is copied
         under the target all the same: *at () calls would take REL with
         its leading '/' as the source's own path on the live system.
         (parents_make wants the '/': REL's directories are the sources'
         names.)  */
      char const *under = rel + strspn (rel, "/");
      struct parents made = { .by_name = c->max_open_levels == 0 };
      bool dst_absent;
      /* REL keeps its '/' (the sources' names); UNDER and the last
         component are relative to the target directory.  */
      ok = parents_make (o, t->dirfd, dst, rel, &made, &dst_absent);
      if (ok)
        {
          /* Into the parent made or met, through its descriptor.  UNDER
             is relative to the target directory.  */
          struct loc lasting = { t->dirfd, under, dst, dst_absent };
          struct loc d = lasting;
          /* The last component, relative to that parent.  */
          if (made.fd >= 0)
            d = (struct loc) { made.fd, last_component (under), dst,
                               dst_absent };
          ok = copy_top (c, arg, &d, &lasting);
          ok &= parents_finish (o, t->dirfd, &made);
        }
      if (c->sync_dirs)
        parents_sync (&made, t->dirfd, c->sync_dirs);
      parents_free (&made);
      free (dst);
      return ok;
    }

  /* REL: a last component, relative to the target directory.  */
  struct loc d = { t->dirfd, rel, dst, false };
  ok = copy_top (c, arg, &d, &d);
  free (dst);
  return ok;
}

/* Copy SRC to DEST (SOURCE DEST's).  DEST's directories are opened one
   at a time, every symbolic link met followed only by the rule
   (follow.h): the copy is then made in the directory reached, through
   its descriptor (*DIRFD, open until the end of the run for --sync).
   When that directory cannot be opened for another reason, DEST is
   used as given, and the copy says why it fails, as GNU cp does.  */
static bool
copy_to_dest (struct copy_ctx *c, char const *src, char const *dest,
              int *dirfd)
{
  char const *rel;
  bool refused;
  /* DEST as the user gave it: absolute, or relative to the working
     directory (AT_FDCWD).  */
  int fd = follow_dirs (AT_FDCWD, dest, &rel, &refused);
  if (refused)
    {
      follow_refused (dest);
      return false;
    }
  if (fd == -1)  /* (AT_FDCWD, negative too, when DEST has no directories.)  */
    rel = dest;
  else
    *dirfd = fd;
  /* REL: DEST's last component relative to FD, or DEST as given
     (AT_FDCWD).  */
  struct loc d = { *dirfd, rel, dest, false };
  return copy_top (c, src, &d, &d);
}

/* 'cp --force --backup a a' copies a to its backup name (GNU's special
   case): return the destination to use, and then make no backup.  */
static char *
backup_of_itself (struct cp8m_options *o, char const *src, char const *dest)
{
  struct stat st;
  if (o->force && o->backup_type != no_backups && strcmp (src, dest) == 0
      && stat (dest, &st) == 0 && S_ISREG (st.st_mode))
    {
      /* DEST as the user gave it: absolute, or relative to the working
         directory (AT_FDCWD).  */
      char *b = find_backup_file_name (AT_FDCWD, dest, o->backup_type);
      o->backup_type = no_backups;
      return b;
    }
  return xstrdup (dest);
}

/* What the report at the end needs (--stats, --stats-file), and for a
   run that exits early, what --stats-file needs.  Static, as the signal
   handler writes the file through FILE too.  */
static struct ending
{
  struct cp8m_options const *o;
  struct stats *stats;
  bool has_file;            /* --stats-file, to be written at every end */
  struct whole file;
  bool written;
  uintmax_t buffer_bytes;
} ending;

/* The report at the end, with EXIT_STATUS: --stats's in FORMAT on
   stderr, and --stats-file's, once.  Return true, or false after a
   message.  */
static bool
write_reports (enum stats_format format, int exit_status)
{
  struct whole *w = NULL;
  if (ending.has_file)
    {
      ending.written = true;
      /* For good: a signal that comes now finds the report said, and
         leaves the status it says.  */
      dest_hold_signals ();
      w = &ending.file;
    }
  struct stats_end e = { exit_status, diag_error_count (),
                         ending.buffer_bytes, ending.o->verify,
                         ending.o->sync, sync_failures () };
  return stats_report (ending.stats, format, w, &e);
}

/* An exit before the end of main is a failure (error () with a status,
   xalloc_die): its stats file says so.  */
static void
write_stats_file_at_exit (void)
{
  if (!ending.written)
    write_reports (STATS_NONE, EXIT_FAILURE);
}

/* The report files asked for, in R (N of them), each prepared in its W:
   what each name stands for is known, nothing is written yet.  */
struct reports
{
  struct whole sums;
  struct report r[2];
  int n;
};

/* Learn what FILE, the report WHAT, stands for, into W; exit if it
   cannot be one (a directory, an empty name).  */
static void
prepare_report (struct reports *rs, struct whole *w, char const *file,
                char const *what)
{
  if (!whole_prepare (w, file))
    {
      if (w->refused)
        {
          follow_refused (file);
          exit (EXIT_FAILURE);
        }
      error (EXIT_FAILURE, errno, "cannot create %s %s", what,
             quote_file (file));
    }
  rs->r[rs->n++] = (struct report) { w, what };
}

/* Before the target is resolved: exit if a report is one of the N
   operands FILES, lies in a tree copied, or is the other report.  */
static void
check_reports (struct reports const *rs, struct cp8m_options const *o,
               int n, char **files)
{
  for (int i = 0; i < rs->n; i++)
    report_check_operands (&rs->r[i], files, n, !o->target_directory,
                           o->recursive);
  if (rs->n == 2)
    report_check_pair (&rs->r[0], &rs->r[1]);
}

/* With the target T resolved: whether no report is where the copy of
   the operand SRC goes (false after a message).  */
static bool
clear_of_copy (struct reports const *rs, struct cp8m_options const *o,
               struct target const *t, char const *src)
{
  bool ok = true;
  char *dst = t->dest ? xstrdup (t->dest) : copy_name (o, t, src, NULL);
  for (int j = 0; j < rs->n && ok; j++)
    ok = report_check_copy (&rs->r[j], src, dst, o->recursive);
  /* A simple backup of the copy is made under a name known now
     (numbered ones take names no report has yet).  */
  if (o->backup_type == simple_backups
      || o->backup_type == numbered_existing_backups)
    {
      char *b = xmalloc (strlen (dst) + strlen (simple_backup_suffix) + 1);
      strcpy (stpcpy (b, dst), simple_backup_suffix);
      for (int j = 0; j < rs->n && ok; j++)
        ok = report_check_backup (&rs->r[j], b, dst);
      free (b);
    }
  free (dst);
  return ok;
}

/* With the target T resolved: whether no report is where a copy goes
   (false after a message).  */
static bool
reports_clear_of_copies (struct reports const *rs,
                         struct cp8m_options const *o,
                         struct target const *t)
{
  bool ok = true;
  for (int i = 0; i < t->n_sources && ok; i++)
    ok = clear_of_copy (rs, o, t, t->sources[i]);
  return ok;
}

/* Copy into T's directory each name of the list L, after the checks
   an operand has before the run (the reports RS; false after a
   message), and close it.  */
static bool
copy_list (struct copy_ctx *c, struct target const *t,
           struct reports const *rs, struct name_list *l)
{
  bool ok = true;
  for (char *name; (name = list_next (l)); )
    {
      bool clear = true;
      for (int i = 0; i < rs->n && clear; i++)
        clear = report_check_operand (&rs->r[i], name, false,
                                      c->o->recursive);
      if (clear && clear_of_copy (rs, c->o, t, name))
        ok &= copy_into (c, t, name);
      else
        ok = false;
    }
  return list_close (l) && ok;
}

/* Begin the report R (whole_begin), and for the statistics file write
   "running" at once, before a later report's FIFO may wait for its
   reader: a signal meanwhile then finds the "killed" object armed.
   Exit if it cannot be written.  */
static void
begin_report (struct report const *r, bool sync)
{
  bool stats = r->w == &ending.file;
  /* The open is not under held signals: a FIFO's waits for its reader,
     and must stay open to SIGINT.  */
  bool ok = whole_begin (r->w);
  if (!ok && r->w->refused)
    follow_refused (r->w->file);
  else if (!ok)
    error (0, errno, "cannot create %s %s", r->what,
           quote_file (r->w->file));
  else if (stats)
    {
      dest_hold_signals ();
      ok = stats_file_begin (r->w, ending.stats, sync);
      dest_release_signals ();
    }
  if (!ok)
    {
      /* A statistics file not begun is not written at exit either.  */
      if (stats)
        ending.written = true;
      exit (EXIT_FAILURE);
    }
}

/* The largest buffer a job has: files smaller than it are copied by
   jobs (jobs.h).  Small, as most files of a tree are.  */
enum { JOB_BUFFER = 128 * 1024 };

/* Whether files may be in flight (jobs.h): only where nothing asks the
   walk to wait for each file: a question (-i), a line per file's data
   (--debug), or a check or hash of each copy, all kept one file after
   another.  (The rate limit and the meter are shared by all engines:
   engine.h.)  */
static bool
files_at_once (struct cp8m_options const *o)
{
  return o->recursive && o->files_in_flight > 1 && !o->hard_link
         && !o->symbolic_link && !o->attributes_only && !o->interactive
         && !o->debug && !o->verify && !o->checksum_file;
}

/* The budget's buffers that the files in flight take from the walk's
   MEM: a quarter, at least one (none when there is only one).  The walk
   keeps the rest for a big file's pieces (6 of 8 by default: 4 and 8
   were as fast, bench/queue-depth.md), so that together they never hold
   more than the budget.  */
static unsigned int
jobs_share (struct memory_plan const *mem)
{
  return mem->depth < 2 ? 0 : mem->depth < 8 ? 1 : mem->depth / 4;
}

/* The pool for files in flight, or NULL: the walk copies each file
   itself.  Its buffers together fit in jobs_share's buffers.  */
static struct jobs *
start_jobs (struct cp8m_options const *o, struct copy_ctx *c,
            struct memory_plan const *mem, struct engine_meter *meter)
{
  if (!files_at_once (o) || jobs_share (mem) == 0)
    return NULL;
  size_t size = mem->size < JOB_BUFFER ? mem->size : JOB_BUFFER;
  unsigned int n = o->files_in_flight;
  if (n > jobs_share (mem) * (mem->size / size))
    n = jobs_share (mem) * (mem->size / size);
  /* The engine plans a file smaller than its buffer as the walk's would
     (buffered): the same buffer size for both, then.  */
  struct engine_config cfg = { size, 1, meter };
  struct jobs *j = jobs_new (dirfds_jobs_room (c->max_open_levels, n), &cfg);
  c->job_size = size;
  return j;
}

int
main (int argc, char **argv)
{
  progress_block_signals ();
  /* --stats's elapsed time counts from here.  */
  struct stats stats;
  stats_start (&stats);
  set_program_name (argv[0]);
  setlocale (LC_ALL, "");
  diag_install ();

  struct cp8m_options o;
  int first = cp8m_parse_options (argc, argv, &o);
  if (o.limit_pid)
    {
      /* Only a new limit for another copy: nothing to copy here.  */
      if (!o.explicit_bwlimit)
        {
          error (0, 0, "--pid needs --bwlimit=RATE, the new limit");
          cp8m_usage (EXIT_FAILURE);
        }
      if (first < argc)
        usage_error ("extra operand %s", argv[first]);
      return limit_send (o.limit_pid, o.bwlimit) ? EXIT_SUCCESS
                                                 : EXIT_FAILURE;
    }

  /* The report files (report.h, whole.h): a directory, an empty name,
     or one of the operands is refused before anything is written.  */
  /* Static, as ENDING is: a refusal that exits leaves them reachable.  */
  static struct reports rs;
  if (o.stats_file)
    prepare_report (&rs, &ending.file, o.stats_file, "statistics file");
  if (o.checksum_file)
    prepare_report (&rs, &rs.sums, o.checksum_file, "checksum file");
  int n_files = argc - first;
  /* One operand without -t is a usage error (resolve_target): no
     report is written then, as none could be checked.  */
  bool checkable = n_files >= 2 || o.target_directory
                   || (o.files_from && n_files == 1);
  if (checkable)
    check_reports (&rs, &o, n_files, argv + first);
  /* A report must not overwrite the list it is read from.  */
  for (int i = 0; i < rs.n && o.files_from; i++)
    if (!report_check_operand (&rs.r[i], o.files_from, false, false))
      return EXIT_FAILURE;

  /* --stats-file is written at every end: one that exits early (a
     missing target directory) too, by the atexit handler.  */
  ending.o = &o;
  ending.stats = &stats;
  /* The JSON object lists every failure.  */
  if (o.stats == STATS_JSON || o.stats_file)
    diag_keep_failures ();
  if (o.stats_file && checkable)
    {
      ending.has_file = true;
      atexit (write_stats_file_at_exit);
    }

  struct target t;
  resolve_target (&o, n_files, argv + first, &t);
  /* Opened now: a list that cannot be read stops the run before any
     copy.  */
  struct name_list *list = o.files_from
    ? list_open (o.files_from, o.null_names) : NULL;
  if (!reports_clear_of_copies (&rs, &o, &t))
    {
      /* Refused: the statistics file is left as it was too.  */
      ending.written = true;
      return EXIT_FAILURE;
    }

  /* Before the reports are begun: a fatal signal from now on writes the
     statistics file's "killed" object.  */
  dest_install_signals ();
  for (int i = 0; i < rs.n; i++)
    begin_report (&rs.r[i], o.sync);
  struct manifest *manifest = o.checksum_file
    ? manifest_start (&rs.sums, o.checksum) : NULL;
  /* From now on the walk refuses to read or write a report file
     (report_clash): deep names, links and mounts are checked there.  */
  for (int i = 0; i < rs.n; i++)
    if (report_node (&rs.r[i], &o.report_nodes[o.n_report_nodes]))
      o.n_report_nodes++;
  /* Before the engine makes any thread: it blocks the status signals.  */
  struct engine_meter meter = { 0 };
  atomic_init (&meter.limit, o.bwlimit > UINTPTR_MAX ? UINTPTR_MAX
                                                     : o.bwlimit);
  struct progress *progress = progress_start (&o, t.sources, t.n_sources,
                                              &meter);
  /* Buffers that fit the memory this process may use: explicit sizes
     included, since being killed helps no one.  */
  struct memory_plan mem;
  budget_plan (&mem, "", o.queue_depth, o.buffer_size,
               o.explicit_queue_depth, o.explicit_buffer_size);
  struct engine_config cfg = { mem.size, mem.depth, &meter };
  if (files_at_once (&o))
    cfg.queue_depth -= jobs_share (&mem);
  struct engine_ctx *eng = engine_ctx_new (&cfg);
  if (!eng)
    xalloc_die ();
  mem.size = engine_buffer_size (eng);   /* rounded to whole pages */

  struct copy_ctx c = { .o = &o, .eng = eng, .links = seen_new (),
                        .manifest = manifest,
                        .digest = { .hash = o.checksum },
                        .memory = &mem, .progress = progress,
                        .max_open_levels = dirfds_max_levels (o.parents),
                        .stats = o.stats != STATS_NONE || o.stats_file
                                 ? &stats : NULL };
  c.jobs = start_jobs (&o, &c, &mem, &meter);
  /* The hard-link table's descriptors, beside the walk's (special.c).  */
  seen_limit_fds (c.links, dirfds_link_room (c.max_open_levels));
  dirfds_stack_init (&c, &c);
  if (o.sync)
    c.sync_dirs = sync_dirs_new ();
  /* The same source twice, or two sources with the same name, can only
     happen with several operands.  */
  if (t.dir && (t.n_sources >= 2 || list))
    {
      c.created = marks_new ();
      c.operands = marks_new ();
    }

  bool ok = true;
  int dest_dirfd = AT_FDCWD;
  /* Into the directory T.DIR unless there is one destination T.DEST
     (resolve_target sets one of them; tested on T.DEST, gcc 12's
     -fanalyzer sees that it is not NULL below).  */
  if (!t.dest)
    {
      for (int i = 0; i < t.n_sources; i++)
        ok &= copy_into (&c, &t, t.sources[i]);
      if (list)
        ok &= copy_list (&c, &t, &rs, list);
    }
  else
    {
      /* --strip-trailing-slashes applies only to copies into a
         directory, as in GNU cp.  */
      char *src = t.sources[0];
      char *dest = backup_of_itself (&o, src, t.dest);
      ok = copy_to_dest (&c, src, dest, &dest_dirfd);
      free (dest);
    }

  jobs_free (c.jobs);
  ok &= !c.jobs_failed;
  /* --sync: the directories above the walks, last (sync.h).  */
  ok &= sync_dirs_flush (c.sync_dirs);
  /* The copies that were made, whatever failed beside them.  */
  ok &= manifest_finish (c.manifest, o.sync);
  engine_digest_free (&c.digest);
  ok &= !c.unverified;
  /* Every copy is closed (and committed or undone) by now: the final
     progress line, then the report.  */
  progress_finish (progress);
  if (c.stats)
    c.stats->bwlimit = atomic_load (&meter.limit);
  ending.buffer_bytes = engine_buffer_bytes (eng);
  if (o.stats != STATS_NONE || o.stats_file)
    ok &= write_reports (o.stats, ok ? EXIT_SUCCESS : EXIT_FAILURE);
  seen_free (c.links);
  marks_free (c.created);
  marks_free (c.operands);
  engine_ctx_free (eng);
  budget_free (&mem.budget);
  if (t.dirfd >= 0)
    close (t.dirfd);
  if (dest_dirfd >= 0)
    close (dest_dirfd);
  if (o.checksum_file)
    whole_free (&rs.sums);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
