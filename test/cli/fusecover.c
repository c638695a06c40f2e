/* A process whose environment a scan cannot read without waiting:
 *
 *   fusecover FILE      maps FILE (on a user's FUSE file system, run
 *                       under fuseserve) over the pages of its own
 *                       environment block, never touching them itself;
 *   fusecover uffd      registers those pages, emptied, with a
 *                       userfaultfd it never answers;
 *   fusecover FILE heap has a thread's arena, and maps FILE over the
 *                       first page of its heap (its header) once a line
 *                       "cover" comes on stdin: as it may between a
 *                       scan's read of its maps and of its memory;
 *   fusecover FILE lock maps FILE, and holds its own memory map locked:
 *                       a child reads that page through /proc/PPID/mem
 *                       (a request of another process, never answered;
 *                       the kernel keeps the map's lock taken across
 *                       the fault), and a thread of its own then asks
 *                       to change the map (mmap), queued for the lock.
 *                       Every later reader of its map, environ or
 *                       cmdline waits on the server.  When stdin
 *                       closes it kills its children (the server among
 *                       them: the kernel then fails the request), to
 *                       end.
 *
 * A reader of /proc/PID/environ then faults those pages in: FUSE asks
 * the server (which never answers anyone but this program), a
 * userfaultfd this program.  Started with a padding variable of some
 * pages (the test's), so that whole pages of the block hold nothing but
 * environment strings and no stack frame.  Runs a second thread (a
 * scan lists only processes of more than one), prints "ready" and
 * waits until stdin is closed. */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static void die(const char *what)
{
    fprintf(stderr, "fusecover: %s: %s\n", what, strerror(errno));
    exit(125);
}

/* env_start and env_end, fields 50 and 51 of /proc/self/stat. */
static void env_range(unsigned long *start, unsigned long *end)
{
    char text[4096];
    FILE *f = fopen("/proc/self/stat", "r");
    size_t n = f != NULL ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    text[n] = '\0';
    char *p = strrchr(text, ')');
    if (p == NULL)
        die("/proc/self/stat");
    /* Field 3 follows ") "; 50 is 47 fields further. */
    p += 2;
    for (int field = 3; field < 50 && p != NULL; field++)
        p = strchr(p, ' ') != NULL ? strchr(p, ' ') + 1 : NULL;
    if (p == NULL || sscanf(p, "%lu %lu", start, end) != 2)
        die("env_start in /proc/self/stat");
}

static void *idle(void *unused)
{
    (void)unused;
    for (;;)
        pause();
    return NULL;
}

/* A thread's own arena (its first malloc), and the heap it lives in. */
static void *arena_heap(void *unused)
{
    (void)unused;
    unsigned long p = (unsigned long)malloc(100);
    return (void *)(p & ~((64UL << 20) - 1));
}

static int heap_mode(const char *file)
{
    pthread_t t;
    void *heap;
    if (pthread_create(&t, NULL, arena_heap, NULL) != 0 || pthread_join(t, &heap) != 0
        || pthread_create(&t, NULL, idle, NULL) != 0)
        die("pthread_create");
    printf("ready\n");
    fflush(stdout);
    char line[64];
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (strcmp(line, "cover\n") != 0)
            continue;
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || mmap(heap, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)
            die(file);
        close(fd);
    }
    return 0;
}

/* The system call tid sleeps in is nr (/proc/self/task/TID/syscall). */
static void wait_in_syscall(pid_t pid, pid_t tid, long nr)
{
    char path[96], text[64], want[32];
    snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
    snprintf(want, sizeof want, "%ld ", nr);
    for (;;) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (n < 0)
            die(path);
        text[n] = '\0';
        if (strncmp(text, want, strlen(want)) == 0)
            return;
        usleep(10000);
    }
}

static int go[2];
static pid_t locker_tid;

/* Asks for the write lock of the memory map once told to. */
static void *locker(void *unused)
{
    (void)unused;
    char c;
    locker_tid = (pid_t)syscall(SYS_gettid);
    if (read(go[0], &c, 1) != 1)
        return NULL;
    syscall(SYS_mmap, NULL, 4096UL, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1L, 0L);
    return NULL;
}

/* Every child of this process killed (/proc/self/task/PID/children). */
static void kill_children(void)
{
    char path[64], text[4096];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0)
        close(fd);
    text[n > 0 ? n : 0] = '\0';
    for (char *p = text, *end; *p != '\0'; p = end) {
        long child = strtol(p, &end, 10);
        if (end == p)
            break;
        kill((pid_t)child, SIGKILL);
    }
}

static int lock_mode(const char *file)
{
    /* Written straight out: no buffer to allocate once the map is held. */
    setvbuf(stdout, NULL, _IONBF, 0);
    long page = sysconf(_SC_PAGESIZE);
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    char *at = fd >= 0 ? mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    if (at == MAP_FAILED)
        die(file);
    close(fd);
    pthread_t t;
    if (pipe(go) != 0 || pthread_create(&t, NULL, idle, NULL) != 0 || pthread_create(&t, NULL, locker, NULL) != 0)
        die("pthread_create");
    while (__atomic_load_n(&locker_tid, __ATOMIC_SEQ_CST) == 0)
        usleep(1000);
    pid_t self = getpid(), reader = fork();
    if (reader < 0)
        die("fork");
    if (reader == 0) {
        char path[64], c;
        snprintf(path, sizeof path, "/proc/%d/mem", (int)self);
        int mem = open(path, O_RDONLY | O_CLOEXEC);
        if (mem < 0 || pread(mem, &c, 1, (off_t)(unsigned long)at) < 0)
            _exit(1);
        _exit(0);
    }
    wait_in_syscall(reader, reader, SYS_pread64);
    if (write(go[1], "", 1) != 1)
        die("write");
    wait_in_syscall(self, locker_tid, SYS_mmap);
    printf("ready\n");
    char c;
    while (read(STDIN_FILENO, &c, 1) > 0)
        ;
    kill_children();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[2], "heap") == 0)
        return heap_mode(argv[1]);
    if (argc == 3 && strcmp(argv[2], "lock") == 0)
        return lock_mode(argv[1]);
    if (argc != 2) {
        fprintf(stderr, "usage: fusecover FILE|uffd, or fusecover FILE heap|lock\n");
        return 2;
    }
    long page = sysconf(_SC_PAGESIZE);
    unsigned long start, end;
    env_range(&start, &end);
    unsigned long from = (start + (unsigned long)page - 1) & ~((unsigned long)page - 1);
    unsigned long to = end & ~((unsigned long)page - 1);
    if (to <= from) {
        errno = ERANGE;
        die("no whole page of environment (start it with a long variable)");
    }
    size_t len = to - from;
    if (strcmp(argv[1], "uffd") == 0) {
        int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
        struct uffdio_api api = { .api = UFFD_API };
        if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) != 0)
            die("userfaultfd");
        if (madvise((void *)from, len, MADV_DONTNEED) != 0)
            die("madvise");
        struct uffdio_register reg = { .range = { from, len }, .mode = UFFDIO_REGISTER_MODE_MISSING };
        if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0)
            die("UFFDIO_REGISTER");
    } else {
        int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            die(argv[1]);
        if (mmap((void *)from, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)
            die("mmap");
        close(fd);
    }
    pthread_t t;
    if (pthread_create(&t, NULL, idle, NULL) != 0)
        die("pthread_create");
    printf("ready\n");
    fflush(stdout);
    char c;
    while (read(STDIN_FILENO, &c, 1) > 0)
        ;
    return 0;
}
