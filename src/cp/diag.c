/* Diagnostics.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "diag.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "progress.h"
#include "close-stream.h"
#include "error.h"
#include "exitfail.h"
#include "filemode.h"
#include "progname.h"
#include "xalloc.h"
#include "yesno.h"

void
diag_engine_failure (struct engine_result const *res,
                     char const *src, char const *dst)
{
  switch (res->side)
    {
    case ENGINE_SIDE_CLONE:
      error (0, res->err, "failed to clone %s from %s",
             quote_file_n (0, dst), quote_file_n (1, src));
      break;
    case ENGINE_SIDE_OFFLOAD:
      error (0, res->err, "error copying %s to %s",
             quote_file_n (0, src), quote_file_n (1, dst));
      break;
    case ENGINE_SIDE_READ:
      error (0, res->err, "error reading %s", quote_file (src));
      break;
    case ENGINE_SIDE_WRITE:
      error (0, res->err, "error writing %s", quote_file (dst));
      break;
    case ENGINE_SIDE_NONE:
      error (0, res->err, "cannot copy %s to %s",
             quote_file_n (0, src), quote_file_n (1, dst));
      break;
    }
}

/* SIZE in the largest binary unit that divides it: "8 MiB", "12 KiB".  */
static void
format_size (char *out, size_t outsize, size_t size)
{
  static char const *const units[] = { "bytes", "KiB", "MiB", "GiB" };
  int u = 0;
  while (u < 3 && size >= 1024 && size % 1024 == 0)
    {
      size /= 1024;
      u++;
    }
  snprintf (out, outsize, "%zu %s", size, units[u]);
}

void
diag_gnu_words (struct engine_facts const *f, struct diag_words *w)
{
  /* GNU cp 9.11 starts from "unknown" (reflink "no" when not allowed)
     and changes a word only when its step runs.  */
  w->reflink = !f->reflink_allowed ? "no"
               : f->clone == ENGINE_CLONE_DONE ? "yes"
               : f->clone == ENGINE_CLONE_REFUSED ? "unsupported"
               : "unknown";
  switch (f->scan)
    {
    case ENGINE_SCAN_PLAIN:
      w->sparse = f->zero_detect ? "zeros" : "no";
      break;
    case ENGINE_SCAN_LSEEK:
      /* Zero detection is part of the loop that copies a data extent.  */
      w->sparse = f->ran && f->zero_detect ? "SEEK_HOLE + zeros"
                                           : "SEEK_HOLE";
      break;
    default:
      w->sparse = "unknown";
      break;
    }
  /* copy_file_range is tried only when reflinks are allowed and no zero
     blocks are looked for; a call that returned 0 at once (an empty
     file, /proc) settles nothing.  */
  if (f->scan == ENGINE_SCAN_NONE || !f->ran)
    w->offload = "unknown";
  else if (!f->reflink_allowed || f->zero_detect)
    w->offload = "avoided";
  else
    w->offload = f->offload == ENGINE_OFFLOAD_MOVED ? "yes"
                 : f->offload == ENGINE_OFFLOAD_FAILED ? "unsupported"
                 : "unknown";
}

void
diag_debug_gnu (struct engine_facts const *facts)
{
  struct diag_words w;
  diag_gnu_words (facts, &w);
  printf ("copy offload: %s, reflink: %s, sparse detection: %s\n",
          w.offload, w.reflink, w.sparse);
}

/* WHY of a plan, with the error behind it: "write: Invalid argument".  */
static char const *
reason (char *buf, size_t size, char const *why, int err)
{
  snprintf (buf, size, "%s%s%s", why ? why : "", err ? ": " : "",
            err ? strerror (err) : "");
  return buf;
}

static char const *const method_words[] = {
  [ENGINE_COPY_OFFLOAD] = "copy_file_range",
  [ENGINE_COPY_DIRECT] = "direct I/O",
  [ENGINE_COPY_BUFFERED] = "buffered",
  [ENGINE_COPY_STREAM] = "read until end of file, buffered",
};

/* The plan P in full, one choice a line with its reason.  A plan that
   follows another (FIRST false) says only what changed.  */
