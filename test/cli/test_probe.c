/* arenafix probe, on the system glibc and on an affected one. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "hostfile.h"
#include "glibcprobe/probefilter.h"

START_TEST(system_glibc_not_affected)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "probe"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "verdict: not affected") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "arenas, pinned:     13") != NULL, "%s", r.out);
    /* Its verdict is the shared glibc's: a static program is not run. */
    ck_assert_msg(strstr(r.out, "\n  static programs:    not run: ") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(affected_glibc_affected)
{
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    struct run r;
    run(&r, NULL, ARGV(cli(), "probe", "--glibc", g));
    ck_assert_status(&r, 3);
    ck_assert_msg(strstr(r.out, "verdict: affected") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "arenas, pinned:     9\n") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "with libarenafix:   13") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(json)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "probe", "--json"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strncmp(r.out, "{\"verdict\":\"not affected\",\"exit_status\":0,", 41) == 0, "%s", r.out);
    ck_assert_msg(strstr(r.out, "\"arenas_pinned\":13,") != NULL, "%s", r.out);
    run_free(&r);

    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    run(&r, NULL, ARGV(cli(), "probe", "--glibc", g, "--json"));
    ck_assert_status(&r, 3);
    ck_assert_msg(strncmp(r.out, "{\"verdict\":\"affected\",\"exit_status\":3,", 37) == 0, "%s", r.out);
    ck_assert_msg(strstr(r.out, "\"arenas_pinned\":9,") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "\"arenas_pinned_with_library\":13,") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* One CPU allowed to the whole probe: the online count still rules. */
