/* The cp8M data engine: moves the bytes of one file between two open
   descriptors.

   The engine is a library.  It never sees a path, never prints, never
   exits and has no mutable globals; the cp layer opens the descriptors,
   decides what to copy and turns an engine_result into messages.  Its
   buffers belong to one engine_ctx per process, allocated on first use,
   so a tree of tiny files pays for them once.

   Per file it plans, then executes (plan.c, exec.c; src/README tells
   the story).  A plan (struct engine_plan) is every choice for a range
   of the file, each with its reason: the method (copy_file_range when
   --reflink allows, direct I/O when asked or worth it, buffered I/O, or
   a stream read until it ends), the I/O size and the I/Os in flight,
   the alignment, what becomes of holes, whether space is reserved first,
   whether the piece that ends the file waits for the others, and what
   the copy leaves in the page cache.  One executor runs any plan.  When
   the kernel refuses (copy_file_range not here, direct I/O refused at
   open, read or write) or a direct copy leaves an unaligned tail, a new
   plan is made for what is left: no flag is checked along the way.
   Holes, as GNU cp 9.11 handles them: a regular source allocated less
   than its size has its data extents found with SEEK_DATA/SEEK_HOLE; a
   regular destination gets the holes back (unless sparse=never), any
   other gets zeros written for them.  sparse=always into a regular file
   also leaves each all-zero block as a hole, streams included.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_ENGINE_H
#define CP8M_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The default sizes and why: part of the interface, since the cp layer
   builds its defaults and limits from them.  */
#include "iosizes.h"

struct engine_ctx;

/* A live count of the data bytes written to destinations, for a progress
   display: the cp layer owns it and reads it from another thread while
   the engine adds each piece as it reaches a destination (every chunk of
   a large file, not only whole files).  Holes left as holes are not
   counted; zeros written for them are.  */
struct engine_meter
{
  _Atomic unsigned long long written;
  _Atomic unsigned long long verified;  /* read back by engine_verify */
  /* --bwlimit: the bytes a second all writes of the run may take
     together, 0 for no limit.  The cp layer may change it at any time
     (a running copy given a new limit): each write reads it afresh.  */
  _Atomic uintptr_t limit;
  _Atomic long long next_ns;  /* the engine's: when the next byte may go */
};

/* Fixed for the life of a context, but that the buffers get smaller (and
   fewer are in flight) when an allocation fails: the cp layer sizes
   them to the memory it may use, and an allocation that still fails
   costs speed, never the copy.  */
struct engine_config
{
  size_t buffer_size;        /* bytes per I/O; rounded up to 4096 */
  unsigned int queue_depth;  /* direct I/Os in flight, 1..ENGINE_MAX_DEPTH */
  struct engine_meter *meter;  /* added to as data is written, or NULL */
};
enum { ENGINE_MAX_DEPTH = 64 };

/* When memory runs short, buffers are halved down to this size (or the
   size asked for, if smaller) before a copy fails with ENOMEM.  */
enum { ENGINE_MIN_BUFFER = 1024 * 1024 };

enum engine_direct { ENGINE_DIRECT_AUTO, ENGINE_DIRECT_ALWAYS,
                     ENGINE_DIRECT_NEVER };
enum engine_sparse { ENGINE_SPARSE_AUTO, ENGINE_SPARSE_ALWAYS,
                     ENGINE_SPARSE_NEVER };
enum engine_reflink { ENGINE_REFLINK_NEVER, ENGINE_REFLINK_AUTO,
                      ENGINE_REFLINK_ALWAYS };

/* --checksum-file: the hash of a file's data, as the copy read it.  */
enum engine_hash { ENGINE_HASH_SHA256, ENGINE_HASH_XXH3 };
struct engine_digest
{
  enum engine_hash hash;  /* the caller's choice (XXH3 only with
                             libxxhash: engine_hash_library) */
  char hex[65];           /* the result in hexadecimal, set when
                             engine_copy succeeds */
  bool read_back;         /* part of it came from reading the
                             destination back (the order was lost) */
  int err;                /* why HEX is empty after a copy that
                             succeeded (the destination could not be
                             read back), or 0 */
  struct digest_state *state;  /* the engine's */
};

