/* Signal-time cleanup of a half-written destination.

   A signal handler can only reach what a global holds, so this file keeps
   the one piece of global state in cp8M: the destination being written.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "cleanup.h"

#include <signal.h>
#include <stddef.h>
#include <unistd.h>
#include <fcntl.h>

static int const fatal_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* All volatile, so that the compiler stores DIRFD and RELNAME before
   ARMED, as the handler expects.  */
static struct
{
  volatile sig_atomic_t armed;
  volatile int dirfd;
  char const *volatile relname;
} pending;

static void
on_fatal_signal (int sig)
{
  if (pending.armed)
    unlinkat (pending.dirfd, pending.relname, 0);
  /* Die of the same signal, so the caller sees what happened.  */
  signal (sig, SIG_DFL);
  raise (sig);
}

static void
fatal_set (sigset_t *set)
{
  sigemptyset (set);
  for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
    sigaddset (set, fatal_signals[i]);
}

void
cleanup_install (void)
{
  for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
    {
      struct sigaction old;
      /* A signal ignored by whoever started us stays ignored.  */
      if (sigaction (fatal_signals[i], NULL, &old) == 0
          && old.sa_handler == SIG_IGN)
        continue;
      struct sigaction sa = { .sa_handler = on_fatal_signal };
      fatal_set (&sa.sa_mask);
      sigaction (fatal_signals[i], &sa, NULL);
    }
}

void
cleanup_hold (void)
{
  sigset_t set;
  fatal_set (&set);
  sigprocmask (SIG_BLOCK, &set, NULL);
}

void
cleanup_release (void)
{
  sigset_t set;
  fatal_set (&set);
  sigprocmask (SIG_UNBLOCK, &set, NULL);
}

void
cleanup_arm (int dirfd, char const *relname)
{
  pending.dirfd = dirfd;
  pending.relname = relname;
  pending.armed = 1;
}

void
cleanup_disarm (void)
{
  pending.armed = 0;
}
