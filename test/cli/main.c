/* make check-cli: the arenafix command, run for real. */
#include <stdlib.h>

#include "harness.h"
#include "suiterun.h"

int main(void)
{
    /* The long ones first: with AFX_TEST_JOBS they start at once.  The
     * two that mostly wait on the command's deadlines (a read a user
     * holds, a loader that never ends) lead, so that their waits pass
     * beside the others' work, not after it. */
    static const afx_suite_maker suites[] = {
        hostile_suite, probe_suite, scan_suite, enable_suite, inspect_suite, prometheus_suite,
        wrap_suite, pure_suite, hook_suite, unitfile_suite, status_suite, help_suite, libc_suite, rootprobe_suite,
        cdi_suite, engines_suite,
        rootless_suite, runtime_suite,
    };
    /* inspect --all judges the whole host: each suite sees its own
     * processes alone, in a PID namespace of its own (as root). */
    int failed = afx_run_suites(suites, (int)(sizeof suites / sizeof suites[0]), true);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
