/* arenafix cdi: the spec writer's pure part called directly (the text
 * is one JSON document a CDI reader takes, nothing that would need
 * escaping gets into it), then the command run for real.
 * test/containers/cdi.sh has podman read the spec. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cdi/cdispec.h"
#include "harness.h"
#include "proc/ocijson.h"

static bool get_string(const char *json, const char *key, char *out, size_t size)
{
    const char *v;
    size_t vlen;
    return afx_json_member(json, strlen(json), (const char *const[]){ key }, 1, &v, &vlen)
           && afx_json_string(v, vlen, out, size);
}

START_TEST(cdi_spec_text)
{
    char text[4096], got[256];
    int n = afx_cdi_spec(text, sizeof text, "/usr/bin/arenafix", "libarenafix", NULL);
    ck_assert_int_gt(n, 0);
    ck_assert_int_eq((int)strlen(text), n);
    /* One JSON document, its version one that podman 4.3 reads. */
    ck_assert_msg(get_string(text, "cdiVersion", got, sizeof got), "not JSON: %s", text);
    ck_assert_str_eq(got, "0.3.0");
    ck_assert(get_string(text, "kind", got, sizeof got));
    ck_assert_str_eq(got, "arenafix.dev/fix");
    ck_assert_ptr_nonnull(strstr(text, "\"name\": \"libarenafix\""));
    /* The one edit: the hook, run before the container starts, with
     * the option that stands for the annotation. */
    ck_assert_ptr_nonnull(strstr(text, "\"hookName\": \"createRuntime\""));
    ck_assert_ptr_nonnull(strstr(text, "\"path\": \"/usr/bin/arenafix\""));
    ck_assert_ptr_nonnull(strstr(text, "\"args\": [\"arenafix\", \"oci-hook\", \"--cdi\"]"));
    /* Nothing a musl or static image would get: no mount, no env. */
    ck_assert_ptr_null(strstr(text, "mounts"));
    ck_assert_ptr_null(strstr(text, "env"));

    n = afx_cdi_spec(text, sizeof text, "/usr/bin/arenafix", "check-1", "/var/log/arenafix hook.log");
    ck_assert_int_gt(n, 0);
    ck_assert_msg(get_string(text, "kind", got, sizeof got), "not JSON: %s", text);
    ck_assert_ptr_nonnull(strstr(text, "\"name\": \"check-1\""));
    ck_assert_ptr_nonnull(
        strstr(text, "\"args\": [\"arenafix\", \"oci-hook\", \"--cdi\", \"--log\", \"/var/log/arenafix hook.log\"]"));

    /* Too small a buffer: nothing half written is taken for a spec. */
    int whole = afx_cdi_spec(text, sizeof text, "/usr/bin/arenafix", "libarenafix", NULL);
    ck_assert_int_eq(afx_cdi_spec(text, (size_t)whole, "/usr/bin/arenafix", "libarenafix", NULL), -1);
    ck_assert_int_eq(afx_cdi_spec(text, (size_t)whole + 1, "/usr/bin/arenafix", "libarenafix", NULL), whole);
}
END_TEST

START_TEST(cdi_spec_refuses)
{
    char text[4096];
    /* Names CDI readers would refuse, or that are not one name. */
    static const char *const names[] = {
        "", "1fix", "-fix", "fix-", "fix.", "fi/x", "fi x", "fi\"x", "fi=x", "fix\n",
        /* 65 characters */
        "a1234567890123456789012345678901234567890123456789012345678901234",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        ck_assert_msg(afx_cdi_name_problem(names[i]) != NULL, "name %zu accepted", i);
        ck_assert_int_eq(afx_cdi_spec(text, sizeof text, "/usr/bin/arenafix", names[i], NULL), -1);
    }
    static const char *const good[] = { "libarenafix", "a", "x1", "check-123", "a_b.c:d", "F" };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(afx_cdi_name_problem(good[i]) == NULL, "name %s refused", good[i]);
    ck_assert_ptr_null(afx_cdi_name_problem("a123456789012345678901234567890123456789012345678901234567890123"));
    /* Paths that would need escaping, or are relative: never written. */
    static const char *const paths[] = {
        "arenafix", "", "/usr/bin/a\"rena", "/usr/bin/a\\rena", "/usr/bin/a\nrena", "/usr/bin/\xc3\xa9", "/a\x7f",
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        ck_assert_msg(afx_cdi_path_problem(paths[i]) != NULL, "path %zu accepted", i);
        ck_assert_int_eq(afx_cdi_spec(text, sizeof text, paths[i], "libarenafix", NULL), -1);
        ck_assert_int_eq(afx_cdi_spec(text, sizeof text, "/usr/bin/arenafix", "libarenafix", paths[i]), -1);
    }
}
END_TEST

