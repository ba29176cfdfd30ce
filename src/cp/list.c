/* --files-from=FILE: source operands read from a list (list.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "list.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "error.h"
#include "xalloc.h"

struct name_list
{
  FILE *f;
  char const *file;      /* as given: "-" for standard input */
  char end;              /* what ends a name: '\n' or '\0' */
  char *buf;             /* the current name (getdelim's buffer) */
  size_t size;
  uintmax_t entry;       /* the current entry's number, from 1 */
  bool ok;               /* no entry reported so far */
};

struct name_list *
list_open (char const *file, bool nul)
{
  bool std = strcmp (file, "-") == 0;
  /* FILE: the user's operand, absolute or relative to the working
     directory.  */
  FILE *f = std ? stdin : fopen (file, "re");
  if (!f)
    error (EXIT_FAILURE, errno, "cannot open %s for reading",
           quote_file (file));
  struct name_list *l = xzalloc (sizeof *l);
  *l = (struct name_list) { .f = f, .file = file, .end = nul ? '\0' : '\n',
                            .ok = true };
  return l;
}

/* Report the current entry of L: FORMAT with one name, and ERR's text
   if ERR is not 0.  */
static void
bad_entry (struct name_list *l, int err, char const *what,
           char const *name)
{
  l->ok = false;
  if (name)
    error (0, err, "%s:%ju: %s %s", quote_file_if_needed (l->file),
           l->entry, what, quote_file_n (1, name));
  else
    error (0, err, "%s:%ju: %s", quote_file_if_needed (l->file), l->entry,
           what);
}

ssize_t
list_read_name (FILE *f, char end, char **buf, size_t *size)
{
  ssize_t len = getdelim (buf, size, end, f);
  /* The last name may lack its end.  */
  if (len > 0 && (*buf)[len - 1] == end)
    (*buf)[--len] = '\0';
  return len;
}

char *
list_next (struct name_list *l)
{
  for (;;)
    {
      errno = 0;
      ssize_t len = list_read_name (l->f, l->end, &l->buf, &l->size);
      if (len < 0)
        {
          if (ferror (l->f))
            {
              /* The entry that could not be read is the next one.  */
              l->entry++;
              bad_entry (l, errno, "read error", NULL);
            }
          else if (errno == ENOMEM)
            xalloc_die ();
          return NULL;
        }
      l->entry++;
      if (len == 0)
        bad_entry (l, 0, "invalid zero-length file name", NULL);
      else if (strlen (l->buf) != (size_t) len)
        /* A newline-ended list that holds null bytes is likely find
           -print0's: say what it needs.  */
        bad_entry (l, 0, "file name holds a null byte (is this a list for"
                   " --null?)", NULL);
      else
        {
          /* Only to tell the entry's number with a name that names
             nothing; the copy looks again, by its own rules (-L, -H).
             The name is the user's, as an operand is: absolute, or
             relative to the working directory.  */
          struct stat st;
          if (fstatat (AT_FDCWD, l->buf, &st, AT_SYMLINK_NOFOLLOW) == 0)
            return l->buf;
          bad_entry (l, errno, "cannot stat", l->buf);
        }
    }
}

bool
list_close (struct name_list *l)
{
  bool ok = l->ok;
  if (l->f != stdin && fclose (l->f) != 0)
    ok = false;
  free (l->buf);
  free (l);
  return ok;
}
