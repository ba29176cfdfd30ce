/* --checksum-file: one line per regular file copied, in the format
   sha256sum -c (or xxhsum -c, for --checksum=xxh3) checks, naming each
   copy as it will be found from the checksum file's directory.  The
   hashes come from the engine (engine_digest), taken as the data was
   read: no file is read twice for them.  Written whole at the end (a
   temporary beside FILE, renamed over it).  Part of the cp layer.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_MANIFEST_H
#define CP8M_MANIFEST_H

#include <stdbool.h>
#include <sys/types.h>

#include "engine/engine.h"
#include "whole.h"

struct manifest;

/* Start the checksum file W (prepared, checked against the run's files
   and begun: report.h) for hashes of kind HASH, before any copy; exit
   with a message if its directory cannot be found.  W must outlive
   the manifest.  */
struct manifest *manifest_start (struct whole *w, enum engine_hash hash);

/* The copy DST (named as messages name it) of the source file whose
   device and inode are DEV and INO has the hash HEX.  M may be NULL.  */
void manifest_add (struct manifest *m, dev_t dev, ino_t ino,
                   char const *dst, char const *hex);

/* DST was made a hard link to the copy of the source file DEV/INO
   (--preserve=links): it gets that copy's line, if it has one.  */
void manifest_link (struct manifest *m, dev_t dev, ino_t ino,
                    char const *dst);

/* Write the file (flushed with SYNC) and free M.  Return true, or false
   after a message.  M may be NULL.  */
bool manifest_finish (struct manifest *m, bool sync);

#endif
