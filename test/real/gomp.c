/* GCC's libgomp on its own: with OMP_PROC_BIND set, libgomp pins the
 * initial thread (pthread_setaffinity_np, before main) and starts each
 * worker already bound to its place (the thread attribute), so every
 * worker's first malloc happens on one CPU. */
#include <stdio.h>

#include "parallel.h"

int main(void)
{
    int ran = malloc_in_parallel(0);
    if (ran != omp_get_max_threads()) {
        fprintf(stderr, "gomp: %d threads ran, %d expected\n", ran, omp_get_max_threads());
        return 1;
    }
    return 0;
}