/* The code this build makes HASH with ("libnettle", "gnulib",
   "libxxhash"), or NULL when it cannot make it.  */
char const *engine_hash_library (enum engine_hash hash);

/* How this build asks for direct I/O ("O_DIRECT", "directio",
   "F_NOCACHE"), or NULL when it has no way: for --version.  */
char const *engine_dio_method (void);

/* Free what the engine keeps in D (its state, reused from file to
   file until then).  */
void engine_digest_free (struct engine_digest *d);

/* What the caller asks for one file.  */
struct engine_request
{
  enum engine_direct direct;
  enum engine_sparse sparse;
  enum engine_reflink reflink;
  bool in_place;   /* DST_FD is a file others can see under its name (an
                      existing destination overwritten in place): its
                      size stays below the source's until every byte is
                      written.  False for a file no name reaches yet.  */
  bool verify;     /* record what is read for engine_verify (--verify) */
  bool report_changes;  /* fill engine_result.src_changed (one fstat more
                           per file: for --debug, --stats, --verify) */
  struct engine_digest *digest;  /* hash the data as it is read, or NULL;
                      no clone nor copy_file_range then, which would
                      move data that cp8M does not see */
  struct stat const *src_st, *dst_st;  /* the caller's fstat of SRC_FD
                      and DST_FD, taken since they were opened (DST_FD's
                      before anything was written to it), or NULL: the
                      engine takes its own (a tree of small files spares
                      a system call per file) */
  char const *reflink_why;  /* why REFLINK is never, in words for --debug
                      ("--sparse=never"), or NULL: "--reflink=never" */
};

/* Which side an error came from.  */
enum engine_side
{
  ENGINE_SIDE_NONE,    /* no error, or tied to neither file (ENOMEM) */
  ENGINE_SIDE_READ,    /* the source */
  ENGINE_SIDE_WRITE,   /* the destination */
  ENGINE_SIDE_CLONE,   /* FICLONE failed: --reflink=always, or an I/O
                          error, a full disk or quota */
  ENGINE_SIDE_OFFLOAD  /* copy_file_range failed other than by refusing */
};

/* What --debug's first line is made of: facts recorded as the copy went,
   in the terms of GNU cp 9.11's model of a regular file's copy.  All
   zero (with REFLINK_ALLOWED set) is the state before any data moved.  */
enum engine_clone
{
  ENGINE_CLONE_NOT_TRIED,
  ENGINE_CLONE_DONE,      /* FICLONE made the copy */
  ENGINE_CLONE_REFUSED,   /* not possible for this pair of files */
  ENGINE_CLONE_FAILED     /* a real error (EIO, ENOSPC...): the copy failed */
};
enum engine_scan
{
  ENGINE_SCAN_NONE,       /* the data copy did not begin */
  ENGINE_SCAN_PLAIN,      /* the source read from start to end */
  ENGINE_SCAN_LSEEK       /* its data extents found with SEEK_DATA/SEEK_HOLE */
};
enum engine_offload
{
  ENGINE_OFFLOAD_NONE,    /* no copy_file_range call settled anything */
  ENGINE_OFFLOAD_MOVED,   /* copy_file_range moved data */
  ENGINE_OFFLOAD_FAILED   /* its last call failed: refused (the data
                             went through read and write instead), or
                             an error that failed the copy */
};
struct engine_facts
{
  bool reflink_allowed;   /* the request's reflink is not never */
  enum engine_clone clone;
  enum engine_scan scan;
  bool zero_detect;       /* all-zero blocks were left as holes */
  bool ran;               /* the copy loop ran: always for a plain scan;
                             with SEEK_DATA, only if there is data */
  enum engine_offload offload;
};

/* How a range of a file is copied.  */
enum engine_method
{
  ENGINE_COPY_OFFLOAD,   /* copy_file_range: the file system moves it */
  ENGINE_COPY_DIRECT,    /* direct I/O, several pieces in flight */
  ENGINE_COPY_BUFFERED,  /* read and write through the page cache */
  ENGINE_COPY_STREAM     /* read at the position until end of file */
};

