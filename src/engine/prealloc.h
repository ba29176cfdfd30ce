/* Where to preallocate a destination no one can see yet: up to its final
   size, or past an end the writes then push out.  Part of the engine.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_PREALLOC_H
#define CP8M_PREALLOC_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/* What was found out about each destination device, so that a tree of
   files reads /proc/self/mountinfo once per device.  */
enum { PREALLOC_DEVICES = 16 };
struct prealloc_memo
{
  struct { dev_t dev; bool discards; } dev[PREALLOC_DEVICES];
  int n;
};

/* True when the destination FD (its stat DST) of SIZE bytes should be
   preallocated past its end (FALLOC_FL_KEEP_SIZE), its size left to the
   writes, rather than given its final size first.

   Why: direct writes finish in any order, and on ext4 each one finished
   ahead of the one before it splits the preallocated, unwritten extent.
   Past four extents the inode's tree grows a block; once all is written
   a file of at most four full extents fits back in the inode and the
   block is freed.  On a mount with online discard that free is a discard
   per file, and a discard stalls every I/O in flight on many devices
   (SATA SSDs, virtual disks; measured here: 1-2 s stalls, a tree of
   128 MiB files at 0.6 of the rate without).  ext4 takes a write that
   extends the file alone anyway; the engine then writes such a file in
   order, one chunk after another (pipeline.h, in_order: reads still run
   ahead), so that no write lands past an unwritten gap and the extents
   never split: no discard at all (when the kernel alone kept the
   order, 10-16 files of a tree of 32 still split).  A file too small
   to split past four extents is spared the ordering (prealloc_in_order
   below).  The price of one write at a time is why bigger files, whose
   tree keeps its block, and other mounts keep the final size.  The
   mount's options are read from mountinfo, so a default set in the
   superblock (tune2fs -o discard) is not seen.  MEMO caches the mount's answer.  */
bool prealloc_past_eof (int fd, struct stat const *dst, off_t size,
                        struct prealloc_memo *memo);

/* True when a file of SIZE bytes preallocated past its end (the file
   system's blocks of BLKSIZE bytes) must be written in order, CHUNK
   bytes at a time: written in any order, its chunks could split its
   extents past the four the inode holds.  A file of at most four
   pieces cannot, and keeps its writes free: each piece is written or
   not, one extent at most.  A piece is a chunk, or less where ext4 maps
   a direct write in parts (4096 blocks at most); a partial last chunk
   is two (its aligned part goes direct, the rest later through the page
   cache); four pieces lie in one unwritten extent (32767 blocks at
   most).  This holds for chunks cut from the file's start, whole: the
   caller asks only then.  Free space too fragmented for one extent is
   not foreseen: such a file may still split, which costs time, never
   data.  */
bool prealloc_in_order (off_t size, size_t chunk, blksize_t blksize);

/* True when MOUNTINFO (the text of /proc/self/mountinfo) has an ext4
   mount of device MAJOR:MINOR with online discard.  */
bool prealloc_mountinfo_discards (char const *mountinfo, unsigned int major,
                                  unsigned int minor);

#endif
