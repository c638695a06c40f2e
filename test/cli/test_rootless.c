/* A user's own user namespace, as rootless podman makes one: root's
 * inspect names the process by that user (the kernel's owner of the
 * namespace, nothing the user wrote) and tells the user, not root, how
 * to run it again; the OCI hook run in such a namespace leaves the
 * container alone and says why. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "proc/userns.h"

/* nobody, alone in a user namespace of its own where it is uid 0 (no
 * /etc/subuid entry needed: the one uid mapped, as rootless podman
 * maps it then). */
#define AS_NOBODY_IN_USERNS "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "unshare", "--user", \
                            "--map-root-user"

static bool skip_unless_root(const char *test)
{
    if (geteuid() == 0)
        return false;
    printf("SKIP %s: needs root (to run a process as nobody)\n", test);
    return true;
}

START_TEST(rootless_process_named_by_its_user)
{
    if (skip_emulated(__func__, EMULATED_PROC) || skip_unless_root(__func__))
        return;
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    struct live l;
    struct run r, text;
    live_start(&l, NULL, ARGV(AS_NOBODY_IN_USERNS, affected_loader(g), "--library-path", g, test_prog("arenawait"),
                              "30", "pinned"));
    ck_assert_int_eq(l.arenas, 9);
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, NULL, ARGV(cli(), "inspect", "--json", pid));
    run(&text, NULL, ARGV(cli(), "inspect", pid));
    live_stop(&l);
    ck_assert_status(&r, 3);
    ck_assert_msg(strstr(r.out, "\"rootless_owner_uid\":65534") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "\"container_engine\":null") != NULL, "%s", r.out);
    ck_assert_status(&text, 3);
    ck_assert_msg(strstr(text.out, "  container:          rootless: in a user namespace of nobody (uid 65534)") != NULL,
                  "%s", text.out);
    /* The user's to do, with the options; no root command, no arenafix
     * CMD naming a path of the process's own. */
    const char *fix = strstr(text.out, "\nfix the rootless containers: ");
    ck_assert_msg(fix != NULL, "%s", text.out);
    ck_assert_msg(strstr(fix, "as that user") != NULL && strstr(fix, "\n    user nobody (uid 65534), ") != NULL
                      && strstr(fix, "\n        -v ") != NULL && strstr(fix, "-e 'LD_PRELOAD=") != NULL,
                  "%s", text.out);
    ck_assert_msg(strstr(text.out, "restart these under arenafix") == NULL && strstr(text.out, "systemctl") == NULL,
                  "%s", text.out);
    run_free(&r);
    run_free(&text);
}
END_TEST

/* A user namespace root made (a service's PrivateUsers=yes) is no
 * user's container: its unit's fix holds. */
START_TEST(roots_own_namespace_is_no_rootless_container)
{
    if (skip_emulated(__func__, EMULATED_PROC) || skip_unless_root(__func__))
        return;
    struct live l;
    struct run r;
    live_start(&l, NULL, ARGV("unshare", "--user", "--map-root-user", test_prog("arenawait"), "2"));
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, NULL, ARGV(cli(), "inspect", "--json", pid));
    live_stop(&l);
    ck_assert_msg(strstr(r.out, "\"rootless_owner_uid\":null") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* Root's own processes and this command's are in its namespace: no
 * user's. */
START_TEST(own_namespace_is_no_ones)
{
    struct afx_userns u;
    ck_assert(!afx_userns_of((long)getpid(), &u));
    ck_assert(!afx_userns_of(1, &u));
    ck_assert(!afx_userns_of(0x7ffffff0L, &u));
}
END_TEST

START_TEST(uid_map_identity)
{
    ck_assert(afx_uid_map_identity("         0          0 4294967295\n"));
    ck_assert(afx_uid_map_identity("0 0 4294967295"));
    ck_assert(!afx_uid_map_identity("         0      65534          1\n"));
    ck_assert(!afx_uid_map_identity("0 0 4294967294\n"));
    ck_assert(!afx_uid_map_identity("0 0 4294967295\n1 1 1\n"));
    ck_assert(!afx_uid_map_identity(""));
}
END_TEST

/* arenafix oci-hook as rootless podman's runc runs it: as the user, in
 * its namespace, on a bundle that is uid 0's there (the user's). */
START_TEST(hook_in_a_user_namespace_leaves_it_alone)
{
    if (skip_unless_root(__func__))
        return;
    char dir[] = "/tmp/afx-rootless-XXXXXX", path[PATH_MAX], script[3 * PATH_MAX];
    ck_assert(mkdtemp(dir) != NULL);
    ck_assert(chmod(dir, 0755) == 0);
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fputs("{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\"},\"annotations\":{\"io.arenafix.enable\":\"true\"}}\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/state.json", dir);
    f = fopen(path, "w");
    ck_assert(f != NULL);
    fprintf(f, "{\"ociVersion\":\"1.0.2\",\"id\":\"0123456789abcdef\",\"status\":\"creating\",\"pid\":%d,\"bundle\":\"%s\"}\n",
            (int)getpid(), dir);
    fclose(f);
    snprintf(path, sizeof path, "%s/rootfs", dir);
    ck_assert(mkdir(path, 0755) == 0);
    ck_assert(chown(dir, 65534, 65534) == 0);
    snprintf(script, sizeof script, "exec \"$0\" oci-hook < %s/state.json", dir);
    struct run r;
    run(&r, NULL, ARGV(AS_NOBODY_IN_USERNS, "sh", "-c", script, cli()));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.err, "container 0123456789ab: left alone: the hook runs in a user namespace") != NULL,
                  "%s", r.err);
    snprintf(script, sizeof script, "rm -rf '%s'", dir);
    ck_assert(system(script) == 0);
    run_free(&r);
}
END_TEST

Suite *rootless_suite(void)
{
    Suite *s = suite_create("rootless");
    TCase *tc = tcase_create("rootless");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, rootless_process_named_by_its_user);
    tcase_add_test(tc, roots_own_namespace_is_no_rootless_container);
    tcase_add_test(tc, own_namespace_is_no_ones);
    tcase_add_test(tc, uid_map_identity);
    tcase_add_test(tc, hook_in_a_user_namespace_leaves_it_alone);
    suite_add_tcase(s, tc);
    return s;
}
