/* One test of a suite, for the check harnesses (test/integration,
 * test/cli); included after <check.h>.
 *
 * libcheck picks a suite by CK_RUN_SUITE and a test case (a group of
 * tests) by CK_RUN_CASE, but no single test.  AFX_RUN_TEST=NAME adds to
 * their suites only the tests of that name (START_TEST(NAME)), each of
 * its loop's iterations: make check-cli SUITE=inspect TEST=NAME sets
 * both. */
#ifndef AFX_TEST_CKSELECT_H
#define AFX_TEST_CKSELECT_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

static inline void afx_tcase_add_test(TCase *tc, const TTest *ttest, int signal, int allowed_exit_value, int start,
                                      int end)
{
    const char *only = getenv("AFX_RUN_TEST");
    if (only != NULL && *only != '\0' && strcmp(only, ttest->name) != 0)
        return;
    (_tcase_add_test)(tc, ttest, signal, allowed_exit_value, start, end);
}

/* Every check.h macro that adds a test calls _tcase_add_test by this name. */
#define _tcase_add_test(...) afx_tcase_add_test(__VA_ARGS__)

#endif
