/* ompalloc: an OpenMP program, the numerical code of the bug's users.
 * Built twice, once against GCC's libgomp and once against LLVM's
 * libomp: both pin their threads when OMP_PROC_BIND (or, for libomp,
 * KMP_AFFINITY) asks, libgomp through pthread_setaffinity_np and the
 * thread attribute, libomp through a raw sched_setaffinity system call.
 * Every thread of one parallel region mallocs a block larger than
 * tcache serves (1032 bytes) and holds it across a barrier; then the
 * initial thread counts the arenas glibc made (malloc_info):
 *
 *   ompalloc [THREADS]
 *   ompalloc runtime=gomp|llvm threads=N arenas=M bind=B
 *
 * THREADS defaults to 2 x omp_get_num_procs().  runtime names the
 * OpenMP library loaded in the process, N the threads that ran (the
 * initial one, on the main arena, included), B omp_get_proc_bind()
 * (false, true, master, close, spread).  A fixed glibc, or arenafix,
 * gives min(N, 8 x online CPUs).  On an affected glibc, libgomp's bound
 * threads share 9 arenas; libomp's workers do not, as libomp 14 widens
 * the mask while it starts them and each mallocs before it binds
 * itself, unless the whole process was narrowed before it started
 * (taskset, a cpuset): then both runtimes give 9. */
#include <errno.h>
#include <link.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenas.h"

static int find_runtime(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    const char *base = strrchr(info->dlpi_name, '/');
    base = base != NULL ? base + 1 : info->dlpi_name;
    if (strncmp(base, "libgomp.so", 10) == 0)
        *(const char **)found = "gomp";
    else if (strncmp(base, "libomp.so", 9) == 0)
        *(const char **)found = "llvm";
    return *(const char **)found != NULL;
}

/* The OpenMP library in the process, by the name it was loaded as. */
static const char *runtime_name(void)
{
    const char *found = NULL;
    dl_iterate_phdr(find_runtime, &found);
    return found != NULL ? found : "unknown";
}

static const char *bind_name(omp_proc_bind_t bind)
{
    switch (bind) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_master: return "master";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
    }
    return "unknown";
}

int main(int argc, char **argv)
{
    int threads = 2 * omp_get_num_procs();
    if (argc > 2) {
        fprintf(stderr, "usage: ompalloc [THREADS]\n");
        return 2;
    }
    if (argc == 2) {
        char *end;
        errno = 0;
        long n = strtol(argv[1], &end, 10);
        if (errno != 0 || end == argv[1] || *end != '\0' || n < 1 || n > 4096) {
            fprintf(stderr, "ompalloc: %s: not a thread count from 1 to 4096\n", argv[1]);
            return 2;
        }
        threads = (int)n;
    }

    int ran = 0, failed = 0;
#pragma omp parallel num_threads(threads) reduction(+ : ran, failed)
    {
        /* volatile: gcc would delete an unused malloc/free pair. */
        char *volatile block = malloc(4096);
        if (block != NULL)
            block[0] = 1;
        else
            failed++;
#pragma omp barrier
        free(block);
        ran++;
    }
    if (failed != 0) {
        fprintf(stderr, "ompalloc: %d threads could not malloc\n", failed);
        return 1;
    }
    printf("ompalloc runtime=%s threads=%d arenas=%d bind=%s\n", runtime_name(), ran,
           count_arenas(), bind_name(omp_get_proc_bind()));
    return 0;
}
