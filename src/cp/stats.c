/* --stats: counting what was copied, and saying it at the end.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "stats.h"

#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "whole.h"
#include "xalloc.h"

void
stats_start (struct stats *s)
{
  *s = (struct stats) { 0 };
  clock_gettime (CLOCK_MONOTONIC, &s->start);
  clock_gettime (CLOCK_REALTIME, &s->start_wall);
}

bool
stats_made (struct stats *s, enum stats_kind kind, bool ok)
{
  if (!s || !ok)
    return ok;
  switch (kind)
    {
    case STATS_DIRECTORY:
      s->directories++;
      break;
    case STATS_SYMLINK:
      s->symlinks++;
      break;
    case STATS_SPECIAL:
      s->specials++;
      break;
    case STATS_HARD_LINK:
      s->hard_links++;
      break;
    }
  return ok;
}

void
stats_measure (int fd, struct stats_copy *m)
{
  *m = (struct stats_copy) { 0 };
  struct stat st;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    return;
  m->regular = true;
  m->size = st.st_size;
  /* Walk hole by hole.  A filesystem without SEEK_HOLE says the whole
     file is data (the generic lseek) or fails (EINVAL): no holes then.
     A dense file costs one call.  */
  for (off_t pos = 0; pos < st.st_size; )
    {
      off_t hole = lseek (fd, pos, SEEK_HOLE);
      if (hole < 0 || hole >= st.st_size)
        break;
      off_t data = lseek (fd, hole, SEEK_DATA);
      if (data < 0 && errno != ENXIO)
        break;
      /* ENXIO: no data past HOLE, the file ends in it.  */
      off_t end = data < 0 || data > st.st_size ? st.st_size : data;
      m->holes += end - hole;
      pos = end;
    }
}

/* Count one file (who did not go all the way direct, and WHY, with ERR)
   in the reason table T: the same reason in the same slot, a new one in
   a free slot, and past the table's size in the last one, "other".  */
static void
add_reason (struct stats_reason *t, char const *why, int err)
{
  int i;
  for (i = 0; i < STATS_REASONS - 1 && t[i].files; i++)
    if (t[i].err == err && t[i].why && why && strcmp (t[i].why, why) == 0)
      break;
  if (!t[i].files && i < STATS_REASONS - 1)
    {
      t[i].why = why;
      t[i].err = err;
    }
  t[i].files++;
}

void
stats_file (struct stats *s, struct engine_result const *res,
            struct stats_copy const *m)
{
  if (!s)
    return;
  s->files++;
  if (!res)
    return;

  /* A regular copy: its data is what is not hole (zero blocks left as
     holes are not data, though the engine read them).  Anything else:
     what the engine wrote.  */
  if (m && m->regular)
    {
      s->bytes += m->size - m->holes;
      s->hole_bytes += m->holes;
    }
  else
    s->bytes += res->bytes;
  if (res->src_changed)
    s->changed++;

  struct engine_report const *rep = &res->report;
  bool fell_back;
  struct engine_plan const *d = engine_direct_plan (rep, &fell_back);
  if (rep->facts.clone == ENGINE_CLONE_DONE)
    s->reflinked++;
  else if (rep->offloaded)
    s->offloaded++;
  else if (d && fell_back)
    {
      s->fell_back++;
      add_reason (s->why_fell_back, d[1].why, d[1].why_errno);
    }
  else if (d)
    {
      s->direct++;
      if (d->caveat)
        s->cached_anyway++;
    }
  else
    {
      s->buffered++;
      /* An empty file is streamed by the engine (a regular file of size
         0 may be a /proc file with contents): say what it was.  */
      bool empty = res->bytes == 0 && m && m->regular && m->size == 0;
      struct engine_plan const *p = rep->n_plans > 0
                                    ? &rep->plans[rep->n_plans - 1] : NULL;
      add_reason (s->why_buffered, empty ? "empty file" : p ? p->why : NULL,
                  empty || !p ? 0 : p->why_errno);
    }
}

/* ---- printing ---- */

