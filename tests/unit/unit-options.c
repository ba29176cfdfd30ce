/* Unit tests for the cp layer's option parsing helpers.

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "cp/options.h"
#include "tap-main.h"

struct size_case
{
  char const *arg;
  bool ok;
  size_t value;
};

static struct size_case const size_cases[] =
{
  { "1", true, 1 },
  { "4096", true, 4096 },
  { "8M", true, 8 * 1024 * 1024 },
  { "8m", true, 8 * 1024 * 1024 },
  { "8MiB", true, 8 * 1024 * 1024 },
  { "8MB", true, 8 * 1000 * 1000 },
  { "512K", true, 512 * 1024 },
  { "512k", true, 512 * 1024 },
  { "512KiB", true, 512 * 1024 },
  { "64KB", true, 64 * 1000 },
  { "1G", true, 1024 * 1024 * 1024 },
  { "1GiB", true, 1024 * 1024 * 1024 },
  { "1024M", true, 1024 * 1024 * 1024 },
  /* Rejected: empty, words, zero, negative, signs, unknown or trailing
     suffixes, spaces, and anything above 1 GiB.  */
  { "", false, 0 },
  { "x", false, 0 },
  { "0", false, 0 },
  { "0M", false, 0 },
  { "-1", false, 0 },
  { "-8M", false, 0 },
  { "+8M", false, 0 },
  { "8Q", false, 0 },
  { "8M3", false, 0 },
  { "8MiBs", false, 0 },
  { "8 M", false, 0 },
  { "M", false, 0 },
  { "2G", false, 0 },
  { "1025M", false, 0 },
  { "1T", false, 0 },
  { "99999999999999999999999", false, 0 },
};

START_TEST (test_parse_size)
{
  struct size_case const *c = &size_cases[_i];
  size_t value = 12345;
  bool ok = cp8m_parse_size (c->arg, &value);
  ck_assert_msg (ok == c->ok, "'%s': expected %s", c->arg,
                 c->ok ? "success" : "failure");
  if (c->ok)
    ck_assert_uint_eq (value, c->value);
  else
    ck_assert_uint_eq (value, 12345);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("options");
  TCase *tc = tcase_create ("parse_size");
  tcase_add_loop_test (tc, test_parse_size, 0,
                       sizeof size_cases / sizeof size_cases[0]);
  suite_add_tcase (s, tc);

  return run_suite_as_tap (s);
}
