/* sysfail [--no-tmpfile] [--write-size N] COMMAND [ARG...]: run COMMAND
 * under a seccomp filter, the file system being the real one:
 *   --no-tmpfile    openat(O_TMPFILE) fails with EOPNOTSUPP, as on a file
 *                   system without unnamed files (NFS, FUSE, vfat)
 *   --write-size N  each write(2) of exactly N bytes fails with ENOSPC,
 *                   the others go through: a disk full for a moment
 * for the tests of inspect --output. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LOW_WORD 0
#else
#define LOW_WORD 4
#endif
#define ARG(n) (offsetof(struct seccomp_data, args[n]) + LOW_WORD)

int main(int argc, char **argv)
{
    bool no_tmpfile = false;
    unsigned long write_size = 0;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--no-tmpfile") == 0)
            no_tmpfile = true;
        else if (strcmp(argv[i], "--write-size") == 0 && i + 1 < argc)
            write_size = strtoul(argv[++i], NULL, 10);
        else
            break;
    }
    if (i >= argc || (!no_tmpfile && write_size == 0)) {
        fprintf(stderr, "usage: sysfail [--no-tmpfile] [--write-size N] COMMAND [ARG...]\n");
        return 2;
    }
    /* Without --write-size, a size no write has here. */
    unsigned fail_size = write_size != 0 ? (unsigned)write_size : 0xffffffffU;
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(2)),
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, no_tmpfile ? __O_TMPFILE : 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __O_TMPFILE, 0, 5),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EOPNOTSUPP),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_write, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(2)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, fail_size, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSPC),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { .len = sizeof filter / sizeof filter[0], .filter = filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        perror("sysfail: seccomp");
        return 2;
    }
    execvp(argv[i], argv + i);
    perror("sysfail: exec");
    return 127;
}
