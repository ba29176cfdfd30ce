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
  struct whole *w;      /* the file, prepared and begun */
  char *real_dir;       /* its directory, absolute, without symbolic
                           links: the names are relative to it */
  char *last_dir;       /* the directory of the last copy listed, as
                           named, */
  char *last_real;      /* and the same without symbolic links */
  enum engine_hash hash;
  struct seen *hashes;  /* source file (dev, ino) -> its copy's hash, for
                           later names made hard links */
  char *text;           /* the lines so far */
  size_t len, alloc;
};

struct manifest *
manifest_start (struct whole *w, enum engine_hash hash)
{
  struct manifest *m = xzalloc (sizeof *m);
  m->w = w;
  m->hash = hash;
  /* Standard output's list is read from where the run was started.  */
  char *dir = w->kind == WHOLE_STDOUT ? xstrdup (".") : dir_name (w->file);
  m->real_dir = realpath (dir, NULL);
  if (!m->real_dir)
    error (EXIT_FAILURE, errno, "cannot create checksum file %s",
           quote_file (w->file));
  free (dir);
  m->hashes = seen_new ();
  return m;
}

/* DST's real name: its directory's, without symbolic links or dots (so
   that "link/../g" is where the kernel put it), and its last component.
   Asked of the system once for the files of one directory.  */
static char *
real_name (struct manifest *m, char const *dst)
{
  char *dir = dir_name (dst);
  if (!m->last_dir || strcmp (dir, m->last_dir) != 0)
    {
      free (m->last_dir);
      free (m->last_real);
      m->last_dir = dir;
      /* NULL if it went away meanwhile: the name is then as given.  */
      m->last_real = realpath (dir, NULL);
    }
  else
    free (dir);
  if (!m->last_real)
    return canonicalize_filename_mode (dst, CAN_MISSING | CAN_NOLINKS);
  return file_name_concat (m->last_real, last_component (dst), NULL);
}

/* Append the line for the copy DST, of hash HEX.  */
static void
add_line (struct manifest *m, char const *dst, char const *hex)
{
  char *abs = real_name (m, dst);
  if (!abs)
    xalloc_die ();   /* the one failure left with CAN_MISSING */
  char const *name = whole_below (abs, m->real_dir);
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
  bool ok = whole_write (m->w, m->text ? m->text : "", m->len, sync);
  if (!ok)
    error (0, errno, "cannot write checksum file %s",
           quote_file (m->w->file));
  seen_free (m->hashes);
  free (m->text);
  free (m->real_dir);
  free (m->last_dir);
  free (m->last_real);
  free (m);
  return ok;
}
