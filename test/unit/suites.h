#ifndef AFX_TEST_SUITES_H
#define AFX_TEST_SUITES_H

#include <check.h>

Suite *sysparse_suite(void);
Suite *usersettings_suite(void);
Suite *config_suite(void);
Suite *policy_suite(void);
Suite *arenas_suite(void);

#endif
