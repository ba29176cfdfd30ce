/* I/O sizes: why cp8M moves data in 8 MiB pieces.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_IOSIZES_H
#define CP8M_IOSIZES_H

/* Default size of one read or write: 8 MiB.

   Direct-I/O storage (Solaris forcedirectio, NFS, Linux O_DIRECT) does no
   read-ahead and no write-behind, so every system call is one round trip
   to the device; 4-256 KiB requests, as stock tools use, leave it idle
   most of the time.  Arithmetic for a device streaming 800 MB/s behind a
   1 ms round trip (a NFS or SAN path): a 128 KiB request moves in 0.16 ms
   and waits 1 ms, so the device is busy 14 % of the time; an 8 MiB request
   moves in 10.5 ms, so it is busy 91 %.  8 MiB is also a multiple of any
   direct-I/O alignment in practice (512 B to 64 KiB) and keeps the memory
   bill small (one buffer per I/O in flight).

   Measured on the reference machine (bench/buffer-sizes, 2 cores, virtio
   disk cached by the host, ext4, Linux 6.18; 1 GiB random file, caches
   dropped before each run, 5 rounds interleaved, median wall time with a
   final sync, as a ratio to cp8M's 8 MiB time; full table in
   bench/buffer-sizes.md):

     block size                        128 KiB  1 MiB  8 MiB  32 MiB
     cp8M (buffered, one buffer)          1.05   0.95   1.00    1.05
     dd iflag=direct oflag=direct         1.32   1.15   1.17    1.03
     /bin/cp 9.1 (128 KiB)                                1.06

   Buffered copies here are within the noise at every size (the kernel's
   read-ahead and write-behind hide the request size).  Direct I/O with
   one request in flight pays for small requests (128 KiB: +32 %) and
   flattens out from 1 MiB on this host-cached disk; on storage with a real
   per-request latency (NFS, SAN) the knee moves up, which is why the
   default is 8 MiB rather than the 1 MiB that suffices here.  The
   direct-I/O engine re-measures this together with its queue depth.  */
enum { CP8M_DEFAULT_BUFFER_SIZE = 8 * 1024 * 1024 };

/* Default number of direct I/Os in flight (--queue-depth): 8 workers,
   each with its own 8 MiB buffer (64 MiB, allocated only when a large
   file is copied direct, and capped by the cp layer's memory budget: at
   most a quarter of the headroom of the process's cgroups and of
   MemAvailable: see budget.h).

   One direct request at a time leaves the device idle between a read and
   the following write; too many hurt a device that serves requests one
   after another.  Measured in issue 40 (bench/README, "What each
   mechanism buys"; 5 rounds, interleaved):
   - the simulated disk, iops profile (200 requests a second of at most
     1280 KiB; 512 MiB): 4 in flight 0.915 of the limit, 8 0.912, 12
     0.882, 24 0.698.  With 24, all 24 reads are split into requests
     that the throttle serves interleaved, so no chunk's read ends, and
     no write starts, until most of them are served; with 8 the first
     writes start early.  A disk that serves requests in order behaves
     alike;
   - bw profile (400 MiB/s): 4, 8, 12 and 24 within each other's range
     on both trees; ram profile: noise (30-50 % between rounds);
   - the real disk (bench/run, quick sizes): 4, 8 and 24 within each
     other's range on a cold 1 GiB file and both trees.
   In November this host's disk ranked 24 first (0.97 of the limit
   against 0.82 for 8; bench/queue-depth.md); in December it did not.
   8 rather than 4: no profile tells them apart, and a device with more
   internal parallelism (NVMe) than any here wants more than 4.
   --queue-depth raises it where a device is known to gain.

   Workers that each read and then write their own chunk were measured
   against separate reader and writer streams (8 readers and 8 writers
   over a ring of 24 buffers, the shape of fio's limit job), 3 rounds
   interleaved: workers 789-873 MiB/s, streams 756-835, fio 808-1062.  No
   gain from the split, so the simpler workers stay.  */
enum { CP8M_DEFAULT_QUEUE_DEPTH = 8 };

/* --buffer-size may not exceed this: Linux moves at most 2 GiB - 4 KiB in
   one read or write, and the pipeline multiplies the buffer by the queue
   depth.  */
enum { CP8M_MAX_BUFFER_SIZE = 1024 * 1024 * 1024 };

/* Offsets and lengths of direct I/O are kept multiples of this.  Every
   filesystem here accepts 512-byte alignment, but ext4 and xfs serialise
   sub-block (512-byte aligned) direct writes, so 4096 is the unit.  */
enum { CP8M_IO_ALIGN = 4096 };

#endif
