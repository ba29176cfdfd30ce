/* I/O sizes: why cp8M moves data in 8 MiB pieces.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_IOSIZES_H
#define CP8M_IOSIZES_H

/* Default size of one read or write: 8 MiB.

   Direct-I/O storage (Solaris forcedirectio, NFS, Linux O_DIRECT) does no
   read-ahead and no write-behind, so every system call is one round trip
   to the device; 4-256 KiB requests, as stock tools use, leave it idle
   most of the time.  8 MiB requests amortise that latency on every device
   we care about, are a multiple of any direct-I/O alignment in practice
   (512 B to 64 KiB), and keep the memory bill small (one buffer per I/O in
   flight).  Larger buffers buy nothing measurable here.

   Measured on the reference machine (2 cores, virtio disk cached by the
   host, ext4, Linux 6.18), 1 GiB random file, caches dropped before each
   run, 5 rounds interleaved, median wall time, buffered read/write loop
   (the foundation engine), as a ratio of the 8 MiB time:

     buffer   128 KiB  1 MiB  8 MiB  32 MiB
     wall      see bench/buffer-sizes.md (bench/buffer-sizes)

   The direct-I/O engine's own table (queue depth x buffer size) lives
   beside its pipeline.  */
enum { CP8M_DEFAULT_BUFFER_SIZE = 8 * 1024 * 1024 };

/* --buffer-size may not exceed this: Linux moves at most 2 GiB - 4 KiB in
   one read or write, and the pipeline multiplies the buffer by the queue
   depth.  */
enum { CP8M_MAX_BUFFER_SIZE = 1024 * 1024 * 1024 };

/* Offsets and lengths of direct I/O are kept multiples of this.  Every
   filesystem here accepts 512-byte alignment, but ext4 and xfs serialise
   sub-block (512-byte aligned) direct writes, so 4096 is the unit.  */
enum { CP8M_IO_ALIGN = 4096 };

#endif
