/* pinnedd: the long-running pinned service of the emulated host, the
 * shape of a low-latency server started by systemd.  It starts THREADS
 * threads; each pins itself with sched_setaffinity to one CPU of the
 * process's allowed set (round robin) before its first malloc, then
 * mallocs and frees blocks larger than tcache serves (1032 bytes) a few
 * times, keeps one, and waits forever: its arena stays, so
 * `arenafix inspect` can count the arenas of a process that runs on.
 *
 *   pinnedd [--threads N] [--ready-file PATH] [--size BYTES]
 *           [--rounds N] [--no-pin] [--exit]
 *
 * THREADS defaults to 4 x the CPUs in the allowed set.  When every
 * thread has allocated, it prints one line on stdout (the journal,
 * under systemd) and counts the arenas glibc made with malloc_info:
 *
 *   pinnedd ready=1 pid=P threads=N allowed=A online=C arenas=M
 *
 * writes the same line to PATH (whole, through a rename), and sends
 * READY=1 to $NOTIFY_SOCKET when systemd set one (Type=notify).  On an
 * affected glibc M is 9; a fixed glibc, or arenafix, gives
 * min(N + 1, 8 x C).  Then it waits: SIGUSR1 prints the count again,
 *
 *   pinnedd pid=P threads=N arenas=M
 *
 * and SIGTERM or SIGINT end it with status 0.  --exit ends it after the
 * ready line instead; --no-pin leaves the threads unpinned. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "arenas.h"

static size_t block_size = 4096;
static unsigned rounds = 10;
static bool pin = true;
static cpu_set_t allowed;
static int allowed_count;
static pthread_barrier_t all_allocated;

static void die(const char *what, int err)
{
    fprintf(stderr, "pinnedd: %s: %s\n", what, strerror(err));
    exit(2);
}

/* The INDEX-th CPU (modulo their number) of the allowed set. */
static int allowed_cpu(int index)
{
    int wanted = index % allowed_count;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed) && wanted-- == 0)
            return c;
    return -1;
}

static void *worker(void *arg)
{
    if (pin) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(allowed_cpu((int)(intptr_t)arg), &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            die("sched_setaffinity", errno);
    }
    for (unsigned i = 0; i < rounds; i++) {
        /* volatile: gcc would delete an unused malloc/free pair. */
        char *volatile block = malloc(block_size);
        if (block == NULL)
            die("malloc", ENOMEM);
        block[0] = 1;
        free(block);
    }
    char *volatile kept = malloc(block_size);
    if (kept == NULL)
        die("malloc", ENOMEM);
    kept[0] = 1;
    pthread_barrier_wait(&all_allocated);
    for (;;)
        pause();
    return NULL;
}

/* Tell systemd (Type=notify) without libsystemd: one datagram to
 * $NOTIFY_SOCKET, a path or, with a leading '@', an abstract name. */
static void notify_systemd(const char *status)
{
    const char *path = getenv("NOTIFY_SOCKET");
    if (path == NULL || (path[0] != '/' && path[0] != '@'))
        return;
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    size_t len = strlen(path);
    if (len >= sizeof addr.sun_path)
        return;
    memcpy(addr.sun_path, path, len);
    if (addr.sun_path[0] == '@')
        addr.sun_path[0] = '\0';
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    char message[512];
    int n = snprintf(message, sizeof message, "READY=1\nMAINPID=%ld\nSTATUS=%s", (long)getpid(),
                     status);
    if (sendto(fd, message, (size_t)n, 0, (struct sockaddr *)&addr,
               (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
        fprintf(stderr, "pinnedd: NOTIFY_SOCKET %s: %s\n", path, strerror(errno));
    close(fd);
}

/* PATH appears whole or not at all: written beside it, then renamed. */
static void write_ready_file(const char *path, const char *line)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        die(path, ENAMETOOLONG);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        die(tmp, errno);
    fprintf(f, "%s\n", line);
    if (fclose(f) != 0)
        die(tmp, errno);
    if (rename(tmp, path) != 0)
        die(path, errno);
}

static unsigned long parse_number(const char *option, const char *text)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || n == 0 || n > 1000000) {
        fprintf(stderr, "pinnedd: %s %s: not a number from 1 to 1000000\n", option, text);
        exit(2);
    }
    return n;
}

static void usage(void)
{
    fprintf(stderr, "usage: pinnedd [--threads N] [--ready-file PATH] [--size BYTES] "
                    "[--rounds N] [--no-pin] [--exit]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int threads = 0;
    const char *ready_file = NULL;
    bool exit_when_ready = false;
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--no-pin") == 0)
            pin = false;
        else if (strcmp(argv[i], "--exit") == 0)
            exit_when_ready = true;
        else if (value == NULL)
            usage();
        else if (strcmp(argv[i], "--threads") == 0)
            threads = (int)parse_number(argv[i], value), i++;
        else if (strcmp(argv[i], "--size") == 0)
            block_size = parse_number(argv[i], value), i++;
        else if (strcmp(argv[i], "--rounds") == 0)
            rounds = (unsigned)parse_number(argv[i], value), i++;
        else if (strcmp(argv[i], "--ready-file") == 0)
            ready_file = value, i++;
        else
            usage();
    }
    /* The journal is a pipe: a line must leave when it is written. */
    setvbuf(stdout, NULL, _IOLBF, 0);

    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        die("sched_getaffinity", errno);
    allowed_count = CPU_COUNT(&allowed);
    if (threads == 0)
        threads = 4 * allowed_count;

    /* Taken by sigwait in main only: the threads inherit the mask. */
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGUSR1);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    int rc = pthread_sigmask(SIG_BLOCK, &signals, NULL);
    if (rc != 0)
        die("pthread_sigmask", rc);

    pthread_barrier_init(&all_allocated, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++) {
        pthread_t tid;
        rc = pthread_create(&tid, NULL, worker, (void *)(intptr_t)i);
        if (rc != 0)
            die("pthread_create", rc);
    }
    pthread_barrier_wait(&all_allocated);

    char line[256];
    snprintf(line, sizeof line, "pinnedd ready=1 pid=%ld threads=%d allowed=%d online=%ld arenas=%d",
             (long)getpid(), threads, allowed_count, sysconf(_SC_NPROCESSORS_ONLN), count_arenas());
    printf("%s\n", line);
    if (ready_file != NULL)
        write_ready_file(ready_file, line);
    notify_systemd(strchr(line, ' ') + 1);
    if (exit_when_ready)
        exit(0);

    for (;;) {
        int sig;
        rc = sigwait(&signals, &sig);
        if (rc != 0)
            die("sigwait", rc);
        if (sig != SIGUSR1)
            exit(0);
        printf("pinnedd pid=%ld threads=%d arenas=%d\n", (long)getpid(), threads, count_arenas());
    }
}
