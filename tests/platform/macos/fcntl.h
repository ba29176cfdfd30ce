/* Stand-in for macOS's <fcntl.h>, for make platform-check's build of the
   F_NOCACHE path on Linux: Linux's header, plus macOS's command number.
   A Linux kernel refuses it; tests/unit/unit-platform.c wraps fcntl ()
   and records it instead.  */
#include_next <fcntl.h>

#ifndef F_NOCACHE
# define F_NOCACHE 48
#endif
