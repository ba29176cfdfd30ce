/* The cp layer's walk: copying one operand, and everything below it,
   as GNU cp's copy does.  Split by job:
     copy.c     per-node policy: what exists at the destination, what to
                do about it, which kind of copy, and the final metadata;
                the walk's recursion;
     dir.c      directories: create, list, give attributes (dir.h);
     regular.c  regular files: open both sides, data through the engine;
     dest.c     a destination's life, and undoing unfinished ones;
     special.c  symbolic links, FIFOs, devices, and -l / -s links;
     meta.c     times, ownership, permissions and ACLs;
     xattr.c    extended attributes.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_COPY_H
#define CP8M_COPY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "budget.h"
#include "engine/engine.h"
#include "node.h"
#include "options.h"

struct marks;
#include "jobs.h"
#include "seen.h"
#include "stats.h"

struct data_debug;
struct sync_dirs;
struct progress;
struct manifest;

/* State of one run, passed down the walk (there are no globals).  */
/* A file as the *at() calls reach it, and as messages name it.  */
struct loc
{
  int dirfd;          /* directory REL is looked up in, or AT_FDCWD */
  char const *rel;    /* relative to DIRFD; absolute only with AT_FDCWD,
                         when it is the user's own name (an operand, or
                         the DEST of SOURCE DEST) or a whole name made
                         from one: never an absolute name with a
                         directory's descriptor (cp8M.c, copy_into) */
  char const *name;   /* the whole name, relative to the working directory */
  bool absent;        /* a destination known not to exist (its directory
                         was just made by this run): not looked at first */
};

struct copy_ctx
{
  struct cp8m_options const *o;
  struct engine_ctx *eng;
  struct seen *links;     /* source dev/ino -> destination name */
  struct marks *created;  /* destinations operands created (marks.h) */
  struct marks *operands; /* sources of operands already copied, or NULL */
  struct memory_plan const *memory;  /* the engine's buffers, and why */
  unsigned int max_open_levels;  /* directory levels kept open, or 0 for
                                    none: held by name (dirfds.c) */
  uintptr_t stack_base;   /* near the top of the stack, and how far the */
  size_t stack_room;      /* walk may go from it (dirfds.c) */
  bool memory_said;       /* --debug printed MEMORY (after the first
                             file's GNU line) */
  struct data_debug *file_debug;  /* regular.c: what --debug will say of
                                     the file being copied as data */
  struct sync_dirs *sync_dirs;    /* --sync: the directories above the
                                     walk to flush at the end (sync.h) */
  struct stats *stats;    /* --stats's counters, or NULL (stats.h) */
  struct progress *progress;  /* told of each regular file, or NULL */
  struct manifest *manifest;  /* --checksum-file's lines, or NULL */
  struct engine_digest digest;  /* each file's hash, for the manifest */
  struct jobs *jobs;      /* files in flight, or NULL (jobs.h) */
  size_t job_size;        /* files smaller than this go to JOBS */
  bool jobs_failed;       /* a job's copy failed (reported) */
  bool made_known;        /* the node the last copy made (its copy of a */
  dev_t made_dev;         /* regular file, link or special file), as */
  ino_t made_ino;         /* seen through its own descriptor: what later
                             hard links to it link (seen.h) */
  bool made_via_link;     /* ... reached through this symbolic link, */
  dev_t made_link_dev;    /* which GNU's later hard links link, as its */
  ino_t made_link_ino;    /* open followed it (not as its name shows
                             it later: that may be another's by then) */
  bool unverified;        /* --verify could not check a copy it kept
                             (reread.h), or --checksum-file could not
                             hash one: the exit status is 1 */
};

/* A directory being copied, linked to its parents: one level of the
   walk.  Its descriptors are what the entries below it are looked up in;
   dirfds.c closes those of levels far above the walk's current one and
   opens them again when the walk comes back.  */
