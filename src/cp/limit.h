/* A new --bwlimit for a copy that is running: "cp8M --bwlimit=RATE
   --pid=PID" sends it, and the running cp8M's monitor thread
   (progress.c) takes it.  It rides on SIGUSR2 with a value, so that
   only a process the sender may signal anyway can be changed.

   SIGUSR2 ends most other processes, and a process that waits for it
   (sigwait, signalfd) would take it for something else, so it is sent
   only to a proven cp8M copy.  The proof: while its monitor takes new
   limits, the copy holds a sealed memfd named "cp8M-bwlimit" whose text
   names the protocol's version and the copy's own process ID; the
   sender pins the process with a pidfd (which also refuses thread IDs),
   finds and reads that memfd through /proc, checks that the pidfd's
   process was alive all along, and signals through the pidfd, so that a
   process ID reused meanwhile is never signalled.  Without /proc or
   pidfds (Linux 5.3) nothing is proven, and nothing is sent.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_LIMIT_H
#define CP8M_LIMIT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* The signal that carries a new limit.  */
enum { LIMIT_SIGNAL = SIGUSR2 };

/* Give the cp8M copy running as PID the limit RATE (bytes a second, 0
   for none), and say so on standard output.  Return true, or false
   after an error message naming why nothing was sent.  */
bool limit_send (intmax_t pid, uintmax_t rate);

/* Say that this process takes new limits from now on (its monitor waits
   for LIMIT_SIGNAL): return the descriptor of the proof limit_send
   looks for, to be given to limit_withdraw when it no longer does, or
   -1 when there is none (no memfd, or too few descriptors to spare
   one: the copy then cannot be given a new limit).  */
int limit_advertise (void);

/* The copy takes no new limits any more: FD (from limit_advertise, or
   -1) is closed.  */
void limit_withdraw (int fd);

/* If INFO is a new limit (sent by limit_send, not a plain kill), store
   it in *LIMIT and return true.  */
bool limit_receive (siginfo_t const *info, _Atomic uintptr_t *limit);

#endif
