/* The stand-in build's directio (): Solaris's call, recorded instead of
   made (Linux has no such advice).  It refuses with the errno the test
   sets, as a file system without direct I/O (ZFS) says ENOTTY.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "standin.h"

#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>

struct standin_log standin;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

bool
standin_record (enum standin_what what, int fd, long arg, off_t off,
                size_t len)
{
  struct stat st;
  ino_t ino = fd >= 0 && fstat (fd, &st) == 0 ? st.st_ino : 0;
  pthread_mutex_lock (&lock);
  if (standin.n < STANDIN_LOG_MAX)
    standin.calls[standin.n++] = (struct standin_call) { what, ino, arg,
                                                          off, len };
  bool refuse = (what == STANDIN_DIRECTIO || what == STANDIN_NOCACHE)
                && standin.refuse_ino && ino == standin.refuse_ino;
  int err = standin.refuse_errno;
  pthread_mutex_unlock (&lock);
  if (refuse)
    errno = err;
  return refuse;
}

int directio (int fildes, int advice);

int
directio (int fildes, int advice)
{
  return standin_record (STANDIN_DIRECTIO, fildes, advice, 0, 0) ? -1 : 0;
}
