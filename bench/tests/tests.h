/* The benchmark's own test suites, one per concern. */
#ifndef AFB_TESTS_H
#define AFB_TESTS_H

#include <check.h>

Suite *options_suite(void);
Suite *placement_suite(void);
Suite *output_suite(void);
Suite *runner_suite(void);
Suite *command_suite(void);

#endif
