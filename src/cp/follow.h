/* Following a symbolic link that may have been planted by another user.

   The rule.  Root copying into a directory other users can write must not
   be sent elsewhere by a symbolic link one of them made there in advance
   ("shared/f -> /etc/shadow"): following it would write the user's data
   into the victim and give it the user's owner and mode.  So cp8M
   follows a symbolic link met at the destination (an existing
   destination, a --parents directory on the way, the destination operand
   itself) only where Linux's protected_symlinks rule would: the link is
   owned by the user cp8M runs as (its effective user ID), or by the
   owner of the directory holding it.  Linux applies its rule in sticky
   world-writable directories only; cp8M applies it in every directory,
   since a group-writable or otherwise shared one is just as open to a
   planted link.  GNU cp follows every such link.

   Part of the cp layer.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_FOLLOW_H
#define CP8M_FOLLOW_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Open REL (relative to DIRFD, as openat takes it) with FLAGS and MODE,
   as openat would, except that a symbolic link in REL's last component
   is followed only as the rule allows.  Race-free: the link checked is
   the one followed (follow.c says how).  Return the descriptor; or -1
   with errno, and *REFUSED true with errno EACCES when a link was not
   followed by the rule (reported by the caller: follow_refused).
   LINK_ST, if not NULL, gets the status of the symbolic link followed,
   or st_mode 0 when REL was no link.  FLAGS must not hold O_NOFOLLOW
   (use openat for that).  */
int follow_openat (int dirfd, char const *rel, int flags, mode_t mode,
                   bool *refused, struct stat *link_st);

/* Open the directory REL's last component is in (REL: relative to
   DIRFD, or absolute), O_PATH, walking REL's directories one at a time
   with every symbolic link met followed only by the rule (*REFUSED
   true, errno EACCES, when one is not).  *BASE gets REL's last component
   (REL itself when REL has no directories, or is "/").  Return the
   descriptor, DIRFD itself when REL has no directories, or -1 with
   errno.  */
int follow_dirs (int dirfd, char const *rel, char const **base,
                 bool *refused);

/* Does the rule allow following the symbolic link REL (relative to
   DIRFD) of status LINK_ST?  An answer for decisions made ahead of the
   open (what an existing destination is); the open itself goes through
   follow_openat, which asks again.  False too when the link's directory
   cannot be looked at.  */
bool follow_allowed (int dirfd, char const *rel, struct stat const *link_st);

/* Report that NAME, a symbolic link, was not followed: "not following
   symbolic link 'NAME' owned by another user".  */
void follow_refused (char const *name);

#endif