/* R in words for people and scripts: "smaller than one buffer",
   "direct I/O refused on write (Invalid argument)".  The cause in the
   locale LOC (the C locale for JSON: keys a script can match, whatever
   the user's language), or the user's when LOC is 0.  */
static void
reason_words (char *buf, size_t size, struct stats_reason const *r,
              locale_t loc)
{
  char const *why = r->why;
  char const *err = !r->err ? NULL
                    : loc ? strerror_l (r->err, loc) : strerror (r->err);
  char const *open = err ? " (" : "", *close = err ? ")" : "";
  if (!err)
    err = "";
  if (!why)
    snprintf (buf, size, "other");
  else if (strcmp (why, "open") == 0 || strcmp (why, "read") == 0
           || strcmp (why, "write") == 0)
    snprintf (buf, size, "direct I/O refused on %s%s%s%s", why, open, err,
              close);
  else if (strcmp (why, "alignment") == 0)
    snprintf (buf, size, "buffer size not a multiple of the alignment");
  else
    snprintf (buf, size, "%s%s%s%s", why, open, err, close);
}

/* Seconds since S->start, in microseconds.  */
static uintmax_t
elapsed_us (struct stats const *s)
{
  struct timespec now;
  clock_gettime (CLOCK_MONOTONIC, &now);
  intmax_t us = (intmax_t) (now.tv_sec - s->start.tv_sec) * 1000000
                + (now.tv_nsec - s->start.tv_nsec) / 1000;
  return us > 0 ? us : 0;
}

/* Data bytes per second over US microseconds, in thousandths of a MiB:
   fixed point, so that no locale puts a comma in a JSON number.  */
static uintmax_t
rate_milli_mib (uintmax_t bytes, uintmax_t us)
{
  if (us == 0)
    return 0;
  return (uintmax_t) ((long double) bytes * 1000 * 1000000
                      / (1024.0L * 1024 * us) + 0.5L);
}

/* The length of the UTF-8 sequence that starts S, or 0 when S does not
   start one (a stray byte, an overlong form, a surrogate, past
   U+10FFFF).  S ends with a null byte, which no continuation matches.  */
static int
utf8_length (unsigned char const *s)
{
  unsigned char c = s[0];
  int n;
  unsigned char lo = 0x80, hi = 0xbf;   /* the second byte's range */
  if (c < 0x80)
    return 1;
  else if (c >= 0xc2 && c <= 0xdf)
    n = 2;
  else if (c >= 0xe0 && c <= 0xef)
    {
      n = 3;
      lo = c == 0xe0 ? 0xa0 : 0x80;
      hi = c == 0xed ? 0x9f : 0xbf;
    }
  else if (c >= 0xf0 && c <= 0xf4)
    {
      n = 4;
      lo = c == 0xf0 ? 0x90 : 0x80;
      hi = c == 0xf4 ? 0x8f : 0xbf;
    }
  else
    return 0;
  if (s[1] < lo || s[1] > hi)
    return 0;
  for (int i = 2; i < n; i++)
    if (s[i] < 0x80 || s[i] > 0xbf)
      return 0;
  return n;
}

/* Whether S is all UTF-8.  */
static bool
is_utf8 (char const *s)
{
  for (unsigned char const *p = (unsigned char const *) s; *p; )
    {
      int n = utf8_length (p);
      if (!n)
        return false;
      p += n;
    }
  return true;
}

/* S as JSON's string: quotes, backslashes and control characters
   escaped, and each byte that is not part of UTF-8 written as U+FFFD,
   so that the file is UTF-8 whatever the names hold (json_name keeps
   their bytes).  */
static void
json_string (FILE *f, char const *s)
{
  putc ('"', f);
  for (unsigned char const *p = (unsigned char const *) s; *p; )
    {
      int n = utf8_length (p);
      if (!n)
        {
          fputs ("\\ufffd", f);
          p++;
        }
      else if (*p == '"' || *p == '\\')
        fprintf (f, "\\%c", *p++);
      else if (*p < 0x20)
        fprintf (f, "\\u%04x", *p++);
      else
        {
          fwrite (p, 1, n, f);
          p += n;
        }
    }
  putc ('"', f);
}

