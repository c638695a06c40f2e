/* A user's FUSE file system that answers its own program and no one
 * else: "fuseserve DIR FILE NAME CMD..." mounts, in a mount namespace of
 * its own, a file system at DIR holding one file, NAME, with FILE's
 * bytes; serves it as uid 65534 (nobody), as fusermount3 lets any user
 * serve one (allow_other: where /etc/fuse.conf has user_allow_other);
 * and runs CMD, which may map that file.  A request of CMD's process is
 * answered; one of any other process (a scan reading the file) never
 * is, as a server that stalls.  The server ends with CMD.
 *
 * "fuseserve --bind DIR FILE NAME CMD..." then mounts FILE itself over
 * DIR/NAME: a file the kernel serves, whose path goes through the
 * user's directory. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fuse.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOBODY 65534
#define FILE_NODE 2

static int dev = -1, backing = -1;
static struct stat backing_st;
static pid_t served;
static const char *name;

static void die(const char *what)
{
    fprintf(stderr, "fuseserve: %s: %s\n", what, strerror(errno));
    exit(125);
}

static void reply(const struct fuse_in_header *in, int error, const void *arg, size_t size)
{
    static char buf[sizeof(struct fuse_out_header) + (1 << 17)];
    struct fuse_out_header out = { .len = (uint32_t)(sizeof out + size), .error = -error, .unique = in->unique };
    memcpy(buf, &out, sizeof out);
    if (size > 0)
        memcpy(buf + sizeof out, arg, size);
    if (write(dev, buf, out.len) < 0 && errno != ENOENT)
        die("reply");
}

static void attr_of(uint64_t node, struct fuse_attr *a)
{
    *a = (struct fuse_attr){ .ino = node, .nlink = 1, .blksize = 4096 };
    if (node == FILE_NODE) {
        a->mode = S_IFREG | 0755;
        a->size = (uint64_t)backing_st.st_size;
        a->blocks = (uint64_t)(backing_st.st_size + 511) / 512;
    } else {
        a->mode = S_IFDIR | 0755;
        a->nlink = 2;
    }
}

/* The process a request comes from, as its thread group. */
static pid_t tgid_of(pid_t tid)
{
    char path[64], line[256];
    pid_t tgid = 0;
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "Tgid: %d", &tgid) == 1)
            break;
    fclose(f);
    return tgid;
}

static void serve(void)
{
    static char buf[(1 << 17) + 4096];
    static char data[1 << 17];
    for (;;) {
        ssize_t n = read(dev, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == ENOENT))
            continue;
        if (n < 0)
            exit(errno == ENODEV ? 0 : 125);    /* unmounted */
        if ((size_t)n < sizeof(struct fuse_in_header))
            continue;
        const struct fuse_in_header *in = (const void *)buf;
        const char *arg = buf + sizeof *in;
        if (in->opcode == FUSE_FORGET || in->opcode == FUSE_BATCH_FORGET || in->opcode == FUSE_INTERRUPT)
            continue;
        if (in->opcode == FUSE_INIT) {
            const struct fuse_init_in *init = (const void *)arg;
            struct fuse_init_out out = { .major = FUSE_KERNEL_VERSION, .max_readahead = init->max_readahead,
                                         .max_background = 16, .congestion_threshold = 12,
                                         .max_write = 1 << 16, .time_gran = 1, .max_pages = 32 };
            out.minor = init->minor < FUSE_KERNEL_MINOR_VERSION ? init->minor : FUSE_KERNEL_MINOR_VERSION;
            reply(in, 0, &out, sizeof out);
            continue;
        }
        /* Its own program's, answered; anyone else's, never. */
        if (tgid_of((pid_t)in->pid) != served)
            continue;
        switch (in->opcode) {
        case FUSE_LOOKUP: {
            struct fuse_entry_out e = { .nodeid = FILE_NODE, .entry_valid = 1, .attr_valid = 1 };
            if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, name) != 0) {
                reply(in, ENOENT, NULL, 0);
                break;
            }
            attr_of(FILE_NODE, &e.attr);
            reply(in, 0, &e, sizeof e);
            break;
        }
        case FUSE_GETATTR: {
            struct fuse_attr_out a = { .attr_valid = 1 };
            attr_of(in->nodeid, &a.attr);
            reply(in, 0, &a, sizeof a);
            break;
        }
        case FUSE_OPEN: {
            struct fuse_open_out o = { 0 };
            reply(in, in->nodeid == FILE_NODE ? 0 : EISDIR, &o, in->nodeid == FILE_NODE ? sizeof o : 0);
            break;
        }
        case FUSE_READ: {
            const struct fuse_read_in *r = (const void *)arg;
            size_t want = r->size < sizeof data ? r->size : sizeof data;
            ssize_t got = pread(backing, data, want, (off_t)r->offset);
            if (got < 0)
                reply(in, EIO, NULL, 0);
            else
                reply(in, 0, data, (size_t)got);
            break;
        }
        case FUSE_FLUSH:
        case FUSE_RELEASE:
            reply(in, 0, NULL, 0);
            break;
        default:
            reply(in, ENOSYS, NULL, 0);
        }
    }
}

int main(int argc, char **argv)
{
    char opts[256];
    bool bind = argc > 1 && strcmp(argv[1], "--bind") == 0;
    if (bind) {
        argv++;
        argc--;
    }
    if (argc < 5) {
        fprintf(stderr, "usage: fuseserve [--bind] DIR FILE NAME CMD...\n");
        return 2;
    }
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        die("a mount namespace");
    backing = open(argv[2], O_RDONLY | O_CLOEXEC);
    if (backing < 0 || fstat(backing, &backing_st) != 0)
        die(argv[2]);
    dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    if (dev < 0)
        die("/dev/fuse");
    snprintf(opts, sizeof opts, "fd=%d,rootmode=40000,user_id=%d,group_id=%d,allow_other", dev, NOBODY, NOBODY);
    if (mount("fuseserve", argv[1], "fuse.fuseserve", MS_NOSUID | MS_NODEV | MS_RDONLY, opts) != 0)
        die("mount");
    name = argv[3];
    served = getpid();
    pid_t server = fork();
    if (server < 0)
        die("fork");
    if (server == 0) {
        if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
            die("becoming nobody");
        /* Ends with the program it serves. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != served)
            exit(0);
        serve();
    }
    close(dev);
    if (bind) {
        char target[4096];
        snprintf(target, sizeof target, "%s/%s", argv[1], name);
        if (mount(argv[2], target, NULL, MS_BIND, NULL) != 0)
            die("bind mount");
    }
    execvp(argv[4], argv + 4);
    die(argv[4]);
}
