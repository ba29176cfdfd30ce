/* Shared by the unit test programs: run a check suite, one TAP line per
   test on standard output (read by automake's tap-driver.sh).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#ifndef CP8M_TAP_MAIN_H
#define CP8M_TAP_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int
run_suite_as_tap (Suite *s)
{
  SRunner *sr = srunner_create (s);
  srunner_set_tap (sr, "-");
  srunner_run_all (sr, CK_SILENT);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