/* The LEN bytes at P in base64 (RFC 4648, with padding).  */
static void
base64 (FILE *f, unsigned char const *p, size_t len)
{
  static char const a[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < len; i += 3)
    {
      unsigned long v = (unsigned long) p[i] << 16;
      if (i + 1 < len)
        v |= p[i + 1] << 8;
      if (i + 2 < len)
        v |= p[i + 2];
      putc (a[v >> 18], f);
      putc (a[v >> 12 & 63], f);
      putc (i + 1 < len ? a[v >> 6 & 63] : '=', f);
      putc (i + 2 < len ? a[v & 63] : '=', f);
    }
}

/* The member KEY with the string S, or null when S is NULL; and when S
   is not UTF-8 (a name in another encoding), the member KEY_base64 with
   its exact bytes.  */
static void
json_name (FILE *f, char const *key, char const *s)
{
  fprintf (f, "\"%s\":", key);
  if (!s)
    {
      fputs ("null", f);
      return;
    }
  json_string (f, s);
  if (!is_utf8 (s))
    {
      fprintf (f, ",\"%s_base64\":\"", key);
      base64 (f, (unsigned char const *) s, strlen (s));
      putc ('"', f);
    }
}

/* The wall-clock time T in RFC 3339's form, in UTC to the millisecond,
   quoted for JSON: "2026-12-05T08:40:01.123+00:00" ("+00:00" rather than
   "Z", which older parsers refuse); or null, for a time gmtime cannot
   break down.  */
static void
json_time_value (char *buf, size_t size, struct timespec t)
{
  struct tm tm;
  time_t sec = t.tv_sec;
  char day[64];
  if (!gmtime_r (&sec, &tm)
      || !strftime (day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm))
    snprintf (buf, size, "null");
  else
    snprintf (buf, size, "\"%s.%03ld+00:00\"", day, t.tv_nsec / 1000000);
}

/* The member KEY with the time T, as json_time_value writes it.  */
static void
json_time (FILE *f, char const *key, struct timespec t)
{
  char value[96];
  json_time_value (value, sizeof value, t);
  fprintf (f, ",\"%s\":%s", key, value);
}

/* T as a JSON object: {"reason": files, ...}, reasons in LOC.  */
static void
json_reasons (FILE *f, char const *name, struct stats_reason const *t,
              locale_t loc)
{
  fprintf (f, ",\"%s\":{", name);
  for (int i = 0; i < STATS_REASONS && t[i].files; i++)
    {
      char words[256];
      reason_words (words, sizeof words, &t[i], loc);
      if (i)
        putc (',', f);
      json_string (f, words);
      fprintf (f, ":%ju", t[i].files);
    }
  putc ('}', f);
}

/* The counters of S, what main counted (ERRORS, BUFFER_BYTES), and the
   run's times: the wall clock at the start and at END, and US, the
   microseconds in between as the monotonic clock counts them.  */
static void
print_counts (FILE *f, struct stats const *s, unsigned long errors,
              uintmax_t buffer_bytes, struct timespec end, uintmax_t us)
{
  uintmax_t rate = rate_milli_mib (s->bytes, us);
  fprintf (f, "{\"schema\":\"cp8M-stats\",\"version\":1"
           ",\"files\":%ju,\"directories\":%ju,\"symlinks\":%ju"
           ",\"specials\":%ju,\"hard_links\":%ju"
           ",\"bytes\":%ju,\"hole_bytes\":%ju"
           ",\"direct\":%ju,\"buffered\":%ju,\"fell_back\":%ju"
           ",\"reflinked\":%ju,\"offloaded\":%ju,\"cached_anyway\":%ju",
           s->files, s->directories, s->symlinks, s->specials,
           s->hard_links, s->bytes, s->hole_bytes, s->direct, s->buffered,
           s->fell_back, s->reflinked, s->offloaded, s->cached_anyway);
  locale_t c = newlocale (LC_ALL_MASK, "C", (locale_t) 0);
  json_reasons (f, "buffered_why", s->why_buffered, c);
  json_reasons (f, "fell_back_why", s->why_fell_back, c);
  if (c)
    freelocale (c);
  fprintf (f, ",\"bwlimit\":%ju", s->bwlimit);
  fprintf (f, ",\"changed\":%ju,\"errors\":%lu", s->changed, errors);
  json_time (f, "start", s->start_wall);
  json_time (f, "end", end);
  fprintf (f, ",\"elapsed_seconds\":%ju.%06ju,\"mib_per_second\":%ju.%03ju"
           ",\"buffer_bytes\":%ju",
           us / 1000000, us % 1000000, rate / 1000, rate % 1000,
           buffer_bytes);
}

