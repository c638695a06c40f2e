/* A preload that takes pthread keys in its constructor, as a program's
 * libraries do before arenafix's constructor runs: AFX_KEYS of them (40
 * when unset: past glibc's first 32, whose values need no allocation),
 * or every one the process can have (AFX_KEYS=all). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

__attribute__((constructor)) static void take_keys(void)
{
    const char *want = getenv("AFX_KEYS");
    long n = want == NULL ? 40 : strcmp(want, "all") == 0 ? 100000 : atol(want);
    pthread_key_t key;
    for (long i = 0; i < n && pthread_key_create(&key, NULL) == 0; i++)
        ;
}
