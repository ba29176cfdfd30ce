/* Unit tests for the memory budget (src/cp/budget.c): fake /proc and
   cgroup trees for both cgroup versions, and the arithmetic that fits
   the buffers into the budget.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp/budget.h"
#include "tap-main.h"

enum { MiB = 1024 * 1024 };

static char root[64];

/* Write TEXT to ROOT/PATH, making the directories on the way.  */
static void
put (char const *path, char const *text)
{
  char name[512];
  snprintf (name, sizeof name, "%s/%s", root, path);
  for (char *p = name + strlen (root) + 1; (p = strchr (p, '/')); p++)
    {
      *p = '\0';
      ck_assert (mkdir (name, 0755) == 0 || errno == EEXIST);
      *p = '/';
    }
  FILE *f = fopen (name, "w");
  ck_assert_ptr_nonnull (f);
  fputs (text, f);
  ck_assert_int_eq (fclose (f), 0);
}

static void
put_number (char const *path, unsigned long long n)
{
  char text[32];
  snprintf (text, sizeof text, "%llu\n", n);
  put (path, text);
}

static void
setup (void)
{
  strcpy (root, "/tmp/unit-budget.XXXXXX");
  ck_assert_ptr_nonnull (mkdtemp (root));
}

static void
teardown (void)
{
  char cmd[128];
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", root);
  ck_assert_int_eq (system (cmd), 0);
}

static char const v2_mountinfo[] =
  "22 1 252:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
  "30 22 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw\n";

/* A hybrid machine: the memory controller in a v1 hierarchy, an empty
   v2 one beside it (as this project's CI machine is).  */
static char const hybrid_mountinfo[] =
  "22 1 252:0 / / rw,relatime - ext4 /dev/vda rw\n"
  "30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
  "31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
  "34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
  "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

static void
meminfo (unsigned long long avail_kib)
{
  char text[256];
  snprintf (text, sizeof text,
            "MemTotal:       24000000 kB\nMemFree:         1000000 kB\n"
            "MemAvailable:   %llu kB\nCached:          2000000 kB\n",
            avail_kib);
  put ("proc/meminfo", text);
}

/* ---- cgroup v2 ---- */

START_TEST (v2_own_limit)
{
  put ("proc/self/cgroup", "0::/system.slice/backup.service\n");
  put ("proc/self/mountinfo", v2_mountinfo);
  put ("sys/fs/cgroup/system.slice/backup.service/memory.max", "67108864\n");
  put ("sys/fs/cgroup/system.slice/backup.service/memory.high", "max\n");
  put_number ("sys/fs/cgroup/system.slice/backup.service/memory.current",
              20 * MiB);
  /* Clean page cache, active or not, is reclaimed before a charge
     fails; tmpfs pages (shmem) and dirty ones are not.  */
  put ("sys/fs/cgroup/system.slice/backup.service/memory.stat",
       "anon 8388608\nfile 10485760\nactive_file 6291456\n"
       "inactive_file 4194304\nshmem 1048576\nfile_dirty 1048576\n"
       "file_writeback 0\n");
  put ("sys/fs/cgroup/system.slice/memory.max", "max\n");
  meminfo (20 * 1024 * 1024);
  struct budget b;
  budget_measure (root, &b);
  ck_assert_uint_eq (b.headroom, 52 * MiB);
  ck_assert_uint_eq (b.bytes, 13 * MiB);
  ck_assert_str_eq (b.source, "cgroup v2");
  ck_assert_str_eq (b.limit_file, "memory.max");
  ck_assert_uint_eq (b.limit, 64 * MiB);
  ck_assert_uint_eq (b.usage, 12 * MiB);
  ck_assert_ptr_nonnull (strstr (b.cgroup, "/sys/fs/cgroup/system.slice/"
                                            "backup.service"));
  budget_free (&b);
}
END_TEST

