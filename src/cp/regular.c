/* Regular files (and, without -R, anything read like one): open both
   sides, move the data through the engine, then the metadata.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "copy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "dest.h"
#include "diag.h"
#include "manifest.h"
#include "progress.h"
#include "error.h"
#include "follow.h"
#include "same-inode.h"
#include "sync.h"
#include "unistd-safer.h"
#include "reread.h"
#include "report.h"
#include "jobs.h"
#include "xalloc.h"

/* Open the existing DST for writing; with -f, remove it if that fails
   (setting *DST_NEW).  Return the descriptor, or -1 with errno set (and
   *DST_NEW false), or -1 with *DST_NEW true when DST is now gone, or -1
   with *FAILED true after reporting.  */
static int
open_existing (struct cp8m_options const *o, struct loc const *dst,
               bool *dst_new, bool *failed, bool *replace,
               struct stat *link_st)
{
  /* --verify reads the copy back through a descriptor of it (reread.c):
     a regular file is opened for reading too where its mode allows, so
     that it need not be opened again by a name someone may have swapped
     meanwhile.  (Not a FIFO: one open for reading too would never wait
     for its reader.)  */
  int acc = O_WRONLY;
  struct stat st;
  bool seen = (o->verify || o->checksum_file || o->n_report_nodes)
              && fstatat (dst->dirfd, dst->rel, &st, 0) == 0;
  if ((o->verify || o->checksum_file) && seen && S_ISREG (st.st_mode))
    acc = O_RDWR;
  /* A report file reached under another name (a link, a bind mount):
     refused before the open empties it.  open_dest checks the file
     opened again, whatever the name held meanwhile.  */
  if (seen && !report_clash (o, &st, "destination", dst->name))
    {
      *failed = true;
      return -1;
    }
  /* --atomic replaces a regular file under its own name (a symlink's
     target is written through, as without it): the old file is only
     opened O_PATH (dest_open_old), never for writing, so that a running
     program's file is replaced as install replaces it.  */
  struct stat lst;
  *replace = false;
  if (o->atomic && !o->attributes_only
      && fstatat (dst->dirfd, dst->rel, &lst, AT_SYMLINK_NOFOLLOW) == 0
      && S_ISREG (lst.st_mode))
    {
      int old = dest_open_old (dst, &lst);
      if (old >= 0)
        {
          *replace = true;
          return old;
        }
      /* Swapped for another file (a symlink) since it was looked at, or
         not this user's to change: opened in place, as without
         --atomic, which writes through or says why not.  */
    }
  int flags = O_CLOEXEC | (o->attributes_only ? 0 : O_TRUNC);
  /* A symbolic link there is followed only if its owner may be trusted
     (follow.h): another user's is refused, or with -f replaced, as GNU
     cp -f replaces a link the kernel will not follow.  */
  bool refused;
  int fd = follow_openat (dst->dirfd, dst->rel, acc | flags, 0, &refused,
                          link_st);
  if (fd < 0 && acc == O_RDWR && errno == EACCES && !refused)
    fd = follow_openat (dst->dirfd, dst->rel, O_WRONLY | flags, 0, &refused,
                        link_st);
  if (fd < 0 && refused && !o->force)
    {
      follow_refused (dst->name);
      *failed = true;
      return -1;
    }
  if (fd < 0 && errno == ENOENT)
    {
      /* Gone since it was looked at (NFS does this, and so does anyone
         removing it meanwhile): create it, as GNU cp does.  */
      *dst_new = true;
      return -1;
    }
  if (fd >= 0 || !o->force)
    return fd;
  if (unlinkat (dst->dirfd, dst->rel, 0) != 0 && errno != ENOENT)
    {
      error (0, errno, "cannot remove %s", quote_file (dst->name));
      *failed = true;
      return -1;
    }
  if (o->verbose)
    diag_removed (dst->name);
  *dst_new = true;
  return -1;
}

/* What --debug says of one file copied as data.  GNU cp prints its line
   whenever it opened the source, after any error, with the words the
   copy reached; cp8M's lines follow for a copy the engine completed.  */
struct data_debug
{
  bool src_opened;
  bool engine_ok;
  struct engine_result res;   /* its facts start as GNU's do */
  char const *dest;           /* how the destination was written */
  struct stats_copy copy;     /* --stats: the copy's size and holes */
  struct engine_verify_result ver;  /* --verify's check */
  struct stat src_st;         /* the source when it was opened */
};

