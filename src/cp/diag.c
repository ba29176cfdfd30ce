/* Diagnostics.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "diag.h"

#include <errno.h>
#include <inttypes.h>
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
diag_debug_gnu (struct engine_facts const *facts)
{
  struct engine_words w;
  engine_debug_words (facts, &w);
  printf ("copy offload: %s, reflink: %s, sparse detection: %s\n",
          w.offload, w.reflink, w.sparse);
}

void
diag_debug_lines (struct engine_result const *res, char const *dest)
{
  struct engine_report const *rep = &res->report;

  char size[32];
  format_size (size, sizeof size, rep->buffer_size);
  char why[160] = "";
  if (rep->why_not)
    snprintf (why, sizeof why, "%s%s%s", rep->why_not,
              rep->why_errno ? ": " : "",
              rep->why_errno ? strerror (rep->why_errno) : "");
  char const *rest = rep->dontcache_reads ? "buffered with RWF_DONTCACHE"
                     : rep->dontcache_writes ? "buffered, writes with RWF_DONTCACHE"
                     : "buffered";
  if (rep->direct && !rep->fell_back)
    {
      printf ("direct I/O: yes (%s, %s x %u in flight, align %u/%u",
              rep->method, size, rep->depth, rep->mem_align,
              rep->offset_align);
      if (rep->short_of_memory)
        fputs (", fewer or smaller buffers: an allocation failed", stdout);
      if (rep->tail > 0)
        printf (", last %jd bytes buffered", (intmax_t) rep->tail);
      printf (")%s%s\n", rep->caveat ? ", but " : "",
              rep->caveat ? rep->caveat : "");
    }
  else if (rep->direct)
    printf ("direct I/O: partly (%s, %s x %u in flight), then %s (%s)\n",
            rep->method, size, rep->depth, rest, why);
  else if (rep->offloaded)
    puts ("direct I/O: no (data offloaded to the filesystem)");
  else
    printf ("direct I/O: no (%s), %s, %s I/O\n", why, rest, size);
  printf ("destination: %s\n", dest);
  if (res->src_changed)
    puts ("source changed during the copy");
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
  progress_out_begin ();
  printf ("%s -> %s\n", quote_file_n (0, src), quote_file_n (1, dst));
  progress_out_end ();
}

void
diag_verbose_backup (char const *src, char const *dst, char const *backup)
{
  progress_out_begin ();
  printf ("%s -> %s (backup: %s)\n", quote_file_n (0, src),
          quote_file_n (1, dst), quote_file_n (2, backup));
  progress_out_end ();
}

void
diag_removed (char const *dst)
{
  progress_out_begin ();
  printf ("removed %s\n", quote_file (dst));
  progress_out_end ();
}

void
diag_skipped (char const *dst)
{
  progress_out_begin ();
  printf ("skipped %s\n", quote_file (dst));
  progress_out_end ();
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
static bool next_is_notice;

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

bool
diag_yesno (void)
{
  /* The question must be seen before we wait for the answer.  */
  fflush (stderr);
  return yesno ();
}