/* Why a plan follows the one before it.  */
enum engine_then
{
  ENGINE_THEN_FIRST,     /* it is the first */
  ENGINE_THEN_REFUSED,   /* the kernel refused the one before (WHY) */
  ENGINE_THEN_TAIL,      /* the unaligned end of a direct copy */
  ENGINE_THEN_REST       /* copy_file_range stopped part way */
};

/* One plan: every choice for a range, with its reason (static strings
   in words for --debug), and what it moved.  */
struct engine_plan
{
  enum engine_method method;
  enum engine_then then;
  char const *why;          /* why this method */
  int why_errno;            /* errno behind WHY (a refusal), or 0 */
  off_t from;               /* where it starts */
  bool to_end;              /* it reads until the source says end of file
                               (false: it stops at the size, or at the
                               alignment's last multiple) */
  size_t io_size;           /* bytes per read and write */
  off_t data;               /* bytes the plan expects to write: the
                               data, and the zeros written for holes
                               (-1: a stream's, not known) */
  unsigned int depth;       /* pieces in flight */
  char const *depth_why;
  char const *dio;          /* direct: "O_DIRECT", "directio", "F_NOCACHE" */
  unsigned int mem_align, offset_align;  /* direct: what the system asks */
  char const *align_from;   /* "statx", "block device", "default" */
  unsigned int align;       /* direct: pieces start at multiples of it */
  bool seek_holes;          /* the source's extents found with SEEK_DATA */
  bool make_holes;          /* its holes stay holes in the destination */
  bool zero_detect;         /* all-zero blocks become holes too */
  char const *holes_why;
  bool prealloc;            /* space reserved before any data moves */
  char const *prealloc_why;
  bool hold_last;           /* the piece that ends the file is written
                               after all the others */
  bool dontcache_reads, dontcache_writes;  /* RWF_DONTCACHE */
  bool dontcache_refused;   /* the kernel has no RWF_DONTCACHE */
  char const *cache_why;
  char const *caveat;       /* direct, but the file system caches anyway */
  bool sync;                /* fdatasync when done (a direct copy's tail) */
  off_t bytes;              /* data bytes it wrote */
};
enum { ENGINE_MAX_PLANS = 3 };  /* copy_file_range, direct, the rest */

/* How the data moved, for --debug, --stats and tests.  */
struct engine_report
{
  struct engine_facts facts;
  bool offloaded;          /* FICLONE or copy_file_range moved it all */
  struct engine_plan plans[ENGINE_MAX_PLANS];  /* in the order they ran */
  unsigned int n_plans;    /* 0: cloned, or failed before any plan */
  size_t buffer_size;
  bool short_of_memory;    /* an allocation failed: fewer or smaller
                              buffers than configured */
  /* Why neither FICLONE nor copy_file_range moved the data, or why
     copy_file_range stopped before its end (static words for --debug:
     "--reflink=never", "copy_file_range refused"), with the errno
     behind it or 0; NULL when one of them moved it all.  */
  char const *offload_why;
  int offload_errno;
};

/* The direct plan of REP, if any ran, else NULL; and in *FELL_BACK
   (unless FELL_BACK is NULL) whether a refusal ended it before all its
   range was copied.  */
struct engine_plan const *engine_direct_plan (struct engine_report const *rep,
                                              bool *fell_back);

/* What engine_copy returns.  */
struct engine_result
{
  off_t bytes;                /* data bytes written to the destination */
  int err;                    /* errno of the failure, 0 on success */
  enum engine_side side;      /* where ERR happened */
  bool src_changed;           /* the source's size or mtime changed while
                                 it was copied (not a failure: the copy
                                 went on to its end of file); looked at
                                 only when the request asks */
  struct engine_report report;
};

/* Create a context for CFG.  Nothing large is allocated yet.  Return NULL
   with errno set on failure (EINVAL for a zero buffer or bad depth).  */
struct engine_ctx *engine_ctx_new (struct engine_config const *cfg);

/* Free CTX and its buffers.  CTX may be NULL.  */
void engine_ctx_free (struct engine_ctx *ctx);