struct ancestor
{
  struct ancestor *parent;
  dev_t dev;            /* the source directory: for -x and for */
  ino_t ino;            /* symbolic-link cycles under -L */
  dev_t dst_dev;        /* the destination directory */
  ino_t dst_ino;
  int src_fd, dst_fd;   /* open, or -1 while closed (or never opened) */
  struct loc const *src, *dst;  /* how the level was reached */
  bool dst_follow;      /* DST was opened following a symbolic link
                           (--keep-directory-symlink) */
  bool dst_path_only;   /* DST could not be read or searched: it is open
                           with O_PATH, for its name only */
  bool lost;            /* could not be opened again (reported) */
  bool by_name;         /* held by name: no descriptor while its entries
                           are copied, which are reached by their whole
                           names (dirfds.c) */
  bool dst_changed;     /* --sync: an entry of DST was made, removed or
                           renamed (flush DST at its end) */
};

/* What one operand's walk shares.  */
struct walk
{
  char const *top_src, *top_dst;  /* the operand's names, for messages */
  int top_dirfd;                  /* the directory top_dst's last part is
                                     made in (the target directory), or
                                     AT_FDCWD */
  size_t top_prefix;              /* bytes of top_dst before that part:
                                     every destination name of the run
                                     starts with them */
  bool first_dir_created;         /* the operand's first new directory is
                                     remembered, to catch copying into
                                     itself */
  bool into_self;                 /* that happened: stop the walk */
  bool top_changed;               /* --sync: the directory holding
                                     top_dst got or lost an entry */
};

/* Copy SRC to DST.  COMMAND_LINE: SRC is an operand (for -H and the
   operand checks).  DST->absent: the caller knows DST does not exist.
   Report failures GNU's way and return false; never exit.  */
bool copy_node (struct copy_ctx *c, struct loc const *src,
                struct loc const *dst, struct ancestor *parent,
                struct walk *w, bool command_line);

/* dirfds.c: how many directory levels a walk keeps open, from the
   descriptor limit (RLIMIT_NOFILE), the descriptors already open and
   HELD more that the run will hold beside the walk's (--parents: the
   directory an operand is copied into); 0 when too few are left for
   one (levels are then held by name).  */
unsigned int dirfds_max_levels (unsigned int held);

/* dirfds.c: how many descriptors of first copies the hard-link table
   may keep (seen.h) beside the walk's LEVELS, the jobs' and the
   copy's own: half of those left, at most a few hundred.  */
unsigned int dirfds_link_room (unsigned int levels);

/* dirfds.c: how many of WANT files in flight (jobs.h) the descriptors
   left beside the walk's LEVELS allow.  */
unsigned int dirfds_jobs_room (unsigned int levels, unsigned int want);

/* dirfds.c: note BASE, an address near the top of the stack, and how far
   below it the walk may recurse (RLIMIT_STACK less a margin).  */
void dirfds_stack_init (struct copy_ctx *c, void const *base);

/* dirfds.c: is there stack left for one more level of the walk?  */
bool dirfds_stack_left (struct copy_ctx const *c);

/* dirfds.c: LV's descriptors were just opened: close those of the level
   that now falls out of the C->max_open_levels nearest ones.  When that
   is none, LV is held by name: its destination is not opened, and its
   source only until listed.  */
void dirfds_push (struct copy_ctx const *c, struct ancestor *lv);

/* dirfds.c: make sure LV's descriptors are open, opening them again by
   name if they were closed.  Return false after reporting a failure.  */
bool dirfds_ensure (struct ancestor *lv);

/* dirfds.c: a descriptor of LV's source to list it through, its own
   (for fdopendir, which takes it), or -1 with errno.  A level held by
   name gives up its descriptor to it.  */
int dirfds_listing (struct ancestor *lv);

/* dirfds.c: LV is done: open its parent's descriptors again if they
   were closed (through LV's "..", while LV is still open), then close
   LV's, or with KEEP leave them open to the caller, whose they are now.
   Return false after reporting a failure to reopen.  */
bool dirfds_pop (struct ancestor *lv, bool keep);

/* regular.c: copy the file SRC as a regular file.  *DST_NEW says whether
   DST had to be created; it becomes true if DST was replaced.  With
   --debug, once SRC is open, print GNU cp's line for it (also when the
   copy failed), then cp8M's.  DEFER: the walk needs nothing of the copy
   but its success, which may then come later, from a job (jobs.h):
   true is returned at once, and a failure sets C->jobs_failed.  */
bool copy_regular (struct copy_ctx *c, struct loc const *src,
                   struct stat const *sst, struct loc const *dst,
                   bool *dst_new, bool follow, bool defer);