static void
print_plan (struct engine_plan const *p, bool first)
{
  char why[160], io[32];
  format_size (io, sizeof io, p->io_size);
  reason (why, sizeof why, p->why, p->why_errno);
  if (first)
    printf ("plan: %s%s%s (%s)\n", method_words[p->method],
            p->dio ? " with " : "", p->dio ? p->dio : "", why);
  else
    printf ("then from byte %jd: %s (%s%s)\n", (intmax_t) p->from,
            method_words[p->method],
            p->then == ENGINE_THEN_REFUSED ? "direct I/O refused: " : "",
            why);
  if (p->method == ENGINE_COPY_STREAM && p->bytes == 0)
    puts ("  I/O: one read, which met the end of file: no data");
  else if (p->method == ENGINE_COPY_STREAM)
    printf ("  I/O: up to %s a read, written as it arrives\n", io);
  else if (p->method != ENGINE_COPY_OFFLOAD && p->data == 0)
    puts ("  I/O: none: the destination is only given the source's size");
  else if (p->method != ENGINE_COPY_OFFLOAD && p->data >= 0
           && p->data < (off_t) p->io_size)
    printf ("  I/O: one read and one write of %jd bytes (less than one"
            " %s buffer)\n", (intmax_t) p->data, io);
  else
    printf ("  I/O: %s%s pieces, %u in flight (%s)\n",
            p->method == ENGINE_COPY_OFFLOAD ? "copy_file_range " : "", io,
            p->depth, p->depth_why);
  if (p->method == ENGINE_COPY_DIRECT)
    printf ("  alignment: pieces at multiples of %u; the files ask %u for"
            " offsets, %u for memory (%s)\n", p->align, p->offset_align,
            p->mem_align, p->align_from);
  if (first)
    printf ("  holes: %s\n  space: %s\n", p->holes_why, p->prealloc_why);
  if (first && p->hold_last)
    puts ("  order: the piece that ends the file is written last (an"
          " existing file overwritten in place stays short until"
          " complete)");
  printf ("  cache: %s%s%s%s\n", p->cache_why,
          p->dontcache_refused ? " (this kernel has no RWF_DONTCACHE: they"
                                 " stay)" : "",
          p->caveat ? ", but " : "", p->caveat ? p->caveat : "");
  if (p->sync)
    puts ("  then fdatasync, so that the tail is on disk as the rest is");
}

/* What FICLONE and copy_file_range did for REP, and why they did not
   move all the data.  */
static void
print_offload (struct engine_report const *rep)
{
  char why[160];
  reason (why, sizeof why, rep->offload_why, rep->offload_errno);
  char const *clone = rep->facts.clone == ENGINE_CLONE_REFUSED
                      ? "FICLONE refused; " : "";
  struct engine_plan const *o = rep->n_plans > 0
                                && rep->plans[0].method == ENGINE_COPY_OFFLOAD
                                ? &rep->plans[0] : NULL;
  if (rep->facts.clone == ENGINE_CLONE_DONE)
    puts ("offload: yes (cloned with FICLONE: the copy shares the source's"
          " blocks)");
  else if (!rep->offload_why)
    printf ("offload: yes (%scopy_file_range)\n", clone);
  else if (o && o->bytes > 0)
    printf ("offload: partly (%scopy_file_range moved %jd bytes, then %s)\n",
            clone, (intmax_t) o->bytes, why);
  else
    printf ("offload: no (%s%s)\n", clone, why);
}

