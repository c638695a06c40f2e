/* ealloop: a DPDK EAL program, the workload the bug report's users ran.
 * rte_eal_init pins the main lcore before it starts the workers, and
 * each worker lcore is pinned to its CPU set before the application
 * runs on it; every lcore then mallocs with glibc's malloc (not
 * rte_malloc), as packet-processing code does for its own tables.
 * When all lcores have allocated, the main lcore counts the arenas
 * glibc made (malloc_info) and prints one line:
 *
 *   ealloop lcores=N arenas=M online=C
 *
 * N: lcores that ran the loop (the main lcore, on the main arena,
 * included), M: arenas, C: CPUs online.  On an affected glibc more than
 * 9 lcores share 9 arenas; a fixed glibc, or arenafix, gives
 * min(N, 8 x C).  (arenafix's touch mode adds one for each of EAL's
 * control threads, which otherwise never malloc.)
 *
 *   ealloop EAL-OPTIONS... [-- [--size BYTES] [--rounds N]]
 *
 * Without hugepages or devices: -l 0-15 --no-huge --no-pci --in-memory.
 * More lcores than CPUs, all on CPU 0: --lcores '(0-29)@0'. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "arenas.h"

/* Above tcache's largest size (1032 bytes), so the arena serves it. */
static size_t block_size = 4096;
static unsigned rounds = 100;

static int malloc_loop(void *arg)
{
    (void)arg;
    for (unsigned i = 0; i < rounds; i++) {
        /* volatile: gcc would delete an unused malloc/free pair. */
        char *volatile block = malloc(block_size);
        if (block == NULL)
            return -ENOMEM;
        block[0] = (char)i;
        free(block);
    }
    return 0;
}

static unsigned long parse_number(const char *option, const char *text)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || n == 0 || n > (1UL << 30)) {
        fprintf(stderr, "ealloop: %s %s: not a number from 1 to 2^30\n", option, text);
        exit(2);
    }
    return n;
}

/* The application's own options, after EAL's and its "--". */
static void parse_options(int argc, char **argv)
{
    for (int i = 0; i < argc; i += 2) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
            block_size = parse_number(argv[i], argv[i + 1]);
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = (unsigned)parse_number(argv[i], argv[i + 1]);
        else {
            fprintf(stderr, "usage: ealloop EAL-OPTIONS... [-- [--size BYTES] [--rounds N]]\n");
            exit(2);
        }
    }
}

int main(int argc, char **argv)
{
    int used = rte_eal_init(argc, argv);
    if (used < 0) {
        fprintf(stderr, "ealloop: rte_eal_init: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    parse_options(argc - used - 1, argv + used + 1);

    /* The main lcore runs the loop too, as an application's would. */
    rte_eal_mp_remote_launch(malloc_loop, NULL, SKIP_MAIN);
    int status = malloc_loop(NULL) == 0 ? 0 : 1;
    unsigned lcore, ran = 1;
    RTE_LCORE_FOREACH_WORKER(lcore) {
        int rc = rte_eal_wait_lcore(lcore);
        if (rc != 0) {
            fprintf(stderr, "ealloop: lcore %u: %s\n", lcore, strerror(-rc));
            status = 1;
        }
        ran++;
    }
    int arenas = count_arenas();
    printf("ealloop lcores=%u arenas=%d online=%ld\n", ran, arenas, sysconf(_SC_NPROCESSORS_ONLN));
    fflush(stdout);
    if (rte_eal_cleanup() != 0)
        status = 1;
    return status;
}
