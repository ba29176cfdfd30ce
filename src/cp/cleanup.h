/* Removing a destination that cp8M created and could not finish, also
   when SIGINT, SIGTERM or SIGHUP arrive mid-copy.  Part of the cp layer.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_CLEANUP_H
#define CP8M_CLEANUP_H

/* Install the signal handlers (once, from main).  */
void cleanup_install (void);

/* From now until cleanup_disarm, a fatal signal first removes RELNAME in
   directory DIRFD (which must stay valid), then kills the process with
   the same signal.  */
void cleanup_arm (int dirfd, char const *relname);

/* The destination is complete, or removed by the caller.  */
void cleanup_disarm (void);

/* Hold the fatal signals back (they stay pending) until cleanup_release,
   so that creating and arming, or removing and disarming, happen as one
   step.  */
void cleanup_hold (void);
void cleanup_release (void);

#endif