START_TEST(narrow_process_affinity)
{
    struct run r;
    run(&r, NULL, ARGV("taskset", "-c", "0", cli(), "probe"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "process affinity:   1 (0)") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* The whole probe under taskset (a container's cpuset, a pod with the
 * static CPU manager): the unpinned threads already show the bug. */
START_TEST(narrow_affinity_on_affected_glibc)
{
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    struct run r;
    run(&r, NULL, ARGV("taskset", "-c", "0", cli(), "probe", "--glibc", g));
    ck_assert_status(&r, 3);
    ck_assert_msg(strstr(r.out, "verdict: affected: threads allowed 1 of the") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* Started as "ld.so arenafix probe": /proc/self/exe is the loader then. */
START_TEST(through_an_explicit_loader)
{
    struct run r;
    run(&r, ARGV("ARENAFIX_LIBRARY"), ARGV(AFX_SYSTEM_LOADER, cli(), "probe"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "verdict: not affected") != NULL, "%s", r.out);
    /* It finds the library beside itself too, not beside ld.so. */
    ck_assert_msg(strstr(r.err, "cannot find") == NULL && strstr(r.out, "with libarenafix:"),
                  "%s%s", r.out, r.err);
    run_free(&r);
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    char loader[PATH_MAX];
    snprintf(loader, sizeof loader, "%s", affected_loader(g));
    run(&r, NULL, ARGV(loader, "--library-path", g, cli(), "probe", "--glibc", g));
    ck_assert_status(&r, 3);
    run_free(&r);
}
END_TEST

/* A process whose executable is under dir, or 0. */
static pid_t running_from(const char *dir)
{
    pid_t found = 0;
    DIR *proc = opendir("/proc");
    ck_assert(proc != NULL);
    size_t n = strlen(dir);
    for (struct dirent *e; found == 0 && (e = readdir(proc)) != NULL;) {
        char link[300], exe[PATH_MAX];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(link, sizeof link, "/proc/%s/exe", e->d_name);
        ssize_t len = readlink(link, exe, sizeof exe - 1);
        if (len > (ssize_t)n && strncmp(exe, dir, n) == 0 && exe[n] == '/')
            found = (pid_t)atol(e->d_name);
    }
    closedir(proc);
    return found;
}

/* A glibc whose loader never finishes: given up at the probe's own
 * deadline (the message), the loader killed (nothing left running from
 * its directory).  A probe that waited on would meet the timeout's 40 s. */
START_TEST(hanging_loader_is_given_up)
{
    char dir[] = "/tmp/arenafix-probe-XXXXXX", path[64];
    ck_assert(mkdtemp(dir) != NULL);
    struct run r;
    snprintf(path, sizeof path, "%s/%s", dir, AFX_LOADER);
    run(&r, NULL, ARGV("cp", test_prog("hostile"), path));
    run_free(&r);
    snprintf(path, sizeof path, "%s/hang", dir);
    fclose(fopen(path, "w"));
    run(&r, NULL, ARGV("timeout", "-k", "1", "40", cli(), "probe", "--glibc", dir));
    pid_t left = running_from(dir);
    if (left > 0)
        kill(left, SIGKILL);
    struct run rm;
    run(&rm, NULL, ARGV("rm", "-rf", dir));
    run_free(&rm);
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "did not finish within 10 s") != NULL, "%s", r.err);
    ck_assert_msg(left == 0, "process %d, the hung loader, is still running", (int)left);
    run_free(&r);
}
END_TEST

START_TEST(bad_input)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "probe", "--glibc", "/no/such/dir"));
    ck_assert_status(&r, 2);
    ck_assert_msg(strstr(r.err, "--glibc /no/such/dir: no executable") != NULL, "%s", r.err);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "probe", "--bogus"));
    ck_assert_status(&r, 2);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "probe", "extra"));
    ck_assert_status(&r, 2);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "probe", "--glibc"));
    ck_assert_status(&r, 2);
    ck_assert_msg(strstr(r.err, "needs a value") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

/* A process limited in address space (ulimit -v, LimitAS= in a unit) to
 * less than one arena heap's reservation (64 MiB on a 64-bit host):
 * glibc makes no arena for any thread and shares main's, so the counts
 * say nothing about the bug.  probe cannot tell (5), and says why. */
START_TEST(no_room_for_arenas_cannot_tell)
{
    if (sizeof(long) == 4) {
        printf("SKIP %s: a 32-bit glibc's arena heap is 1 MiB: no address-space limit keeps "
               "arenas out and lets the threads' stacks in\n", __func__);
        return;
    }
    if (skip_emulated(__func__, "qemu-user reserves the guest's address space itself, under the "
                                "same limit"))
        return;
    /* Small stacks: the limit must stop arenas, not pthread_create. */
    const char *limits[] = { "prlimit", "--as=50331648", "--stack=262144" };
    struct run r;
    run(&r, NULL, ARGV(limits[0], limits[1], limits[2], cli(), "probe"));
    ck_assert_status(&r, 5);
    ck_assert_msg(strstr(r.out, "verdict: cannot tell: even unpinned threads got only 1 of ") != NULL
                      && strstr(r.out, "something else limits them, such as an address-space "
                                       "limit (ulimit -v)\n") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "arenas, unpinned:   1\n") != NULL, "%s", r.out);
    ck_assert_str_eq(r.err, "");
    run_free(&r);
    run(&r, NULL, ARGV(limits[0], limits[1], limits[2], cli(), "probe", "--json"));
    ck_assert_status(&r, 5);
    static const char head[] = "{\"verdict\":\"cannot tell\",\"exit_status\":5,";
    ck_assert_msg(strncmp(r.out, head, strlen(head)) == 0, "%s", r.out);
    run_free(&r);
}
END_TEST

/* A host that preloads the library for every program through
 * /etc/ld.so.preload (docs/deploy.md): no environment keeps it out of the
 * probe's children, so the probe must switch it off in the run meant to be
 * without it, or an affected glibc looks fixed.  The file is given in a
 * private mount namespace, over a copy of /etc (an overlay whose upper
 * layer is this test's directory): a mount namespace keeps mounts to
 * itself, not files created under them, so nothing may be created on the
 * host's /etc.  The host's file must be as it was. */
