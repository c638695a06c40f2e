/* The plugin otherlibc-dlopen opens, linked with libpthread: starts one
 * thread and waits for it.  Returns pthread_create's result. */
#include <pthread.h>

static void *run(void *arg)
{
    return arg;
}

int otherlibc_plugin_start(void);
int otherlibc_plugin_start(void)
{
    pthread_t t;
    int rc = pthread_create(&t, NULL, run, NULL);
    if (rc == 0)
        pthread_join(t, NULL);
    return rc;
}
