/* fixedarenas THREADS [CPUS]: the arenas the fixed glibc gives THREADS
 * threads that each malloc while all are alive, plus main's, with CPUS
 * CPUs online (default: this host's online CPUs, as glibc counts them).
 *
 * The scripts that check arena counts (the hardening suite, the arm64
 * proof, Debian's smoke test, the emulated hosts' drivers) ask this
 * program, so the rule is written once, in common/arenarule.h, for C
 * and scripts alike. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../common/arenarule.h"

static long number(const char *s)
{
    char *end;
    long n = strtol(s, &end, 10);
    if (end == s || *end != '\0' || n < 0) {
        fprintf(stderr, "fixedarenas: not a count: %s\n", s);
        exit(2);
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: fixedarenas THREADS [CPUS]\n");
        return 2;
    }
    long threads = number(argv[1]);
    long cpus = argc == 3 ? number(argv[2]) : sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1) {
        fprintf(stderr, "fixedarenas: cannot tell how many CPUs are online\n");
        return 1;
    }
    printf("%ld\n", afx_fixed_glibc_arenas(threads, cpus));
    return 0;
}