/* special.c */
bool copy_symlink (struct copy_ctx *c, struct loc const *src,
                   struct stat const *sst, struct loc const *dst,
                   bool dst_new, struct stat const *dst_st);
bool copy_special (struct copy_ctx *c, struct loc const *src,
                   struct stat const *sst, struct loc const *dst);
bool make_hard_link (struct copy_ctx *c, struct loc const *src,
                     struct loc const *dst, bool follow);
/* Link DST to the first copy of the source SST, named EARLIER: the node
   the hard-link table holds (seen.h), through a descriptor of it, never
   through EARLIER itself.  */
bool link_to_earlier (struct copy_ctx *c, struct stat const *sst,
                      char const *earlier, struct loc const *dst);

/* special.c: the copy being made is the node of status ST (seen
   through the descriptor it was made or checked through), reached
   through the symbolic link of status LINK_ST that its open followed
   (follow_openat), or through none (NULL, or st_mode 0).  */
void note_made (struct copy_ctx *c, struct stat const *st,
                struct stat const *link_st);

/* special.c: the first copy of the source SST was just made (or, for
   -u, kept) as DST: note the node it is in the hard-link table, as
   C->made_* says, or else as DST's name shows it now, with a descriptor
   of it while later links to it are expected.  */
void remember_first_copy (struct copy_ctx *c, struct stat const *sst,
                          struct loc const *dst);
bool make_symbolic_link (struct copy_ctx *c, struct loc const *src,
                         struct loc const *dst);

/* meta.c: the bits a new file is created with, before its final mode
   is set: group and other permissions are held back while ownership may
   still change, so no one can open it in between.  */
mode_t omitted_permissions (struct cp8m_options const *o, mode_t src_mode);

/* meta.c: did a failed ownership change fail only because this process
   may not give files away?  Then GNU cp stays silent.  */
bool chown_failure_ok (struct cp8m_options const *o, int err);

/* meta.c: the mode to give gnulib's ACL calls for the node N, from
   MODE.  Built with ACL support, these set an ACL, which leaves the
   set-user-ID, set-group-ID and sticky bits alone when MODE has none of
   them; they set the mode with chmod only on a file system without
   ACLs.  A build without ACL support always uses chmod, so it adds the
   file's special bits to such a MODE where an ACL could have been set:
   the same result as GNU cp built with ACLs.  */
mode_t mode_for_acl (mode_t mode, struct node const *n);

/* meta.c: gnulib's copy_acl from SRC to DST with MODE, and its messages
   (naming the nodes as the user does): 0, or negative after reporting
   (-2: reading SRC's failed).  */
int copy_node_acl (struct node const *src, struct node const *dst,
                   mode_t mode);

/* meta.c: after the data (or contents) of DST are in place, apply what
   the options preserve from SST (the source SRC): times, ownership,
   xattrs, then mode, all through DST's descriptor (node.h).  IS_LINK:
   DST is a symbolic link.
   DST_NEW: this run created DST; OMITTED: permissions held back at
   creation; RESTORE_MODE/WANT_MODE: give DST WANT_MODE at the end (a
   directory created without u+rwx).  */
struct meta_plan
{
  bool dst_new;
  bool regular;      /* copied as a regular file: like GNU cp, give it
                        its owner only when the owner differs */
  bool is_link;
  mode_t omitted;
  mode_t extra;      /* given at creation only so that extended
                        attributes can be set: taken away at the end */
  bool restore_mode;
  mode_t want_mode;
  struct stat const *dst_st;  /* the destination's fstat, taken since it
                                 was opened or made, or NULL */
};
bool apply_metadata (struct copy_ctx *c, struct node const *src,
                     struct stat const *sst, struct node const *dst,
                     struct meta_plan const *plan);

/* xattr.c: copy the extended attributes of SRC to DST.  Report failures
   only when --preserve=xattr asked for them; return false on failure.  */
bool copy_xattrs (struct copy_ctx *c, struct node const *src,
                  struct node const *dst);

/* xattr.c: --atomic: give DST, the replacement of the file OLD, OLD's
   extended attributes, as a rewrite in place keeps them: all but the
   ACLs (copied with the mode), the file capabilities (which a write
   clears) and those xattr.c never copies.  Return false after
   reporting.  */
bool keep_xattrs (struct node const *old, struct node const *dst);

#endif
