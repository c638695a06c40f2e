/* Unit tests of the pure code: the parsers, the decision, the arena rule. */
#include <check.h>
#include <stdlib.h>

#include "suites.h"

int main(void)
{
    SRunner *sr = srunner_create(sysparse_suite());
    srunner_add_suite(sr, usersettings_suite());
    srunner_add_suite(sr, config_suite());
    srunner_add_suite(sr, policy_suite());
    srunner_add_suite(sr, arenas_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
