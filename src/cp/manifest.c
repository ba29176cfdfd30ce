/* The checksum file of --checksum-file (manifest.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "manifest.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canonicalize.h"
#include "diag.h"
#include "dirname.h"
#include "filenamecat.h"
#include "seen.h"
#include "whole.h"
#include "xalloc.h"

struct manifest
{
  char *file;           /* as the user gave it, for messages and rename */
  char *dir;            /* its directory, absolute, as written */
  char *real_dir;       /* the same with symbolic links resolved */
  char *cwd;            /* where relative destination names start */
  enum engine_hash hash;
  struct seen *hashes;  /* source file (dev, ino) -> its copy's hash, for
                           later names made hard links */
  char *text;           /* the lines so far */
  size_t len, alloc;
};

/* NAME made absolute from CWD, and "." and ".." taken out as words (no
   symbolic link is followed: the copy's names are words too).  Made
   absolute here, from the directory read once, so that canonicalize
   has nothing to ask the system.  */
static char *
absolute (char const *cwd, char const *name)
{
  char *whole = name[0] == '/' ? xstrdup (name)
                : file_name_concat (cwd, name, NULL);
  char *out = canonicalize_filename_mode (whole, CAN_MISSING | CAN_NOLINKS);
  free (whole);
  if (!out)
    xalloc_die ();   /* the one failure left with CAN_MISSING */
  return out;
}

/* PATH below DIR: the rest of it, or NULL.  */
static char const *
below (char const *path, char const *dir)
{
  size_t n = strlen (dir);
  if (n == 1)
    return path + 1;   /* DIR is "/" */
  return strncmp (path, dir, n) == 0 && path[n] == '/' ? path + n + 1 : NULL;
}

struct manifest *
manifest_start (char const *file, enum engine_hash hash,
                char *const *sources, int n, bool recursive)
{
  struct manifest *m = xzalloc (sizeof *m);
  m->file = xstrdup (file);
  m->hash = hash;
  /* glibc and musl allocate it (POSIX leaves a null buffer open).  */
  m->cwd = getcwd (NULL, 0);
  if (!m->cwd)
    error (EXIT_FAILURE, errno, "cannot get the current directory");
  char *abs = absolute (m->cwd, file);
  m->dir = dir_name (abs);
  free (abs);
  m->real_dir = realpath (m->dir, NULL);
  if (!m->real_dir || !whole_check (file))
    error (EXIT_FAILURE, errno, "cannot create checksum file %s",
           quote_file (file));
  /* Inside a directory being copied, the copy would take the file as
     it stood: refused, as GNU cp refuses to copy a directory into
     itself.  */
  for (int i = 0; recursive && i < n; i++)
    {
      struct stat st;
      char *src = stat (sources[i], &st) == 0 && S_ISDIR (st.st_mode)
                  ? realpath (sources[i], NULL) : NULL;
      if (src && (strcmp (src, m->real_dir) == 0
                  || below (m->real_dir, src)))
        error (EXIT_FAILURE, 0, "cannot write checksum file %s inside %s, "
               "which is being copied", quote_file_n (0, file),
               quote_file_n (1, sources[i]));
      free (src);
    }
  m->hashes = seen_new ();
  return m;
}

/* Append the line for the copy DST, of hash HEX.  */
static void
add_line (struct manifest *m, char const *dst, char const *hex)
{
  char *abs = absolute (m->cwd, dst);
  char const *name = below (abs, m->dir);
  if (!name)
    name = below (abs, m->real_dir);
  if (!name)
    name = abs;
  /* As sha256sum writes such names, and its -c reads them: the line
     starts with a backslash, and backslash, newline and carriage return
     are written \\, \n and \r.  */
  bool escape = strpbrk (name, "\\\n\r") != NULL;
  size_t need = 2 * strlen (name) + 96;
  if (m->alloc - m->len < need)
    {
      m->alloc = 2 * (m->len + need);
      m->text = xrealloc (m->text, m->alloc);
    }
  char *p = m->text + m->len;
  if (escape)
    *p++ = '\\';
  if (m->hash == ENGINE_HASH_XXH3)
    p = stpcpy (p, "XXH3 (");
  else
    p = stpcpy (stpcpy (p, hex), "  ");
  for (char const *s = name; *s; s++)
    if (escape && (*s == '\\' || *s == '\n' || *s == '\r'))
      {
        *p++ = '\\';
        *p++ = *s == '\\' ? '\\' : *s == '\n' ? 'n' : 'r';
      }
    else
      *p++ = *s;
  if (m->hash == ENGINE_HASH_XXH3)
    p = stpcpy (stpcpy (p, ") = "), hex);
  *p++ = '\n';
  m->len = p - m->text;
  free (abs);
}

void
manifest_add (struct manifest *m, dev_t dev, ino_t ino, char const *dst,
              char const *hex)
{
  if (!m)
    return;
  add_line (m, dst, hex);
  seen_forget (m->hashes, dev, ino);
  seen_remember (m->hashes, dev, ino, hex);
}

void
manifest_link (struct manifest *m, dev_t dev, ino_t ino, char const *dst)
{
  char const *hex = m ? seen_lookup (m->hashes, dev, ino) : NULL;
  if (hex)
    add_line (m, dst, hex);
}

bool
manifest_finish (struct manifest *m, bool sync)
{
  if (!m)
    return true;
  bool ok = whole_write (m->file, m->text ? m->text : "", m->len, sync);
  if (!ok)
    error (0, errno, "cannot write checksum file %s", quote_file (m->file));
  seen_free (m->hashes);
  free (m->text);
  free (m->file);
  free (m->dir);
  free (m->real_dir);
  free (m->cwd);
  free (m);
  return ok;
}