/* N and the noun for it: "1 file", "2 files".  */
static char const *
counted (char *buf, size_t size, uintmax_t n, char const *one,
         char const *many)
{
  snprintf (buf, size, "%ju %s", n, n == 1 ? one : many);
  return buf;
}

/* ": reason N, reason M" for the table T, or nothing when empty.  */
static void
text_reasons (FILE *f, struct stats_reason const *t)
{
  for (int i = 0; i < STATS_REASONS && t[i].files; i++)
    {
      char words[256];
      reason_words (words, sizeof words, &t[i], (locale_t) 0);
      fprintf (f, "%s%s %ju", i ? ", " : ": ", words, t[i].files);
    }
}

/* BYTES for people, in binary units: "4.0 MiB".  */
static char const *
human (char *buf, size_t size, uintmax_t bytes)
{
  static char const *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
  if (bytes < 1024)
    return counted (buf, size, bytes, "byte", "bytes");
  double v = bytes / 1024.0;
  int u = 0;
  while (v >= 1024 && u < 4)
    {
      v /= 1024;
      u++;
    }
  snprintf (buf, size, "%.1f %s", v, units[u]);
  return buf;
}

static void
print_text (FILE *f, struct stats const *s, unsigned long errors,
            uintmax_t buffer_bytes, uintmax_t us)
{
  char a[64], b[64], c[64], d[64], e[64];
  fprintf (f, "%s statistics:\n", diag_program_name ());
  fprintf (f, "  copied     %s, %s, %s, %s, %s\n",
           counted (a, sizeof a, s->files, "file", "files"),
           counted (b, sizeof b, s->directories, "directory", "directories"),
           counted (c, sizeof c, s->symlinks, "symbolic link",
                    "symbolic links"),
           counted (d, sizeof d, s->specials, "special file",
                    "special files"),
           counted (e, sizeof e, s->hard_links, "hard link", "hard links"));
  fprintf (f, "  data       %s", human (a, sizeof a, s->bytes));
  if (s->bytes >= 1024)
    fprintf (f, " (%ju bytes)", s->bytes);
  fprintf (f, ", holes %s", human (a, sizeof a, s->hole_bytes));
  if (s->hole_bytes >= 1024)
    fprintf (f, " (%ju bytes)", s->hole_bytes);
  putc ('\n', f);
  fprintf (f, "  direct     %s", counted (a, sizeof a, s->direct, "file",
                                          "files"));
  if (s->cached_anyway)
    fprintf (f, " (%ju cached by the filesystem anyway)", s->cached_anyway);
  fprintf (f, "\n  buffered   %s", counted (a, sizeof a, s->buffered, "file",
                                             "files"));
  text_reasons (f, s->why_buffered);
  fprintf (f, "\n  fell back  %s", counted (a, sizeof a, s->fell_back, "file",
                                             "files"));
  text_reasons (f, s->why_fell_back);
  fprintf (f, "\n  offloaded  %s (%ju reflinked, %ju by copy_file_range)\n",
           counted (a, sizeof a, s->reflinked + s->offloaded, "file",
                    "files"),
           s->reflinked, s->offloaded);
  uintmax_t rate = rate_milli_mib (s->bytes, us);
  fprintf (f, "  changed    %s changed while copied\n",
           counted (a, sizeof a, s->changed, "source", "sources"));
  fprintf (f, "  errors     %lu\n", errors);
  fprintf (f, "  time       %ju.%03ju s, %ju.%01ju MiB/s\n",
           us / 1000000, us % 1000000 / 1000, rate / 1000,
           rate % 1000 / 100);
  fprintf (f, "  buffers    %s at most\n", human (a, sizeof a, buffer_bytes));
  if (s->bwlimit)
    fprintf (f, "  limit      %s/s at the end\n",
             human (a, sizeof a, s->bwlimit));
}


