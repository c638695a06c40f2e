/* Preloaded after libarenafix: a fork from another thread while
 * arenafix binds its real functions.  Its constructor runs first and
 * calls mallopt, so arenafix binds then; arenafix's first dlvsym lands
 * here, where a second thread forks and its child calls mallopt.  The
 * child has arenafix's binding state as the parent left it, half done,
 * and no thread to finish it: it must bind itself, not wait for ever.
 * Prints "forked child: proceeded" or "forked child: hung". */
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef void *dlvsym_fn(void *, const char *, const char *);
typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static atomic_bool held;
static const char *verdict = "forked child: not run (arenafix never called dlvsym)";

static void *fork_and_wait(void *arg)
{
    (void)arg;
    pid_t pid = fork();
    if (pid == 0)
        _exit(mallopt(M_PERTURB, 0) == 1 ? 0 : 1);
    if (pid < 0) {
        verdict = "forked child: fork failed";
        return NULL;
    }
    /* Ten seconds: binding takes microseconds. */
    int status = 0;
    for (int i = 0; i < 10000 && waitpid(pid, &status, WNOHANG) == 0; i++) {
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    if (waitpid(pid, &status, WNOHANG) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        verdict = "forked child: hung";
    } else {
        verdict = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "forked child: proceeded"
                                                                  : "forked child: failed";
    }
    return NULL;
}

/* Reached from arenafix's binding: the thread that binds stays here
 * until the child has had its chance.  glibc's own pthread_create, found
 * from here, so that arenafix's is not entered while it binds. */
void *dlvsym(void *handle, const char *name, const char *version)
{
    dlvsym_fn *real = (dlvsym_fn *)dlsym(RTLD_NEXT, "dlvsym");
    if (!atomic_exchange(&held, true)) {
        create_fn *create = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
        pthread_t t;
        if (create != NULL && create(&t, NULL, fork_and_wait, NULL) == 0)
            pthread_join(t, NULL);
    }
    return real(handle, name, version);
}

__attribute__((constructor)) static void bind_now(void)
{
    mallopt(M_PERTURB, 0);
}

__attribute__((destructor)) static void report(void)
{
    printf("%s\n", verdict);
}
