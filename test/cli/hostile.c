/* A process as a local attacker would make it, for inspect to look at:
 *
 *   hostile [--name NAME] [--copies N] [--pause] [--exec-on-usr1 PROGRAM] FILE...
 *
 * maps each FILE as code (N times each, at separate places), names
 * itself NAME (prctl), prints "ready" and waits: until stdin closes, or
 * with --pause until a signal.  With --exec-on-usr1, SIGUSR1 makes it
 * run PROGRAM in its place (a setuid one, say), keeping its stdin.  Built static, so that only the files it
 * chose look like its libc and ld.so.
 *
 * The same program, run as a loader (its first argument is
 * "--library-path", as inspect's probe runs ld.so), plays the attacker's
 * ld.so: it prints one line saying what it was allowed (its IDs,
 * capabilities, no_new_privs, seccomp, terminal, environment, whether it
 * could create a file or a process, or read /etc/shadow) and exits 1.  A file "hang" beside
 * it makes it sleep instead, for the probe's deadline. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void status_field(const char *name, char *out, size_t size)
{
    char text[8192];
    snprintf(out, size, "?");
    int fd = open("/proc/self/status", O_RDONLY);
    if (fd < 0)
        return;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return;
    text[n] = '\0';
    char key[64];
    snprintf(key, sizeof key, "\n%s:\t", name);
    char *p = strstr(text, key);
    if (p != NULL)
        snprintf(out, size, "%.*s", (int)strcspn(p + strlen(key), "\n"), p + strlen(key));
}

static int play_loader(void)
{
    char self[4096], dir[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(self, '/') ? strrchr(self, '/') - self : 0), self);
    snprintf(path, sizeof path, "%s/hang", dir);
    if (access(path, F_OK) == 0)
        for (;;)
            sleep(1);

    /* From /proc: the calls that would tell may be refused to it. */
    char uid[64], gid[64], capeff[32], capbnd[32], nnp[8], seccomp[8], stat[512];
    status_field("Uid", uid, sizeof uid);
    status_field("Gid", gid, sizeof gid);
    status_field("CapEff", capeff, sizeof capeff);
    status_field("CapBnd", capbnd, sizeof capbnd);
    status_field("NoNewPrivs", nnp, sizeof nnp);
    status_field("Seccomp", seccomp, sizeof seccomp);
    for (char *p = uid; *p; p++)
        *p = *p == '\t' ? '/' : *p;
    for (char *p = gid; *p; p++)
        *p = *p == '\t' ? '/' : *p;
    /* Its own session: the 6th field of stat, after the name's ")". */
    long pid = 0, sid = -1;
    int fd = open("/proc/self/stat", O_RDONLY);
    ssize_t got = fd >= 0 ? read(fd, stat, sizeof stat - 1) : -1;
    stat[got > 0 ? got : 0] = '\0';
    char *after = strrchr(stat, ')');
    if (after == NULL || sscanf(stat, "%ld", &pid) != 1 || sscanf(after, ") %*c %*d %*d %ld", &sid) != 1)
        sid = -1;
    /* Its whole environment, as given: the probe passes exactly one
     * variable, the library's off switch. */
    char env[512] = "";
    for (int i = 0; environ[i] != NULL; i++) {
        size_t used = strlen(env);
        snprintf(env + used, sizeof env - used, "%s%s", i > 0 ? "," : "", environ[i]);
    }
    int tty = open("/dev/tty", O_RDONLY | O_NOCTTY);
    const char *tty_said = tty >= 0 ? "yes" : "no";
    snprintf(path, sizeof path, "%s/created-by-the-probe", dir);
    const char *created = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644) >= 0 ? "yes" : "no";
    pid_t child = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
    if (child == 0)
        _exit(0);
    const char *shadow = open("/etc/shadow", O_RDONLY) >= 0 ? "yes" : "no";
    printf("jail uid=%s gid=%s capeff=%s capbnd=%s nnp=%s seccomp=%s sid=%s env=%s tty=%s create=%s "
           "fork=%s shadow=%s\n",
           uid, gid, capeff, capbnd, nnp, seccomp, sid == pid ? "own" : "inherited", env[0] ? env : "none", tty_said,
           created, child > 0 ? "yes" : "no", shadow);
    return 1;
}

static void map_code(const char *file, long copies)
{
    int fd = open(file, O_RDONLY);
    if (fd < 0) {
        perror(file);
        exit(2);
    }
    for (long i = 0; i < copies; i++)
        if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
            perror("mmap");
            exit(2);
        }
    close(fd);
}

static const char *exec_on_usr1;

static void on_usr1(int sig)
{
    (void)sig;
    char *const args[] = { (char *)exec_on_usr1, NULL };
    execve(exec_on_usr1, args, environ);
    _exit(3);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--library-path") == 0)
        return play_loader();
    const char *name = NULL;
    long copies = 1;
    int i = 1, wait_signal = 0;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
            name = argv[++i];
        else if (strcmp(argv[i], "--copies") == 0 && i + 1 < argc)
            copies = atol(argv[++i]);
        else if (strcmp(argv[i], "--pause") == 0)
            wait_signal = 1;
        else if (strcmp(argv[i], "--exec-on-usr1") == 0 && i + 1 < argc)
            exec_on_usr1 = argv[++i];
    }
    for (; i < argc; i++)
        map_code(argv[i], copies);
    if (name != NULL)
        prctl(PR_SET_NAME, name);
    if (exec_on_usr1 != NULL)
        signal(SIGUSR1, on_usr1);
    printf("ready\n");
    fflush(stdout);
    if (wait_signal)
        for (;;)
            pause();
    char buf[64];
    while (read(STDIN_FILENO, buf, sizeof buf) > 0)
        ;
    return 0;
}