static char scratch[PATH_MAX];

static void scratch_remove(void)
{
    struct run r;
    run(&r, NULL, ARGV("rm", "-rf", scratch));
    run_free(&r);
}

/* The command writes the spec of its own file, by its real path; to a
 * file whole, mode 0644 whatever the umask; never through a link. */
START_TEST(cdi_command)
{
    struct run r;
    char real[PATH_MAX], want[PATH_MAX + 32];
    ck_assert(realpath(cli(), real) != NULL);
    run(&r, NULL, ARGV(cli(), "cdi"));
    ck_assert_status(&r, 0);
    snprintf(want, sizeof want, "\"path\": \"%s\"", real);
    ck_assert_msg(strstr(r.out, want) != NULL, "no %s in %s", want, r.out);
    char *text = strdup(r.out);
    run_free(&r);

    snprintf(scratch, sizeof scratch, "/tmp/arenafix-cdi-XXXXXX");
    ck_assert(mkdtemp(scratch) != NULL);
    char file[PATH_MAX + 32], link[PATH_MAX + 32], body[8192] = "";
    snprintf(file, sizeof file, "%s/arenafix.json", scratch);
    mode_t old = umask(077);
    run(&r, NULL, ARGV(cli(), "cdi", "--output", file));
    umask(old);
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, "");
    run_free(&r);
    struct stat st;
    ck_assert_int_eq(stat(file, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0644);
    FILE *f = fopen(file, "r");
    ck_assert_ptr_nonnull(f);
    body[fread(body, 1, sizeof body - 1, f)] = '\0';
    fclose(f);
    ck_assert_str_eq(body, text);
    free(text);

    /* A directory on the way that is a link is not followed. */
    snprintf(link, sizeof link, "%s/link", scratch);
    ck_assert_int_eq(symlink(scratch, link), 0);
    snprintf(file, sizeof file, "%s/link/other.json", scratch);
    run(&r, NULL, ARGV(cli(), "cdi", "--output", file));
    ck_assert_status(&r, 1);
    ck_assert_int_ne(access(file, F_OK), 0);
    run_free(&r);

    run(&r, NULL, ARGV(cli(), "cdi", "--name", "1x"));
    ck_assert_status(&r, 2);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "cdi", "--log", "hook.log"));
    ck_assert_status(&r, 2);
    run_free(&r);
    scratch_remove();
}
END_TEST

/* A fresh host has no /etc/cdi: --output makes FILE's own directory
 * (mode 0755 whatever the umask), not a path of them. */
