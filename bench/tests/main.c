/* Runs every suite of the benchmark's tests. */
#include <stdlib.h>

#include "tests.h"

int main(void)
{
    SRunner *sr = srunner_create(options_suite());
    srunner_add_suite(sr, placement_suite());
    srunner_add_suite(sr, output_suite());
    srunner_add_suite(sr, runner_suite());
    srunner_add_suite(sr, command_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
