/* stillclock.so: a CLOCK_MONOTONIC that stands still, for the tests that
 * count a command's instructions under callgrind.  inspect gives up on a
 * process after AFX_READ_SECONDS of this clock: under callgrind, and more
 * so on a loaded machine, that deadline could pass and end the work being
 * counted.  With the clock stopped no deadline passes, and what callgrind
 * counts is the work alone, the same at any speed (a hang is still caught
 * by the test's timeout).  Every other clock is the kernel's. */
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int clock_gettime(clockid_t clock, struct timespec *ts)
{
    if (clock == CLOCK_MONOTONIC) {
        ts->tv_sec = 1000;
        ts->tv_nsec = 0;
        return 0;
    }
    return (int)syscall(SYS_clock_gettime, clock, ts);
}
