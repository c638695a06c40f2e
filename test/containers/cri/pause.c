/* The pod sandbox's process for test/containers/cri.sh (the image named
 * as containerd's sandbox_image): sleeps until SIGTERM or SIGINT, then
 * exits 0, as Kubernetes' pause does.  Built static: its image holds
 * nothing else. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static void leave(int sig)
{
    (void)sig;
    _exit(0);
}

int main(void)
{
    signal(SIGTERM, leave);
    signal(SIGINT, leave);
    for (;;)
        pause();
}
