/* Planning and executing one file's copy: what engine.c, plan.c and
   exec.c share.  Internal to the engine.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_PLAN_H
#define CP8M_PLAN_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "engine.h"
#include "pipeline.h"
#include "verify.h"

/* Devices that refused direct I/O, so later files on them do not ask
   again.  A handful is plenty: a copy touches few devices.  */
enum { REFUSED_MAX = 16 };

struct engine_ctx
{
  struct engine_config cfg;
  char *buffers[ENGINE_MAX_DEPTH];  /* allocated on first need */
  bool buffer_mapped[ENGINE_MAX_DEPTH];  /* for buffer_free */
  size_t buffer_align;
  size_t huge_page;      /* buffer_huge_size, read with the first buffer */
  unsigned int allocations;
  bool short_of_memory;  /* an allocation failed: fewer or smaller buffers */
  struct { dev_t dev; char const *op; int err; } refused[REFUSED_MAX];
  int n_refused;
  struct verify_rec verify;  /* what the last copy read, for --verify */
};

/* Everything one file's copy needs to know.  */
struct file_copy
{
  struct engine_ctx *ctx;
  struct engine_request const *req;
  int src_fd, dst_fd;     /* plain descriptors */
  struct stat src_st, dst_st;
  bool stream;            /* the source is read at its position */
  bool sequential;        /* the destination cannot seek: write in order */
  bool no_data;           /* SEEK_DATA found none: the source is all holes */
  struct chunker chunks;  /* what is left to copy */
  off_t ended_at;         /* where the source said end of file, or -1 */
  struct engine_result *res;
};

/* Record a failure of *RES on SIDE with ERR; return false.  */
static inline bool
engine_fail (struct engine_result *res, enum engine_side side, int err)
{
  res->side = side;
  res->err = err;
  return false;
}

/* Make the first plan for FC's data, and set up FC->chunks for it.  A
   plan's depth is what it wants: the buffers for it are the caller's
   to find (engine.c), which may lower it.  */
void plan_file (struct file_copy *fc, struct engine_plan *plan);

/* Make the plan for what FC->chunks still holds after PREV, which ended
   for the reason THEN (with WHY and ERR for a refusal).  */
void plan_rest (struct file_copy *fc, struct engine_plan const *prev,
                struct engine_plan *plan, enum engine_then then,
                char const *why, int err);

/* Remember that the device DEV refused direct I/O at OP with ERR.  */
void plan_refused (struct engine_ctx *ctx, dev_t dev, char const *op,
                   int err);

/* What exec_plan says.  */
enum exec_end { EXEC_FAILED, EXEC_DONE, EXEC_NEXT };

/* Run PLAN over FC->chunks.  EXEC_NEXT: what is left needs another plan,
   made by plan_rest (exec_plan has made it in *NEXT).  */
enum exec_end exec_plan (struct file_copy *fc, struct engine_plan *plan,
                         struct engine_plan *next);

#endif
