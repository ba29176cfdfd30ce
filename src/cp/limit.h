/* A new --bwlimit for a copy that is running: "cp8M --bwlimit=RATE
   --pid=PID" sends it, and the running cp8M's monitor thread
   (progress.c) takes it.  It rides on SIGUSR2 with a value (sigqueue),
   so that only a process the sender may signal anyway can be changed,
   and nothing but a cp8M, which blocks SIGUSR2 to wait for it, is sent
   one: SIGUSR2 ends other processes.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_LIMIT_H
#define CP8M_LIMIT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* The signal that carries a new limit.  */
enum { LIMIT_SIGNAL = SIGUSR2 };

/* Give the cp8M running as PID the limit RATE (bytes a second, 0 for
   none).  Return true, or false after an error message.  */
bool limit_send (intmax_t pid, uintmax_t rate);

/* If INFO is a new limit (sent by limit_send, not a plain kill), store
   it in *LIMIT and return true.  */
bool limit_receive (siginfo_t const *info, _Atomic uintptr_t *limit);

#endif