void
stats_verify (struct stats *s, struct engine_verify_result const *vr)
{
  if (!s)
    return;
  if (vr->mismatch_at >= 0)
    s->verify_failed++;
  else if (vr->checked)
    s->verified++;
  else
    s->unverified++;
}


/* ---- the end of a run: --stats and --stats-file ---- */

/* The symbolic name of the errno value E ("ENOSPC"), or NULL for 0 and
   for a value without one.  glibc 2.32 and later know every name; other
   C libraries (musl has no strerrorname_np) get the table below, the
   causes a copy meets.  */
static char const *
errno_name (int e)
{
  if (!e)
    return NULL;
#if defined __GLIBC__ && defined __GLIBC_PREREQ
# if __GLIBC_PREREQ (2, 32)
#  define HAVE_ERRNO_NAMES 1
  return strerrorname_np (e);
# endif
#endif
#ifndef HAVE_ERRNO_NAMES
# define NAMED(e) { e, #e }
  static struct { int e; char const *name; } const names[] = {
    NAMED (EPERM), NAMED (ENOENT), NAMED (EINTR), NAMED (EIO),
    NAMED (ENXIO), NAMED (E2BIG), NAMED (EBADF), NAMED (EAGAIN),
    NAMED (ENOMEM), NAMED (EACCES), NAMED (EFAULT), NAMED (EBUSY),
    NAMED (EEXIST), NAMED (EXDEV), NAMED (ENODEV), NAMED (ENOTDIR),
    NAMED (EISDIR), NAMED (EINVAL), NAMED (ENFILE), NAMED (EMFILE),
    NAMED (ETXTBSY), NAMED (EFBIG), NAMED (ENOSPC), NAMED (ESPIPE),
    NAMED (EROFS), NAMED (EMLINK), NAMED (EPIPE), NAMED (ERANGE),
    NAMED (EDEADLK), NAMED (ENAMETOOLONG), NAMED (ENOLCK), NAMED (ENOSYS),
    NAMED (ENOTEMPTY), NAMED (ELOOP), NAMED (ENODATA), NAMED (EOVERFLOW),
    NAMED (EILSEQ), NAMED (EOPNOTSUPP), NAMED (ENOTSUP), NAMED (ENOTCONN),
    NAMED (ETIMEDOUT), NAMED (ECONNREFUSED), NAMED (EHOSTDOWN),
    NAMED (EHOSTUNREACH), NAMED (ESTALE), NAMED (EDQUOT), NAMED (ECANCELED),
    NAMED (EOWNERDEAD), NAMED (ENOTRECOVERABLE),
  };
# undef NAMED
  /* The first of two names for one value (EOPNOTSUPP and ENOTSUP on
     Linux), as glibc says it.  */
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (names[i].e == e)
      return names[i].name;
  return NULL;
#endif
}

/* The messages kept, as a JSON array of objects: each with the node it
   was about, the message, and the errno name of its cause (null when
   the message names no system cause, or the name is unknown).  */
static void
json_failures (FILE *f)
{
  size_t n;
  struct diag_failure const *v = diag_failures (&n);
  fputs (",\"failures\":[", f);
  for (size_t i = 0; i < n; i++)
    {
      fputs (i ? ",{" : "{", f);
      json_name (f, "source", v[i].source);
      putc (',', f);
      json_name (f, "destination", v[i].destination);
      putc (',', f);
      json_name (f, "message", v[i].message);
      putc (',', f);
      json_name (f, "errno", errno_name (v[i].errnum));
      putc ('}', f);
    }
  putc (']', f);
}

/* The run's one JSON object, the same for --stats=json and --stats-file:
   S's counters, E's ending, and the times up to now.  Return it as one
   line ending in a newline, allocated, its length in *LEN.  */
