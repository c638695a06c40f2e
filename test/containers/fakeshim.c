/* A tenant's forged shim: run in its container as
 *   containerd-shim-runc-v2 -namespace moby -id ID PROGRAM ARGS...
 * it runs PROGRAM as its child and waits, so that PROGRAM's parent is a
 * root process of that name and command line, in the container. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 6)
        return 2;
    pid_t child = fork();
    if (child == 0) {
        execv(argv[5], argv + 5);
        perror(argv[5]);
        _exit(127);
    }
    int status = 0;
    if (child > 0)
        waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
