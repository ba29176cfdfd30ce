/* Direct-I/O facts about descriptors and the alignment arithmetic built on
   them.  Part of the engine: no paths, no messages, no globals.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_DIO_H
#define CP8M_DIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* The mechanism this build enables direct I/O with, as configure found
   it (never from the headers alone: the stand-in builds of make
   platform-check select Solaris's and macOS's on Linux, whose headers
   still define O_DIRECT):
   - DIO_WITH_O_DIRECT (Linux, FreeBSD, AIX): an open flag; on Linux the
     engine opens each file a second time with it (/proc/self/fd), so the
     caller's descriptor stays plain for unaligned tails;
   - DIO_WITH_DIRECTIO (Solaris): directio (fd, DIRECTIO_ON), advice to the
     file system for the file (not for the descriptor): UFS honours it,
     and itself serves unaligned requests through the cache; ZFS and
     others say ENOTTY, which is a refusal like O_DIRECT's EINVAL;
   - DIO_WITH_F_NOCACHE (macOS): fcntl (fd, F_NOCACHE, 1) on the
     descriptor: no alignment required, page-aligned I/O fastest.
   The last two are set on the caller's descriptor and cleared when the
   file is done (dio_release).  */
#if HAVE_DECL_O_DIRECT
# define DIO_WITH_O_DIRECT 1
#elif defined HAVE_DIRECTIO && HAVE_DECL_DIRECTIO_ON
# define DIO_WITH_DIRECTIO 1
#elif HAVE_DECL_F_NOCACHE
# define DIO_WITH_F_NOCACHE 1
#endif

/* Alignment the kernel demands of direct I/O on one open file.  */
struct dio_align
{
  unsigned int mem_align;     /* user buffer address alignment, bytes */
  unsigned int offset_align;  /* file offset and length alignment, bytes */
};

/* Ask statx(STATX_DIOALIGN) about FD.  Return true and fill *OUT when the
   kernel (Linux >= 6.1) and the filesystem report direct-I/O support for
   FD; return false when they do not, including on kernels without statx
   (ENOSYS) or without STATX_DIOALIGN.  Uses the libc wrapper where there is
   one and the raw system call otherwise (musl).  */
bool dio_query_fd (int fd, struct dio_align *out);

/* Alignment for direct I/O on the open file FD (status ST): what statx
   reports, else the logical block size of the block device holding it (or
   of FD itself when it is a block device), else 4096.  Sets *FROM to
   "statx", "block device" or "default" for --debug.  */
struct dio_align dio_alignment (int fd, struct stat const *st,
                                char const **from);

/* The mechanism this build enables direct I/O with: "O_DIRECT",
   "directio" (Solaris), "F_NOCACHE" (macOS), or NULL when it has none.  */
char const *dio_method (void);

/* A descriptor set up for direct I/O by dio_enable.  */
struct dio_fd
{
  int fd;           /* do direct I/O here; -1 when not enabled */
  bool own;         /* FD is a new descriptor of ours: close it */
  bool flag_set;    /* FD is the caller's, with a direct flag now set */
};

/* Open the file FD refers to once more with FLAGS (O_CLOEXEC added), as
   a new open file description: through /proc/self/fd on Linux.  Return
   the descriptor, or -1 with errno (EXDEV when another file answered,
   ENOSYS where there is no such path: not Linux, or no /proc mounted;
   then only a name of the file can open it again).  */
int dio_reopen (int fd, int flags);

/* Make direct I/O available on the file open as FD (ACCMODE is O_RDONLY
   or O_WRONLY).  Where it can (Linux), it opens the same file again with
   O_DIRECT, so FD itself stays a plain descriptor for unaligned tails and
   fallback; otherwise it sets the OS's direct flag on FD.  Return true and
   fill *OUT, or false with errno (EINVAL when the filesystem refuses).  */
bool dio_enable (int fd, int accmode, struct dio_fd *out);

/* Undo dio_enable or dio_plain: close the descriptor they opened (direct
   or plain), or clear the direct flag they set on the caller's.  Return
   false with errno if closing or clearing the flag failed.  */
bool dio_release (struct dio_fd *d);

/* Does FD have the system's direct-I/O flag (O_DIRECT) set?  */
bool dio_flag_set (int fd);

/* Make sure the caller's descriptor FD (ACCMODE O_RDONLY or O_WRONLY) is
   a plain, cached one for unaligned I/O: a forcedirectio mount or an
   LD_PRELOAD shim may have opened it with O_DIRECT behind our back.  Fill
   *OUT with FD itself when it is plain, else with a plain reopening of the
   same file (or FD with O_DIRECT cleared).  Undo with dio_release.  */
void dio_plain (int fd, int accmode, struct dio_fd *out);

/* Filesystems that accept direct I/O but serve it through the page cache
   all the same: "tmpfs caches anyway" (its files live in the cache), or
   "btrfs caches checksummed files" (reads of files with data checksums,
   that is all but chattr +C ones, are cached).  NULL for the others.  */
char const *dio_cache_caveat (int fd);

/* What failed when dio_enable failed, for --debug: "open" (the O_DIRECT
   reopening), "directio" or "F_NOCACHE".  */
char const *dio_enable_step (void);

/* True for the errors that mean "no direct I/O here" rather than a
   failing device: EINVAL, EOPNOTSUPP, and ENOTTY (Solaris's directio()
   on a file system without it).  Every fallback asks this.  */
bool dio_refusal (int err);

/* Alignment for the engine's buffers: the larger of PAGE_SIZE and
   MEM_ALIGN (0 when unknown), rounded up to a power of two because
   aligned allocators require one.  */
size_t dio_buffer_alignment (size_t page_size, unsigned int mem_align);

/* SIZE rounded up to a multiple of ALIGN (a power of two).  Returns 0 when
   the result would not fit in size_t.  */
size_t dio_round_up (size_t size, size_t align);

#endif