START_TEST (v2_high_and_parent)
{
  put ("proc/self/cgroup", "0::/a/b\n");
  put ("proc/self/mountinfo", v2_mountinfo);
  put ("sys/fs/cgroup/a/b/memory.max", "max\n");
  put_number ("sys/fs/cgroup/a/b/memory.high", 512 * MiB);
  put_number ("sys/fs/cgroup/a/b/memory.current", 100 * MiB);
  /* The parent's limit, shared with its other children, is tighter.  */
  put_number ("sys/fs/cgroup/a/memory.max", 300 * MiB);
  put_number ("sys/fs/cgroup/a/memory.current", 280 * MiB);
  meminfo (20 * 1024 * 1024);
  struct budget b;
  budget_measure (root, &b);
  ck_assert_uint_eq (b.headroom, 20 * MiB);
  ck_assert_uint_eq (b.bytes, 5 * MiB);
  ck_assert_ptr_nonnull (strstr (b.cgroup, "/sys/fs/cgroup/a"));
  ck_assert_ptr_null (strstr (b.cgroup, "/sys/fs/cgroup/a/b"));
  budget_free (&b);

  /* Without the parent's limit, memory.high gives the headroom.  */
  put ("sys/fs/cgroup/a/memory.max", "max\n");
  budget_measure (root, &b);
  ck_assert_uint_eq (b.headroom, 412 * MiB);
  ck_assert_str_eq (b.limit_file, "memory.high");
  budget_free (&b);
}
END_TEST