/* The rounded buffer size CTX uses for every I/O.  */
size_t engine_buffer_size (struct engine_ctx const *ctx);

/* How many buffers CTX has allocated so far: for tests.  */
unsigned int engine_buffer_allocations (struct engine_ctx const *ctx);

/* The bytes of buffers CTX holds.  Buffers are kept until
   engine_ctx_free, so this is also the most it held (--stats).  */
size_t engine_buffer_bytes (struct engine_ctx const *ctx);

/* Whether the first SIZE bytes of the file open as FD are all in the
   page cache already, by cachestat(2), which moves no access time
   (false when it cannot tell: before Linux 6.5, or for a file the
   kernel will not report on).  */
bool engine_all_cached (int fd, off_t size);

/* Copy the file open as SRC_FD (read from its start when it is a regular
   file, from its current position when it is a stream) to DST_FD, which
   the caller opened for writing and truncated (or created).  Both stay
   the caller's to close.  Reads go on until end of file, as GNU cp's do:
   a source that grows while it is copied is copied to its new end, one
   that shrinks ends where it ended (RES->src_changed says so).  With
   REQ->in_place, DST_FD stays shorter than the source until the copy is
   complete: an interrupted copy never looks whole.  Fill *RES; return
   true on success, false with RES->err and RES->side set on failure
   (errors closing the descriptors the engine opened itself included).  */
bool engine_copy (struct engine_ctx *ctx, int src_fd, int dst_fd,
                  struct engine_request const *req,
                  struct engine_result *res);

/* What engine_verify found.  Strings are static.  */
struct engine_verify_result
{
  bool checked;          /* the destination was read back and compared */
  char const *how;       /* "xxh3" or "byte by byte" */
  char const *how_why;   /* why byte by byte ("built without libxxhash",
                            "data cloned or offloaded"...), or NULL */
  bool direct;           /* read back with direct I/O */
  char const *note;      /* why not checked, or why the page cache may
                            have answered (buffered re-read), or NULL */
  int note_errno;        /* errno behind NOTE, or 0 */
  off_t mismatch_at;     /* where the first piece that differs begins
                            (the copy is good below it), or -1 */
  int err;               /* errno of a read error, 0 otherwise */
  enum engine_side side; /* READ: re-reading the source; WRITE: reading
                            the destination back; NONE with a false
                            return: the check could not be made (ERR, or
                            NOTE when there is no errno) */
};

/* How engine_verify opens the destination for reading where it cannot
   do so by itself: Linux's second open through /proc/self/fd is missing
   (another system, or /proc not mounted), and only the caller knows the
   file's name; or that open is not allowed (a mode that lets the owner
   only write), and the caller may have created the file open for
   reading too.  OPEN (ARG) returns a new descriptor of the destination
   open for reading (its own open, or a copy of a descriptor that reads),
   or -1 with errno set.  The engine makes sure it is the destination's
   file (same device and inode as DST_FD), sets the system's direct-I/O
   switch on it for the check only, and closes it.  */
struct engine_reader
{
  int (*open) (void *arg);
  void *arg;
};

/* Check the copy engine_copy last made with REQ->verify set: read the
   destination DST_FD back (a second, direct descriptor where the file
   system allows it: through /proc/self/fd on Linux, else from READER,
   which may be NULL) and compare it with the hashes taken of what was
   read from SRC_FD, or, where there are none (no libxxhash, data cloned
   or offloaded), with SRC_FD itself byte by byte.  The destination's
   size must be the one the copy gave it and the source's holes must read
   as zeros.  Fill *VR.  Return true when the copy matched, or when the
   destination is no regular file (a pipe or device: not checked, and
   VR->note says so); false on a mismatch (VR->mismatch_at >= 0), a read
   error (VR->err, VR->side), or when the check could not be made
   (VR->side NONE: the destination could not be opened for reading, no
   memory, or a stream source without hashes).  */
bool engine_verify (struct engine_ctx *ctx, int src_fd, int dst_fd,
                    struct engine_reader const *reader,
                    struct engine_verify_result *vr);

#endif
