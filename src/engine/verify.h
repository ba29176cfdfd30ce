/* --verify inside the engine: what a copy read, range by range, and the
   re-reading of the destination that checks it.  Internal to the engine;
   the cp layer sees only engine_verify (engine.h).

   The workers read chunks out of order, so one running hash over the
   file cannot be kept.  Instead each piece written gets its own record
   (offset, length, XXH3 of the bytes as they were read, before any write
   could change them).  The check reads the destination once from start
   to end and, per record, hashes what is there: pieces of the file that
   no record covers are holes the copy skipped, and must read as zeros.
   Data moved by FICLONE or copy_file_range never passed through our
   buffers; such a file (and any file when the build has no libxxhash) is
   compared with the source byte by byte instead.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_VERIFY_H
#define CP8M_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine.h"

/* One piece of the destination and the hash of what was read for it.  */
struct verify_range
{
  off_t off;
  off_t len;
  uint64_t hash;
};

/* What one file's copy recorded for engine_verify.  It lives in the
   engine context, so its array grows to the largest file and is reused
   (never allocated per file).  Writers serialise their calls (the
   pipeline holds its job's lock).  */
struct verify_rec
{
  bool active;          /* the last copy was asked to record */
  bool hashing;         /* records carry hashes (built with libxxhash) */
  char const *by_source;  /* non-NULL: compare with the source byte by
                             byte, for this reason */
  off_t size;           /* the size the copy gave the destination, or -1 */
  struct verify_range *ranges;
  size_t n, cap;
};

/* True when this build hashes (libxxhash).  */
bool verify_hashing (void);

/* The hash of the LEN bytes at BUF (0 without libxxhash).  */
uint64_t verify_hash (char const *buf, size_t len);

/* Begin the record of a new copy in REC: ACTIVE says whether --verify
   wants one at all.  Keeps the array for reuse.  */
void verify_rec_start (struct verify_rec *rec, bool active);

/* The copy's piece [OFF, OFF + LEN) holds bytes that hashed to HASH.
   When the array cannot grow, REC falls back to a byte-by-byte check.  */
void verify_rec_add (struct verify_rec *rec, off_t off, off_t len,
                     uint64_t hash);

/* Some data did not pass through the engine's buffers (WHY says how it
   moved): the check compares with the source.  */
void verify_rec_by_source (struct verify_rec *rec, char const *why);

/* Free REC's array.  */
void verify_rec_free (struct verify_rec *rec);

/* What a check needs besides the record: the descriptors and the
   context's buffers.  */
struct verify_io
{
  int src_fd;          /* plain descriptor of the source */
  int dst_fd;          /* the caller's (write-only) destination */
  struct engine_reader const *reader;  /* opens it by name, or NULL */
  char *buf;           /* a buffer of BLOCK bytes for the destination */
  char *src_buf;       /* one of BLOCK bytes for the source */
  size_t block;        /* bytes per read: a multiple of 512 */
  size_t buffer_align; /* alignment of BUF */
  struct engine_meter *meter;  /* counts the bytes read back, or NULL */
};

/* Check the destination against REC, filling *VR, as engine_verify
   says (engine.h).  */
bool verify_run (struct verify_rec *rec, struct verify_io const *io,
                 struct engine_verify_result *vr);

#endif