/* The permissions a new copy of a file of mode SRC_MODE is created with:
   the source's, less those -p does not keep, plus the bit that lets
   the owner set its attributes (*EXTRA, for open_and_copy to take away
   at the end).  */
static mode_t
new_file_mode (struct cp8m_options const *o, mode_t src_mode, mode_t *extra)
{
  mode_t omitted = omitted_permissions (o, src_mode);
  /* Linux lets only a writer set a file's user.* attributes, and the file
     owner counts as one only when the mode says so: a new copy of a
     read-only file is made writable by its owner until its attributes
     are set, then given its mode (as GNU cp does).  Root needs none.  */
  *extra = o->preserve_xattr && !o->chown_privileges
           ? S_IWUSR & ~src_mode : 0;
  return ((src_mode & 0777) & ~omitted) | *extra;
}

/* Move the data of SRC_FD into D (whose fstat is DST_ST, or NULL), which
   is kept shorter than the source until complete when others can see
   it.  */
static bool
copy_data (struct copy_ctx *c, struct loc const *src, int src_fd,
           struct dest const *d, struct stat const *dst_st)
{
  struct data_debug *dbg = c->file_debug;
  struct engine_request req = c->o->request;
  req.in_place = dest_visible (d);
  req.verify = c->o->verify;
  req.digest = c->manifest ? &c->digest : NULL;
  req.report_changes = c->o->debug || c->o->verify || c->stats;
  req.src_st = &dbg->src_st;
  req.dst_st = dst_st;
  bool ok = engine_copy (c->eng, src_fd, d->fd, &req, &dbg->res);
  if (!ok)
    diag_engine_failure (&dbg->res, src->name, d->loc->name);
  else if (c->stats)
    stats_measure (d->fd, &dbg->copy);
  dbg->engine_ok = ok;
  dbg->dest = dest_describe (d);
  /* Before the metadata and the name: a new copy that fails is never
     linked into place.  */
  if (ok && req.verify)
    {
      struct verify_source vs = { src, src_fd, &dbg->src_st,
                                  dbg->res.src_changed };
      progress_phase (c->progress, "verifying");
      ok = verify_copy (c, &vs, d, &dbg->ver);
      progress_phase (c->progress, NULL);
      stats_verify (c->stats, &dbg->ver);
    }
  return ok;
}

/* Is FD, just opened as NAME, no report file (report.h)?  If it is one,
   close FD and return false after a message.  */
static bool
opened_no_report (struct cp8m_options const *o, int fd, char const *is,
                  char const *name)
{
  struct stat st;
  if (o->n_report_nodes == 0 || fstat (fd, &st) != 0
      || report_clash (o, &st, is, name))
    return true;
  close (fd);
  return false;
}

/* Open DST for the copy: the existing file, or (when *DST_NEW, or when -f
   removed it) a new one, hidden until dest_commit unless the source is a
   STREAM.  Return false after reporting.  */
static bool
open_dest (struct copy_ctx *c, struct loc const *dst, mode_t mode,
           bool stream, bool *dst_new, struct dest *d)
{
  struct cp8m_options const *o = c->o;
  bool failed = false;
  if (!*dst_new)
    {
      bool replace;
      struct stat link_st = { .st_mode = 0 };
      int fd = open_existing (o, dst, dst_new, &failed, &replace, &link_st);
      if (fd >= 0 && !opened_no_report (o, fd, "destination", dst->name))
        return false;
      if (fd >= 0 && replace)
        {
          bool reported;
          if (!dest_replace (d, o, dst, fd, &reported))
            {
              if (!reported)
                error (0, errno, "cannot create regular file %s",
                       quote_file (dst->name));
              return false;
            }
          d->fd = fd_safer (d->fd);
          return true;
        }
      if (fd >= 0)
        {
          dest_existing (d, dst, fd_safer (fd));
          d->link_st = link_st;
          return true;
        }
    }
  if (*dst_new && !failed)
    {
      if (dest_create (d, o, dst, mode, stream, &failed))
        {
          d->fd = fd_safer (d->fd);
          return true;
        }
    }
  if (!failed)
    {
      int err = errno;
      /* open ("b/", O_CREAT) says EISDIR; the real problem is that "b"
         is not a directory, which is what GNU cp reports.  */
      size_t len = strlen (dst->name);
      if (err == EISDIR && len > 0 && dst->name[len - 1] == '/')
        err = ENOTDIR;
      error (0, err, "cannot create regular file %s", quote_file (dst->name));
    }
  return false;
}