void
diag_debug_lines (struct engine_result const *res, char const *dest)
{
  struct engine_report const *rep = &res->report;
  print_offload (rep);
  bool fell_back;
  struct engine_plan const *d = engine_direct_plan (rep, &fell_back);
  char why[160];
  char size[32];
  if (d)
    format_size (size, sizeof size, d->io_size);
  if (d && fell_back)
    printf ("direct I/O: partly (%s, %s x %u in flight), then buffered"
            " (%s)\n", d->dio, size, d->depth,
            reason (why, sizeof why, d[1].why, d[1].why_errno));
  else if (d)
    printf ("direct I/O: yes (%s, %s x %u in flight)%s%s\n", d->dio, size,
            d->depth, d->caveat ? ", but " : "", d->caveat ? d->caveat : "");
  else if (rep->offloaded)
    puts ("direct I/O: no (data offloaded to the file system)");
  else if (rep->n_plans > 0)
    printf ("direct I/O: no (%s)\n",
            reason (why, sizeof why, rep->plans[rep->n_plans - 1].why,
                    rep->plans[rep->n_plans - 1].why_errno));
  for (unsigned int i = 0; i < rep->n_plans; i++)
    {
      struct engine_plan const *p = &rep->plans[i];
      /* The end of file found where it was expected says nothing.  */
      if (i == 0 || p->then != ENGINE_THEN_TAIL || p->bytes > 0)
        print_plan (p, i == 0);
    }
  if (rep->short_of_memory)
    puts ("  memory: fewer or smaller buffers: an allocation failed");
  printf ("destination: %s\n", dest);
  if (res->src_changed)
    puts ("source changed during the copy");
}

/* BYTES for people, to a tenth of its unit: "5 bytes", "20.0 MiB".  */
static void
format_bytes (char *out, size_t outsize, double bytes)
{
  static char const *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
  if (bytes < 1024)
    {
      snprintf (out, outsize, "%.0f bytes", bytes);
      return;
    }
  int u = 0;
  for (bytes /= 1024; u < 4 && bytes >= 1024; u++)
    bytes /= 1024;
  snprintf (out, outsize, "%.1f %s", bytes, units[u]);
}

void
diag_debug_time (struct engine_result const *res, struct stat const *src_st,
                 double seconds)
{
  char amount[32], whole[32], took[32], rate[40] = "";
  format_bytes (amount, sizeof amount, res->bytes);
  format_bytes (whole, sizeof whole, src_st->st_size);
  /* Three figures: "1.23 s", "41.2 ms"; whole seconds from 100 s.  */
  if (seconds >= 100)
    snprintf (took, sizeof took, "%.0f s", seconds);
  else if (seconds >= 1)
    snprintf (took, sizeof took, "%.3g s", seconds);
  else
    snprintf (took, sizeof took, "%.3g ms", seconds * 1000);
  if (res->bytes > 0 && seconds > 0)
    {
      format_bytes (rate + 2, sizeof rate - 4, res->bytes / seconds);
      memcpy (rate, ", ", 2);
      strcat (rate, "/s");
    }
  /* Holes are not written: the amount is the data, said as such.  */
  bool holes = res->report.facts.scan == ENGINE_SCAN_LSEEK
               && res->bytes < src_st->st_size;
  if (holes && res->bytes == 0)
    printf ("time: no data (a %s file, all holes) in %s\n", whole, took);
  else if (holes)
    printf ("time: %s of data (a %s file with holes) in %s%s\n", amount,
            whole, took, rate);
  else
    printf ("time: %s in %s%s\n", amount, took, rate);
}

/* BYTES, roughly, for people: "48 MiB", "20.5 GiB".  */
static void
format_amount (char *out, size_t outsize, uint64_t bytes)
{
  double mib = bytes / (1024.0 * 1024);
  if (mib >= 10 * 1024)
    snprintf (out, outsize, "%.1f GiB", mib / 1024);
  else
    snprintf (out, outsize, "%.0f MiB", mib);
}

void
diag_debug_budget (struct memory_plan const *p)
{
  struct budget const *b = &p->budget;
  char room[32], limit[32], used[32], share[32];
  format_amount (room, sizeof room, b->headroom);
  format_amount (share, sizeof share, b->bytes);
  if (!b->source)
    fputs ("memory budget: none (no memory limit or MemAvailable found)",
           stdout);
  else if (!b->cgroup)
    printf ("memory budget: %s, a quarter of MemAvailable (%s)", share,
            room);
  else
    {
      format_amount (limit, sizeof limit, b->limit);
      format_amount (used, sizeof used, b->usage);
      printf ("memory budget: %s, a quarter of the %s left in %s %s"
              " (%s %s, %s in use without reclaimable cache)", share, room,
              b->source, b->cgroup, b->limit_file, limit, used);
    }

  char size[32], asked[32];
  format_size (size, sizeof size, p->size);
  format_size (asked, sizeof asked, p->asked_size);
  printf ("; buffers: up to %u x %s", p->depth, size);
  if (p->capped && (p->explicit_depth || p->explicit_size))
    printf (" (%u x %s asked for, capped by the budget)", p->asked_depth,
            asked);
  else if (p->capped)
    printf (" (default %u x %s, capped by the budget)", p->asked_depth, asked);
  putchar ('\n');
}