static char *
json_object (struct stats const *s, struct stats_end const *e, size_t *len)
{
  char *text = NULL;
  FILE *f = open_memstream (&text, len);
  if (!f)
    xalloc_die ();
  /* The end, then the time since the start: one moment for both.  */
  struct timespec end;
  clock_gettime (CLOCK_REALTIME, &end);
  print_counts (f, s, e->errors, e->buffer_bytes, end, elapsed_us (s));
  fprintf (f, ",\"state\":\"finished\",\"exit_status\":%d", e->exit_status);
  json_failures (f);
  fprintf (f, ",\"verify\":{\"asked\":%s,\"checked\":%ju"
           ",\"differed\":%ju,\"not_checked\":%ju}",
           e->verify ? "true" : "false", s->verified, s->verify_failed,
           s->unverified);
  fprintf (f, ",\"sync\":{\"asked\":%s,\"failed\":%lu}}\n",
           e->sync ? "true" : "false", e->sync_failed);
  if (fclose (f) != 0)
    xalloc_die ();
  return text;
}

/* Write TEXT, LEN bytes, to W (flushed with SYNC).  Return true, or
   false after a message.  */
static bool
write_report (struct whole *w, char const *text, size_t len, bool sync)
{
  bool ok = whole_write (w, text, len, sync);
  if (!ok)
    error (0, errno, "cannot write statistics file %s", quote_file (w->file));
  return ok;
}

bool
stats_report (struct stats const *s, enum stats_format format,
              struct whole *w, struct stats_end const *e)
{
  /* -v's and --debug's lines are stdout's, and come first.  */
  fflush (stdout);
  bool ok = true;
  struct stats_end end = *e;
  char *text = NULL;
  size_t len = 0;
  if (w)
    {
      text = json_object (s, &end, &len);
      /* Nothing written by a signal from now on: the final object is.  */
      whole_disarm ();
      ok = write_report (w, text, len, end.sync);
    }
  if (!ok)
    {
      /* The file is not there, and stderr says so (one more error, a
         failed run): the object printed there tells the same.  */
      end.exit_status = EXIT_FAILURE;
      end.errors = diag_error_count ();
      free (text);
      text = NULL;
    }
  if (format == STATS_JSON)
    {
      if (!text)
        text = json_object (s, &end, &len);
      fwrite (text, 1, len, stderr);
    }
  else if (format == STATS_TEXT)
    print_text (stderr, s, end.errors, end.buffer_bytes, elapsed_us (s));
  fflush (stderr);
  free (text);
  return ok;
}

/* The object of a run that has not ended, started at START: "running",
   or, written by the signal handler, "killed" (the numbers filled in
   then).  */
static int
unfinished (char *buf, size_t size, char const *state, struct timespec start)
{
  char when[96];
  json_time_value (when, sizeof when, start);
  int n = snprintf (buf, size, "{\"schema\":\"cp8M-stats\",\"version\":1"
                    ",\"state\":\"%s\",\"pid\":%ld,\"start\":%s", state,
                    (long) getpid (), when);
  if (strcmp (state, "killed") == 0)
    n += snprintf (buf + n, size - n, ",\"signal\":NN,\"exit_status\":SSS");
  n += snprintf (buf + n, size - n, "}\n");
  return n;
}

bool
stats_file_begin (struct whole *w, struct stats const *s, bool sync)
{
  char text[256];
  size_t len;
  /* A regular file gets "running" at once, so that the last run's report
     is gone before this one copies anything; a pipe or a device gets
     only the final object, its reader sees the end anyway.  */
  if (w->kind == WHOLE_REPLACE || w->in_place)
    {
      len = unfinished (text, sizeof text, "running", s->start_wall);
      if (!write_report (w, text, len, sync))
        return false;
    }
  len = unfinished (text, sizeof text, "killed", s->start_wall);
  char const *sig = strstr (text, "NN"), *status = strstr (text, "SSS");
  whole_arm (w, text, len, status - text, sig - text);
  return true;
}
