/* Diagnostics.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "diag.h"

#include <inttypes.h>
#include <stdio.h>

#include "error.h"

void
diag_engine_failure (struct engine_result const *res,
                     char const *src, char const *dst)
{
  switch (res->side)
    {
    case ENGINE_SIDE_READ:
      error (0, res->err, "error reading %s", quote_file (src));
      break;
    case ENGINE_SIDE_WRITE:
      error (0, res->err, "error writing %s", quote_file (dst));
      break;
    case ENGINE_SIDE_NONE:
      error (0, res->err, "cannot copy %s to %s",
             quote_file_n (0, src), quote_file_n (1, dst));
      break;
    }
}

/* SIZE in the largest binary unit that divides it: "8 MiB", "12 KiB".  */
static void
format_size (char *out, size_t outsize, size_t size)
{
  static char const *const units[] = { "bytes", "KiB", "MiB", "GiB" };
  int u = 0;
  while (u < 3 && size >= 1024 && size % 1024 == 0)
    {
      size /= 1024;
      u++;
    }
  snprintf (out, outsize, "%zu %s", size, units[u]);
}

void
diag_debug_line (struct engine_result const *res, size_t buffer_size)
{
  char size[32];
  format_size (size, sizeof size, buffer_size);
  /* GNU cp's three fields first, so scripts that parse them keep working:
     cp8M never offloads or reflinks unless asked, and does not look for
     holes yet.  */
  switch (res->method)
    {
    case ENGINE_METHOD_READ_WRITE:
      printf ("copy offload: avoided, reflink: avoided, "
              "sparse detection: no, data: read/write, %s buffer\n", size);
      break;
    }
}

void
diag_verbose (char const *src, char const *dst)
{
  printf ("%s -> %s\n", quote_file_n (0, src), quote_file_n (1, dst));
}
