/* A process that can open nothing, for the test programs: forbidden
 * by a seccomp filter (sandboxed, faults), or out of descriptors
 * (moments, forkinit). */
#ifndef AFX_TEST_DENYOPEN_H
#define AFX_TEST_DENYOPEN_H

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define AFX_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define AFX_AUDIT_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define AFX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifndef SYS_openat2
#define SYS_openat2 437     /* the same number on every architecture */
#endif

/* A seccomp filter that answers every open, openat and openat2 with
 * ACTION (SECCOMP_RET_KILL_PROCESS, or SECCOMP_RET_ERRNO | EACCES), as a
 * sandbox does once it has opened what it needs.  Returns 0, or -1 with
 * errno set. */
static inline int afx_deny_open(unsigned action)
{
#ifndef AFX_AUDIT_ARCH
    (void)action;
    errno = ENOSYS;
    return -1;
#else
#ifdef SYS_open
    const unsigned open_nr = SYS_open;
#else
    const unsigned open_nr = SYS_openat;    /* none: openat twice */
#endif
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AFX_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, open_nr, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, action),
    };
    struct sock_fprog prog = { .len = sizeof code / sizeof code[0], .filter = code };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0 ? -1 : 0;
#endif
}

/* Every descriptor below a limit of 64 taken: each open fails with
 * EMFILE, as in a process that has run out of them.  Returns 0, or -1
 * with errno set. */
static inline int afx_take_every_descriptor(void)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0)
        return -1;
    lim.rlim_cur = 64;
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0)
        return -1;
    while (open("/dev/null", O_RDONLY) >= 0)
        ;
    return errno == EMFILE ? 0 : -1;
}

#endif
