/* arenafix status: what arenafix changed, in a tree the real
 * `arenafix enable --root` wrote, and on a "running" system in a
 * private mount namespace. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static char root[64], lib[PATH_MAX];

#define FMT(buf, ...) ck_assert_msg(snprintf(buf, sizeof buf, __VA_ARGS__) < (int)sizeof buf, "too long")

static void write_file(const char *rel, const char *text)
{
    char path[PATH_MAX], dir[PATH_MAX];
    FMT(path, "%s/%s", root, rel);
    FMT(dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    make_dirs(dir);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

static void setup(void)
{
    umask(022);
    snprintf(root, sizeof root, "/tmp/arenafix-status-XXXXXX");
    ck_assert(mkdtemp(root) != NULL);
    ck_assert(chmod(root, 0755) == 0);
    char dir[PATH_MAX];
    snprintf(lib, sizeof lib, "%s/opt/arenafix/libarenafix.so", root);
    FMT(dir, "%s/opt/arenafix", root);
    make_dirs(dir);
    FMT(dir, "%s/etc/systemd/system", root);
    make_dirs(dir);
    copy_file(testlib(), lib);
    setenv("ARENAFIX_LIBRARY", lib, 1);
    write_file("lib/systemd/system/web.service", "[Service]\nExecStart=/bin/true\n");
}

static void teardown(void)
{
    ck_assert(remove_tree(root));
}

static void enable_in_root(const char *unit, bool force)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, force ? "--force" : unit, force ? unit : NULL));
    ck_assert_status(&r, 0);
    run_free(&r);
}

static void want_line(const struct run *r, const char *line)
{
    ck_assert_msg(strstr(r->out, line) != NULL, "want the line \"%s\" in:\n%s", line, r->out);
}

/* The status of the tree as JSON, checked by the Python assertions
 * CHECK (d: the object, root, lib: the tree's and the library's paths);
 * skipped, and said, without python3 to read it with. */
static void check_json(const char *test, const char *check)
{
    struct run r;
    if (run(&r, NULL, ARGV(python3(), "-c", "import json")) != 0) {
        run_free(&r);
        printf("SKIP %s (JSON): no python3 to read it with\n", test);
        return;
    }
    run_free(&r);
    char json[PATH_MAX], script[PATH_MAX * 4], cmd[PATH_MAX * 2];
    FMT(json, "%s/status.json", root);
    FMT(cmd, "'%s' status --json --root '%s' > '%s'", cli(), root, json);
    ck_assert(system(cmd) == 0);
    FMT(script, "import json, sys\nd = json.load(open(sys.argv[1]))\nroot, lib = sys.argv[2], sys.argv[3]\n%s",
        check);
    run(&r, NULL, ARGV(python3(), "-c", script, json, root, lib));
    ck_assert_msg(r.status == 0, "%s%s", r.out, r.err);
    run_free(&r);
}

/* Every drop-in enable wrote, and only those; the lines of
 * ld.so.preload naming the library; as text and as JSON. */