START_TEST(cdi_output_makes_its_directory)
{
    snprintf(scratch, sizeof scratch, "/tmp/arenafix-cdi-XXXXXX");
    ck_assert(mkdtemp(scratch) != NULL);
    char dir[PATH_MAX + 16], file[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/cdi", scratch);
    snprintf(file, sizeof file, "%s/arenafix.json", dir);
    struct run r;
    mode_t old = umask(077);
    run(&r, NULL, ARGV(cli(), "cdi", "--output", file));
    umask(old);
    ck_assert_status(&r, 0);
    run_free(&r);
    struct stat st;
    ck_assert_int_eq(stat(dir, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    ck_assert_int_eq(st.st_mode & 07777, 0755);
    ck_assert_int_eq(st.st_uid, geteuid());
    ck_assert_int_eq(stat(file, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0644);

    /* Two missing: a typo, not a spec directory; nothing is made. */
    snprintf(file, sizeof file, "%s/etc/cdi/arenafix.json", scratch);
    run(&r, NULL, ARGV(cli(), "cdi", "--output", file));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "cannot open the directory etc on its way: No such file or directory; check that "
                                "it exists") != NULL, "stderr: %s", r.err);
    run_free(&r);
    snprintf(dir, sizeof dir, "%s/etc", scratch);
    ck_assert_int_ne(access(dir, F_OK), 0);
    scratch_remove();
}
END_TEST

/* Into the directory at SUB of scratch (mode, owner), cdi --output
 * writes nothing, and says which directory and why. */
static void refused(const char *sub, mode_t mode, uid_t owner, const char *culprit, const char *why)
{
    char dir[PATH_MAX + 32], file[PATH_MAX + 64], want[PATH_MAX + 128];
    snprintf(dir, sizeof dir, "%s/%s", scratch, sub);
    snprintf(file, sizeof file, "%s/arenafix.json", dir);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    ck_assert_int_eq(chmod(dir, mode), 0);
    ck_assert_int_eq(chown(dir, owner, (gid_t)-1), 0);
    struct run r;
    run(&r, NULL, ARGV(cli(), "cdi", "--output", file));
    ck_assert_status(&r, 1);
    snprintf(want, sizeof want, ": the directory %s/%s %s", scratch, culprit, why);
    ck_assert_msg(strstr(r.err, want) != NULL, "want %s in: %s", want, r.err);
    ck_assert_msg(strstr(r.err, "chown root and chmod go-w it") != NULL, "stderr: %s", r.err);
    run_free(&r);
    ck_assert_int_ne(access(file, F_OK), 0);
}

/* An engine runs as root the program a spec names: a spec whose
 * directory someone else may write to is theirs to replace. */
START_TEST(cdi_output_refuses_a_directory_others_may_write)
{
    snprintf(scratch, sizeof scratch, "/tmp/arenafix-cdi-XXXXXX");
    ck_assert(mkdtemp(scratch) != NULL);
    refused("open", 0777, geteuid(), "open", "may be written by its group or others (mode 0777)");
    refused("group", 0775, geteuid(), "group", "may be written by its group or others (mode 0775)");
    /* Sticky: no one else could rename the spec, but anyone could put
     * their own beside it, which the engine reads as well. */
    refused("sticky", 01777, geteuid(), "sticky", "may be written by its group or others (mode 1777)");
    if (geteuid() == 0) {
        char want[32];
        snprintf(want, sizeof want, "is owned by uid %d", 65534);
        refused("theirs", 0755, 65534, "theirs", want);
        /* Above FILE's directory: she could rename root's directory
         * away and put her own in its place. */
        char above[PATH_MAX + 16];
        snprintf(above, sizeof above, "%s/above", scratch);
        ck_assert_int_eq(mkdir(above, 0755), 0);
        ck_assert_int_eq(chown(above, 65534, (gid_t)-1), 0);
        refused("above/cdi", 0755, 0, "above", want);
    } else {
        printf("SKIP cdi_output_refuses_a_directory_others_may_write: another user's directory: needs root to "
               "chown it\n");
    }
    /* A sticky directory on the way (/tmp) is no one else's to swap. */
    char file[PATH_MAX + 32];
    snprintf(file, sizeof file, "%s/arenafix.json", scratch);
    struct run r;
    run(&r, NULL, ARGV(cli(), "cdi", "--output", file));
    ck_assert_status(&r, 0);
    run_free(&r);
    scratch_remove();
}
END_TEST

/* An engine runs the spec's hook as root: a copy of the command in a
 * directory others may write to is not named in a spec. */
START_TEST(cdi_untrusted_command)
{
    if (geteuid() != 0) {
        printf("SKIP cdi_untrusted_command: needs root (the check is of root's own files)\n");
        return;
    }
    snprintf(scratch, sizeof scratch, "/tmp/arenafix-cdi-XXXXXX");
    ck_assert(mkdtemp(scratch) != NULL);
    char dir[PATH_MAX + 16], copy[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/cli", scratch);
    snprintf(copy, sizeof copy, "%s/arenafix", dir);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    ck_assert_int_eq(chmod(dir, 0777), 0);
    struct run r;
    run(&r, NULL, ARGV("cp", cli(), copy));
    ck_assert_status(&r, 0);
    run_free(&r);
    run(&r, NULL, ARGV(copy, "cdi"));
    ck_assert_status(&r, 1);
    ck_assert_str_eq(r.out, "");
    ck_assert_msg(strstr(r.err, "its group or others may write to") != NULL, "stderr: %s", r.err);
    run_free(&r);
    scratch_remove();
}
END_TEST

/* Nor a library others may change: the hook mounts the library it
 * finds (a built command's, beside it in the build tree) into every
 * container given the device.  The same tree with the library's
 * directory root's alone gets its spec. */
START_TEST(cdi_untrusted_library)
{
    if (geteuid() != 0) {
        printf("SKIP cdi_untrusted_library: needs root (the check is of root's own files)\n");
        return;
    }
    /* The copy finds its library as a native build's command does, two
     * folders up; a cross build's command sits deeper. */
    if (skip_emulated(__func__, "the copy of the command finds a native build's library, not a cross build's"))
        return;
    snprintf(scratch, sizeof scratch, "/tmp/arenafix-cdi-XXXXXX");
    ck_assert(mkdtemp(scratch) != NULL);
    char copy[PATH_MAX + 32], shim[PATH_MAX + 16], s[PATH_MAX + 8], c[PATH_MAX + 8], l[PATH_MAX + 8];
    snprintf(copy, sizeof copy, "%s/build/cli/arenafix", scratch);
    snprintf(shim, sizeof shim, "%s/shim", scratch);
    snprintf(s, sizeof s, "S=%s", scratch);
    snprintf(c, sizeof c, "C=%s", cli());
    snprintf(l, sizeof l, "L=%s", testlib());
    struct run r;
    run(&r, ARGV(s, c, l), ARGV("sh", "-ec", "mkdir -p \"$S/build/cli\" \"$S/shim\"; chmod 0755 \"$S\" \"$S/build\" "
                                "\"$S/build/cli\"; cp \"$C\" \"$S/build/cli/\"; cp \"$L\" \"$S/shim/libarenafix.so\"; "
                                "chmod 0775 \"$S/shim\""));
    ck_assert_status(&r, 0);
    run_free(&r);
    run(&r, NULL, ARGV(copy, "cdi"));
    ck_assert_status(&r, 1);
    ck_assert_str_eq(r.out, "");
    ck_assert_msg(strstr(r.err, "the hook mounts only a library only root can change") != NULL
                      && strstr(r.err, shim) != NULL, "stderr: %s", r.err);
    run_free(&r);
    ck_assert_int_eq(chmod(shim, 0755), 0);
    run(&r, NULL, ARGV(copy, "cdi"));
    scratch_remove();
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "\"oci-hook\", \"--cdi\"") != NULL, "stdout: %s", r.out);
    run_free(&r);
}
END_TEST

/* The hook's log is the operator's regular file: a FIFO there (no
 * reader) does not hold the container's start, and is not written. */
START_TEST(hook_log_not_a_file)
{
    snprintf(scratch, sizeof scratch, "/tmp/arenafix-cdi-XXXXXX");
    ck_assert(mkdtemp(scratch) != NULL);
    char fifo[PATH_MAX + 16];
    snprintf(fifo, sizeof fifo, "%s/log", scratch);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    struct run r;
    run(&r, NULL, ARGV(cli(), "oci-hook", "--log", fifo));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.err, "cannot append to") != NULL && strstr(r.err, "saying it here") != NULL,
                  "stderr: %s", r.err);
    ck_assert_msg(strstr(r.err, "left alone") != NULL, "stderr: %s", r.err);
    run_free(&r);
    scratch_remove();
}
END_TEST

Suite *cdi_suite(void)
{
    Suite *s = suite_create("cdi");
    TCase *tc = tcase_create("cdi");
    tcase_add_test(tc, cdi_spec_text);
    tcase_add_test(tc, cdi_spec_refuses);
    tcase_add_test(tc, cdi_command);
    tcase_add_test(tc, cdi_output_makes_its_directory);
    tcase_add_test(tc, cdi_output_refuses_a_directory_others_may_write);
    tcase_add_test(tc, cdi_untrusted_command);
    tcase_add_test(tc, cdi_untrusted_library);
    tcase_add_test(tc, hook_log_not_a_file);
    suite_add_tcase(s, tc);
    return s;
}
