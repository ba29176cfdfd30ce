/* --sync: nothing counts as copied until it is on stable storage, so
   that exit status 0 means the copy survives a power loss.

   What is flushed, and when:
   1. each regular file written (new, rewritten in place, written from a
      stream, or given only its attributes): once, after its data and
      metadata and before a new one is linked or renamed into place
      (regular.c).  A failure is that file's failure: a new file is not
      given its name;
   2. each destination directory this run changed, once, at its end: one
      it created, one that got or lost an entry (a copy, a link, a backup
      renamed, a file removed by -f), or an existing one whose attributes
      it set (dir.c), after its entries and its own attributes;
   3. the directories above the walk that an operand changed: the one
      holding each operand's destination name (the target directory of
      'cp a b c dir', the directory of 'b' in 'cp a b') and those
      --parents created, each once, at the end of the run (cp8M.c).
   Symbolic links, special files and hard links are made durable by their
   directory's flush; they have no data of their own to flush.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_SYNC_H
#define CP8M_SYNC_H

#include <stdbool.h>

#include "options.h"

/* Flush the file open for writing as FD, data and metadata; NAME is for
   the message.  Return true, or false after reporting.  */
bool sync_file (int fd, char const *name);

/* Flush the directory open as FD (PATH_ONLY: with O_PATH, which fsync
   refuses: it is opened again for reading).  NAME is for messages.
   Return true, or false after reporting.  */
bool sync_dir (int fd, bool path_only, char const *name);

/* Flush the directory REL in DIRFD, opened for it; NAME is for
   messages, and so is ENTRY, the file in it whose name the flush makes
   durable, when there is one to name (else NULL).  Return true, or
   false after reporting.  */
bool sync_dir_at (int dirfd, char const *rel, char const *name,
                  char const *entry);

/* How many flushes have failed so far.  */
unsigned long sync_failures (void);

/* Do the options give an existing directory attributes (so that the
   end of its copy changes it even when its entries stay)?  */
bool sync_attributes_set (struct cp8m_options const *o);

/* Directories to flush at the end of the run, each once.  */
struct sync_dirs;

struct sync_dirs *sync_dirs_new (void);

/* Remember to flush the directory REL (relative to DIRFD, which must
   stay open until sync_dirs_flush; NAME is for messages) unless it is
   already remembered.  */
void sync_dirs_add (struct sync_dirs *l, int dirfd, char const *rel,
                    char const *name);

/* Remember to flush the directory that holds the entry REL (relative to
   DIRFD; NAME as messages show the entry).  */
void sync_dirs_add_parent (struct sync_dirs *l, int dirfd, char const *rel,
                           char const *name);

/* Flush every remembered directory and free L (which may be NULL).
   Return true, or false after reporting a failure.  */
bool sync_dirs_flush (struct sync_dirs *l);

#endif