static bool
open_and_copy (struct copy_ctx *c, struct loc const *src,
               struct stat const *sst, struct loc const *dst, bool *dst_new,
               bool follow)
{
  struct cp8m_options const *o = c->o;
  int src_fd = openat (src->dirfd, src->rel,
                       O_RDONLY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
  if (src_fd < 0)
    {
      error (0, errno, "cannot open %s for reading", quote_file (src->name));
      return false;
    }
  src_fd = fd_safer (src_fd);
  c->file_debug->src_opened = true;
  struct stat st;
  if (fstat (src_fd, &st) != 0)
    {
      error (0, errno, "cannot fstat %s", quote_file (src->name));
      close (src_fd);
      return false;
    }
  c->file_debug->src_st = st;
  /* A report read through a link (-L) or another name: refused.  */
  if (!report_clash (o, &st, "source", src->name))
    {
      close (src_fd);
      return false;
    }
  if (!SAME_INODE (st, *sst))
    {
      error (0, 0, "skipping file %s, as it was replaced while being copied",
             quote_file (src->name));
      close (src_fd);
      return false;
    }

  mode_t extra;
  mode_t mode = new_file_mode (o, sst->st_mode, &extra);
  mode_t omitted = omitted_permissions (o, sst->st_mode);
  /* What a stream gives cannot be read again: its copy is written where
     it can be seen as it comes, as GNU cp writes it (dest.h).  */
  bool stream = S_ISFIFO (st.st_mode) || S_ISCHR (st.st_mode)
                || S_ISSOCK (st.st_mode);
  struct dest d;
  if (!open_dest (c, dst, mode, stream, dst_new, &d))
    {
      close (src_fd);
      return false;
    }
  /* For the engine and the metadata, which would take it each.  */
  struct stat dst_st;
  bool have_dst_st = fstat (d.fd, &dst_st) == 0;
  if (have_dst_st)
    note_made (c, &dst_st, &d.link_st);   /* what later hard links link */
  if (!*dst_new)
    omitted = extra = 0;   /* an existing file keeps its mode until the end */
  else if (extra)
    {
      /* The umask may have taken the bit away again.  */
      if (!have_dst_st
          || (!(dst_st.st_mode & S_IWUSR)
              && fchmod (d.fd, (dst_st.st_mode | S_IWUSR) & 07777) != 0))
        extra = 0;
      dst_st.st_mode |= extra;
    }

  /* Data, then metadata on the descriptor, then the name: no one sees a
     new file before it is complete, nor with the wrong permissions.  A
     file whose metadata could not all be preserved is kept, as GNU cp
     keeps it (the failure still counts).  */
  struct stat const *known = have_dst_st ? &dst_st : NULL;
  bool ok = o->attributes_only || copy_data (c, src, src_fd, &d, known);
  if (ok)
    {
      struct meta_plan plan = { .dst_new = *dst_new, .regular = true,
                                .omitted = omitted, .extra = extra,
                                .dst_st = known };
      struct node sn, dn;
      node_of_fd (&sn, src, src_fd, st.st_mode & S_IFMT, false);
      sn.source = true;
      node_of_fd (&dn, dst, d.fd, S_IFREG, false);
      ok = apply_metadata (c, &sn, sst, &dn, &plan);
      /* --sync: durable before it has its name (sync.h); if not, it is
         not copied, and a new file gets no name.  */
      progress_phase (c->progress, o->sync ? "syncing" : NULL);
      bool synced = !o->sync || sync_file (d.fd, dst->name);
      progress_phase (c->progress, NULL);
      if (!synced)
        {
          dest_abort (&d);
          ok = false;
        }
      else
        ok &= dest_commit (&d);
      /* Only copies that are whole files with their data: not
         --attributes-only, not a pipe or device written to.  */
      if (ok && c->manifest && !o->attributes_only && have_dst_st
          && S_ISREG (dst_st.st_mode))
        {
          if (c->digest.hex[0])
            manifest_add (c->manifest, sst->st_dev, sst->st_ino, dst->name,
                          c->digest.hex);
          else
            {
              /* The copy is kept (it is good), but what was asked for
                 is not done: the status says so.  */
              error (0, c->digest.err, "cannot compute the checksum of %s",
                     quote_file (dst->name));
              c->unverified = true;
            }
        }
    }
  else
    dest_abort (&d);
  close (src_fd);
  return ok;
}

/* ---- a file in flight (jobs.h) ---- */

struct file_job
{
  struct copy_ctx c;      /* the walk's, with this job's engine and debug */
  struct copy_ctx *walk;
  struct loc src, dst;    /* their names are this job's copies */
  struct stat sst;
  bool dst_new, follow, ok;
  struct data_debug dbg;
};

static void
run_file_job (void *arg, struct engine_ctx *eng)
{
  struct file_job *j = arg;
  j->c.eng = eng;
  j->c.file_debug = &j->dbg;
  struct diag_node saved = diag_node_enter (j->src.name, j->dst.name);
  j->ok = open_and_copy (&j->c, &j->src, &j->sst, &j->dst, &j->dst_new,
                         j->follow);
  diag_node_leave (saved);
}

static void
file_job_done (void *arg)
{
  struct file_job *j = arg;
  progress_file_end (j->walk->progress, j->ok);
  if (j->ok)
    stats_file (j->walk->stats, &j->dbg.res, &j->dbg.copy);
  else
    j->walk->jobs_failed = true;
  free ((char *) j->src.rel);
  free ((char *) j->src.name);
  free ((char *) j->dst.rel);
  free ((char *) j->dst.name);
  free (j);
}

static struct loc
loc_copy (struct loc const *l)
{
  return (struct loc) { l->dirfd, xstrdup (l->rel), xstrdup (l->name),
                        l->absent };
}

static struct data_debug
debug_start (struct cp8m_options const *o)
{
  return (struct data_debug) { .res.report.facts.reflink_allowed
                               = o->request.reflink != ENGINE_REFLINK_NEVER };
}

bool
copy_regular (struct copy_ctx *c, struct loc const *src,
              struct stat const *sst, struct loc const *dst, bool *dst_new,
              bool follow, bool defer)
{
  struct cp8m_options const *o = c->o;
  /* Small enough for a job's buffer, which the engine then copies as
     it would with the walk's (plan.c: one smaller than a buffer).  */
  if (defer && c->jobs && S_ISREG (sst->st_mode)
      && sst->st_size < (off_t) c->job_size)
    {
      struct file_job *j = xmalloc (sizeof *j);
      *j = (struct file_job) { .c = *c, .walk = c, .src = loc_copy (src),
                               .dst = loc_copy (dst), .sst = *sst,
                               .dst_new = *dst_new, .follow = follow,
                               .dbg = debug_start (o) };
      /* The status line names the walk's latest file: a stream the walk
         copies itself after it is not hidden by the jobs' names.  */
      progress_file_begin (c->progress, src->name);
      jobs_submit (c->jobs, run_file_job, file_job_done, j);
      /* Whether it made a new name is known later: --sync flushes the
         directory either way.  */
      *dst_new = true;
      return true;
    }
  struct data_debug dbg = debug_start (o);
  c->file_debug = &dbg;
  progress_file_begin (c->progress, src->name);
  /* --debug's time: from the source's open to the copy's name.  */
  struct timespec began, ended;
  clock_gettime (CLOCK_MONOTONIC, &began);
  bool ok = open_and_copy (c, src, sst, dst, dst_new, follow);
  clock_gettime (CLOCK_MONOTONIC, &ended);
  progress_file_end (c->progress, ok);
  c->file_debug = NULL;
  if (ok)
    stats_file (c->stats, o->attributes_only ? NULL : &dbg.res,
                o->attributes_only ? NULL : &dbg.copy);
  if (o->debug && dbg.src_opened && !o->attributes_only)
    {
      diag_out_begin ();
      diag_debug_gnu (&dbg.res.report.facts);
      if (dbg.engine_ok)
        {
          if (!c->memory_said)
            {
              diag_debug_budget (c->memory);
              c->memory_said = true;
            }
          diag_debug_lines (&dbg.res, dbg.dest);
          if (o->verify)
            verify_debug_line (&dbg.ver);
          if (c->manifest && c->digest.hex[0])
            printf ("checksum: %s, %s\n",
                    o->checksum == ENGINE_HASH_XXH3 ? "xxh3" : "sha256",
                    c->digest.read_back
                    ? "partly read back from the destination (the pieces"
                      " could not be hashed in order)"
                    : "of the data as it was read");
          if (ok)
            diag_debug_time (&dbg.res, &dbg.src_st,
                             (ended.tv_sec - began.tv_sec)
                             + (ended.tv_nsec - began.tv_nsec) / 1e9);
        }
      diag_out_end ();
    }
  return ok;
}
