/* What the stand-in direct-I/O calls of make platform-check saw: a log
   shared by the fake directio () (standin.c, linked into the stand-in
   build's programs) and tests/unit/unit-platform.c, which wraps fcntl,
   the opens and the reads and writes and records them here too.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_STANDIN_H
#define CP8M_STANDIN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum standin_what
{
  STANDIN_DIRECTIO,     /* directio (fd, ARG) */
  STANDIN_NOCACHE,      /* fcntl (fd, F_NOCACHE, ARG) */
  STANDIN_O_DIRECT,     /* an open or F_SETFL asking for Linux's O_DIRECT */
  STANDIN_READ,         /* a read of LEN bytes at OFF */
  STANDIN_WRITE         /* a write of LEN bytes at OFF */
};

struct standin_call
{
  enum standin_what what;
  ino_t ino;            /* the file, or 0 when unknown */
  long arg;
  off_t off;
  size_t len;
};

enum { STANDIN_LOG_MAX = 8192 };

struct standin_log
{
  int n;
  struct standin_call calls[STANDIN_LOG_MAX];
  int refuse_errno;     /* the direct-I/O call fails with this ... */
  ino_t refuse_ino;     /* ... for this file (0: none) */
};

extern struct standin_log standin;

/* Record a call on FD; return true when it is to be refused (errno
   set).  Thread-safe.  */
bool standin_record (enum standin_what what, int fd, long arg, off_t off,
                     size_t len);

#endif
