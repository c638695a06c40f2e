/* Shared by the test programs: count glibc malloc arenas, clean the
 * stack, pick a CPU. */
#ifndef AFX_TEST_ARENAS_H
#define AFX_TEST_ARENAS_H

#include <malloc.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/arenacount.h"

/* The project's one arena counter (common/arenacount.h), as an int. */
static inline int count_arenas(void)
{
    return (int)afx_count_arenas();
}

/* glibc 2.35 as released counts a thread's CPUs over the whole 4 KiB
 * buffer it asks the kernel to fill, bytes the kernel did not write
 * included (glibc bug 28850, fixed in 2.36 and on the release branches):
 * what earlier calls left on the stack adds CPUs to the arena limit.  A
 * thread about to malloc for the first time clears the stack below it,
 * as a new thread's stack is, so that glibc counts only its mask. */
__attribute__((noinline, unused)) static void clear_stack_below(void)
{
    volatile unsigned char below[16384];
    memset((unsigned char *)below, 0, sizeof below);
    __asm__ volatile("" : : "r"(below) : "memory");
}

/* A set with only the first CPU this process may use (pinned, steps).
 * False if the affinity cannot be read. */
static inline bool first_allowed_cpu(cpu_set_t *allowed, cpu_set_t *one)
{
    if (sched_getaffinity(0, sizeof *allowed, allowed) != 0)
        return false;
    CPU_ZERO(one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, allowed)) {
            CPU_SET(c, one);
            break;
        }
    return true;
}

#endif
