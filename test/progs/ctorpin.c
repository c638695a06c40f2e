/* A library whose constructor pins the main thread to its first allowed
 * CPU, preloaded after arenafix so that it runs before arenafix's own
 * constructor, as a runtime's may.  Prints "ctorpin: pinned" on stderr
 * (or why not). */
#include <sched.h>
#include <stdio.h>

__attribute__((constructor)) static void pin(void)
{
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) {
        fprintf(stderr, "ctorpin: fewer than two CPUs allowed\n");
        return;
    }
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &allowed)) {
            CPU_SET(cpu, &one);
            break;
        }
    fprintf(stderr, sched_setaffinity(0, sizeof one, &one) == 0 ? "ctorpin: pinned\n"
                                                                : "ctorpin: not pinned\n");
}
