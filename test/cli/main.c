/* make check-cli: the arenafix command, run for real. */
#include <stdlib.h>

#include "harness.h"
#include "suiterun.h"

int main(void)
{
    /* The suites that mostly wait on the command's deadlines (a read a
     * user holds, a loader that never ends) start at once, beside
     * AFX_TEST_JOBS others (WAITING, suiterun.h): their waits pass
     * beside the others' work.  Then the long ones first. */
    enum { WAITING = 3 };
    static const afx_suite_maker suites[] = {
        probe_suite, remapped_suite, served_suite,
        scan_suite, enable_suite, inspect_suite, prometheus_suite, hostile_suite,
        wrap_suite, pure_suite, hook_suite, unitfile_suite, status_suite, help_suite, libc_suite, rootprobe_suite,
        cdi_suite, engines_suite,
        rootless_suite, runtime_suite,
    };
    /* inspect --all judges the whole host: each suite sees its own
     * processes alone, in a PID namespace of its own (as root). */
    int failed = afx_run_suites(suites, (int)(sizeof suites / sizeof suites[0]), WAITING, true);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
