/* A file whose metadata cp8M changes, held by a descriptor.

   The rule.  cp8M is often run as root into directories other users can
   write, where a name may become a symbolic link (or a hard link to some
   other file) between any two system calls.  So once cp8M has made a
   node, or chosen an existing directory to merge into or file to
   overwrite, it changes that node's owner, mode, times, extended
   attributes and ACLs only through a descriptor of it, never through its
   name again:
   - a node cp8M just made is opened with O_PATH | O_NOFOLLOW (no side
     effect, even on a FIFO or a device) and checked with fstat to be
     what was made: its type, a single link (a hard link to another file
     has two), its device number, and its owner: this process's own, or
     the one the file system gives the nodes it makes there (NFS with
     root_squash, uid= mounts: learnt from a node made for that, node.c),
     so that a node of the same type another user made and renamed in
     its place is refused;
   - an existing node is the one opened for the copy, or, opened anew,
     checked to have the device and inode numbers the walk saw;
   - on the descriptor: fchownat and utimensat with AT_EMPTY_PATH; a
     mode, extended attributes and ACLs through the descriptor's name in
     /proc/self/fd (the node itself, whatever its name is now), or
     without /proc a mode by fchmodat2 (Linux 6.6).  A symbolic link's
     mode is never changed (GNU cp does not either).
   Without /proc and without those calls, an attribute is set by name
   only with a call that does not follow symbolic links, right after
   checking that the name still holds the node; a change that could only
   follow the name (a mode, an ACL) is refused with EOPNOTSUPP.

   Part of the cp layer.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_NODE_H
#define CP8M_NODE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

struct loc;

struct node
{
  int fd;               /* the node, or -1 (a source not opened: read by
                           NAME) */
  bool path_only;       /* FD is O_PATH: it reaches the node but cannot
                           read or write it */
  bool own_fd;          /* node_close closes FD */
  bool source;          /* only read from: its name may serve as is */
  mode_t type;          /* S_IFDIR..., or 0 when not known */
  int dirfd;            /* REL in DIRFD names the node too: the last */
  char const *rel;      /* resort without /proc (checked first) */
  char const *name;     /* in messages */
};

/* Enough for "/proc/self/fd/N".  */
enum { NODE_PROC_NAME = 32 };

/* The node LOC that this run has just made, of type TYPE (S_IFIFO...;
   RDEV too for a device), opened O_PATH and checked.  Return true; or
   false after reporting why (it is gone, or it is not what was made: the
   name was swapped meanwhile).  ST gets its status.  */
bool node_open_made (struct node *n, struct loc const *loc, mode_t type,
                     dev_t rdev, struct stat *st);

/* The same, but when no descriptor is left for it, return false with
   errno EMFILE or ENFILE and report nothing (the caller may go on
   without it, as GNU cp goes on with one descriptor less).  */
bool node_try_made (struct node *n, struct loc const *loc, mode_t type,
                    dev_t rdev, struct stat *st);

/* The node REL of DIRFD (NAME in messages), which was seen with status
   SEEN: opened O_PATH (following symbolic links if FOLLOW) and checked to
   have SEEN's device and inode numbers.  Return true; or false with errno
   set (ENOENT when the name now holds another file).  */
bool node_open_seen (struct node *n, int dirfd, char const *rel,
                     char const *name, struct stat const *seen, bool follow);

/* The node of type TYPE open as FD (O_PATH when PATH_ONLY, or -1: a
   source read by name), named by LOC; FD stays the caller's.  */
void node_of_fd (struct node *n, struct loc const *loc, int fd, mode_t type,
                 bool path_only);

/* Close what node_open_* opened.  */
void node_close (struct node *n);

/* The calls on the node, with the contract of their namesakes: 0 (or a
   size), or -1 with errno.  */
int node_stat (struct node const *n, struct stat *st);
int node_chown (struct node const *n, uid_t uid, gid_t gid);
int node_chmod (struct node const *n, mode_t mode);
int node_utimens (struct node const *n, struct timespec const ts[2]);
ssize_t node_listxattr (struct node const *n, char *buf, size_t size);
ssize_t node_getxattr (struct node const *n, char const *attr, void *buf,
                       size_t size);
int node_setxattr (struct node const *n, char const *attr, void const *buf,
                   size_t size);

/* May this process (its effective IDs) use the node N as MODE says
   (W_OK...), as an open would decide?  faccessat's contract: 0, or -1
   with errno.  Asked of the node itself through its /proc name; without
   /proc, of its name, a symbolic link not followed.  */
int node_access (struct node const *n, int mode);

/* What to give gnulib's ACL functions, which take a name and a
   descriptor (or -1) and fall back on the name for what a descriptor
   cannot do (a directory's default ACL, any ACL of an O_PATH node):
   *DESC gets the descriptor to use, and the name returned is the node's
   /proc name, in BUF.  Without /proc: a source's name; a directory's
   own name, checked, when it is open for reading (only its default ACL
   goes by that name); else NULL with errno EOPNOTSUPP: no change through
   a name that could be followed.  */
char const *node_acl_name (struct node const *n, int *desc,
                           char buf[static NODE_PROC_NAME]);

#endif