START_TEST(lists_what_enable_wrote)
{
    enable_in_root("web", false);
    enable_in_root("later", true);
    write_file("etc/systemd/system/other.service.d/arenafix.conf", "[Service]\nEnvironment=A=1\n");
    write_file("etc/systemd/system/other.service.d/10-mine.conf", "# Written by arenafix enable\n");
    write_file("etc/ld.so.preload", "/usr/lib/libother.so\n/usr/$LIB/arenafix/libarenafix.so\n");
    struct run r;
    char line[PATH_MAX * 2];
    run(&r, NULL, ARGV(cli(), "status", "--root", root));
    ck_assert_status(&r, 0);
    FMT(line, "library:        %s (ARENAFIX_LIBRARY)\n", lib);
    want_line(&r, line);
    want_line(&r, "glibc:          not probed (--root: run arenafix probe on the host that boots the tree)\n");
    FMT(line, "ld.so.preload:  %s/etc/ld.so.preload line 2 names it, for every process: "
              "/usr/$LIB/arenafix/libarenafix.so\n", root);
    want_line(&r, line);
    FMT(line, "drop-in:        later.service: %s/etc/systemd/system/later.service.d/arenafix.conf (systemd: not "
              "asked, --root)\ndrop-in:        web.service: %s/etc/systemd/system/web.service.d/arenafix.conf",
        root, root);
    want_line(&r, line);
    ck_assert_msg(strstr(r.out, "other.service") == NULL, "a drop-in arenafix did not write is listed: %s", r.out);
    ck_assert_msg(strstr(r.out, "next:") == NULL, "%s", r.out);
    ck_assert_msg(terminal_safe(r.out), "%s", r.out);
    run_free(&r);

    check_json("lists_what_enable_wrote",
               "assert d['root'] == root and d['library'] == lib and d['verdict'] is None, d\n"
               "assert d['ld_so_preload'] == root + '/etc/ld.so.preload' and d['ld_so_preload_names_library'], d\n"
               "assert d['ld_so_preload_lines'] == [{'line': 2, 'text': '/usr/$LIB/arenafix/libarenafix.so'}], d\n"
               "assert [x['unit'] for x in d['dropins']] == ['later.service', 'web.service'], d\n"
               "assert d['dropins'][1]['path'] == root + '/etc/systemd/system/web.service.d/arenafix.conf', d\n"
               "assert d['systemd'] == 'not asked' and d['next'] == [] and d['exit_status'] == 0, d\n");
}
END_TEST

/* What gives containers the fix: none of it, then the package's hooks.d
 * entry, what the hook last logged, a CDI spec of arenafix's device
 * (and one of another's, not listed), docker's configuration naming the
 * runtime shim. */
START_TEST(lists_what_gives_containers_the_fix)
{
    struct run r;
    char line[PATH_MAX * 2];
    run(&r, NULL, ARGV(cli(), "status", "--root", root));
    ck_assert_status(&r, 0);
    want_line(&r, "oci hook:       no hooks.d entry (podman, CRI-O)\n");
    FMT(line, "hook log:       %s/var/log/arenafix-oci-hook.log: none (no container has asked since "
              "it was made)\n", root);
    want_line(&r, line);
    want_line(&r, "cdi spec:       none (arenafix cdi --output /etc/cdi/arenafix.json writes one)\n");
    want_line(&r, "runtime shim:   named by no engine's configuration (docker, containerd)\n");
    run_free(&r);

    write_file("usr/share/containers/oci/hooks.d/arenafix.json",
               "{\"version\": \"1.0.0\", \"hook\": {\"path\": \"/usr/bin/arenafix\", \"args\": "
               "[\"arenafix\", \"oci-hook\", \"--log\", \"/var/log/hook.log\"]}, \"when\": "
               "{\"annotations\": {\"^io\\\\.arenafix\\\\.enable$\": \"^true$\"}}, "
               "\"stages\": [\"createRuntime\"]}\n");
    write_file("var/log/hook.log", "container 1: left alone: musl\ncontainer 2: the library\n");
    write_file("etc/cdi/arenafix.json", "{\"cdiVersion\": \"0.5.0\", \"kind\": \"arenafix.dev/fix\"}\n");
    write_file("etc/cdi/other.json", "{\"cdiVersion\": \"0.5.0\", \"kind\": \"vendor.com/gpu\"}\n");
    write_file("etc/docker/daemon.json",
               "{\"runtimes\": {\"arenafix\": {\"path\": \"/usr/bin/arenafix-runtime\"}}}\n");
    run(&r, NULL, ARGV(cli(), "status", "--root", root));
    ck_assert_status(&r, 0);
    FMT(line, "oci hook:       %s/usr/share/containers/oci/hooks.d/arenafix.json: podman and CRI-O run "
              "it for a container with io.arenafix.enable=true\n", root);
    want_line(&r, line);
    FMT(line, "hook log:       %s/var/log/hook.log: 2 lines, the last: container 2: the library\n", root);
    want_line(&r, line);
    FMT(line, "cdi spec:       %s/etc/cdi/arenafix.json\n", root);
    want_line(&r, line);
    ck_assert_msg(strstr(r.out, "other.json") == NULL, "another device's spec listed: %s", r.out);
    FMT(line, "runtime shim:   %s/etc/docker/daemon.json names arenafix-runtime\n", root);
    want_line(&r, line);
    ck_assert_msg(terminal_safe(r.out), "%s", r.out);
    run_free(&r);

    check_json("lists_what_gives_containers_the_fix",
               "assert d['oci_hooks'] == [root + '/usr/share/containers/oci/hooks.d/arenafix.json'], d\n"
               "assert d['hook_log'] == root + '/var/log/hook.log' and d['hook_log_exists'], d\n"
               "assert d['hook_log_lines'] == 2 and d['hook_log_last'] == 'container 2: the library', d\n"
               "assert d['cdi_specs'] == [root + '/etc/cdi/arenafix.json'], d\n"
               "assert d['runtime_configs'] == [root + '/etc/docker/daemon.json'], d\n");
}
END_TEST

