/* Extended attributes, copied through the system calls (no libattr), with
   the skip list libattr applies by default: ACLs are copied as
   permissions (meta.c), and some attributes belong to one filesystem or
   one machine.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "copy.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "diag.h"
#include "error.h"
#include "xalloc.h"

/* Not copied as attributes: the ACLs (copied as permissions), SELinux
   labels (that is --preserve=context, which needs SELinux), and what
   Debian's /etc/xattr.conf tells libattr to skip.  */
static char const *const skipped[] =
{
  "system.nfs4_acl", "system.nfs4acl",
  "system.posix_acl_access", "system.posix_acl_default",
  "trusted.SGI_ACL_DEFAULT", "trusted.SGI_ACL_FILE", "trusted.SGI_CAP_FILE",
  "trusted.SGI_DMI_*", "trusted.SGI_MAC_FILE", "xfsroot.*",
  "user.Beagle.*", "security.evm", "afs.*", "security.selinux",
};

static bool
is_skipped (char const *name)
{
  for (size_t i = 0; i < sizeof skipped / sizeof *skipped; i++)
    if (fnmatch (skipped[i], name, 0) == 0)
      return true;
  return false;
}

/* "Operation not supported" and "no such attribute" are what a
   destination without xattrs says; GNU cp keeps quiet about those unless
   --preserve=xattr was explicit.  */
static bool
unsupported (int err)
{
  return err == ENOTSUP || err == ENODATA;
}

/* Report ERR about attribute work, as the options want.  */
static void
report (struct cp8m_options const *o, int err, char const *fmt,
        char const *a, char const *b)
{
  bool all = o->attributes_only || o->require_preserve_xattr;
  bool some = !all && !o->reduce_diagnostics;
  if (all || (some && !unsupported (err)))
    {
      if (b)
        error (0, err, fmt, quote_file_n (0, a), quote_file_n (1, b));
      else
        error (0, err, fmt, quote_file (a));
    }
}

/* Read all of an attribute list or value, growing the buffer as other
   processes may add to it meanwhile.  */
static char *
read_all (struct node const *l, char const *name, ssize_t *len)
{
  for (;;)
    {
      ssize_t n = name ? node_getxattr (l, name, NULL, 0)
                  : node_listxattr (l, NULL, 0);
      if (n < 0)
        return NULL;
      char *buf = xmalloc (n + 1);
      /* Empty (most files have no attributes): no second call.  */
      ssize_t m = n == 0 ? 0
                  : name ? node_getxattr (l, name, buf, n)
                  : node_listxattr (l, buf, n);
      if (m >= 0)
        {
          *len = m;
          return buf;
        }
      int err = errno;
      free (buf);
      errno = err;
      if (err != ERANGE)
        return NULL;
    }
}

bool
copy_xattrs (struct copy_ctx *c, struct node const *src,
             struct node const *dst)
{
  struct cp8m_options const *o = c->o;
  ssize_t len;
  char *names = read_all (src, NULL, &len);
  if (!names)
    {
      if (unsupported (errno))
        return true;
      report (o, errno, "listing attributes of %s", src->name, NULL);
      return false;
    }
  bool ok = true;
  /* A destination that holds no such attributes at all is reported once
     for the file, not once per attribute, as GNU cp (libattr) does.  */
  bool unsupported_here = false;
  for (char const *n = names; n < names + len; n += strlen (n) + 1)
    {
      if (is_skipped (n))
        continue;
      ssize_t vlen;
      char *value = read_all (src, n, &vlen);
      if (!value)
        {
          report (o, errno, "getting attribute %s of %s", n, src->name);
          ok = false;
          continue;
        }
      if (node_setxattr (dst, n, value, vlen) != 0)
        {
          if (errno == ENOTSUP)
            unsupported_here = true;
          else
            report (o, errno, "setting attribute %s for %s", n, dst->name);
          ok = false;
        }
      free (value);
    }
  free (names);
  if (unsupported_here)
    report (o, ENOTSUP, "setting attributes for %s", dst->name, NULL);
  return ok;
}

/* gcc 12's -fanalyzer follows read_all's retry loop into paths it cannot
   take and reports the list or a value leaked (make analyze): a false
   positive, each is freed once read (as in copy_xattrs).  */
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic push
# pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif
bool
keep_xattrs (struct node const *old, struct node const *dst)
{
  ssize_t len;
  char *names = read_all (old, NULL, &len);
  if (!names)
    {
      if (unsupported (errno))
        return true;
      error (0, errno, "listing attributes of %s", quote_file (old->name));
      return false;
    }
  bool ok = true;
  for (char const *n = names; n < names + len; n += strlen (n) + 1)
    {
      if (is_skipped (n) || strcmp (n, "security.capability") == 0)
        continue;
      ssize_t vlen;
      char *value = read_all (old, n, &vlen);
      /* ENODATA: removed meanwhile, nothing to keep.  */
      if (!value && errno != ENODATA)
        {
          error (0, errno, "getting attribute %s of %s", quote_file_n (0, n),
                 quote_file_n (1, old->name));
          ok = false;
        }
      else if (value && node_setxattr (dst, n, value, vlen) != 0)
        {
          error (0, errno, "setting attribute %s for %s", quote_file_n (0, n),
                 quote_file_n (1, dst->name));
          ok = false;
        }
      free (value);
    }
  free (names);
  return ok;
}
#if 10 <= __GNUC__ && !defined __clang__
# pragma GCC diagnostic pop
#endif
