/* Shared by the OpenMP test programs: a parallel region in which every
 * thread mallocs once, as numerical code does. */
#ifndef AFX_REAL_PARALLEL_H
#define AFX_REAL_PARALLEL_H

#include <omp.h>
#include <stdlib.h>

/* Run THREADS threads (0: OpenMP's default) that each malloc a block
 * above tcache's largest size (1032 bytes), so the arena serves it.
 * Returns the number of threads that ran. */
static inline int malloc_in_parallel(int threads)
{
    int ran = 0;
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
    {
        /* volatile: gcc would delete an unused malloc/free pair. */
        char *volatile block;
        /* One thread at a time.  glibc's arena_get2 decides whether to
         * fix its limit (narenas > arena_test) before it takes a number
         * for a new arena: threads attaching at once can each find the
         * limit unset and each make an arena, one more than the bug's
         * count (10, not 9, now and then).  In turn, the count follows
         * glibc's rule alone; every thread still attaches here, on the
         * mask libgomp gave it. */
#pragma omp critical(afx_first_malloc)
        block = malloc(4096);
        if (block != NULL)
            block[0] = 1;
        free(block);
#pragma omp atomic
        ran++;
    }
    return ran;
}

#endif
