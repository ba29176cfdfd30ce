/* The run's count of bytes written, and the bandwidth limit that paces
   those writes (struct engine_meter, engine.h).  Internal to the engine.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_METER_H
#define CP8M_METER_H

#include <stddef.h>
#include <sys/types.h>

#include "engine.h"

/* Add N bytes just written to METER (which may be NULL).  */
void meter_add (struct engine_meter *meter, off_t n);

/* Wait until N more bytes may be written under METER's limit (none when
   METER is NULL or its limit is 0).  */
void meter_pace (struct engine_meter *meter, off_t n);

/* The size of the pieces to move at most MAX bytes at a time under
   METER's limit: a multiple of ALIGN (at least ALIGN), small enough
   that a second holds many of them.  */
off_t meter_piece (struct engine_meter *meter, off_t max, off_t align);

#endif
