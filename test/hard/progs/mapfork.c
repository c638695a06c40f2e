/* Many processes, each mapping a file as code, cheaply:
 *
 *   mapfork FILE...
 *
 * forks one child per FILE (in order, so their PIDs rise with it), which
 * maps that FILE as code and waits for a signal; prints each child's
 * PID, then "ready", and waits too.  A child dies with it.  Built
 * static, so that only the files given look like a libc.  A fork costs
 * a fraction of what a shell's fork and exec of test/cli/hostile does,
 * which matters with hundreds of processes (test/hard/attack-scan-cache.sh). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

static void child(const char *file, int ready)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        _exit(1);
    int fd = open(file, O_RDONLY);
    if (fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
        perror(file);
        _exit(1);
    }
    close(fd);
    if (write(ready, "", 1) != 1)
        _exit(1);
    close(ready);
    for (;;)
        pause();
}

int main(int argc, char **argv)
{
    int ready[2];
    if (argc < 2 || pipe(ready) != 0) {
        fprintf(stderr, "usage: mapfork FILE...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            close(ready[0]);
            child(argv[i], ready[1]);
        }
        printf("%ld\n", (long)pid);
    }
    close(ready[1]);
    /* One byte per child that mapped its file; EOF once all are done. */
    char c;
    int mapped = 0;
    while (read(ready[0], &c, 1) == 1)
        mapped++;
    if (mapped != argc - 1) {
        fprintf(stderr, "mapfork: %d of %d children mapped their file\n", mapped, argc - 1);
        return 1;
    }
    printf("ready\n");
    fflush(stdout);
    for (;;)
        pause();
}