void
diag_verbose (char const *src, char const *dst)
{
  diag_print ("%s -> %s\n", quote_file_n (0, src), quote_file_n (1, dst));
}

void
diag_verbose_backup (char const *src, char const *dst, char const *backup)
{
  diag_print ("%s -> %s (backup: %s)\n", quote_file_n (0, src),
              quote_file_n (1, dst), quote_file_n (2, backup));
}

void
diag_removed (char const *dst)
{
  diag_print ("removed %s\n", quote_file (dst));
}

void
diag_skipped (char const *dst)
{
  diag_print ("skipped %s\n", quote_file (dst));
}

void
diag_strmode (mode_t mode, char *buf)
{
  char s[12];
  strmode (mode, s);
  s[10] = '\0';
  strcpy (buf, s + 1);
}

char const *
diag_program_name (void)
{
  return program_name;
}

/* error () takes no context, so the count of its messages is the one
   piece of state here: written by the thread that prints, read at the
   end (--stats).  */
static unsigned long error_messages;
/* The next message is a warning or a notice, not an error.  */
static _Thread_local bool next_is_notice;
/* Where this thread's messages go instead of out, or NULL (jobs.h).  */
static _Thread_local struct diag_log *capture;

/* Called by error () at the start of each message, with stderr locked
   (glibc): the place to clear anything drawn on the terminal first.  */
static void
print_progname (void)
{
  if (next_is_notice)
    next_is_notice = false;
  else
    error_messages++;
  progress_clear ();
  fprintf (stderr, "%s: ", program_name);
}

/* The cause of the first failed write to standard output, or 0.  A C
   library may meet the failure long before exit, when it flushes a line
   as it is printed (musl does, until it learns that standard output is
   no terminal): by the time standard output is closed, errno says
   nothing of it, and "write error" would come without its cause.  */
static int stdout_errno;

void
diag_stdout_written (void)
{
  if (!stdout_errno && ferror (stdout))
    stdout_errno = errno ? errno : EIO;
}

void
diag_out_begin (void)
{
  progress_out_begin ();
}

void
diag_out_end (void)
{
  progress_out_end ();
  diag_stdout_written ();
}

/* At exit, as gnulib's close_stdout: standard output closed, and a
   failure to write it an error ("write error: No space left on
   device"); then standard error.  */
static void
close_stdout_with_cause (void)
{
  diag_stdout_written ();
  int earlier = stdout_errno;
  if (close_stream (stdout) != 0)
    {
      /* A failure of the final flush has its errno; an earlier one, the
         one kept.  */
      error (0, errno ? errno : earlier, "write error");
      _exit (exit_failure);
    }
#ifndef __SANITIZE_ADDRESS__
  /* A sanitizer reports on stderr after this: leave it open then.  */
  if (close_stream (stderr) != 0)
    _exit (exit_failure);
#endif
}

void
diag_install (void)
{
  error_print_progname = print_progname;
  atexit (close_stdout_with_cause);
}

void
diag_next_is_notice (void)
{
  next_is_notice = true;
}

unsigned long
diag_error_count (void)
{
  return error_messages;
}

/* ---- the messages kept for --stats-file ---- */

static struct
{
  bool on;
  struct diag_failure *v;
  size_t n, alloc;
} kept;
/* The node this thread is copying.  */
static _Thread_local struct diag_node node;

void
diag_keep_failures (void)
{
  kept.on = true;
}

struct diag_failure const *
diag_failures (size_t *n)
{
  *n = kept.n;
  return kept.v;
}

