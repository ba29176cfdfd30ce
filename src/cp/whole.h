/* Small report files written whole or not at all (--stats-file,
   --checksum-file): a hidden temporary beside the file, renamed over
   it.  Part of the cp layer.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_WHOLE_H
#define CP8M_WHOLE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether a file can be made beside FILE: one is made and removed.
   Return true, or false with errno.  */
bool whole_check (char const *file);

/* Replace FILE with the LEN bytes of TEXT, readable as the umask lets a
   new file be, on stable storage (and its name too) with SYNC.  Return
   true, or false with errno and nothing left but the old FILE.  */
bool whole_write (char const *file, char const *text, size_t len,
                  bool sync);

#endif
