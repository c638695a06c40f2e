/* A program whose references carry no symbol version (linked against a
 * libc without versions, or by a linker that writes none): the dynamic
 * linker binds them to a definition of the first version a library
 * defines, else to its default one.  Its affinity calls take a size, as
 * the default versions do; they must reach those, not the pre-2.3.4
 * calls that take none.  Exits 0 when both calls narrowed the mask. */
#include <errno.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "arenas.h"

int main(void)
{
    cpu_set_t allowed, one, now;
    if (!first_allowed_cpu(&allowed, &one))
        return 2;
    int rc = sched_setaffinity(0, sizeof one, &one);
    bool narrowed = sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &one);
    printf("nover: sched_setaffinity: %s\n",
           rc != 0 ? strerror(errno) : narrowed ? "ok" : "no change");
    if (rc != 0 || !narrowed)
        return 1;
    if (sched_setaffinity(0, sizeof allowed, &allowed) != 0)
        return 2;
    rc = pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    narrowed = sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &one);
    printf("nover: pthread_setaffinity_np: %s\n",
           rc != 0 ? strerror(rc) : narrowed ? "ok" : "no change");
    return rc == 0 && narrowed ? 0 : 1;
}
