/* Copying one operand: the per-file policy between the command line and
   the engine.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_NODE_H
#define CP8M_NODE_H

#include <stdbool.h>

#include "engine.h"
#include "options.h"

/* A destination, addressed as the *at() calls want it.  */
struct node_dest
{
  int dirfd;          /* directory RELNAME is looked up in, or AT_FDCWD */
  char const *relname;
  char const *shown;  /* the name messages use: "DIR/BASE" or DEST as given */
};

/* Copy the file named SRC to DST as options O say, moving its data with
   ENG.  Report any failure on stderr in GNU's words and return false;
   never exit.  */
bool node_copy (struct cp8m_options const *o, struct engine_ctx *eng,
                char const *src, struct node_dest const *dst);

#endif
