/* The shape of the bug on a big host: threads spread one per CPU, each
 * pinned before its first malloc, all holding their arena at once.
 * Prints what glibc ended up with, for the test bed's checker:
 *
 *   spread PATH THREADS [hold | wait FILE]
 *
 * PATH: self (thread i calls sched_setaffinity on itself), attr (thread i
 * is born pinned through pthread_attr_setaffinity_np), inherit (main pins
 * itself to CPU i before creating thread i, so the thread inherits it),
 * none (threads keep the process's mask).  Thread i goes to the i-th CPU
 * of the process's allowed set, modulo its size.  With "hold" the process
 * stays alive after printing, until a signal, so it can be inspected.
 * With "wait FILE" it says "ready" on stderr once running (libraries
 * loaded, constructors run), then waits for FILE to exist before it
 * looks at its CPUs and starts its threads: the host changes what is
 * online in between.
 *
 * Output, one line:
 *   arenas=N threads=T allowed=A allowed_list=L cpus_used=C
 * cpus_used counts the distinct CPUs the threads were verified pinned to
 * (0 for none). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../progs/arenas.h"

enum path { PATH_SELF, PATH_ATTR, PATH_INHERIT, PATH_NONE };

struct worker_arg {
    int cpu;            /* -1: not pinned */
    int verified_cpu;   /* set by the thread once its mask is checked */
};

static enum path path;
static pthread_barrier_t all_attached;

static void die(const char *what, int err)
{
    fprintf(stderr, "spread: %s: %s\n", what, strerror(err));
    exit(2);
}

static void one_cpu(cpu_set_t *set, int cpu)
{
    CPU_ZERO(set);
    CPU_SET(cpu, set);
}

/* A thread not where it was put would make the count meaningless. */
static void check_pinned(int cpu)
{
    cpu_set_t now, want;
    one_cpu(&want, cpu);
    if (sched_getaffinity(0, sizeof now, &now) != 0 || !CPU_EQUAL(&now, &want)) {
        fprintf(stderr, "spread: thread meant for CPU %d is not pinned there\n", cpu);
        exit(2);
    }
}

static void *worker(void *p)
{
    struct worker_arg *arg = p;
    if (path == PATH_SELF) {
        cpu_set_t set;
        one_cpu(&set, arg->cpu);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            die("sched_setaffinity", errno);
    }
    if (arg->cpu >= 0) {
        check_pinned(arg->cpu);
        arg->verified_cpu = arg->cpu;
    }
    void *volatile mem = malloc(200);  /* the first malloc attaches an arena */
    pthread_barrier_wait(&all_attached);
    free(mem);
    return NULL;
}

/* "0-1,4" style, as the kernel writes cpulists. */
static void format_cpulist(const cpu_set_t *set, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && len < size; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        int n = last == c ? snprintf(out + len, size - len, "%s%d", len ? "," : "", c)
                          : snprintf(out + len, size - len, "%s%d-%d", len ? "," : "", c, last);
        len += n > 0 ? (size_t)n : 0;
        c = last;
    }
}

static enum path parse_path(const char *name)
{
    static const char *const names[] = { "self", "attr", "inherit", "none" };
    for (int p = 0; p < 4; p++)
        if (strcmp(name, names[p]) == 0)
            return (enum path)p;
    fprintf(stderr, "spread: unknown path %s\n", name);
    exit(2);
}

/* Say so on stderr, then wait until FILE exists. */
static void wait_for(const char *file)
{
    fprintf(stderr, "ready\n");
    while (access(file, F_OK) != 0)
        usleep(10000);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr,
                "usage: spread self|attr|inherit|none THREADS [hold | wait FILE | pause N FILE]\n");
        return 2;
    }
    path = parse_path(argv[1]);
    int threads = atoi(argv[2]);
    int hold = argc > 3 && strcmp(argv[3], "hold") == 0;
    if (threads < 1)
        die("THREADS", EINVAL);
    if (argc > 4 && strcmp(argv[3], "wait") == 0)
        wait_for(argv[4]);
    /* pause N FILE: wait after the first N threads are made (the CPUs
     * they are spread over are those allowed at the start). */
    int pause_after = argc > 5 && strcmp(argv[3], "pause") == 0 ? atoi(argv[4]) : -1;

    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        die("sched_getaffinity", errno);
    int ncpus = CPU_COUNT(&allowed);
    int *cpus = calloc((size_t)ncpus, sizeof *cpus);
    struct worker_arg *args = calloc((size_t)threads, sizeof *args);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    if (cpus == NULL || args == NULL || tids == NULL)
        die("calloc", ENOMEM);
    for (int c = 0, i = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed))
            cpus[i++] = c;

    pthread_barrier_init(&all_attached, NULL, (unsigned)threads);
    for (int i = 0; i < threads; i++) {
        if (i == pause_after)
            wait_for(argv[5]);
        args[i].cpu = path == PATH_NONE ? -1 : cpus[i % ncpus];
        args[i].verified_cpu = -1;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        cpu_set_t set;
        if (path != PATH_NONE)
            one_cpu(&set, args[i].cpu);
        if (path == PATH_ATTR) {
            int rc = pthread_attr_setaffinity_np(&attr, sizeof set, &set);
            if (rc != 0)
                die("pthread_attr_setaffinity_np", rc);
        }
        if (path == PATH_INHERIT && sched_setaffinity(0, sizeof set, &set) != 0)
            die("pinning main", errno);
        int rc = pthread_create(&tids[i], &attr, worker, &args[i]);
        if (rc != 0)
            die("pthread_create", rc);
        pthread_attr_destroy(&attr);
    }
    if (path == PATH_INHERIT && sched_setaffinity(0, sizeof allowed, &allowed) != 0)
        die("restoring main's mask", errno);
    for (int i = 0; i < threads; i++)
        pthread_join(tids[i], NULL);

    cpu_set_t used;
    CPU_ZERO(&used);
    for (int i = 0; i < threads; i++)
        if (args[i].verified_cpu >= 0)
            CPU_SET(args[i].verified_cpu, &used);
    char list[1024];
    format_cpulist(&allowed, list, sizeof list);
    printf("arenas=%d threads=%d allowed=%d allowed_list=%s cpus_used=%d\n",
           count_arenas(), threads, ncpus, list, CPU_COUNT(&used));
    fflush(stdout);
    while (hold)
        pause();
    return 0;
}
