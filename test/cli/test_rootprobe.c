/* arenafix probe --root DIR: an image judged by its libc, read inside
 * DIR only, nothing of it run.  The trees are made here: an affected
 * glibc, an older one than libarenafix needs, another architecture's,
 * musl's, none, and one whose links lead out of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static char tree[64];

/* A fresh tree; script (sh, $T the tree, $L the affected glibc's
 * directory or "") fills it. */
static void make_tree(const char *script)
{
    snprintf(tree, sizeof tree, "/tmp/arenafix-root-XXXXXX");
    ck_assert(mkdtemp(tree) != NULL);
    const char *g = getenv("ARENAFIX_AFFECTED_GLIBC");
    char lib[4096];
    snprintf(lib, sizeof lib, "%.*s", g ? (int)strcspn(g + strspn(g, ":"), ":") : 0, g ? g + strspn(g, ":") : "");
    struct run r;
    char t[80], l[4200];
    snprintf(t, sizeof t, "T=%s", tree);
    snprintf(l, sizeof l, "L=%s", lib);
    run(&r, ARGV(t, l), ARGV("sh", "-ec", script));
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", script, r.err);
    run_free(&r);
}

/* probe --root of the tree, JSON, under strace: nothing but the command
 * itself may be executed. */
static void probe_root(struct run *r)
{
    char log[96];
    snprintf(log, sizeof log, "%s.strace", tree);
    run(r, NULL, ARGV("strace", "-f", "-qq", "-e", "trace=execve,execveat", "-o", log, cli(), "probe", "--root", tree,
                      "--json"));
    FILE *f = fopen(log, "r");
    ck_assert(f != NULL);
    char line[4096];
    int execs = 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (strstr(line, "execve") != NULL && strstr(line, cli()) == NULL)
            execs++;
    fclose(f);
    unlink(log);
    ck_assert_msg(execs == 0, "probe --root executed %d programs", execs);
}

static bool has(const char *out, const char *field)
{
    return strstr(out, field) != NULL;
}

START_TEST(affected_image)
{
    if (affected_glibc(__func__) == NULL || skip_emulated(__func__, "the affected glibc is x86_64's"))
        return;
    make_tree("mkdir -p $T/usr/lib/x86_64-linux-gnu; cp $L/libc.so.6 $T/usr/lib/x86_64-linux-gnu/;"
              "ln -s usr/lib $T/lib");
    struct run r;
    probe_root(&r);
    ck_assert(remove_tree(tree));
    ck_assert_status(&r, 5);
    ck_assert_msg(has(r.out, "\"libc\":\"glibc\"") && has(r.out, "\"glibc\":\"2.36\"")
                      && has(r.out, "\"architecture\":\"x86_64\"") && has(r.out, "\"library_loads\":\"yes\"")
                      && has(r.out, "\"executed\":false") && has(r.out, "affected releases"),
                  "%s", r.out);
    run_free(&r);
}
END_TEST

/* 2.34 itself is new enough: GLIBC_2.34 is the version the library
 * needs, and the first affected release.  Upstream 2.34's libc. */
START_TEST(image_of_the_oldest_release_the_library_loads_on)
{
    if (skip_emulated(__func__, "the glibc copied is x86_64's"))
        return;
    if (access("../shared/glibc-releases/glibc-2.34/lib/libc.so.6", R_OK) != 0) {
        printf("SKIP %s: no ../shared/glibc-releases/glibc-2.34\n", __func__);
        return;
    }
    make_tree("mkdir -p $T/lib64; cp ../shared/glibc-releases/glibc-2.34/lib/libc.so.6 $T/lib64/");
    struct run r;
    probe_root(&r);
    ck_assert(remove_tree(tree));
    ck_assert_status(&r, 5);
    ck_assert_msg(has(r.out, "\"glibc\":\"2.34\"") && has(r.out, "\"library_loads\":\"yes\"")
                      && has(r.out, "affected releases"),
                  "%s", r.out);
    run_free(&r);
}
END_TEST

/* An older glibc than 2.34: libarenafix loads and stands down.  The
 * upstream 2.35's libc, its banner made to say 2.31, as an older
 * image's does (its version is all probe --root reads of it). */