START_TEST (v2_namespace_root)
{
  /* Inside a cgroup namespace the process sees itself at "/", and its
     own cgroup is what is mounted.  */
  put ("proc/self/cgroup", "0::/\n");
  put ("proc/self/mountinfo", v2_mountinfo);
  put_number ("sys/fs/cgroup/memory.max", 128 * MiB);
  put_number ("sys/fs/cgroup/memory.current", 8 * MiB);
  meminfo (20 * 1024 * 1024);
  struct budget b;
  budget_measure (root, &b);
  ck_assert_uint_eq (b.headroom, 120 * MiB);
  budget_free (&b);

  /* A path outside what is mounted (no namespace, but only the
     container's part mounted) reads the mount's root.  */
  put ("proc/self/cgroup", "0::/docker/abc\n");
  put ("proc/self/mountinfo",
       "30 22 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  budget_measure (root, &b);
  ck_assert_uint_eq (b.headroom, 120 * MiB);
  budget_free (&b);
}
END_TEST

START_TEST (v2_right_mount)
{
  /* Two cgroup2 mounts: one of another part of the hierarchy first, then
     the one our cgroup is under.  */
  put ("proc/self/cgroup", "0::/mine\n");
  put ("proc/self/mountinfo",
       "29 22 0:26 /other /mnt/o rw - cgroup2 cgroup2 rw\n"
       "30 22 0:26 / /cg rw - cgroup2 cgroup2 rw\n");
  put_number ("mnt/o/memory.max", 8 * MiB);
  put_number ("mnt/o/memory.current", 0);
  put_number ("cg/mine/memory.max", 100 * MiB);
  put_number ("cg/mine/memory.current", 0);
  meminfo (20 * 1024 * 1024);
  struct budget b;
  budget_measure (root, &b);
  ck_assert_uint_eq (b.headroom, 100 * MiB);
  ck_assert_ptr_nonnull (strstr (b.cgroup, "/cg/mine"));
  budget_free (&b);
}
END_TEST

START_TEST (v2_escaped_mount_point)
{
  put ("proc/self/cgroup", "0::/x\n");
  put ("proc/self/mountinfo",
       "30 22 0:26 / /sys/fs/my\\040cgroups rw - cgroup2 none rw\n");
  put_number ("sys/fs/my cgroups/x/memory.max", 64 * MiB);
  put_number ("sys/fs/my cgroups/x/memory.current", 0);
  meminfo (20 * 1024 * 1024);
  struct budget b;
  budget_measure (root, &b);
  ck_assert_uint_eq (b.headroom, 64 * MiB);
  budget_free (&b);
}
END_TEST

/* ---- cgroup v1 ---- */

START_TEST (v1_hybrid)
{
  put ("proc/self/cgroup",
       "9:name=systemd:/\n4:memory:/process_api/abc\n1:cpu:/\n0::/\n");
  put ("proc/self/mountinfo", hybrid_mountinfo);
  /* The empty v2 hierarchy has no limit files: skipped.  */
  put ("sys/fs/cgroup/unified/cgroup.procs", "1\n");
  put_number ("sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes",
              128 * MiB);
  put_number ("sys/fs/cgroup/memory/process_api/abc/memory.usage_in_bytes",
              100 * MiB);
  /* v1's hierarchical totals count: 40 MiB of cache, 4 of it tmpfs.  */
  put ("sys/fs/cgroup/memory/process_api/abc/memory.stat",
       "cache 1048576\nshmem 0\ninactive_file 1048576\n"
       "total_cache 41943040\ntotal_shmem 4194304\ntotal_dirty 0\n"
       "total_writeback 0\ntotal_inactive_file 37748736\n");
  /* v1's "no limit" is a huge number, not "max".  */
  put ("sys/fs/cgroup/memory/process_api/memory.limit_in_bytes",
       "9223372036854771712\n");
  put ("sys/fs/cgroup/memory/memory.limit_in_bytes",
       "9223372036854771712\n");
  meminfo (20 * 1024 * 1024);
  struct budget b;
  budget_measure (root, &b);
  ck_assert_str_eq (b.source, "cgroup v1");
  ck_assert_str_eq (b.limit_file, "memory.limit_in_bytes");
  ck_assert_uint_eq (b.headroom, 64 * MiB);
  ck_assert_uint_eq (b.usage, 64 * MiB);
  ck_assert_uint_eq (b.bytes, 16 * MiB);
  budget_free (&b);

  /* Dirty pages must be written before they can go.  */
  put ("sys/fs/cgroup/memory/process_api/abc/memory.stat",
       "total_cache 41943040\ntotal_shmem 4194304\ntotal_dirty 8388608\n"
       "total_writeback 2097152\n");
  budget_measure (root, &b);
  ck_assert_uint_eq (b.headroom, 54 * MiB);
  budget_free (&b);

  /* Over its limit (reclaim not yet done): no headroom at all.  */
  put_number ("sys/fs/cgroup/memory/process_api/abc/memory.usage_in_bytes",
              200 * MiB);
  put ("sys/fs/cgroup/memory/process_api/abc/memory.stat", "");
  budget_measure (root, &b);
  ck_assert_uint_eq (b.headroom, 0);
  ck_assert_uint_eq (b.bytes, 0);
  budget_free (&b);
}
END_TEST

START_TEST (v1_unlimited_uses_memavailable)
{
  put ("proc/self/cgroup", "4:memory:/\n0::/\n");
  put ("proc/self/mountinfo", hybrid_mountinfo);
  put ("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  put_number ("sys/fs/cgroup/memory/memory.usage_in_bytes", 900 * MiB);
  meminfo (1024 * 1024);   /* 1 GiB */
  struct budget b;
  budget_measure (root, &b);
  ck_assert_str_eq (b.source, "MemAvailable");
  ck_assert_ptr_null (b.cgroup);
  ck_assert_uint_eq (b.headroom, 1024 * MiB);
  ck_assert_uint_eq (b.bytes, 256 * MiB);
  budget_free (&b);
}
END_TEST

/* ---- no cgroup, old kernels, nothing at all ---- */

START_TEST (old_kernel_meminfo)
{
  /* Before 3.14 there is no MemAvailable: free plus cached.  */
  put ("proc/meminfo", "MemTotal: 4000000 kB\nMemFree: 100000 kB\n"
                       "Buffers: 1000 kB\nCached: 300000 kB\n");
  struct budget b;
  budget_measure (root, &b);
  ck_assert_str_eq (b.source, "MemAvailable");
  ck_assert_uint_eq (b.headroom, 400000ULL * 1024);
  budget_free (&b);
}
END_TEST

START_TEST (nothing_readable)
{
  struct budget b;
  budget_measure (root, &b);
  ck_assert_ptr_null (b.source);
  ck_assert_uint_eq (b.headroom, UINT64_MAX);
  ck_assert_uint_eq (b.bytes, SIZE_MAX);
  budget_free (&b);
}
END_TEST

/* ---- fitting the buffers ---- */

struct fit_case
{
  size_t bytes;
  unsigned int depth;
  size_t size;
  unsigned int want_depth;
  size_t want_size;
  bool changed;
};

static struct fit_case const fit_cases[] =
{
  /* Enough: nothing changes.  */
  { SIZE_MAX, 24, 8 * MiB, 24, 8 * MiB, false },
  { 64 * MiB, 8, 8 * MiB, 8, 8 * MiB, false },
  /* First fewer buffers, down to one...  */
  { 48 * MiB, 24, 8 * MiB, 6, 8 * MiB, true },
  { 32 * MiB, 24, 8 * MiB, 4, 8 * MiB, true },
  { 63 * MiB / 4, 24, 8 * MiB, 1, 8 * MiB, true },
  { 8 * MiB, 2, 8 * MiB, 1, 8 * MiB, true },
  /* ...then one smaller, in whole MiB...  */
  { 5 * MiB + 12345, 24, 8 * MiB, 1, 5 * MiB, true },
  { 12 * MiB, 1, 16 * MiB, 1, 12 * MiB, true },
  { 3 * MiB + 5, 24, 8 * MiB, 1, 3 * MiB, true },
  /* ...not below 1 MiB, whatever the budget says.  */
  { 300 * 1024, 24, 8 * MiB, 1, 1 * MiB, true },
  { 0, 24, 8 * MiB, 1, 1 * MiB, true },
  { 0, 1, 1 * MiB, 1, 1 * MiB, false },
  /* A buffer asked smaller than 1 MiB is not made larger.  */
  { 0, 24, 512 * 1024, 1, 512 * 1024, true },
  { 0, 1, 64 * 1024, 1, 64 * 1024, false },
  { 1 * MiB, 24, 512 * 1024, 2, 512 * 1024, true },
};

START_TEST (fit)
{
  struct fit_case const *t = &fit_cases[_i];
  unsigned int depth = t->depth;
  size_t size = t->size;
  bool changed = budget_fit (t->bytes, &depth, &size);
  ck_assert_uint_eq (depth, t->want_depth);
  ck_assert_uint_eq (size, t->want_size);
  ck_assert_int_eq (changed, t->changed);
}
END_TEST

START_TEST (plan_real_system)
{
  /* On the running system: whatever it finds, the plan fits.  */
  struct memory_plan p;
  budget_plan (&p, "", 24, 8 * MiB, false, false);
  ck_assert_uint_ge (p.depth, 1);
  ck_assert_uint_le (p.depth, 24);
  ck_assert (p.depth == 1 || (uint64_t) p.depth * p.size <= p.budget.bytes);
  ck_assert_int_eq (p.capped, p.depth != 24 || p.size != 8 * MiB);
  budget_free (&p.budget);
}
END_TEST

static Suite *
budget_suite (void)
{
  Suite *s = suite_create ("budget");
  TCase *tc = tcase_create ("measure");
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, v2_own_limit);
  tcase_add_test (tc, v2_high_and_parent);
  tcase_add_test (tc, v2_namespace_root);
  tcase_add_test (tc, v2_right_mount);
  tcase_add_test (tc, v2_escaped_mount_point);
  tcase_add_test (tc, v1_hybrid);
  tcase_add_test (tc, v1_unlimited_uses_memavailable);
  tcase_add_test (tc, old_kernel_meminfo);
  tcase_add_test (tc, nothing_readable);
  suite_add_tcase (s, tc);
  TCase *fit_tc = tcase_create ("fit");
  tcase_add_loop_test (fit_tc, fit, 0, sizeof fit_cases / sizeof *fit_cases);
  tcase_add_test (fit_tc, plan_real_system);
  suite_add_tcase (s, fit_tc);
  return s;
}

int
main (void)
{
  return run_suite_as_tap (budget_suite ());
}
