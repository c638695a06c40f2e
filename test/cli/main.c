/* make check-cli: the arenafix command, run for real. */
#include <stdlib.h>

#include "harness.h"

int main(void)
{
    SRunner *sr = srunner_create(pure_suite());
    srunner_add_suite(sr, hostile_suite());
    srunner_add_suite(sr, wrap_suite());
    srunner_add_suite(sr, probe_suite());
    srunner_add_suite(sr, inspect_suite());
    srunner_add_suite(sr, scan_suite());
    srunner_add_suite(sr, enable_suite());
    srunner_add_suite(sr, unitfile_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
