/* --progress and the status line on SIGUSR1.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "progress.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "limit.h"
#include "progname.h"
#include "quotearg.h"
#include "scan.h"

/* The monitor formats lines and nothing else: a small stack (the
   engine's workers take 512 KiB) keeps cp8M within a 64 MiB cgroup
   and `ulimit -v`.  */
enum { MONITOR_STACK = 256 * 1024 };

/* Ticks of the monitor: the line is redrawn at most this often.  */
enum { TICK_MS = 250 };

/* The rate is the average over the last RATE_SAMPLES ticks (2 s): short
   enough that a new --bwlimit shows within two seconds (it also starts
   the window afresh, rate_restart), long enough to hold many of the
   pieces the meter paces (a twentieth of a second each) or of the
   buffers written, so that the number stays steady enough to read.  */
enum { RATE_SAMPLES = 8 };

/* Room for the current file's name; longer names keep their ends.  */
enum { NAME_MAX_SHOWN = 1024 };

struct progress
{
  struct cp8m_options const *o;
  struct engine_meter *meter;
  struct scan *scan;        /* NULL: no totals */
  struct timespec start;
  bool live;                /* draw the line in place on a terminal */
  bool plain;               /* print plain lines (--progress=always, no
                               terminal) */
  bool stdout_tty;          /* stdout is a terminal too */

  pthread_t monitor;
  bool have_monitor;
  int limit_notice;         /* while the monitor takes new limits: the
                               proof --pid looks for (limit.h), or -1 */
  atomic_bool stop;

  bool numeric;             /* --progress=numeric: percentages, a line each */
  bool counts_verify;       /* --verify: reading back is in the total */
  bool no_data;              /* -l, -s, --attributes-only: nothing to
                                count, so no scan and no total */

  pthread_mutex_t lock;     /* guards NAME, FILES_DONE and PHASE */
  char name[NAME_MAX_SHOWN];
  unsigned long files_done;
  unsigned long files_copied;  /* of those, the ones copied: the final
                                  line's count */
  char const *phase;        /* "verifying", "syncing", or NULL */

  /* Under the stderr lock (flockfile): both threads write there.  */
  bool drawn;               /* a progress line is on the terminal */
  bool shown;               /* one was, at some time */
  bool paused;              /* a question is being asked */

  /* The monitor's own.  */
  struct { double t; unsigned long long bytes; } samples[RATE_SAMPLES];
  int n_samples, next_sample;
  double last_plain;
  int last_pct;             /* the numeric mode's last line, or -1 */
  int drawn_width;          /* the terminal's width when the line was
                               drawn, and the line's length then */
  int drawn_len;
};

/* The hooks are called from error () (through diag.c), which takes no
   context: the one run being watched, set once by progress_start.  */
static struct progress *active;
/* A line is on the terminal: read by the fatal-signal handler (dest.c),
   which can only write(2), so it has its own async-signal-safe flag.  */
static volatile sig_atomic_t line_on_screen;

/* The signals that ask for a status line.  */
static void
status_signals (sigset_t *set)
{
  sigemptyset (set);
  sigaddset (set, SIGUSR1);
  sigaddset (set, LIMIT_SIGNAL);
#ifdef SIGINFO
  sigaddset (set, SIGINFO);
#endif
}

static double
elapsed (struct progress const *p)
{
  struct timespec now;
  clock_gettime (CLOCK_MONOTONIC, &now);
  return (now.tv_sec - p->start.tv_sec)
         + (now.tv_nsec - p->start.tv_nsec) / 1e9;
}

/* ---- formatting ---- */

/* BYTES for people, with three significant digits: "812 MiB",
   "1.20 GiB", "512 B".  */
static void
human (char *out, size_t size, unsigned long long bytes)
{
  static char const *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
  if (bytes < 1024)
    {
      snprintf (out, size, "%llu B", bytes);
      return;
    }
  double v = bytes / 1024.0;
  int u = 0;
  while (v >= 1024 && u < 4)
    {
      v /= 1024;
      u++;
    }
  snprintf (out, size, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s",
            v, units[u]);
}

