/* Stand-ins that give nover's references no version at link time: the
 * library nover runs with has the same name and none of these. */
#include <pthread.h>
#include <sched.h>

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
    (void)pid, (void)size, (void)set;
    return -1;
}

int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *set)
{
    (void)thread, (void)size, (void)set;
    return -1;
}
