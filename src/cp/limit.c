/* Changing the bandwidth limit of a running copy (limit.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "limit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "error.h"

/* Whether the process PID blocks SIGNAL, as a cp8M does from its start:
   1, 0, or -1 when this system cannot tell (no /proc).  */
static int
blocks (intmax_t pid, int sig)
{
  char name[64];
  snprintf (name, sizeof name, "/proc/%jd/status", pid);
  FILE *f = fopen (name, "r");
  if (!f)
    return errno == ENOENT && access ("/proc/self/status", F_OK) != 0
           ? -1 : 0;
  char line[256];
  int found = 0;
  while (fgets (line, sizeof line, f))
    {
      unsigned long long mask;
      if (sscanf (line, "SigBlk: %llx", &mask) == 1)
        {
          found = (mask >> (sig - 1)) & 1;
          break;
        }
    }
  fclose (f);
  return found;
}

bool
limit_send (intmax_t pid, uintmax_t rate)
{
  if (blocks (pid, LIMIT_SIGNAL) == 0)
    {
      /* Gone, or not a cp8M (which would die of the signal).  */
      if (kill (pid, 0) != 0)
        error (0, errno, "cannot change the limit of process %jd", pid);
      else
        error (0, 0, "process %jd is not a cp8M that takes a new limit",
               pid);
      return false;
    }
  /* A limit beyond what a pointer holds (32-bit systems: 4 GiB/s) is
     none in practice: the largest it holds.  */
  union sigval v = { .sival_ptr = (void *) (uintptr_t)
                                  (rate > UINTPTR_MAX ? UINTPTR_MAX : rate) };
  if (sigqueue (pid, LIMIT_SIGNAL, v) != 0)
    {
      error (0, errno, "cannot change the limit of process %jd", pid);
      return false;
    }
  return true;
}

bool
limit_receive (siginfo_t const *info, _Atomic uintptr_t *limit)
{
  if (info->si_signo != LIMIT_SIGNAL || info->si_code != SI_QUEUE)
    return false;
  atomic_store (limit, (uintptr_t) info->si_value.sival_ptr);
  return true;
}