/* SECONDS as "0:07", "12:34" or "3:04:05": rounded UP (a time left:
   "0:00" while data is left would be a promise broken), or down (a time
   gone by: 2.9 s is not yet "0:03").  */
static void
clock_time (char *out, size_t size, double seconds, bool up)
{
  unsigned long s = seconds < 0 ? 0
                    : seconds > 3.6e8 ? 3.6e8 : seconds + (up ? 0.999 : 0);
  if (s >= 3600)
    snprintf (out, size, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
  else
    snprintf (out, size, "%lu:%02lu", s / 60, s % 60);
}

/* The width of the terminal on stderr, or $COLUMNS, or 80.  */
static int
columns (void)
{
  struct winsize ws;
  if (ioctl (STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  char const *env = getenv ("COLUMNS");
  long n = env ? strtol (env, NULL, 10) : 0;
  return 0 < n && n < 10000 ? n : 80;
}

/* Append NAME to OUT (of SIZE bytes, holding a string) in at most WIDTH
   columns: control characters and invalid bytes shown as '?', and the
   middle of a name too long left out ("dir/da…le_07.dbf").  */
static void
append_name (char *out, size_t size, char const *name, int width)
{
  enum { MAXW = 256 };
  wchar_t wc[MAXW];
  int cols[MAXW];
  int n = 0, total = 0;
  mbstate_t st;
  memset (&st, 0, sizeof st);
  size_t len = strlen (name);
  while (len > 0 && n < MAXW)
    {
      wchar_t c;
      size_t k = mbrtowc (&c, name, len, &st);
      if (k == (size_t) -1 || k == (size_t) -2 || k == 0)
        {
          c = L'?';
          k = 1;
          memset (&st, 0, sizeof st);
        }
      int w = wcwidth (c);
      if (w < 0)
        c = L'?', w = 1;
      wc[n] = c;
      cols[n++] = w;
      total += w;
      name += k;
      len -= k;
    }
  if (width < 5)
    return;
  /* Which characters are kept: all, or a head and a tail around "...".  */
  int head = n, tail_from = n;
  if (total > width)
    {
      int budget = width - 3, used = 0;
      head = 0;
      while (head < n && used + cols[head] <= budget / 2)
        used += cols[head++];
      tail_from = n;
      while (tail_from > head && used + cols[tail_from - 1] <= budget)
        used += cols[--tail_from];
    }
  size_t at = strlen (out);
  memset (&st, 0, sizeof st);
  for (int i = 0; i < n; i++)
    {
      if (i == head && head < tail_from)
        {
          if (at + 4 < size)
            at += snprintf (out + at, size - at, "...");
          i = tail_from - 1;
          continue;
        }
      char mb[MB_LEN_MAX];
      size_t k = wcrtomb (mb, wc[i], &st);
      if (k == (size_t) -1 || at + k + 1 >= size)
        break;
      memcpy (out + at, mb, k);
      at += k;
    }
  out[at] = '\0';
}

/* Seconds gone by, for "in 4.1 s": cut to the tenth below, not rounded,
   so that the time shown has passed.  */
static double
tenths (double t)
{
  return t > 0 ? (unsigned long long) (t * 10) / 10.0 : 0;
}

/* The rate over the last two seconds (since the last change of limit,
   if that is nearer), in bytes per second, after noting BYTES written
   at T.  */
static double
rate (struct progress *p, double t, unsigned long long bytes)
{
  p->samples[p->next_sample].t = t;
  p->samples[p->next_sample].bytes = bytes;
  p->next_sample = (p->next_sample + 1) % RATE_SAMPLES;
  if (p->n_samples < RATE_SAMPLES)
    p->n_samples++;
  /* Once the ring is full, the slot after the newest is the oldest.  */
  int oldest = p->n_samples < RATE_SAMPLES ? 0 : p->next_sample;
  double t0 = p->n_samples > 1 ? p->samples[oldest].t : 0;
  unsigned long long b0 = p->n_samples > 1 ? p->samples[oldest].bytes : 0;
  return t > t0 ? (bytes - b0) / (t - t0) : 0;
}

/* What the line and the numeric mode count: bytes written, and with
   --verify the bytes read back too, each of which the total counts
   twice, so that the time the check takes is in the ETA.  */
static unsigned long long
done_units (struct progress const *p)
{
  return atomic_load_explicit (&p->meter->written, memory_order_relaxed)
         + atomic_load_explicit (&p->meter->verified, memory_order_relaxed);
}

/* A new limit is in force from now: the rate counts from here, with no
   sample from before it, so that the old pace does not linger in the
   number.  */
static void
rate_restart (struct progress *p)
{
  p->samples[0].t = elapsed (p);
  p->samples[0].bytes = done_units (p);
  p->n_samples = 1;
  p->next_sample = 1 % RATE_SAMPLES;
}

/* The parts of the line, in the order they are given up when the
   terminal is too narrow for all: the name first, then the count of
   files, the time so far, the bytes, the --bwlimit in force; the phase,
   percentage, rate and time left stay.  */
enum part { P_PHASE, P_PCT, P_RATE, P_ETA, P_LIMIT, P_BYTES, P_ELAPSED,
            P_FILES, P_NAME, P_COUNT };
/* The order they are shown in.  */
static enum part const shown_order[P_COUNT] =
  { P_PHASE, P_BYTES, P_PCT, P_RATE, P_LIMIT, P_ELAPSED, P_ETA, P_FILES,
    P_NAME };

/* The progress line, in at most WIDTH - 1 columns: "1.20 GiB / 4.00 GiB
   30%  812 MiB/s  0:12 elapsed  ETA 0:03  files 3/32  dir/datafile_07.dbf"
   (with "verifying" or "syncing" first during those phases).  */
static void
format_line (struct progress *p, char *out, size_t size, int width)
{
  double t = elapsed (p);
  unsigned long long bytes = atomic_load_explicit (&p->meter->written,
                                                   memory_order_relaxed);
  unsigned long long done = done_units (p);
  double r = rate (p, t, done);
  struct scan_totals tot = { 0, 0, false };
  if (p->scan)
    scan_read (p->scan, &tot);
  char name[NAME_MAX_SHOWN];
  pthread_mutex_lock (&p->lock);
  unsigned long files = p->files_done;
  char const *phase = p->phase;
  strcpy (name, p->name);
  pthread_mutex_unlock (&p->lock);

  char part[P_COUNT][96];
  for (int i = 0; i < P_COUNT; i++)
    part[i][0] = '\0';
  if (phase)
    snprintf (part[P_PHASE], sizeof part[P_PHASE], "%s", phase);
  char now[32], all[32], speed[32], when[32];
  human (now, sizeof now, bytes);
  human (speed, sizeof speed, r);
  snprintf (part[P_RATE], sizeof part[P_RATE], "%s/s", speed);
  uintptr_t bw = atomic_load (&p->meter->limit);
  if (bw)
    {
      /* "4.09 MiB/s (limit 4.00 MiB/s)": a rate that stays below the
         limit is the limit's doing, not the disk's.  */
      char lim[32];
      human (lim, sizeof lim, bw);
      snprintf (part[P_LIMIT], sizeof part[P_LIMIT], "(limit %s/s)", lim);
    }
  clock_time (when, sizeof when, t, false);
  snprintf (part[P_ELAPSED], sizeof part[P_ELAPSED], "%s elapsed", when);
  unsigned long long total = tot.bytes * (p->o->verify ? 2 : 1);
  if (!tot.done)
    {
      snprintf (part[P_BYTES], sizeof part[P_BYTES],
                p->no_data ? "%s" : "%s (counting)", now);
      snprintf (part[P_FILES], sizeof part[P_FILES], "files %lu", files);
    }
  else
    {
      if (done <= total && total > 0)
        {
          human (all, sizeof all, tot.bytes);
          snprintf (part[P_BYTES], sizeof part[P_BYTES], "%s / %s", now,
                    all);
          snprintf (part[P_PCT], sizeof part[P_PCT], "%d%%",
                    (int) (100.0 * done / total));
          char left[32] = "-:--";
          if (r > 0)
            clock_time (left, sizeof left, (total - done) / r, true);
          snprintf (part[P_ETA], sizeof part[P_ETA], "ETA %s", left);
        }
      else
        snprintf (part[P_BYTES], sizeof part[P_BYTES], "%s", now);
      snprintf (part[P_FILES], sizeof part[P_FILES], "files %lu/%lu", files,
                tot.files);
    }

  /* Which parts fit, the most needed first; the name takes what is left
     (append_name shortens it), if that is enough to say something.  */
  bool keep[P_COUNT] = { false };
  int used = -2;
  for (int i = 0; i < P_NAME; i++)
    {
      int w = strlen (part[i]);
      if (w == 0)
        continue;
      if (i > P_ETA && used + 2 + w > width - 1)
        break;
      keep[i] = true;
      used += 2 + w;
    }
  int name_room = width - 1 - used - 2;
  keep[P_NAME] = name[0] && keep[P_FILES] && name_room >= 8;
  out[0] = '\0';
  size_t at = 0;
  for (int k = 0; k < P_COUNT; k++)
    {
      enum part i = shown_order[k];
      if (!keep[i])
        continue;
      if (at > 0 && at + 2 < size)
        at += snprintf (out + at, size - at, "  ");
      if (i == P_NAME)
        {
          append_name (out, size, name, name_room);
          at = strlen (out);
        }
      else if (at < size)
        at += snprintf (out + at, size - at, "%s", part[i]);
      if (at >= size)
        at = size - 1;
    }
  /* Never wrap: a line that wraps cannot be redrawn with "\r".  */
  if (width > 1 && strlen (out) > (size_t) width - 1)
    out[width - 1] = '\0';
}

/* ---- drawing (stderr locked) ---- */

/* The columns LINE takes on a terminal.  */
static int
display_width (char const *line)
{
  mbstate_t st;
  memset (&st, 0, sizeof st);
  int cols = 0;
  for (size_t len = strlen (line); len > 0; )
    {
      wchar_t c;
      size_t k = mbrtowc (&c, line, len, &st);
      if (k == (size_t) -1 || k == (size_t) -2 || k == 0)
        {
          k = 1;
          memset (&st, 0, sizeof st);
          c = L'?';
        }
      int w = wcwidth (c);
      cols += w > 0 ? w : 0;
      line += k;
      len -= k;
    }
  return cols;
}

/* Take the drawn line off the terminal, now WIDTH columns wide.  One
   made narrower than the line since it was drawn has most likely
   wrapped it onto several rows (tmux, VTE and kitty reflow it), the
   cursor on the last: go up to the first and clear from there.  A
   terminal that cuts lines instead (xterm) loses as many rows above it,
   which is less harm than a stale half line under every redraw.  */
static void
erase_locked (struct progress *p, int width)
{
  if (!p->drawn)
    return;
  int rows = p->drawn_width != width && p->drawn_len > width
             ? (p->drawn_len + width - 1) / width : 1;
  if (rows > 1)
    fprintf (stderr, "\r\033[%dA\033[J", rows - 1);
  else
    fputs ("\r\033[K", stderr);
}

static void
clear_locked (struct progress *p)
{
  if (p->drawn)
    {
      erase_locked (p, columns ());
      p->drawn = false;
      line_on_screen = 0;
    }
}

/* Draw LINE in place of the one on the terminal, WIDTH columns wide.  */
static void
redraw_locked (struct progress *p, char const *line, int width)
{
  erase_locked (p, width);
  fprintf (stderr, "\r%s\033[K", line);
  p->drawn_width = width;
  p->drawn_len = display_width (line);
}

/* --progress=numeric: the whole percentage done, when it has changed
   (once the total is known), or -1.  */
static int
percent_now (struct progress *p)
{
  struct scan_totals tot = { 0, 0, false };
  if (p->scan)
    scan_read (p->scan, &tot);
  unsigned long long total = tot.bytes * (p->counts_verify ? 2 : 1);
  if (!tot.done)
    return -1;
  unsigned long long done = done_units (p);
  return total == 0 || done >= total ? 100 : (int) (100.0 * done / total);
}

/* One tick: sample the rate, and draw the line (or print the number)
   if it is due.  */
static void
tick (struct progress *p)
{
  double t = elapsed (p);
  if (p->numeric)
    {
      (void) rate (p, t, done_units (p));
      int pct = percent_now (p);
      if (pct >= 0 && pct != p->last_pct && t - p->last_plain >= 1)
        {
          flockfile (stderr);
          fprintf (stderr, "%d\n", pct);
          fflush (stderr);
          funlockfile (stderr);
          p->last_pct = pct;
          p->last_plain = t;
        }
      return;
    }
  if (t < 1 || (p->plain && t - p->last_plain < 1) || !(p->live || p->plain))
    {
      /* Still sample, so the first rate shown (and the status line's
         current rate) is a recent one.  */
      (void) rate (p, t, done_units (p));
      return;
    }
  char line[2048];
  /* A log's lines are as wide as they need, unless COLUMNS says.  */
  int width = p->live || getenv ("COLUMNS") ? columns () : 1024;
  if (width > 1024)
    width = 1024;   /* LINE has room for it, and a name's bytes */
  format_line (p, line, sizeof line, width);
  flockfile (stderr);
  if (p->live && !p->paused)
    {
      redraw_locked (p, line, width);
      p->drawn = p->shown = true;
      line_on_screen = 1;
    }
  else if (p->plain)
    {
      fprintf (stderr, "%s\n", line);
      p->last_plain = t;
      p->shown = true;
    }
  fflush (stderr);
  funlockfile (stderr);
}

/* The status line SIGUSR1 asks for, as dd prints one: "cp8M: 1.20 GiB
   written in 4.1 s, 301 MiB/s on average, 412 MiB/s now, copying
   'dir/f'" (", limit 50.0 MiB/s" before the name under --bwlimit).  */
static void
print_status (struct progress *p)
{
  double t = elapsed (p);
  unsigned long long bytes = atomic_load (&p->meter->written);
  char now[32], speed[32], current[32];
  human (now, sizeof now, bytes);
  human (speed, sizeof speed, t > 0 ? bytes / t : 0);
  human (current, sizeof current, rate (p, t, done_units (p)));
  char name[NAME_MAX_SHOWN];
  pthread_mutex_lock (&p->lock);
  strcpy (name, p->name);
  pthread_mutex_unlock (&p->lock);
  /* The shared quoting slots belong to the main thread: quote into memory
     of our own.  */
  char *quoted = NULL;
  if (name[0])
    {
      /* Never NULL: gnulib's clone exits when memory runs out.  */
      struct quoting_options *qo = clone_quoting_options (NULL);
      set_quoting_style (qo, shell_escape_always_quoting_style);
      quoted = quotearg_alloc (name, SIZE_MAX, qo);
      free (qo);
    }
  flockfile (stderr);
  clear_locked (p);
  char limit[48] = "";
  uintptr_t bw = atomic_load (&p->meter->limit);
  if (bw)
    {
      strcpy (limit, ", limit ");
      human (limit + strlen (limit), sizeof limit - 16, bw);
      strcat (limit, "/s");
    }
  fprintf (stderr, "%s: %s written in %.1f s, %s/s on average, %s/s now%s"
           "%s%s\n", program_name, now, tenths (t), speed, current, limit,
           quoted ? ", copying " : "", quoted ? quoted : "");
  fflush (stderr);
  funlockfile (stderr);
  free (quoted);
}

static void *
monitor_main (void *arg)
{
  struct progress *p = arg;
  sigset_t set;
  status_signals (&set);
  /* Always ticking: the status line's current rate needs samples,
     --progress or not.  */
  struct timespec period = { 0, TICK_MS * 1000000L };
  while (!atomic_load (&p->stop))
    {
      siginfo_t info;
      int sig = sigtimedwait (&set, &info, &period);
      if (atomic_load (&p->stop))
        break;
      if (sig == LIMIT_SIGNAL)
        {
          if (limit_receive (&info, &p->meter->limit))
            rate_restart (p);
        }
      else if (sig > 0)
        {
          /* A new limit sent before the status request is shown by it,
             though sigwait hands out the lower-numbered signal first.  */
          sigset_t lim;
          sigemptyset (&lim);
          sigaddset (&lim, LIMIT_SIGNAL);
          struct timespec none = { 0, 0 };
          while (sigtimedwait (&lim, &info, &none) == LIMIT_SIGNAL)
            if (limit_receive (&info, &p->meter->limit))
              rate_restart (p);
          print_status (p);
        }
      else if (sig < 0 && errno == EAGAIN)
        tick (p);
    }
  return NULL;
}

/* ---- the interface ---- */

struct progress *
progress_start (struct cp8m_options const *o, char *const *sources, int n,
                struct engine_meter *meter)
{
  struct progress *p = calloc (1, sizeof *p);
  if (!p)
    return NULL;
  p->o = o;
  p->meter = meter;
  clock_gettime (CLOCK_MONOTONIC, &p->start);
  atomic_init (&p->stop, false);
  pthread_mutex_init (&p->lock, NULL);
  bool tty = isatty (STDERR_FILENO);
  p->live = (o->progress == PROGRESS_AUTO || o->progress == PROGRESS_ALWAYS)
            && tty;
  p->plain = o->progress == PROGRESS_ALWAYS && !tty;
  p->numeric = o->progress == PROGRESS_NUMERIC;
  p->counts_verify = o->verify;
  p->last_pct = -1;
  p->stdout_tty = isatty (STDOUT_FILENO);

  /* Blocked (again: main did it first thing) before any other thread
     exists, so that every thread inherits the mask and only the
     monitor's sigtimedwait takes them.  */
  progress_block_signals ();
  /* The scan first: the monitor reads P->scan from its first tick.  */
  p->no_data = o->attributes_only || o->hard_link || o->symbolic_link;
  if ((p->live || p->plain || p->numeric) && !p->no_data)
    p->scan = scan_start (o, sources, n);
  p->have_monitor = scan_thread_start (&p->monitor, monitor_main, p,
                                       MONITOR_STACK);
  /* Only a monitor takes a new limit.  */
  p->limit_notice = p->have_monitor ? limit_advertise () : -1;
  if (!p->have_monitor)
    {
      /* No thread (RLIMIT_NPROC): the copy goes on, and a status request
         must not kill it.  */
      signal (SIGUSR1, SIG_IGN);
      signal (LIMIT_SIGNAL, SIG_IGN);
#ifdef SIGINFO
      signal (SIGINFO, SIG_IGN);
#endif
      p->live = p->plain = p->numeric = false;
      scan_stop (p->scan);
      p->scan = NULL;
    }
  active = p;
  return p;
}

void
progress_format_bytes (char *out, size_t size, unsigned long long bytes)
{
  human (out, size, bytes);
}

void
progress_clear_from_signal (void)
{
  if (line_on_screen)
    {
      ssize_t n = write (STDERR_FILENO, "\r\033[K", 4);
      (void) n;   /* nothing to be done about it, dying */
    }
}

void
progress_block_signals (void)
{
  sigset_t set;
  status_signals (&set);
  pthread_sigmask (SIG_BLOCK, &set, NULL);
}

void
progress_file_begin (struct progress *p, char const *name)
{
  if (!p)
    return;
  size_t len = strlen (name);
  pthread_mutex_lock (&p->lock);
  if (len < sizeof p->name)
    memcpy (p->name, name, len + 1);
  else
    {
      /* Keep both ends, which say the most.  */
      size_t half = (sizeof p->name - 4) / 2;
      memcpy (p->name, name, half);
      memcpy (p->name + half, "...", 3);
      memcpy (p->name + half + 3, name + len - half, half + 1);
    }
  pthread_mutex_unlock (&p->lock);
}

void
progress_phase (struct progress *p, char const *phase)
{
  if (!p)
    return;
  pthread_mutex_lock (&p->lock);
  p->phase = phase;
  pthread_mutex_unlock (&p->lock);
}

void
progress_file_end (struct progress *p, bool copied)
{
  if (!p)
    return;
  pthread_mutex_lock (&p->lock);
  p->files_done++;
  p->files_copied += copied;
  pthread_mutex_unlock (&p->lock);
}

/* The final line, in fewer than WIDTH columns if it can be: "copied
   4.00 GiB in 5.1 s (803 MiB/s), 32 files"; narrower, without the rate
   (the bytes and the time give it), then without the files: "copied
   4.00 GiB in 5.1 s" fits 40 columns whatever the numbers.  */
static void
final_line (struct progress *p, char *out, size_t size, int width)
{
  double exact = elapsed (p), t = tenths (exact);
  unsigned long long bytes = atomic_load (&p->meter->written);
  char all[32], speed[32], files[48];
  human (all, sizeof all, bytes);
  human (speed, sizeof speed, exact > 0 ? bytes / exact : 0);
  snprintf (files, sizeof files, "%lu file%s", p->files_copied,
            p->files_copied == 1 ? "" : "s");
  /* The pieces are ASCII: bytes are columns.  */
  snprintf (out, size, "copied %s in %.1f s (%s/s), %s", all, t, speed,
            files);
  if (strlen (out) < (size_t) width)
    return;
  snprintf (out, size, "copied %s, %s in %.1f s", all, files, t);
  if (strlen (out) < (size_t) width)
    return;
  snprintf (out, size, "copied %s in %.1f s", all, t);
}

void
progress_finish (struct progress *p)
{
  if (!p)
    return;
  /* The monitor first: its ticks read the scan's totals.  */
  /* No new limit is taken from here on: a --pid now refuses the run,
     and a signal it sent a moment before stays blocked till the end.  */
  limit_withdraw (p->limit_notice);
  if (p->have_monitor)
    {
      atomic_store (&p->stop, true);
      pthread_kill (p->monitor, SIGUSR1);
      pthread_join (p->monitor, NULL);
    }
  active = NULL;
  /* The last number, though it came within a second of the one
     before; then the scan can go.  */
  int pct = !p->numeric ? -1 : p->no_data ? 100 : percent_now (p);
  scan_stop (p->scan);
  p->scan = NULL;

  flockfile (stderr);
  clear_locked (p);
  if (p->numeric)
    {
      if (pct >= 0 && pct != p->last_pct)
        fprintf (stderr, "%d\n", pct);
    }
  /* On a terminal the final line is printed even after a copy too quick
     for any line to be drawn; for logs (--progress=always) too.  */
  else if (p->live || p->shown || p->o->progress == PROGRESS_ALWAYS)
    {
      char line[256];
      /* As wide as the progress line may be (a log's: unless COLUMNS
         says, as wide as it needs).  */
      int width = p->live || getenv ("COLUMNS") ? columns () : INT_MAX;
      final_line (p, line, sizeof line, width);
      fprintf (stderr, "%s\n", line);
    }
  funlockfile (stderr);
  pthread_mutex_destroy (&p->lock);
  free (p);
}

void
progress_clear (void)
{
  struct progress *p = active;
  if (p && p->live)
    {
      flockfile (stderr);
      clear_locked (p);
      funlockfile (stderr);
    }
}

/* Whether stdout's lines need the line cleared first: fixed for the
   run, so that begin and end agree.  */
static bool
shares_terminal (struct progress const *p)
{
  return p && p->live && p->stdout_tty;
}

void
progress_out_begin (void)
{
  if (shares_terminal (active))
    {
      flockfile (stderr);
      clear_locked (active);
    }
}

void
progress_out_end (void)
{
  if (shares_terminal (active))
    {
      fflush (stdout);
      funlockfile (stderr);
    }
}

void
progress_prompt_begin (void)
{
  struct progress *p = active;
  if (p && p->live)
    {
      flockfile (stderr);
      clear_locked (p);
      p->paused = true;
      funlockfile (stderr);
    }
}

void
progress_prompt_end (void)
{
  struct progress *p = active;
  if (p && p->live)
    {
      flockfile (stderr);
      p->paused = false;
      funlockfile (stderr);
    }
}