struct diag_node
diag_node_enter (char const *source, char const *destination)
{
  struct diag_node saved = node;
  node = (struct diag_node) { source, destination };
  return saved;
}

void
diag_node_leave (struct diag_node saved)
{
  node = saved;
}

/* Keep MSG (and ERRNUM's words) with the node under way.  gcc 12's
   -fanalyzer loses track of pointers stored into a heap array and
   reports them leaked (make analyze): they live until exit, on purpose,
   for --stats-file.  */
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic push
# pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif
static void
keep (char const *msg, int errnum)
{
  if (kept.n == kept.alloc)
    kept.v = x2nrealloc (kept.v, &kept.alloc, sizeof *kept.v);
  struct diag_failure *f = &kept.v[kept.n++];
  f->source = node.source ? xstrdup (node.source) : NULL;
  f->destination = node.destination ? xstrdup (node.destination) : NULL;
  f->errnum = errnum;
  if (!errnum)
    f->message = xstrdup (msg);
  else if (asprintf (&f->message, "%s: %s", msg, strerror (errnum)) < 0)
    xalloc_die ();
}
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic pop
#endif

static void hold (char *text, int errnum, bool out);

/* What diag_error and diag_error_exit share: FORMAT with AP, kept when
   asked, then printed by error ().  */
#undef error
static void
report (int status, int errnum, char const *format, va_list ap)
{
  char *msg;
  if (vasprintf (&msg, format, ap) < 0)
    xalloc_die ();
  if (capture && !status)
    {
      hold (msg, errnum, false);
      return;
    }
  /* A warning or a notice leaves the status alone, and is no failure.  */
  if (kept.on && !next_is_notice)
    keep (msg, errnum);
  error (status, errnum, "%s", msg);
  free (msg);
}

void
diag_error (int status, int errnum, char const *format, ...)
{
  va_list ap;
  va_start (ap, format);
  report (status, errnum, format, ap);
  va_end (ap);
}

void
diag_error_exit (int status, int errnum, char const *format, ...)
{
  va_list ap;
  va_start (ap, format);
  report (status, errnum, format, ap);
  va_end (ap);
  abort ();   /* error () exited already: STATUS is not 0 */
}

/* ---- held for their turn ---- */

void
diag_capture (struct diag_log *log)
{
  capture = log;
}

/* Add TEXT (taken) to the log captured into (freed by diag_log_replay:
   -fanalyzer loses track of them in the heap array, as in keep).  */
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic push
# pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif
static void
hold (char *text, int errnum, bool out)
{
  struct diag_log *l = capture;
  if (l->n == l->alloc)
    l->v = x2nrealloc (l->v, &l->alloc, sizeof *l->v);
  l->v[l->n++] = (struct diag_rec) {
    text, errnum, !out && next_is_notice, out,
    node.source ? xstrdup (node.source) : NULL,
    node.destination ? xstrdup (node.destination) : NULL };
  if (!out)
    next_is_notice = false;
}
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic pop
#endif

void
diag_print (char const *format, ...)
{
  va_list ap;
  va_start (ap, format);
  if (capture)
    {
      char *text;
      if (vasprintf (&text, format, ap) < 0)
        xalloc_die ();
      hold (text, 0, true);
    }
  else
    {
      diag_out_begin ();
      vprintf (format, ap);
      diag_out_end ();
    }
  va_end (ap);
}

void
diag_log_replay (struct diag_log *log)
{
  for (size_t i = 0; i < log->n; i++)
    {
      struct diag_rec *r = &log->v[i];
      struct diag_node saved = diag_node_enter (r->source, r->destination);
      if (r->out)
        diag_print ("%s", r->text);
      else
        {
          next_is_notice = r->notice;
          diag_error (0, r->errnum, "%s", r->text);
        }
      diag_node_leave (saved);
      free (r->text);
      free (r->source);
      free (r->destination);
    }
  free (log->v);
  *log = (struct diag_log) { NULL, 0, 0 };
}

bool
diag_yesno (void)
{
  /* The question must be seen before we wait for the answer.  */
  fflush (stderr);
  return yesno ();
}
