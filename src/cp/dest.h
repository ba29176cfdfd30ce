/* What a regular file's destination goes through, and what a failed or
   interrupted copy leaves behind: the one owner of cp8M's data-safety
   invariant.  Part of the cp layer.

   The invariant.  At every instant of a run (SIGKILL, the OOM killer and
   power loss included) every destination is in one of these states:
   1. new: absent under its name until its data and metadata are
      complete.  It is an unnamed O_TMPFILE in the destination directory,
      linked into place at the end; where O_TMPFILE is refused (NFS, FUSE,
      old kernels), a hidden ".cp8M-XXXXXX" in the same directory, renamed
      into place at the end.  Only SIGKILL or power loss can leave such a
      hidden name behind, never the destination's own name.  For power
      loss, its data is on the device before it is named (dest_commit
      waits for the writeback of what went through the page cache), so
      the name never reaches the disk ahead of the data;
   2. existing: overwritten in place, as GNU cp does (same inode, owner and
      hard links), and shorter than the source until every byte is written
      (the engine's in_place request).  Power loss adds one state, which
      GNU cp's copies share: the source's size, with zeros where the
      blocks written last were.  ext4 (with its default dioread_nolock)
      records a file's new size when it sends blocks written through the
      page cache to the device, and that those blocks hold data only
      once they are there, often in its next journal commit: a power cut
      between the two commits finds the size and not the data.  Data
      written with direct I/O is recorded after it lands, so it is the
      page cache's part (small files, and the unaligned tail of a large
      one) that can read as zeros;
   3. complete and identical.
   With --atomic, an existing regular file is not overwritten: its
   replacement is made as a new file is (1.) and renamed over it when
   complete, so the name holds the whole old file until then (a hard
   link to the old file keeps the old data).
   tests/power-cut.sh cuts the power at random moments of copies onto an
   ext4 and checks these states.
   A failed copy, or one interrupted by a signal whose default action
   ends the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM,
   the real-time ones...; SIGUSR1 asks for a status line, SIGUSR2 brings
   a new bandwidth limit), of a new file leaves nothing, and a backup made of the file it replaces is
   put back under the destination's name.  Writing past the file size
   limit (ulimit -f) is a failure of that file, not a fatal SIGXFSZ.

   A stream (a pipe, FIFO, terminal, character device or socket read as
   data) is not a file that can look complete: it has no size to compare
   with, and what was read from it cannot be read again.  So, as GNU cp
   does, a new destination of a stream is created under its own name and
   written as the data arrives, and it is kept when the copy is
   interrupted (a --backup stays beside it) or fails (a --backup is put
   back over it, as GNU cp puts it back): it holds all that was read.

   Two rare cases create the file under its own name: a name ending in
   '/' (the open fails, as GNU's does; removed on failure and on those
   signals otherwise) and, under POSIXLY_CORRECT, writing through a
   dangling symbolic link (the link's target is kept on failure, as GNU
   keeps it: the name is the user's link).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_DEST_H
#define CP8M_DEST_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "copy.h"

enum dest_kind
{
  DEST_EXISTING,   /* overwritten in place */
  DEST_TMPFILE,    /* new: unnamed (O_TMPFILE), linked into place */
  DEST_TEMPNAME,   /* new: a hidden name, renamed into place */
  DEST_AT_NAME,    /* new, under its own name: removed if it fails */
  DEST_STREAM,     /* new, under its own name, written as a stream
                      arrives: kept if it fails */
  DEST_THROUGH_LINK,  /* new, through a dangling symlink (POSIXLY_CORRECT):
                         left as it is if it fails, as GNU leaves it */
  DEST_REPLACE     /* --atomic: a new file (unnamed, or TEMP) that is
                      renamed over the existing one when complete */
};

/* One destination being written.  */
struct dest
{
  struct loc const *loc;  /* where it goes */
  int fd;                 /* open for writing; -1 once closed */
  enum dest_kind kind;
  char *temp;             /* DEST_TEMPNAME, and DEST_REPLACE where
                             O_TMPFILE was refused: the hidden name,
                             relative to LOC->dirfd */
  struct stat link_st;    /* the symbolic link at LOC that the open
                             followed (follow_openat), or st_mode 0 */
};

