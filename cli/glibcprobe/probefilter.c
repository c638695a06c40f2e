#include "probefilter.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__) && defined(__LP64__)
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_AARCH64
#elif defined(__powerpc64__) && __BYTE_ORDER == __LITTLE_ENDIAN
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_PPC64LE
#elif defined(__s390x__)
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_S390X
#elif defined(__riscv) && __riscv_xlen == 64
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_RISCV64
#endif

#ifdef AUDIT_ARCH_NATIVE

/* Calls allowed whatever their arguments: the loader and glibc's
 * start-up, malloc, threads, stdio.  64-bit architectures only: the
 * 32-bit ones have other calls for the same (mmap2, fstat64, the
 * _time64 family), which no one has tested here. */
static const long plain[] = {
    __NR_read, __NR_write, __NR_writev, __NR_pread64, __NR_close, __NR_lseek,
    __NR_mmap, __NR_mprotect, __NR_munmap, __NR_mremap, __NR_madvise, __NR_brk,
    __NR_futex, __NR_set_robust_list, __NR_set_tid_address, __NR_sched_yield,
    __NR_rt_sigaction, __NR_rt_sigprocmask, __NR_rt_sigreturn, __NR_sigaltstack,
    __NR_exit, __NR_exit_group, __NR_getpid, __NR_gettid, __NR_getuid, __NR_geteuid,
    __NR_getgid, __NR_getegid, __NR_uname, __NR_getrandom, __NR_clock_gettime,
    __NR_clock_nanosleep, __NR_nanosleep, __NR_setitimer, __NR_readlinkat,
    __NR_faccessat, __NR_getcwd, __NR_fstat, __NR_newfstatat, __NR_statx,
#ifdef __NR_faccessat2
    __NR_faccessat2,
#endif
#ifdef __NR_rseq
    __NR_rseq,
#endif
#ifdef __NR_access
    __NR_access,
#endif
#ifdef __NR_readlink
    __NR_readlink,
#endif
#ifdef __NR_alarm
    __NR_alarm,
#endif
#ifdef __NR_arch_prctl
    __NR_arch_prctl,
#endif
#ifdef __NR_getrlimit
    __NR_getrlimit,
#endif
};

#define LOW_WORD (__BYTE_ORDER == __LITTLE_ENDIAN ? 0 : 4)
#define ARG(n) (offsetof(struct seccomp_data, args) + (n) * sizeof(__u64) + LOW_WORD)
#define ARG_HIGH(n) (offsetof(struct seccomp_data, args) + (n) * sizeof(__u64) + (4 - LOW_WORD))

struct prog {
    struct sock_filter f[200];
    unsigned short n;
};

static void emit(struct prog *p, struct sock_filter ins)
{
    p->f[p->n++] = ins;
}

static struct sock_filter ret(__u32 action)
{
    return (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action);
}

static struct sock_filter load(__u32 offset)
{
    return (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset);
}

static struct sock_filter jump(__u16 op, __u32 k, __u8 yes, __u8 no)
{
    return (struct sock_filter)BPF_JUMP(BPF_JMP | op | BPF_K, k, yes, no);
}

/* Call nr, allowed when the low word of argument arg has none of the
 * bits in none_of and all of those in all_of (an empty all_of: any). */
static void allow_if(struct prog *p, long nr, int arg, __u32 none_of, __u32 all_of, int err)
{
    emit(p, jump(BPF_JEQ, (__u32)nr, 0, 5));
    emit(p, load((__u32)ARG(arg)));
    emit(p, jump(BPF_JSET, none_of, 2, 0));
    emit(p, all_of != 0 ? jump(BPF_JSET, all_of, 0, 1) : jump(BPF_JA, 0, 0, 0));
    emit(p, ret(SECCOMP_RET_ALLOW));
    emit(p, ret(SECCOMP_RET_ERRNO | (__u32)err));
}

/* Call nr, allowed when the low word of argument arg is value. */
static void allow_if_equal(struct prog *p, long nr, int arg, __u32 value)
{
    emit(p, jump(BPF_JEQ, (__u32)nr, 0, 4));
    emit(p, load((__u32)ARG(arg)));
    emit(p, jump(BPF_JEQ, value, 0, 1));
    emit(p, ret(SECCOMP_RET_ALLOW));
    emit(p, ret(SECCOMP_RET_ERRNO | EPERM));
}

/* execveat(fd, path, ..., AT_EMPTY_PATH) with path at that very
 * address, and no other.  The filter cannot read the string: with
 * AT_EMPTY_PATH a non-empty path is resolved as any path (an absolute
 * one ignores fd), so the one pointer known to hold "" is the test.
 * After the exec that address is the loader's to map, but by then the
 * code running is root's trusted glibc (glibctrust.h) and this
 * program's own. */
static void allow_exec_of(struct prog *p, int fd, const char *path)
{
    __u64 at = (__u64)(uintptr_t)path;
    emit(p, jump(BPF_JEQ, __NR_execveat, 0, 10));
    emit(p, load((__u32)ARG(0)));
    emit(p, jump(BPF_JEQ, (__u32)fd, 0, 7));
    emit(p, load((__u32)ARG(1)));
    emit(p, jump(BPF_JEQ, (__u32)at, 0, 5));
    emit(p, load((__u32)ARG_HIGH(1)));
    emit(p, jump(BPF_JEQ, (__u32)(at >> 32), 0, 3));
    emit(p, load((__u32)ARG(4)));
    emit(p, jump(BPF_JEQ, AT_EMPTY_PATH, 0, 1));
    emit(p, ret(SECCOMP_RET_ALLOW));
    emit(p, ret(SECCOMP_RET_ERRNO | EPERM));
}

bool afx_probe_filter_install(int exec_fd, const char *exec_path)
{
    static struct prog p;
    const __u32 writing = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_TMPFILE | O_PATH;
    const __u32 namespaces = CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC
                             | CLONE_NEWUTS | CLONE_NEWCGROUP;
    p.n = 0;
    emit(&p, load(offsetof(struct seccomp_data, arch)));
    emit(&p, jump(BPF_JEQ, AUDIT_ARCH_NATIVE, 1, 0));
    emit(&p, ret(SECCOMP_RET_KILL_PROCESS));
    emit(&p, load(offsetof(struct seccomp_data, nr)));
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        emit(&p, jump(BPF_JEQ, (__u32)plain[i], 0, 1));
        emit(&p, ret(SECCOMP_RET_ALLOW));
    }
    allow_if(&p, __NR_openat, 2, writing, 0, EACCES);
    allow_if(&p, __NR_clone, 0, namespaces, CLONE_THREAD, EPERM);
    allow_if_equal(&p, __NR_sched_getaffinity, 0, 0);
    allow_if_equal(&p, __NR_sched_setaffinity, 0, 0);
    allow_if_equal(&p, __NR_prlimit64, 0, 0);
    allow_exec_of(&p, exec_fd, exec_path);
    emit(&p, ret(SECCOMP_RET_ERRNO | ENOSYS));

    struct sock_fprog prog = { .len = p.n, .filter = p.f };
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0;
}

#else

bool afx_probe_filter_install(int exec_fd, const char *exec_path)
{
    (void)exec_fd;
    (void)exec_path;
    errno = ENOSYS;
    return false;
}

#endif