START_TEST(host_wide_preload_does_not_hide_the_bug)
{
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    if (geteuid() != 0 || system("unshare -m true 2>/dev/null") != 0) {
        printf("SKIP %s: needs root and unshare -m\n", __func__);
        return;
    }
    char dir[] = "/tmp/afx-preload-XXXXXX", list[64], line[PATH_MAX + 2];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(list, sizeof list, "%s/list", dir);
    FILE *f = fopen(list, "w");
    ck_assert(f != NULL);
    fprintf(f, "%s\n", testlib());
    ck_assert(fclose(f) == 0);
    snprintf(line, sizeof line, "mkdir '%s/upper' '%s/work'", dir, dir);
    ck_assert(system(line) == 0);
    /* 77: neither an overlay nor a file of the host's to bind over. */
    static const char script[] = "if mount -t overlay overlay -o \"lowerdir=/etc,upperdir=$2/upper,workdir=$2/work\""
                                 " /etc 2>/dev/null; then cp \"$1\" /etc/ld.so.preload || exit 1;"
                                 " elif [ -f /etc/ld.so.preload ]; then mount --bind \"$1\" /etc/ld.so.preload ||"
                                 " exit 1; else exit 77; fi; shift 2; exec \"$@\"";
    struct afx_host_file before, after;
    afx_host_file_read("/etc/ld.so.preload", &before);
    struct run r, rm;
    run(&r, NULL, ARGV("unshare", "-m", "sh", "-c", script, "sh", list, dir, cli(), "probe", "--glibc", g, "--json"));
    afx_host_file_read("/etc/ld.so.preload", &after);
    run(&rm, NULL, ARGV("rm", "-rf", dir));
    run_free(&rm);
    bool same = afx_host_file_same(&before, &after);
    free(before.text);
    free(after.text);
    ck_assert_msg(same, "the host's /etc/ld.so.preload changed (%s before, %s after)",
                  before.exists ? "there" : "absent", after.exists ? "there" : "absent");
    if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 77) {
        printf("SKIP %s: no overlayfs to give a copy of /etc, and no /etc/ld.so.preload to bind over\n", __func__);
        run_free(&r);
        return;
    }
    ck_assert_status(&r, 3);
    ck_assert_msg(strstr(r.out, "\"verdict\":\"affected\"") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "\"arenas_pinned\":9,") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* The filter inspect's probe runs under (jail.c) leaves one exec: the
 * descriptor and the "" it was given.  Another path through the same
 * descriptor (an absolute path ignores it), another descriptor, another
 * "" or a plain execve are refused; so is creating a file with a
 * read-only open.  Then the one exec runs /bin/true. */
START_TEST(filter_leaves_one_exec)
{
    if (skip_emulated(__func__, "qemu-user does not run seccomp filters"))
        return;
    char dir[] = "/tmp/arenafix-filter-XXXXXX", made[64];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(made, sizeof made, "%s/made", dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        static const char here[] = "";
        char elsewhere[1] = "";
        char *argv[] = { (char *)"true", NULL }, *envp[] = { NULL };
        int fd = open("/bin/true", O_RDONLY | O_CLOEXEC), other = open("/bin/false", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || other < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || !afx_probe_filter_install(fd, here))
            _exit(10);
        if (syscall(SYS_execveat, fd, "/bin/false", argv, envp, AT_EMPTY_PATH) != -1 || errno != EPERM)
            _exit(11);
        if (syscall(SYS_execveat, other, here, argv, envp, AT_EMPTY_PATH) != -1 || errno != EPERM)
            _exit(12);
        if (syscall(SYS_execveat, fd, elsewhere, argv, envp, AT_EMPTY_PATH) != -1 || errno != EPERM)
            _exit(13);
        if (syscall(SYS_execve, "/bin/false", argv, envp) != -1)
            _exit(14);
        if (syscall(SYS_openat, AT_FDCWD, made, O_RDONLY | O_CREAT | O_CLOEXEC, 0600) >= 0)
            _exit(15);
        syscall(SYS_execveat, fd, here, argv, envp, AT_EMPTY_PATH);
        _exit(16);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    bool created = access(made, F_OK) == 0;
    unlink(made);
    rmdir(dir);
    ck_assert_msg(!created, "a read-only open created a file");
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x (10: no filter, 11-15: a call "
                  "let through, 16: the one exec refused)", status);
}
END_TEST

Suite *probe_suite(void)
{
    Suite *s = suite_create("probe");
    TCase *tc = tcase_create("probe");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, system_glibc_not_affected);
    tcase_add_test(tc, affected_glibc_affected);
    tcase_add_test(tc, json);
    tcase_add_test(tc, narrow_process_affinity);
    tcase_add_test(tc, narrow_affinity_on_affected_glibc);
    tcase_add_test(tc, through_an_explicit_loader);
    tcase_add_test(tc, hanging_loader_is_given_up);
    tcase_add_test(tc, bad_input);
    tcase_add_test(tc, no_room_for_arenas_cannot_tell);
    tcase_add_test(tc, host_wide_preload_does_not_hide_the_bug);
    tcase_add_test(tc, filter_leaves_one_exec);
    suite_add_tcase(s, tc);
    return s;
}
