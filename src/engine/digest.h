/* --checksum-file inside the engine: the hash of a file's data as it is
   read, in file order, though the pieces of a direct copy are read and
   written out of order.  Internal to the engine; the cp layer sees
   struct engine_digest (engine.h).

   Each piece handed out is "pending" until the worker that wrote it
   hashes it.  A worker hashes its piece when every byte before it has
   been hashed (holes the copy skipped are hashed as zeros); until then
   it waits, holding its buffer, but only while a piece before its own is
   pending, since only then will the gap close.  Otherwise (a piece
   refused and left for the next plan, a piece done twice) the order is
   lost: hashing stops there, and at the end the rest is read back from
   the destination, which is what the hash must describe.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_DIGEST_H
#define CP8M_DIGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "engine.h"

/* Start D over for a new file.  Return false when memory runs out.  */
bool digest_begin (struct engine_digest *d);

/* The chunker skipped [OFF, OFF + LEN), a hole: it hashes as zeros.  */
void digest_hole (struct engine_digest *d, off_t off, off_t len);

/* The piece at OFF was handed out to be copied.  */
void digest_pending (struct engine_digest *d, off_t off);

/* The piece handed out at OFF is done: LEN bytes of BUF are what was
   written there (0 if it failed).  Hash them in their turn.  */
void digest_piece (struct engine_digest *d, off_t off, char const *buf,
                   off_t len);

/* The copy ended with the destination SIZE bytes long: hash the holes
   at its end, and say whether the hash covers it all in order (if not,
   digest_end must read the destination back).  */
bool digest_complete (struct engine_digest *d, off_t size);

/* Finish D->hex for a destination SIZE bytes long, reading what the hash
   lacks from READ_FD (through BUF, of BUF_SIZE bytes) where
   digest_complete said so.  Return false with errno when it cannot.  */
bool digest_end (struct engine_digest *d, off_t size, int read_fd,
                 char *buf, size_t buf_size);

#endif
