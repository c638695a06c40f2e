/* The loader's lock against the library's own waits: a thread arenafix
 * did not see start dlopens a library whose constructor starts a thread
 * (dl_load_lock held), while another thread makes the process's first
 * pthread_create.  Each round runs in a child of its own, forked while
 * this process has no thread, so each meets the library undecided.
 *
 *   loaderrace shape N    the main thread has called mallopt (the
 *                         library has bound its functions); a thread
 *                         started through glibc's own pthread_create
 *                         (looked up by version, as some libraries do)
 *                         dlopens libloaderplugin.so, whose constructor
 *                         waits until the main thread sleeps in its first
 *                         pthread_create, then starts one
 *   loaderrace stress N   two threads started through glibc's own
 *                         pthread_create (looked up by version, as some
 *                         libraries do) dlopen and dlclose the plugin,
 *                         whose constructor starts a thread, while the
 *                         main thread starts and joins threads
 *
 * Prints "rounds=N hung=0", or "hung in round I" and exits 1 at the
 * first round that has not ended after a generous time. */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "glibccreate.h"

/* Read by the plugin's constructor. */
atomic_int afx_race_ctor_started;
atomic_int afx_race_wait_for_main;

static char plugin[4096];
enum { STRESS_LOOPS = 20, ROUND_LIMIT_S = 30 };

static void die(const char *what, const char *why)
{
    fprintf(stderr, "loaderrace: %s: %s\n", what, why);
    _exit(2);
}

static void *nothing(void *arg)
{
    return arg;
}

static void create_and_join(int (*create)(pthread_t *, const pthread_attr_t *,
                                          void *(*)(void *), void *))
{
    pthread_t t;
    int rc = create(&t, NULL, nothing, NULL);
    if (rc != 0)
        die("pthread_create", strerror(rc));
    pthread_join(t, NULL);
}


static afx_create_fn *unseen_create(void)
{
    afx_create_fn *unseen = afx_glibc_pthread_create();
    if (unseen == NULL)
        die("dlvsym pthread_create", "no version found");
    return unseen;
}

static void *open_plugin(void *unused)
{
    if (dlopen(plugin, RTLD_NOW | RTLD_LOCAL) == NULL)
        die("dlopen", dlerror());
    return unused;
}

static void shape(void)
{
    /* Any parameter: the library binds its functions at the first
     * mallopt, so that the first pthread_create goes straight to the
     * decision.  (A SIGEV_THREAD timer's thread, the same shape, now
     * meets a decision made at timer_create.) */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    atomic_store(&afx_race_wait_for_main, 1);
    pthread_t opener;
    if (unseen_create()(&opener, NULL, open_plugin, NULL) != 0)
        die("pthread_create", "the unseen thread");
    while (atomic_load(&afx_race_ctor_started) == 0)
        sched_yield();
    create_and_join(pthread_create);
    /* Asleep, not yielding: where the first pthread_create did not wait
     * for the loader's lock (i386, whose first creation decides at once),
     * the constructor is still waiting to see this thread asleep, and a
     * thread that yields is running: it waited its whole 2 s each round. */
    while (atomic_load(&afx_race_ctor_started) != 2) {
        struct timespec ms = { 0, 100000 };
        nanosleep(&ms, NULL);
    }
    pthread_join(opener, NULL);
}

static void *load_and_unload(void *arg)
{
    (void)arg;
    for (int i = 0; i < STRESS_LOOPS; i++) {
        void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
        if (h == NULL)
            die("dlopen", dlerror());
        dlclose(h);
    }
    return NULL;
}

static void stress(void)
{
    afx_create_fn *unseen = unseen_create();
    pthread_t loaders[2];
    for (int i = 0; i < 2; i++)
        if (unseen(&loaders[i], NULL, load_and_unload, NULL) != 0)
            die("pthread_create", "the unseen thread");
    for (int i = 0; i < STRESS_LOOPS; i++)
        create_and_join(pthread_create);
    for (int i = 0; i < 2; i++)
        pthread_join(loaders[i], NULL);
}

/* Whether the child ended within the limit; a hung one is killed. */
static bool ended(pid_t pid, int *status)
{
    for (int i = 0; i < ROUND_LIMIT_S * 1000; i++) {
        pid_t got = waitpid(pid, status, WNOHANG);
        if (got == pid)
            return true;
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, status, 0);
    return false;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "shape") != 0 && strcmp(argv[1], "stress") != 0))
        die("usage", "loaderrace shape|stress ROUNDS");
    bool is_shape = strcmp(argv[1], "shape") == 0;
    int rounds = atoi(argv[2]);
    /* Beside this program (argv[0] is its path, whichever loader runs
     * it). */
    const char *slash = strrchr(argv[0], '/');
    int dirlen = slash != NULL ? (int)(slash - argv[0]) : 1;
    if (snprintf(plugin, sizeof plugin, "%.*s/libloaderplugin.so", dirlen,
                 slash != NULL ? argv[0] : ".") >= (int)sizeof plugin)
        die(argv[0], "path too long");
    for (int r = 0; r < rounds; r++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0)
            die("fork", strerror(errno));
        if (pid == 0) {
            if (is_shape)
                shape();
            else
                stress();
            _exit(0);
        }
        int status = 0;
        if (!ended(pid, &status)) {
            printf("hung in round %d of %d\n", r + 1, rounds);
            return 1;
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            printf("round %d failed: status %#x\n", r + 1, status);
            return 1;
        }
    }
    printf("rounds=%d hung=0\n", rounds);
    return 0;
}