START_TEST(image_older_than_the_library_needs)
{
    if (skip_emulated(__func__, "the glibc copied is x86_64's"))
        return;
    if (access("../shared/glibc-releases/glibc-2.35/lib/libc.so.6", R_OK) != 0) {
        printf("SKIP %s: no ../shared/glibc-releases/glibc-2.35\n", __func__);
        return;
    }
    make_tree("mkdir -p $T/lib64; sed 's/release version 2\\.35\\./release version 2.31./' "
              "../shared/glibc-releases/glibc-2.35/lib/libc.so.6 > $T/lib64/libc.so.6");
    struct run r;
    probe_root(&r);
    ck_assert_status(&r, 0);
    ck_assert_msg(has(r.out, "\"glibc\":\"2.31\"") && has(r.out, "\"glibc_state\":\"not affected\"")
                      && has(r.out, "\"library_loads\":\"stands down\""),
                  "%s", r.out);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "probe", "--root", tree));
    ck_assert(remove_tree(tree));
    ck_assert_status(&r, 0);
    ck_assert_msg(has(r.out, "libarenafix loads:  stands down: libarenafix loads on glibc 2.31 and does nothing "
                             "there (the bug is in 2.34 to 2.38): the programs run as without it"),
                  "%s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(image_of_another_architecture)
{
    const char *arm = "/usr/aarch64-linux-gnu/lib/libc.so.6";
    if (access(arm, R_OK) != 0 || skip_emulated(__func__, "the library under test is another machine's")) {
        printf("SKIP %s: no %s (libc6-arm64-cross)\n", __func__, arm);
        return;
    }
    make_tree("mkdir -p $T/usr/lib/aarch64-linux-gnu; cp /usr/aarch64-linux-gnu/lib/libc.so.6 "
              "$T/usr/lib/aarch64-linux-gnu/");
    struct run r;
    probe_root(&r);
    ck_assert(remove_tree(tree));
    ck_assert_status(&r, 5);
    ck_assert_msg(has(r.out, "\"architecture\":\"aarch64\"") && has(r.out, "\"library_loads\":\"no\"")
                      && has(r.out, "the image is aarch64"),
                  "%s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(musl_image)
{
    if (access("/usr/lib/x86_64-linux-musl/libc.so", R_OK) != 0) {
        printf("SKIP %s: no musl (musl-tools)\n", __func__);
        return;
    }
    make_tree("mkdir -p $T/lib; cp /usr/lib/x86_64-linux-musl/libc.so $T/lib/ld-musl-x86_64.so.1");
    struct run r;
    probe_root(&r);
    ck_assert(remove_tree(tree));
    ck_assert_status(&r, 0);
    ck_assert_msg(has(r.out, "\"libc\":\"musl\"") && has(r.out, "\"library_loads\":\"stands down\"")
                      && has(r.out, "does nothing there"),
                  "%s", r.out);
    run_free(&r);
}
END_TEST

/* No libc in it; and links that lead out of it, to the host's own
 * glibc, are not followed out: the tree has none.  A FIFO at
 * libc.so.6 is not opened (it would block), and said so, as the OCI
 * hook says it. */
START_TEST(no_libc_and_no_way_out)
{
    make_tree("mkdir -p $T/usr/lib/x86_64-linux-gnu $T/lib64 $T/usr/lib64 $T/lib;"
              "ln -s /lib/x86_64-linux-gnu/libc.so.6 $T/usr/lib/x86_64-linux-gnu/libc.so.6;"
              "ln -s ../../../../../../../../../../lib/x86_64-linux-gnu/libc.so.6 $T/lib64/libc.so.6;"
              "ln -s /proc/self/root/lib/x86_64-linux-gnu/libc.so.6 $T/usr/lib64/libc.so.6;"
              "mkfifo $T/lib/libc.so.6");
    struct run r;
    run(&r, NULL, ARGV("timeout", "60", cli(), "probe", "--root", tree, "--json"));
    ck_assert(remove_tree(tree));
    ck_assert_status(&r, 5);
    ck_assert_msg(has(r.out, "\"glibc\":null") && has(r.out, "\"architecture\":null")
                      && has(r.out, "its libc.so.6 cannot be read: not a regular file"),
                  "%s", r.out);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "probe", "--root", "/nonexistent-arenafix-root"));
    ck_assert_status(&r, 2);
    run_free(&r);
}
END_TEST

/* A link inside the tree, absolute as images have them, is followed
 * inside it. */
START_TEST(links_inside_the_image_are_followed_there)
{
    if (affected_glibc(__func__) == NULL || skip_emulated(__func__, "the affected glibc is x86_64's"))
        return;
    make_tree("mkdir -p $T/opt/glibc $T/usr/lib/x86_64-linux-gnu; cp $L/libc.so.6 $T/opt/glibc/;"
              "ln -s /opt/glibc/libc.so.6 $T/usr/lib/x86_64-linux-gnu/libc.so.6");
    struct run r;
    probe_root(&r);
    ck_assert(remove_tree(tree));
    ck_assert_status(&r, 5);
    ck_assert_msg(has(r.out, "\"glibc\":\"2.36\""), "%s", r.out);
    run_free(&r);
}
END_TEST

Suite *rootprobe_suite(void)
{
    Suite *s = suite_create("rootprobe");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, affected_image);
    tcase_add_test(tc, image_older_than_the_library_needs);
    tcase_add_test(tc, image_of_the_oldest_release_the_library_loads_on);
    tcase_add_test(tc, image_of_another_architecture);
    tcase_add_test(tc, musl_image);
    tcase_add_test(tc, no_libc_and_no_way_out);
    tcase_add_test(tc, links_inside_the_image_are_followed_there);
    suite_add_tcase(s, tc);
    return s;
}