/* What it cannot read, it says, and exits 1. */
START_TEST(unreadable_is_a_failure)
{
    char path[PATH_MAX];
    FMT(path, "%s/etc/ld.so.preload", root);
    ck_assert(mkdir(path, 0755) == 0);
    struct run r;
    run(&r, NULL, ARGV(cli(), "status", "--root", root));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "etc/ld.so.preload: not a regular file") != NULL, "%s", r.err);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "status", "--bogus"));
    ck_assert_status(&r, 2);
    run_free(&r);
}
END_TEST

START_TEST(help)
{
    const char *const *argvs[] = { ARGV(cli(), "status", "--help"), ARGV(cli(), "status", "--json", "-h") };
    for (size_t i = 0; i < 2; i++) {
        struct run r;
        run(&r, NULL, argvs[i]);
        ck_assert_status(&r, 0);
        ck_assert_msg(strncmp(r.out, "Usage: arenafix status [--json] [--root DIR]\n", 45) == 0
                      && strstr(r.out, "\nOptions:\n") != NULL && strstr(r.out, "\nExamples:\n") != NULL
                      && strstr(r.out, "  -h, --help       print this help and exit\n") != NULL
                      && strstr(r.out, "\nSee arenafix-status(1).\n") != NULL, "%s", r.out);
        run_free(&r);
    }
}
END_TEST

/* status without --root, in a private mount namespace whose
 * /etc/systemd/system is the tree's; with running_says non-NULL,
 * /run/systemd/system exists and systemctl is a script printing it. */
