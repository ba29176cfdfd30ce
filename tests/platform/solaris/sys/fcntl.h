/* Stand-in for Solaris's <sys/fcntl.h>, for make platform-check's build
   of the directio() path on Linux: Linux's header, plus what Solaris
   declares for direct I/O.  directio () itself is the recording fake in
   tests/platform/standin.c.  */
#include_next <sys/fcntl.h>

#ifndef CP8M_STANDIN_SOLARIS_FCNTL
#define CP8M_STANDIN_SOLARIS_FCNTL

/* Solaris's advice values.  */
#define DIRECTIO_OFF 0
#define DIRECTIO_ON 1

int directio (int fildes, int advice);

#endif
