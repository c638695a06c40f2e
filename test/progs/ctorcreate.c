/* A library whose constructor starts a thread, while dlopen holds the
 * loader's lock: the moments program (its "dlopen" moment) lets another
 * thread make the process's first interposed call meanwhile. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

extern sem_t afx_ctor_go;   /* the program's */

static void *nothing(void *unused)
{
    return unused;
}

__attribute__((constructor)) static void start_one(void)
{
    sem_post(&afx_ctor_go);
    struct timespec t = { .tv_nsec = 300 * 1000000 };
    nanosleep(&t, NULL);        /* the other thread's call comes now */
    pthread_t thread;
    int rc = pthread_create(&thread, NULL, nothing, NULL);
    if (rc == 0)
        pthread_join(thread, NULL);
    printf("ctor-create=%d\n", rc);
}