static void run_live_as(struct run *r, const char *running_says, bool json)
{
    char script[PATH_MAX * 4], bin[PATH_MAX], fake[PATH_MAX * 2], path_env[PATH_MAX * 2 + 16];
    FMT(bin, "%s/live-bin", root);
    ck_assert(mkdir(bin, 0755) == 0 || errno == EEXIST);
    FMT(fake, "%s/systemctl", bin);
    FILE *f = fopen(fake, "w");
    ck_assert(f != NULL);
    fprintf(f, "#!/bin/sh\nprintf '%s'\n", running_says != NULL ? running_says : "");
    fclose(f);
    ck_assert(chmod(fake, 0755) == 0);
    FMT(script, "mount --make-rprivate / && mount -t tmpfs none /run/systemd && %s"
                "mount --bind '%s/etc/systemd/system' /etc/systemd/system && exec \"$@\"",
        running_says != NULL ? "mkdir /run/systemd/system && " : "", root);
    FMT(path_env, "PATH=%s:%s", bin, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    run(r, ARGV(path_env), ARGV("unshare", "-m", "sh", "-c", script, "sh", cli(), "status", json ? "--json" : NULL));
}

static void run_live(struct run *r, const char *running_says)
{
    run_live_as(r, running_says, false);
}

/* On a running system, systemd says whether it loaded each drop-in, and
 * status says what to run next. */
START_TEST(live_asks_systemd)
{
    if (geteuid() != 0 || system("unshare -m true 2>/dev/null") != 0 || access("/run/systemd", F_OK) != 0) {
        printf("SKIP live_asks_systemd: needs root, unshare -m and /run/systemd\n");
        return;
    }
    enable_in_root("web", false);
    struct run r;
    run_live(&r, NULL);
    ck_assert_status(&r, 0);
    want_line(&r, "drop-in:        web.service: /etc/systemd/system/web.service.d/arenafix.conf (systemd: not "
                  "running here)\n");
    ck_assert_msg(strstr(r.out, "\nglibc:          ") != NULL, "the host's glibc is not probed: %s", r.out);
    run_free(&r);

    run_live(&r, "LoadState=loaded\\nNeedDaemonReload=no\\nDropInPaths=\\nActiveState=active\\n"
                 "ExecMainStartTimestampMonotonic=1\\n");
    ck_assert_status(&r, 0);
    want_line(&r, "(systemd: not loaded)\nnext:           systemctl daemon-reload && systemctl restart "
                  "web.service\n");
    run_free(&r);
    run_live(&r, "LoadState=loaded\\nNeedDaemonReload=no\\nDropInPaths=/x.conf "
                 "/etc/systemd/system/web.service.d/arenafix.conf\\nActiveState=active\\n"
                 "ExecMainStartTimestampMonotonic=1\\n");
    ck_assert_status(&r, 0);
    want_line(&r, "(systemd: loaded, but the service started before it was written)\n"
                  "next:           systemctl restart web.service\n");
    run_free(&r);
    run_live(&r, "LoadState=loaded\\nNeedDaemonReload=no\\nDropInPaths=/etc/systemd/system/web.service.d/"
                 "arenafix.conf\\nActiveState=inactive\\nExecMainStartTimestampMonotonic=0\\n");
    ck_assert_status(&r, 0);
    want_line(&r, "(systemd: loaded, in effect from the next start)\n");
    ck_assert_msg(strstr(r.out, "next:") == NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* A unit that runs a container: its drop-in loaded and in effect by
 * systemd's word, and a process of the unit in a root of its own (its
 * payload's, on the affected glibc: 9 arenas) that it never reaches.
 * Named as such, as text and in JSON, with the command that gives its
 * fix; never left to pass for fixed. */
START_TEST(container_under_a_unit_not_reached)
{
    static const char *const dirs[] = { "/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
    const char *hier = NULL;
    char path[PATH_MAX];
    for (size_t i = 0; i < 3 && hier == NULL; i++) {
        FMT(path, "%s/cgroup.procs", dirs[i]);
        if (access(path, W_OK) == 0)
            hier = dirs[i];
    }
    if (geteuid() != 0 || system("unshare -m true 2>/dev/null") != 0 || access("/run/systemd", F_OK) != 0
        || hier == NULL) {
        printf("SKIP %s: needs root, unshare -m, /run/systemd and a writable cgroup hierarchy\n", __func__);
        return;
    }
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    enable_in_root("web", false);
    char slice[PATH_MAX], unit[PATH_MAX + 32], payload[PATH_MAX + 64], dir[PATH_MAX], cmd[3 * PATH_MAX];
    FMT(slice, "%s/afxtest-%d.slice", hier, (int)getpid());
    FMT(unit, "%s/web.service", slice);
    FMT(payload, "%s/payload", unit);
    FMT(cmd, "mkdir -p '%s'", payload);
    ck_assert(system(cmd) == 0);
    struct live box;
    long inside = live_start_contained(&box, g, dir, sizeof dir);
    FMT(cmd, "echo %ld > '%s/cgroup.procs'", inside, payload);
    bool placed = inside > 0 && system(cmd) == 0;
    static const char says[] = "LoadState=loaded\\nNeedDaemonReload=no\\nDropInPaths=/etc/systemd/system/web.service.d/"
                               "arenafix.conf\\nActiveState=active\\nExecMainStartTimestampMonotonic=999999999999999\\n";
    struct run r, json;
    run_live_as(&r, says, false);
    run_live_as(&json, says, true);
    FMT(cmd, "echo %ld > '%s/cgroup.procs'", inside, hier);
    if (inside > 0 && system(cmd) != 0)
        printf("cannot move %ld out of %s\n", inside, payload);
    int arenas = box.arenas;
    live_stop(&box);
    remove_tree(dir);
    rmdir(payload);
    rmdir(unit);
    rmdir(slice);
    ck_assert_msg(placed, "cannot place process %ld in %s", inside, payload);
    ck_assert_int_eq(arenas, 9);
    ck_assert_status(&r, 0);
    char want[512];
    want_line(&r, "(systemd: loaded, in effect)\n");
    FMT(want, "\nnot reached:    web.service runs 1 process in a root of its own, which the drop-in never reaches (a "
              "container's: systemd-nspawn's payload, a podman run under the unit): PID %ld; arenafix inspect PID "
              "gives each its fix\n", inside);
    ck_assert_msg(strstr(r.out, want) != NULL, "want %s\nin: %s", want, r.out);
    FMT(want, "\nnext:           arenafix inspect %ld\n", inside);
    ck_assert_msg(strstr(r.out, want) != NULL, "want %s\nin: %s", want, r.out);
    FMT(want, "\"not_reached\":[%ld],\"not_reached_count\":1}", inside);
    ck_assert_msg(strstr(json.out, want) != NULL, "want %s\nin: %s", want, json.out);
    run_free(&r);
    run_free(&json);
}
END_TEST

/* A unit whose daemon chroots itself in its private mount namespace
 * (PrivateTmp= and HAProxy's chroot): its drop-in reaches it, loaded
 * before the chroot.  Never named as not reached. */
START_TEST(chrooting_daemon_under_a_unit_reached)
{
    static const char *const dirs[] = { "/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
    const char *hier = NULL;
    char path[PATH_MAX];
    for (size_t i = 0; i < 3 && hier == NULL; i++) {
        FMT(path, "%s/cgroup.procs", dirs[i]);
        if (access(path, W_OK) == 0)
            hier = dirs[i];
    }
    if (geteuid() != 0 || system("unshare -m true 2>/dev/null") != 0 || access("/run/systemd", F_OK) != 0
        || hier == NULL) {
        printf("SKIP %s: needs root, unshare -m, /run/systemd and a writable cgroup hierarchy\n", __func__);
        return;
    }
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    enable_in_root("web", false);
    char slice[PATH_MAX], unit[PATH_MAX + 32], dir[PATH_MAX], cmd[3 * PATH_MAX];
    FMT(slice, "%s/afxtest-%d.slice", hier, (int)getpid());
    FMT(unit, "%s/web.service", slice);
    FMT(cmd, "mkdir -p '%s'", unit);
    ck_assert(system(cmd) == 0);
    struct live daemon;
    long inside = live_start_chrooting(&daemon, g, NULL, dir, sizeof dir);
    FMT(cmd, "echo %ld > '%s/cgroup.procs'", inside, unit);
    bool placed = inside > 0 && system(cmd) == 0;
    static const char says[] = "LoadState=loaded\\nNeedDaemonReload=no\\nDropInPaths=/etc/systemd/system/web.service.d/"
                               "arenafix.conf\\nActiveState=active\\nExecMainStartTimestampMonotonic=999999999999999\\n";
    struct run r, json;
    run_live_as(&r, says, false);
    run_live_as(&json, says, true);
    FMT(cmd, "echo %ld > '%s/cgroup.procs'", inside, hier);
    if (inside > 0 && system(cmd) != 0)
        printf("cannot move %ld out of %s\n", inside, unit);
    int arenas = daemon.arenas;
    live_stop(&daemon);
    rmdir(dir);
    rmdir(unit);
    rmdir(slice);
    ck_assert_msg(placed, "cannot place process %ld in %s", inside, unit);
    ck_assert_int_eq(arenas, 9);
    ck_assert_status(&r, 0);
    want_line(&r, "(systemd: loaded, in effect)\n");
    ck_assert_msg(strstr(r.out, "not reached") == NULL && strstr(r.out, "root of its own") == NULL, "%s", r.out);
    ck_assert_msg(strstr(json.out, "\"not_reached_count\":0") != NULL, "%s", json.out);
    run_free(&r);
    run_free(&json);
}
END_TEST

/* A unit systemd escaped: the path status shows, as text and in JSON,
 * is the drop-in's; the commands it says to run next name the unit as
 * one shell word. */
START_TEST(escaped_unit_named_as_on_disk)
{
    write_file("lib/systemd/system/a\\x2db.service", "[Service]\nExecStart=/bin/true\n");
    enable_in_root("a\\x2db.service", false);
    char path[PATH_MAX], line[PATH_MAX * 2];
    FMT(path, "%s/etc/systemd/system/a\\x2db.service.d/arenafix.conf", root);
    ck_assert_msg(access(path, F_OK) == 0, "%s: %s", path, strerror(errno));
    struct run r;
    run(&r, NULL, ARGV(cli(), "status", "--root", root));
    ck_assert_status(&r, 0);
    FMT(line, "drop-in:        a\\x2db.service: %s (systemd: not asked, --root)\n", path);
    want_line(&r, line);
    run_free(&r);

    if (run(&r, NULL, ARGV(python3(), "-c", "import json")) == 0) {
        char json[PATH_MAX], cmd[PATH_MAX * 2];
        run_free(&r);
        FMT(json, "%s/status.json", root);
        FMT(cmd, "'%s' status --json --root '%s' > '%s'", cli(), root, json);
        ck_assert(system(cmd) == 0);
        run(&r, NULL, ARGV(python3(), "-c",
                           "import json, sys\n"
                           "d = json.load(open(sys.argv[1]))\n"
                           "assert [x['path'] for x in d['dropins']] == [sys.argv[2]], d\n"
                           "assert d['dropins'][0]['unit'] == 'a\\\\x2db.service', d\n",
                           json, path));
        ck_assert_msg(r.status == 0, "%s%s", r.out, r.err);
    } else {
        printf("SKIP escaped_unit_named_as_on_disk (JSON): no python3 to read it with\n");
    }
    run_free(&r);

    if (geteuid() != 0 || system("unshare -m true 2>/dev/null") != 0 || access("/run/systemd", F_OK) != 0) {
        printf("SKIP escaped_unit_named_as_on_disk (running): needs root, unshare -m and /run/systemd\n");
        return;
    }
    run_live(&r, "LoadState=loaded\\nNeedDaemonReload=yes\\nDropInPaths=\\nActiveState=active\\n"
                 "ExecMainStartTimestampMonotonic=1\\n");
    ck_assert_status(&r, 0);
    want_line(&r, "(systemd: not loaded)\nnext:           systemctl daemon-reload && systemctl restart "
                  "'a\\x2db.service'\n");
    run_free(&r);
    run_live(&r, "LoadState=not-found\\nNeedDaemonReload=no\\nDropInPaths=\\nActiveState=inactive\\n"
                 "ExecMainStartTimestampMonotonic=0\\n");
    ck_assert_status(&r, 0);
    want_line(&r, "(systemd: unit not installed)\nnext:           arenafix disable 'a\\x2db.service'\n");
    run_free(&r);
}
END_TEST

Suite *status_suite(void)
{
    Suite *s = suite_create("status");
    TCase *tc = tcase_create("status");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, lists_what_enable_wrote);
    tcase_add_test(tc, lists_what_gives_containers_the_fix);
    tcase_add_test(tc, unreadable_is_a_failure);
    tcase_add_test(tc, help);
    tcase_add_test(tc, live_asks_systemd);
    tcase_add_test(tc, container_under_a_unit_not_reached);
    tcase_add_test(tc, chrooting_daemon_under_a_unit_reached);
    tcase_add_test(tc, escaped_unit_named_as_on_disk);
    suite_add_tcase(s, tc);
    return s;
}
