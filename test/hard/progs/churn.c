/* Create and join, then create detached, many threads; the process must
 * end with the memory and descriptors it had after a warm-up.  A
 * trampoline record or a semaphore lost per thread shows up here as
 * megabytes, a descriptor left open as a count that moved.
 *
 *   churn JOINED DETACHED [attr]
 *
 * attr: every thread is born pinned (to all CPUs it may use) through its
 * attribute, the path where the shim creates, then pins. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Detached threads in flight at once: bounded, or 2 CPUs drown. */
enum { IN_FLIGHT = 32, WARMUP = 2000 };

/* More growth than this over the run is a leak (one record of 64 bytes
 * per thread would be 6 MiB over 100,000 threads). */
static const long RSS_SLACK = 2L << 20;

static sem_t slots;
static pthread_attr_t attr, dattr;

static void *joined(void *arg)
{
    void *volatile p = malloc(64);
    free(p);
    return arg;
}

static void *detached(void *arg)
{
    (void)arg;
    void *volatile p = malloc(64);
    free(p);
    sem_post(&slots);
    return NULL;
}

static long rss_bytes(void)
{
    long pages = -1, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return -1;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

static void die(const char *what, int err)
{
    fprintf(stderr, "churn: %s: %s\n", what, strerror(err));
    exit(2);
}

static void run(long n_joined, long n_detached)
{
    for (long i = 0; i < n_joined; i++) {
        pthread_t t;
        void *ret;
        int rc = pthread_create(&t, &attr, joined, (void *)i);
        if (rc != 0)
            die("pthread_create", rc);
        if ((rc = pthread_join(t, &ret)) != 0)
            die("pthread_join", rc);
        if (ret != (void *)i)
            die("thread result", EINVAL);
    }
    for (long i = 0; i < n_detached; i++) {
        pthread_t t;
        while (sem_wait(&slots) != 0)
            ;
        int rc = pthread_create(&t, &dattr, detached, NULL);
        if (rc != 0)
            die("pthread_create detached", rc);
    }
    /* All slots back: every detached thread has run to its end. */
    for (int i = 0; i < IN_FLIGHT; i++)
        while (sem_wait(&slots) != 0)
            ;
    for (int i = 0; i < IN_FLIGHT; i++)
        sem_post(&slots);
    /* Let the last ones leave the kernel and free their stacks. */
    nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    long n_joined = atol(argv[1]), n_detached = atol(argv[2]);
    pthread_attr_init(&attr);
    pthread_attr_init(&dattr);
    pthread_attr_setdetachstate(&dattr, PTHREAD_CREATE_DETACHED);
    if (argc > 3 && strcmp(argv[3], "attr") == 0) {
        cpu_set_t all;
        if (sched_getaffinity(0, sizeof all, &all) != 0)
            die("sched_getaffinity", errno);
        pthread_attr_setaffinity_np(&attr, sizeof all, &all);
        pthread_attr_setaffinity_np(&dattr, sizeof all, &all);
    }
    sem_init(&slots, 0, IN_FLIGHT);

    /* Small runs (under valgrind) warm up in proportion. */
    long warm = n_joined < 4 * WARMUP ? n_joined / 4 : WARMUP;
    run(warm, warm);
    long rss0 = rss_bytes();
    int fds0 = open_fds();
    run(n_joined, n_detached);
    long rss1 = rss_bytes();
    int fds1 = open_fds();

    printf("threads=%ld rss_before=%ld rss_after=%ld growth=%ld fds_before=%d fds_after=%d\n",
           n_joined + n_detached, rss0, rss1, rss1 - rss0, fds0, fds1);
    /* Under a sanitizer or valgrind the heap is theirs, and grows by
     * design (quarantine): they check leaks themselves. */
    bool check_rss = getenv("CHURN_MEMORY_UNCHECKED") == NULL;
    if (rss0 < 0 || fds0 < 0 || (check_rss && rss1 - rss0 > RSS_SLACK) || fds1 != fds0) {
        fprintf(stderr, "churn: memory or descriptors grew\n");
        return 1;
    }
    return 0;
}
