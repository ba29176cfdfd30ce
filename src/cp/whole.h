/* Report files (--stats-file, --checksum-file): what a name stands for,
   and how a report is written there without destroying it.  Part of
   the cp layer.

   A report never replaces what its name stands for unless that is a
   report itself.  "-" is standard output.  A regular file, or a name
   not yet taken, is written whole: under a hidden name beside it,
   renamed over it, so that a reader finds the old report or the new
   one, never half of one.  Anything else that exists (a device such as
   /dev/null, a FIFO, a symbolic link such as /dev/stdout or a process
   substitution's /dev/fd/63) is opened and written into, following
   links, as the shell's '>' does, but only links that follow.h's rule
   lets root follow (a link another user planted is refused); a regular
   file reached that way is rewritten from its start.  A directory, or an empty name, is refused.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_WHOLE_H
#define CP8M_WHOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum whole_kind
{
  WHOLE_REPLACE,   /* a regular file or a new name: temporary + rename */
  WHOLE_INTO,      /* anything else: opened, following links */
  WHOLE_STDOUT     /* "-" */
};

struct whole
{
  char const *file;     /* as the user named it, for messages */
  enum whole_kind kind;
  bool exists;          /* DEV, INO and MODE are those of the node that
                           will be written (or replaced) */
  dev_t dev;
  ino_t ino;
  mode_t mode;
  char *where;          /* that node, or the name a new file gets:
                           absolute, without symbolic links or dots;
                           NULL where it has no name (a pipe) */
  char *dir;            /* WHOLE_REPLACE: FILE's directory as named */
  int dirfd;            /* WHOLE_REPLACE: that directory (O_PATH) */
  char const *base;     /* WHOLE_REPLACE: FILE's last component */
  int fd;               /* WHOLE_INTO, WHOLE_STDOUT: open for writing
                           once begun, else -1 */
  bool in_place;        /* FD is a regular file: each write starts at
                           its offset 0 and sets its size */
  bool refused;         /* FILE is a symbolic link not followed, as
                           follow.h's rule says (errno EACCES) */
};

/* Learn what FILE stands for, into *W, without changing anything.
   Return true, or false with errno: ENOENT for an empty name, EISDIR
   for a directory (or a new name ending in '/'), EACCES with W->refused
   for a symbolic link another user may have planted (follow.h), or why
   FILE's directory cannot be opened.  */
bool whole_prepare (struct whole *w, char const *file);

/* Get ready to write, before any copy: open a node written into (a
   FIFO waits for its reader here; a regular file is emptied), or make
   and remove a hidden file beside a file replaced.  Return true, or
   false with errno (W->refused as whole_prepare says).  */
bool whole_begin (struct whole *w);

/* Write the LEN bytes of TEXT as W's new contents (on stable storage,
   with the name, with SYNC).  Return true, or false with errno and, for
   a replaced file, nothing changed.  Begins W first if need be.  */
bool whole_write (struct whole *w, char const *text, size_t len,
                  bool sync);

/* PATH below DIR (both absolute, without dots or links): the rest of
   PATH, or NULL when it is not below.  */
char const *whole_below (char const *path, char const *dir);

/* Close and free what W holds.  */
void whole_free (struct whole *w);

/* Until whole_disarm, a fatal signal writes TEXT (LEN bytes, copied) to
   W before the process dies: the three bytes at STATUS_AT become 128 +
   the signal's number, and the two at SIGNAL_AT the number itself
   (right-aligned, space-padded).  One report at a time; W must outlive
   the arming.  */
void whole_arm (struct whole const *w, char const *text, size_t len,
                size_t status_at, size_t signal_at);

/* The next fatal signal writes nothing.  Call with the fatal signals
   held, before the last write.  */
void whole_disarm (void);

/* Called from the fatal signal handler with the signal SIG: write the
   armed report, with async-signal-safe calls only.  */
void whole_on_fatal_signal (int sig);

#endif
