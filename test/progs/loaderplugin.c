/* Loaded by loaderrace with dlopen: its constructor runs with the
 * loader's lock held, and starts a thread.  In the shape, it first waits
 * until the main thread sleeps (in its first pthread_create, waiting for
 * the loader's lock), so that the two meet in the order that once hung. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern atomic_int afx_race_ctor_started;   /* the program's */
extern atomic_int afx_race_wait_for_main;

/* The main thread's state letter, from /proc (R, S, ...); '?' if unread. */
static char main_state(void)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)getpid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return '?';
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return '?';
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren != NULL && paren[1] == ' ' ? paren[2] : '?';
}

static void *nothing(void *arg)
{
    return arg;
}

__attribute__((constructor)) static void start_one(void)
{
    atomic_store(&afx_race_ctor_started, 1);
    if (atomic_load(&afx_race_wait_for_main)) {
        /* Up to two seconds for the main thread to block: it does in
         * microseconds where it waits for the loader's lock, and never
         * where it does not (then the round goes on regardless); not at
         * all without /proc. */
        char state;
        for (int i = 0; i < 20000 && (state = main_state()) != 'S' && state != '?'; i++) {
            struct timespec t = { 0, 100000 };
            nanosleep(&t, NULL);
        }
    }
    pthread_t thread;
    int rc = pthread_create(&thread, NULL, nothing, NULL);
    if (rc == 0)
        pthread_join(thread, NULL);
    else
        fprintf(stderr, "loaderplugin: pthread_create: %s\n", strerror(rc));
    atomic_store(&afx_race_ctor_started, 2);
}
