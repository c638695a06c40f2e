/* Running the arenafix command for real in the tests. */
#ifndef AFX_TEST_CLI_HARNESS_H
#define AFX_TEST_CLI_HARNESS_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "ckbound.h"
#include "ckselect.h"

struct run {
    int status;     /* wait status */
    char *out;      /* all of stdout, NUL-terminated */
    char *err;      /* all of stderr */
    pid_t pid;      /* while running (run_start) */
    FILE *out_file, *err_file;
};

/* Run argv (NULL-terminated) with env changes ("NAME=VALUE" sets,
 * "NAME" unsets; env may be NULL), stdin from /dev/null.  Returns the
 * exit status, or 128 + signal. */
int run(struct run *r, const char *const *env, const char *const *argv);
/* run in two halves: run_start returns once argv is started, run_wait
 * once it has ended (its exit status, as run's).  Commands that each
 * wait out a deadline of their own wait at once, not one after another. */
void run_start(struct run *r, const char *const *env, const char *const *argv);
int run_wait(struct run *r);
void run_free(struct run *r);

/* The command under test (AFX_CLI, default build/cli/arenafix). */
const char *cli(void);
/* A test program in the build's test directory (AFX_TEST_BIN). */
const char *test_prog(const char *name);
/* ARENAFIX_AFFECTED_GLIBC, or NULL (and a skip note) if none. */
const char *affected_glibc(const char *test);
/* The library under test, ARENAFIX_TESTLIB. */
const char *testlib(void);

/* The affected glibc's loader, in its directory g (AFX_LOADER, the
 * build's architecture's). */
#include "loader.h"
const char *affected_loader(const char *g);

/* afx_emulated(): the test programs run under an emulator; and what a
 * test skips there, with why ("SKIP name: why"); true if skipped. */
#include "emulated.h"
bool skip_emulated(const char *test, const char *why);
/* Why the tests that read another process through /proc skip there. */
#define EMULATED_PROC "qemu-user shows another process's /proc/PID as the emulator's (its " \
                      "exe, maps, threads), not the emulated program's; run natively"

/* The lines of text that hold needle (at most a screenful, and "(none)"
 * if none does): what a failure shows of a long output, such as a whole
 * host's scan. */
const char *lines_with(const char *text, const char *needle);

/* The python3 that checks JSON: Debian's (/usr/bin/python3, of
 * test/packages.txt) where it is installed, else the first in PATH.  One
 * earlier in PATH may be a version manager's shim, which takes half a
 * second of CPU to start where Debian's takes a twentieth. */
const char *python3(void);

/* Nothing a terminal would act on: printable ASCII and newlines. */
bool terminal_safe(const char *s);

/* A test program left running while the command looks at it. */
struct live {
    pid_t pid;
    int stdin_fd;
    int arenas;     /* malloc_info's count, from inside */
};

/* Start argv with LD_PRELOAD=preload (NULL: none) and env added
 * ("NAME=VALUE"), read its "arenas=N" (or "ready") line; it waits
 * until stdin closes (live_stop). */
void live_start_env(struct live *l, const char *preload, const char *const *env, const char *const *argv);
void live_start(struct live *l, const char *preload, const char *const *argv);
/* The same as nobody (uid and gid 65534, no groups; root only), without
 * a preload. */
void live_start_nobody(struct live *l, const char *const *argv);
void live_stop(struct live *l);

/* Root blinded to another user's process: a process of uid 65534 (in *L,
 * stopped on return) runs while "arenafix ARGS" runs as root without
 * CAP_SYS_PTRACE, with a /proc mounted hidepid=1 in a mount namespace of
 * its own, into *R.  False (and SKIP printed for TEST) where no /proc can
 * be mounted or not root. */
bool run_blinded_root(struct run *r, struct live *l, const char *args, const char *test);

/* The child of pid in another mount namespace than ours; -1 if none. */
long child_in_other_mounts(long pid);

/* arenawait's 30 pinned threads on the affected glibc g, as a
 * container's process: in a mount namespace of its own, its root
 * (pivot_root) a tree made in a new directory of the build's, named in
 * dir, holding that glibc and arenawait alone.  Its PID (the child of
 * l->pid), or -1 if none started.  Stopped with live_stop; the tree
 * removed with remove_tree(dir) after. */
long live_start_contained(struct live *l, const char *g, char *dir, size_t size);
/* The same with chroot alone (no pivot_root): its root a directory
 * the host's names reach, its executable the host's file of its name. */
long live_start_chroot_contained(struct live *l, const char *g, char *dir, size_t size);

/* Trees made and removed in the test's own process (fstree.c): mkdir -p
 * PATH, cp FROM TO (failing the test when they cannot), and rm -rf DIR
 * (false, the failures said, when something is left). */
void make_dirs(const char *path);
void copy_file(const char *from, const char *to);
bool remove_tree(const char *dir);

/* arenawait's 30 pinned threads on the affected glibc g, as a service's
 * daemon that chroots itself (HAProxy's chroot): in a mount namespace of
 * its own (PrivateTmp=), started in the host's root with LD_PRELOAD=
 * preload (NULL: none), then chrooted into a tmpfs mounted there over a
 * new directory of the build's, named in dir.  Its PID (the child of
 * l->pid), or -1 if none started.  Stopped with live_stop; dir removed
 * with rmdir after. */
long live_start_chrooting(struct live *l, const char *g, const char *preload, char *dir, size_t size);

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Fail with the command's stderr shown. */
#define ck_assert_status(r, want)                                                                  \
    ck_assert_msg(WIFEXITED((r)->status) && WEXITSTATUS((r)->status) == (want),                  \
                  "want exit %d, got wait status 0x%x; stdout: %s; stderr: %s", (want), (r)->status, \
                  (r)->out, (r)->err)

Suite *wrap_suite(void);
Suite *probe_suite(void);
Suite *inspect_suite(void);
Suite *enable_suite(void);
Suite *unitfile_suite(void);
Suite *pure_suite(void);
Suite *hook_suite(void);
Suite *hostile_suite(void);
Suite *served_suite(void);
Suite *remapped_suite(void);
Suite *scan_suite(void);
Suite *status_suite(void);
Suite *help_suite(void);
Suite *libc_suite(void);
Suite *rootprobe_suite(void);
Suite *prometheus_suite(void);
Suite *cdi_suite(void);
Suite *engines_suite(void);
Suite *rootless_suite(void);
Suite *runtime_suite(void);

#endif
