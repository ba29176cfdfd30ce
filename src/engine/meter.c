/* Counting and pacing the run's writes (meter.h).

   The limit is kept as a virtual clock: each write books the time its
   bytes take at the limit, after the bookings before it, and waits for
   its start.  Writers book with one compare-and-swap, so that the
   pieces in flight share the limit without a lock, and a limit changed
   meanwhile applies from the next booking on.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "meter.h"

#include <stdatomic.h>
#include <time.h>

/* After a pause (a directory walked, a file verified) a copy may catch
   up this much of the time it did not use, and no more: any second
   then holds at most the limit's bytes for 1.05 s and one piece.  */
enum { SLACK_NS = 50 * 1000 * 1000 };

/* Pieces a second at least, at low limits: so that one piece is a
   twentieth of a second's worth, and a second's writes stay close to
   the limit whatever piece falls into it.  */
enum { PIECES_A_SECOND = 20 };

static long long
now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

void
meter_add (struct engine_meter *meter, off_t n)
{
  /* Relaxed: the reader only shows the count.  */
  if (meter && n > 0)
    atomic_fetch_add_explicit (&meter->written, (unsigned long long) n,
                               memory_order_relaxed);
}

void
meter_pace (struct engine_meter *meter, off_t n)
{
  uintptr_t limit = meter ? atomic_load (&meter->limit) : 0;
  if (limit == 0 || n <= 0)
    return;
  long long now = now_ns ();
  long long cost = (long long) ((double) n * 1e9 / limit);
  long long booked = atomic_load (&meter->next_ns), start;
  do
    /* The first write of a run books from now, with no credit.  */
    start = booked == 0 ? now
            : booked > now - SLACK_NS ? booked : now - SLACK_NS;
  while (!atomic_compare_exchange_weak (&meter->next_ns, &booked,
                                        start + cost));
  /* The write goes at the end of its time, not the start: a copy of B
     bytes then lasts B / limit, not one piece less.  */
  start += cost;
  /* nanosleep, not clock_nanosleep: macOS has only the former.  A
     signal cuts the sleep short; the loop sleeps the rest.  */
  for (; start > now; now = now_ns ())
    {
      long long d = start - now;
      struct timespec t = { d / 1000000000LL, d % 1000000000LL };
      nanosleep (&t, NULL);
    }
}

off_t
meter_piece (struct engine_meter *meter, off_t max, off_t align)
{
  uintptr_t limit = meter ? atomic_load (&meter->limit) : 0;
  off_t most = limit / PIECES_A_SECOND;
  if (limit == 0 || most >= max)
    return max;
  return most >= align ? most - most % align : align;
}