/* Install the handler of the fatal signals: those whose default action
   ends the process, but SIGUSR1 (once, from main, before any thread).  */
void dest_install_signals (void);

/* Create a new destination LOC with the permissions MODE (less the
   umask), hidden until dest_commit unless the source is a STREAM.
   Return true with D->fd open for
   writing (and for reading with --verify, unless through a symlink); false with *REPORTED false and errno set when the caller
   should report "cannot create regular file", or with *REPORTED true
   after reporting something else.  */
bool dest_create (struct dest *d, struct cp8m_options const *o,
                  struct loc const *loc, mode_t mode, bool stream,
                  bool *reported);

/* Take FD, the existing file LOC opened for writing, as D.  */
void dest_existing (struct dest *d, struct loc const *loc, int fd);

/* --atomic: the existing regular file LOC, seen as LST (not following
   a symbolic link), opened O_PATH: never for writing, which a running
   program's file refuses (ETXTBSY), and which a replacement does not
   need.  Return the descriptor when LOC still holds that file and this
   process may write it (the check an open in place makes: --atomic
   changes no more than that could); else -1.  */
int dest_open_old (struct loc const *loc, struct stat const *lst);

/* --atomic: make D the replacement of the existing regular file LOC
   (open as OLD_FD, from dest_open_old, which this closes): a new file
   beside it, unnamed where it can be, with what a rewrite in place keeps
   of the old file: its mode, ACL and extended attributes, and (where
   this process may give it) owner and group.  The source's attributes
   that the options preserve are set over them afterwards, as over a file
   rewritten in place.  dest_commit renames it over LOC; until then LOC
   holds the old file, and dest_abort leaves it so.  Return true with
   D->fd open for writing (and reading with --verify); or false with
   errno set, or with *REPORTED true after reporting (an attribute that
   could not be kept: the old file stays).  */
bool dest_replace (struct dest *d, struct cp8m_options const *o,
                   struct loc const *loc, int old_fd, bool *reported);

/* True when D is a file others can already see under its name (give the
   engine in_place).  */
bool dest_visible (struct dest const *d);

/* How D is being written, for --debug.  */
char const *dest_describe (struct dest const *d);

/* The copy into D is complete: put it under its name (a new file) and
   close it.  Return true, or false after reporting why and removing what
   the copy made.  */
bool dest_commit (struct dest *d);

/* The copy into D failed (and was reported): close it and remove what the
   copy made, so that nothing is left under a new destination's name.  */
void dest_abort (struct dest *d);

/* A backup BACKUP (relative to DIRFD) was just made of the destination
   REL: until dest_unguard_backup, a fatal signal moves it back.  Call
   between dest_hold_signals and dest_release_signals, with the backup's
   creation.  */
void dest_guard_backup (int dirfd, char const *backup, char const *rel);
void dest_unguard_backup (void);

/* The copy to DST failed: put BACKUP back under DST's name (with -v's
   "(unbackup)" line), and stop guarding it.  */
void dest_undo_backup (struct cp8m_options const *o, struct loc const *dst,
                       char const *backup);

/* This thread makes files for jobs.c as its thread number SLOT (1 ..
   JOBS_MAX): what a fatal signal undoes of its unfinished file is kept
   apart from other threads'.  */
void dest_thread_slot (unsigned int slot);

/* Hold the fatal signals back (they stay pending) until
   dest_release_signals, so that a step and the bookkeeping of what to
   undo happen as one.  */
void dest_hold_signals (void);
void dest_release_signals (void);

/* Give the file open as FD (an unnamed one, or any node, O_PATH
   included) the name REL in DIRFD (relative to it, as the struct loc
   names it comes from are): linkat with AT_EMPTY_PATH, or through its
   /proc name.  0, or -1 with errno.  */
int dest_link_fd (int fd, int dirfd, char const *rel);

/* The owner that the file system gives a file this process makes
   beside LOC (in LOC's directory), set in *OWNER: learnt from a file
   made there and removed at once (an unnamed O_TMPFILE; where that is
   refused, a hidden name made with O_EXCL, with the fatal signals held
   until it is gone).  0, or -1 with errno.  */
int dest_new_owner (struct loc const *loc, uid_t *owner);

/* NAME with its last component replaced by BASE, as messages show a
   backup: a new string.  */
char *sibling_name (char const *name, char const *base);

#endif
