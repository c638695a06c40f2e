/* arenafix enable/disable in a scratch root. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static char root[64], lib[PATH_MAX], dropin[PATH_MAX];

static void write_file(const char *rel, const char *text)
{
    char path[PATH_MAX], cmd[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    ck_assert(system(cmd) == 0);
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fputs(text, f);
    fclose(f);
}

static char *read_dropin(void)
{
    FILE *f = fopen(dropin, "r");
    if (f == NULL)
        return NULL;
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/arenafix-root-XXXXXX");
    ck_assert(mkdtemp(root) != NULL);
    ck_assert(realpath(testlib(), lib) != NULL);
    snprintf(dropin, sizeof dropin, "%s/etc/systemd/system/web.service.d/arenafix.conf", root);
    write_file("lib/systemd/system/web.service",
               "[Unit]\nDescription=web\n[Service]\nEnvironment=\"LD_PRELOAD=libm.so.6\" A=1\n"
               "ExecStart=/bin/true\n");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/etc/systemd/system'", root);
    ck_assert(system(cmd) == 0);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    ck_assert(system(cmd) == 0);
}

static void want_preload(const char *value)
{
    char want[PATH_MAX * 2];
    snprintf(want, sizeof want, "Environment=\"LD_PRELOAD=%s\"\n", value);
    const char *text = read_dropin();
    ck_assert_msg(text != NULL, "no drop-in at %s", dropin);
    ck_assert_msg(strstr(text, "[Service]\n") != NULL && strstr(text, want) != NULL, "want %s in:\n%s", want, text);
}

START_TEST(round_trip)
{
    struct run r;
    char both[PATH_MAX + 16];
    snprintf(both, sizeof both, "libm.so.6:%s", lib);
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "systemctl daemon-reload && systemctl restart web.service") != NULL, "%s", r.out);
    run_free(&r);
    want_preload(both);
    /* Again: the same file, the library not added twice. */
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web.service"));
    ck_assert_status(&r, 0);
    run_free(&r);
    want_preload(both);

    run(&r, NULL, ARGV(cli(), "disable", "--root", root, "web"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "systemctl daemon-reload") != NULL, "%s", r.out);
    run_free(&r);
    ck_assert(read_dropin() == NULL);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/etc/systemd/system/web.service.d", root);
    ck_assert_msg(access(dir, F_OK) != 0, "empty drop-in directory left behind");
    run(&r, NULL, ARGV(cli(), "disable", "--root", root, "web"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "nothing to do") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(dry_run_writes_nothing)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "enable", "--dry-run", "--root", root, "web"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "[Service]\nEnvironment=\"LD_PRELOAD=libm.so.6:") != NULL, "%s", r.out);
    run_free(&r);
    ck_assert(read_dropin() == NULL);
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web"));
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "disable", "--dry-run", "--root", root, "web"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "would remove") != NULL, "%s", r.out);
    run_free(&r);
    ck_assert(read_dropin() != NULL);
}
END_TEST

/* Drop-ins apply in name order: earlier ones are kept, later ones are
 * reported as overriding ours, a reset is honoured. */
START_TEST(other_dropins)
{
    struct run r;
    char want[PATH_MAX + 32];
    write_file("etc/systemd/system/web.service.d/10-mine.conf",
               "[Service]\nEnvironment=\"LD_PRELOAD=/opt/a.so /opt/b.so\"\n");
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 0);
    run_free(&r);
    snprintf(want, sizeof want, "/opt/a.so /opt/b.so:%s", lib);
    want_preload(want);

    write_file("etc/systemd/system/web.service.d/10-mine.conf", "[Service]\nEnvironment=\n");
    write_file("etc/systemd/system/web.service.d/zz-late.conf", "[Service]\nEnvironment=LD_PRELOAD=/opt/z.so\n");
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.err, "zz-late.conf sets LD_PRELOAD after arenafix.conf") != NULL, "%s", r.err);
    run_free(&r);
    want_preload(lib);
}
END_TEST

START_TEST(bad_input)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "enable", "--root", root));
    ck_assert_status(&r, 2);
    ck_assert_msg(strstr(r.err, "no unit given") != NULL, "%s", r.err);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "../etc/passwd"));
    ck_assert_status(&r, 2);
    ck_assert_msg(strstr(r.err, "is not a service unit name") != NULL, "%s", r.err);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web.socket"));
    ck_assert_status(&r, 2);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "disable", "--root", "/no/such/root", "web"));
    ck_assert_status(&r, 2);
    ck_assert_msg(strstr(r.err, "--root /no/such/root: not a directory") != NULL, "%s", r.err);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "enable", "--bogus", "web"));
    ck_assert_status(&r, 2);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "enable", "--root"));
    ck_assert_status(&r, 2);
    run_free(&r);
    /* A root without systemd. */
    run(&r, NULL, ARGV(cli(), "enable", "--root", "/proc/self/fdinfo", "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "does not exist; is systemd installed?") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

Suite *enable_suite(void)
{
    Suite *s = suite_create("enable");
    TCase *tc = tcase_create("enable");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, dry_run_writes_nothing);
    tcase_add_test(tc, other_dropins);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    return s;
}
