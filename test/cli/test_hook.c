/* The OCI hook's pure parts, called directly: what it reads of the
 * runtime's JSON, whether an image gets the library, the ld.so.preload
 * it mounts; and what it reads of image trees made here, with real
 * glibcs.  test/containers/hook.sh runs the hook itself, in podman. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "hook/hookpolicy.h"
#include "hook/imagelibc.h"
#include "proc/ocijson.h"

static bool get_string(const char *json, const char *const *keys, size_t n, char *out, size_t size)
{
    const char *v;
    size_t vlen;
    return afx_json_member(json, strlen(json), keys, n, &v, &vlen) && afx_json_string(v, vlen, out, size);
}

START_TEST(oci_state)
{
    const char *state = "{\"ociVersion\":\"1.0.2-dev\",\"id\":\"d80c\",\"status\":\"creating\",\"pid\":28846,"
                        "\"bundle\":\"/var/lib/b\\/userdata\",\"annotations\":{\"x\":\"{\\\"pid\\\":1}\","
                        "\"io.arenafix.enable\":\"true\"}}";
    const char *v;
    size_t vlen;
    char out[64];
    long pid;
    ck_assert(afx_json_member(state, strlen(state), (const char *const[]){ "pid" }, 1, &v, &vlen));
    ck_assert(afx_json_positive(v, vlen, &pid));
    ck_assert_int_eq(pid, 28846);
    ck_assert(get_string(state, (const char *const[]){ "bundle" }, 1, out, sizeof out));
    ck_assert_str_eq(out, "/var/lib/b/userdata");
    ck_assert(get_string(state, (const char *const[]){ "annotations", "io.arenafix.enable" }, 2, out, sizeof out));
    ck_assert_str_eq(out, "true");
    /* A member inside another's string value is no member. */
    ck_assert(!afx_json_member(state, strlen(state), (const char *const[]){ "annotations", "pid" }, 2, &v, &vlen));
    /* The first of two members of one name. */
    ck_assert(get_string("{\"id\":\"a\",\"id\":\"b\"}", (const char *const[]){ "id" }, 1, out, sizeof out));
    ck_assert_str_eq(out, "a");
    /* Not one whole JSON value: nothing is taken from it. */
    static const char *const broken[] = {
        "{\"pid\":1", "{\"pid\":1}}", "{\"pid\":1}{\"pid\":2}", "{\"pid\" 1}", "{\"pid\":1,}", "{\"p\nid\":1}", "",
    };
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++)
        ck_assert_msg(!afx_json_member(broken[i], strlen(broken[i]), (const char *const[]){ "pid" }, 1, &v, &vlen),
                      "case %zu", i);
    /* Nesting deeper than the bound is refused, not recursed into. */
    char deep[400] = "{\"a\":";
    for (int i = 0; i < 100; i++)
        strcat(deep, "[");
    ck_assert(!afx_json_member(deep, strlen(deep), (const char *const[]){ "a" }, 1, &v, &vlen));
    /* Strings: escapes decoded; a NUL, non-ASCII or too long refused. */
    ck_assert(afx_json_string("\"a\\u0041\\n\"", 11, out, sizeof out));
    ck_assert_str_eq(out, "aA\n");
    ck_assert(!afx_json_string("\"a\\u0000\"", 9, out, sizeof out));
    ck_assert(!afx_json_string("\"\\u00e9\"", 8, out, sizeof out));
    ck_assert(!afx_json_string("\"abcdef\"", 8, out, 4));
    ck_assert(!afx_json_string("1", 1, out, sizeof out));
    /* pid: a whole positive number only. */
    ck_assert(!afx_json_positive("0", 1, &pid));
    ck_assert(!afx_json_positive("-5", 2, &pid));
    ck_assert(!afx_json_positive("1.5", 3, &pid));
    ck_assert(!afx_json_positive("99999999999999999999", 20, &pid));
    ck_assert(!afx_json_positive("\"7\"", 3, &pid));
}
END_TEST

static struct afx_image_facts glibc(const char *version)
{
    struct afx_image_facts f = { .libc = true, .elf = true, .same_machine = true, .host = AFX_GLIBC_UNKNOWN };
    strcpy(f.libc_dir, "/usr/lib/x86_64-linux-gnu");
    strcpy(f.machine, "x86_64");
    strcpy(f.lib_machine, "x86_64");
    strcpy(f.version, version);
    return f;
}

START_TEST(image_decision)
{
    char why[512];
    struct afx_image_facts f;
    static const struct {
        const char *version;
        bool given;
    } versions[] = {
        { "2.33", false }, { "2.17", false }, { "2.34", true }, { "2.35", true }, { "2.36", true },
        { "2.38", true }, { "2.39", false }, { "2.40", false }, { "3.1", false }, { "3.36", false }, { "", false }, { "x", false },
    };
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        f = glibc(versions[i].version);
        ck_assert_msg(afx_hook_decide(&f, why, sizeof why) == versions[i].given, "glibc %s: %s", versions[i].version, why);
    }
    f = glibc("2.33");
    afx_hook_decide(&f, why, sizeof why);
    ck_assert_msg(strstr(why, "older than 2.34") != NULL, "%s", why);
    /* The host's own glibc goes by the host's probe. */
    f = glibc("2.36");
    f.host_copy = true;
    f.host = AFX_GLIBC_FIXED;
    ck_assert(!afx_hook_decide(&f, why, sizeof why));
    f.host = AFX_GLIBC_UNKNOWN;
    ck_assert(!afx_hook_decide(&f, why, sizeof why));
    f.host = AFX_GLIBC_AFFECTED;
    ck_assert(afx_hook_decide(&f, why, sizeof why));
    /* Another architecture, no ELF, none, musl, unreadable. */
    f = glibc("2.36");
    f.same_machine = false;
    strcpy(f.machine, "aarch64");
    ck_assert(!afx_hook_decide(&f, why, sizeof why));
    ck_assert_msg(strstr(why, "the image's glibc is for aarch64, not x86_64") != NULL, "%s", why);
    /* A loader of another ABI beside it: its programs would read the
     * library from ld.so.preload. */
    f = glibc("2.36");
    strcpy(f.other_abi, "i386");
    strcpy(f.other_loader, "/lib/ld-linux.so.2");
    ck_assert(!afx_hook_decide(&f, why, sizeof why));
    ck_assert_msg(strstr(why, "runs i386 programs too (/lib/ld-linux.so.2)") != NULL, "%s", why);
    f = glibc("2.36");
    f.elf = false;
    ck_assert(!afx_hook_decide(&f, why, sizeof why));
    f = (struct afx_image_facts){ .musl = true };
    ck_assert(!afx_hook_decide(&f, why, sizeof why));
    ck_assert_msg(strstr(why, "musl") != NULL, "%s", why);
    f = (struct afx_image_facts){ 0 };
    ck_assert(!afx_hook_decide(&f, why, sizeof why));
    f = glibc("2.36");
    strcpy(f.unreadable, "not a regular file");
    ck_assert(!afx_hook_decide(&f, why, sizeof why));
}
END_TEST

START_TEST(preload_merge)
{
    const char *entry = "/usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so";
    size_t len;
    bool listed;
    char *got = afx_hook_preload_merge(NULL, 0, entry, &len, &listed);
    ck_assert(!listed);
    ck_assert_str_eq(got, "/usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so\n");
    ck_assert_uint_eq(len, strlen(got));
    free(got);
    /* The image's file kept as it is, after the library. */
    const char old[] = "/lib/a.so:/lib/b.so\n# no comments in ld.so.preload";
    got = afx_hook_preload_merge(old, sizeof old - 1, entry, &len, &listed);
    ck_assert(!listed);
    ck_assert_str_eq(got, "/usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so\n/lib/a.so:/lib/b.so\n# no comments in ld.so.preload");
    free(got);
    /* Listed already, in any of ld.so's separators; a longer name is not it. */
    const char has[] = "/lib/a.so\t/usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so:x";
    ck_assert_ptr_null(afx_hook_preload_merge(has, sizeof has - 1, entry, &len, &listed));
    ck_assert(listed);
    const char longer[] = "/usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so.1";
    got = afx_hook_preload_merge(longer, sizeof longer - 1, entry, &len, &listed);
    ck_assert(!listed && got != NULL);
    free(got);
}
END_TEST

/* An image tree in the build's test directory, filled by script (sh;
 * $T the tree, $L the affected glibc's directory), judged as the hook
 * judges it: its facts read with the library under test, and the
 * decision.  False (a SKIP) without the affected glibc. */
static bool judge_tree_probed(const char *test, const char *script, struct afx_image_facts *f, char *why,
                              size_t size, bool *given, struct run *probe)
{
    const char *g = affected_glibc(test);
    if (g == NULL)
        return false;
    char tree[4200], t[4300], l[4200];
    snprintf(tree, sizeof tree, "%s/hook-tree-XXXXXX", test_prog(""));
    ck_assert(mkdtemp(tree) != NULL);
    snprintf(t, sizeof t, "T=%s", tree);
    snprintf(l, sizeof l, "L=%s", g);
    struct run r;
    run(&r, ARGV(t, l), ARGV("sh", "-ec", script));
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", script, r.err);
    run_free(&r);
    int root = open(tree, O_PATH | O_DIRECTORY | O_CLOEXEC), lib = open(testlib(), O_RDONLY | O_CLOEXEC);
    ck_assert(root >= 0 && lib >= 0);
    afx_image_facts_read(root, lib, -1, f);
    *given = afx_hook_decide(f, why, size);
    close(root);
    close(lib);
    if (probe != NULL)
        run(probe, NULL, ARGV(cli(), "probe", "--root", tree, "--json"));
    run(&r, NULL, ARGV("rm", "-rf", tree));
    run_free(&r);
    return true;
}

static bool judge_tree(const char *test, const char *script, struct afx_image_facts *f, char *why, size_t size,
                       bool *given)
{
    return judge_tree_probed(test, script, f, why, size, given, NULL);
}

/* The trees below are judged by an x86-64 library. */
static bool skip_not_x86_64(const char *test)
{
#if defined(__x86_64__)
    (void)test;
    return false;
#else
    printf("SKIP %s: the library is not x86-64\n", test);
    return true;
#endif
}

#define I386 "/usr/i686-linux-gnu/lib"
#define ARM64 "/usr/aarch64-linux-gnu/lib"
#define AFFECTED_TREE "mkdir -p $T/usr/lib/x86_64-linux-gnu $T/lib64; cp $L/libc.so.6 $L/ld-linux-x86-64.so.2 " \
                      "$T/usr/lib/x86_64-linux-gnu/; ln -s ../usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 $T/lib64/; "

/* An x86-64 image that runs i386 programs too (a multilib, wine or
 * Steam runtime image): the library is x86-64 only, and each 32-bit
 * program would print ld.so's "wrong ELF class" for it, so the image
 * is left alone, the i386 loader named.  The same image without the
 * i386 loader (its i386 libc.so.6 alone runs nothing) is given it. */
START_TEST(image_two_abis)
{
    struct afx_image_facts f;
    char why[512];
    bool given;
    if (skip_not_x86_64(__func__))
        return;
    if (access(I386 "/ld-linux.so.2", R_OK) != 0) {
        printf("SKIP %s: no i386 glibc at " I386 " (libc6-i386-cross)\n", __func__);
        return;
    }
    if (!judge_tree(__func__, AFFECTED_TREE "mkdir -p $T/lib/i386-linux-gnu; cp " I386 "/libc.so.6 " I386
                    "/ld-linux.so.2 $T/lib/i386-linux-gnu/; ln -s i386-linux-gnu/ld-linux.so.2 $T/lib/ld-linux.so.2",
                    &f, why, sizeof why, &given))
        return;
    ck_assert_msg(!given, "given: %s", why);
    ck_assert_str_eq(f.other_abi, "i386");
    ck_assert_msg(strstr(why, "but the image runs i386 programs too (/lib/ld-linux.so.2)") != NULL
                      && strstr(why, "wrong ELF class") != NULL, "%s", why);
    /* Its libc.so.6 in /usr/lib32 and the loader there, as Debian's
     * libc6-i386 keeps them: the loader's path is what counts. */
    judge_tree(__func__, AFFECTED_TREE "mkdir -p $T/usr/lib32 $T/lib; cp " I386 "/libc.so.6 " I386 "/ld-linux.so.2 "
               "$T/usr/lib32/; ln -s ../usr/lib32/ld-linux.so.2 $T/lib/ld-linux.so.2", &f, why, sizeof why, &given);
    ck_assert_msg(!given && strstr(why, "i386 programs too") != NULL, "%s", why);
    judge_tree(__func__, AFFECTED_TREE "mkdir -p $T/lib/i386-linux-gnu; cp " I386 "/libc.so.6 $T/lib/i386-linux-gnu/",
               &f, why, sizeof why, &given);
    ck_assert_msg(given && f.other_abi[0] == '\0', "no i386 loader: %s", why);
}
END_TEST

/* One image, one answer: the hook and probe --root find the same libc
 * in a tree and name the same architecture for it, the hook's reason
 * included: an arm64 glibc in Debian's place; an x86-64 glibc in
 * Fedora's place beside an arm64 one in Debian's (the library's own
 * architecture's directories are looked in first, by both); an arm64
 * shared object at musl's arm64 loader path (an Alpine arm64 image:
 * musl, and for aarch64, not a static image). */
START_TEST(image_one_answer)
{
    static const struct {
        const char *script, *libc, *arch;
        bool given;
    } trees[] = {
        { "mkdir -p $T/usr/lib/aarch64-linux-gnu; cp " ARM64 "/libc.so.6 $T/usr/lib/aarch64-linux-gnu/", "glibc",
          "aarch64", false },
        { "mkdir -p $T/usr/lib/aarch64-linux-gnu $T/usr/lib64; cp " ARM64 "/libc.so.6 $T/usr/lib/aarch64-linux-gnu/; "
          "cp $L/libc.so.6 $L/ld-linux-x86-64.so.2 $T/usr/lib64/", "glibc", "x86_64", true },
        { "mkdir -p $T/lib; cp " ARM64 "/ld-linux-aarch64.so.1 $T/lib/ld-musl-aarch64.so.1", "musl", "aarch64", false },
    };
    struct afx_image_facts f;
    char why[512], field[64];
    bool given;
    if (skip_not_x86_64(__func__))
        return;
    if (access(ARM64 "/libc.so.6", R_OK) != 0) {
        printf("SKIP %s: no arm64 glibc at " ARM64 " (libc6-arm64-cross)\n", __func__);
        return;
    }
    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++) {
        struct run r;
        if (!judge_tree_probed(__func__, trees[i].script, &f, why, sizeof why, &given, &r))
            return;
        snprintf(field, sizeof field, "\"libc\":\"%s\"", trees[i].libc);
        ck_assert_msg(strstr(r.out, field) != NULL, "tree %zu: probe --root: %s", i, r.out);
        snprintf(field, sizeof field, "\"architecture\":\"%s\"", trees[i].arch);
        ck_assert_msg(strstr(r.out, field) != NULL, "tree %zu: probe --root: %s", i, r.out);
        ck_assert_msg(given == trees[i].given && (given || strstr(why, trees[i].arch) != NULL)
                          && strstr(why, trees[i].libc) != NULL,
                      "tree %zu: the hook: %s (probe --root: %s)", i, why, r.out);
        ck_assert_str_eq(f.machine, trees[i].arch);
        run_free(&r);
    }
}
END_TEST

/* An image whose only glibc is another architecture's, in Debian's
 * multiarch path: named by its architecture as probe --root names it,
 * not taken for a static image. */
START_TEST(image_foreign_only)
{
    struct afx_image_facts f;
    char why[512];
    bool given;
    if (skip_not_x86_64(__func__))
        return;
    if (access(ARM64 "/libc.so.6", R_OK) == 0
        && judge_tree(__func__, "mkdir -p $T/usr/lib/aarch64-linux-gnu; cp " ARM64 "/libc.so.6 $T/usr/lib/aarch64-linux-gnu/",
                      &f, why, sizeof why, &given)) {
        ck_assert_msg(!given && strstr(why, "its /usr/lib/aarch64-linux-gnu/libc.so.6 is for another architecture: "
                                            "the image's glibc is for aarch64, not x86_64") != NULL, "%s", why);
    } else {
        printf("SKIP %s: no arm64 glibc at " ARM64 " (libc6-arm64-cross)\n", __func__);
    }
    /* A 32-bit image on this 64-bit host: the library is x86-64 only. */
    if (access(I386 "/libc.so.6", R_OK) == 0
        && judge_tree(__func__, "mkdir -p $T/lib/i386-linux-gnu; cp " I386 "/libc.so.6 " I386 "/ld-linux.so.2 "
                      "$T/lib/i386-linux-gnu/; ln -s i386-linux-gnu/ld-linux.so.2 $T/lib/ld-linux.so.2",
                      &f, why, sizeof why, &given)) {
        ck_assert_msg(!given && strstr(why, "the image's glibc is for i386, not x86_64") != NULL, "%s", why);
    } else {
        printf("SKIP %s: no i386 glibc at " I386 " (libc6-i386-cross)\n", __func__);
    }
}
END_TEST

/* ---- the hook itself, run as a runtime runs it ---------------------
 * A container's process: arenawait on the affected glibc in a mount
 * namespace of its own, its root a tree of the build's (harness.h), an
 * /etc added; its bundle, a new directory of the build's holding
 * config.json; its state on the hook's standard input. */
struct box {
    struct live l;
    long pid;           /* the container's process */
    char tree[PATH_MAX];
    char bundle[PATH_MAX];
    char state[PATH_MAX + 16];
};

/* False (a SKIP printed) where the hook cannot be run here. */
static bool box_start(struct box *b, const char *test)
{
    if (geteuid() != 0) {
        printf("SKIP %s: needs root (the hook mounts into a container)\n", test);
        return false;
    }
    const char *g = affected_glibc(test);
    if (g == NULL || skip_emulated(test, EMULATED_PROC))
        return false;
    b->pid = live_start_contained(&b->l, g, b->tree, sizeof b->tree);
    ck_assert_msg(b->pid > 0, "no contained process");
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/etc", b->tree);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(b->bundle, sizeof b->bundle, "%s/bundle-XXXXXX", test_prog(""));
    ck_assert(mkdtemp(b->bundle) != NULL && chmod(b->bundle, 0755) == 0);
    snprintf(b->state, sizeof b->state, "%s.state", b->bundle);
    return true;
}

static void box_stop(struct box *b)
{
    if (b->pid == 0)
        return;
    b->pid = 0;
    live_stop(&b->l);
    remove_tree(b->tree);
    remove_tree(b->bundle);
    unlink(b->state);
}

/* A failed check stops the box first: its process and trees go. */
#define BOX_ASSERT(b, cond, ...)       \
    do {                               \
        bool ok_ = (cond);             \
        if (!ok_)                      \
            box_stop(b);               \
        ck_assert_msg(ok_, __VA_ARGS__); \
    } while (0)
#define NOT_GIVEN(r, b)                                                                                          \
    do {                                                                                                         \
        const char *p_ = box_preload(b);                                                                         \
        BOX_ASSERT(b, strstr((r)->err, "given the library") == NULL && p_[0] == '\0', "stderr: %s; "           \
                   "ld.so.preload: %s", (r)->err, p_);                                                          \
    } while (0)

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "%s", path);
    ck_assert(fputs(text, f) >= 0 && fclose(f) == 0);
}

/* The bundle's config.json: the container's root as its process sees
 * it before pivot_root (here, after: "/"), then members (JSON text,
 * "" for none). */
static void box_config(struct box *b, const char *members)
{
    char path[PATH_MAX + 16], text[512];
    snprintf(path, sizeof path, "%s/config.json", b->bundle);
    snprintf(text, sizeof text, "{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"/\"}%s}\n", members);
    write_text(path, text);
}

/* arenafix oci-hook OPTION (or none), the state {"pid":...,"bundle":
 * BUNDLE (the box's if NULL), MEMBERS} on its standard input, run in
 * directory CWD, into r. */
static void box_hook(struct run *r, struct box *b, const char *bundle, const char *members, const char *cwd,
                     const char *option)
{
    char text[PATH_MAX + 512];
    snprintf(text, sizeof text, "{\"ociVersion\":\"1.0.2\",\"id\":\"0123456789abcdef\",\"status\":\"creating\","
             "\"pid\":%ld,\"bundle\":\"%s\"%s}\n", b->pid, bundle != NULL ? bundle : b->bundle, members);
    write_text(b->state, text);
    run(r, NULL, ARGV("sh", "-c", "cd \"$2\" && exec \"$0\" oci-hook $3 < \"$1\"", cli(), b->state,
                      cwd != NULL ? cwd : "/", option != NULL ? option : ""));
    BOX_ASSERT(b, WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "exit: 0x%x; %s", r->status, r->err);
}

/* The container's /etc/ld.so.preload as its programs see it; "" if
 * none. */
static const char *box_preload(struct box *b)
{
    static char text[4096];
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/root/etc/ld.so.preload", b->pid);
    text[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    return text;
}

#define ASKED ",\"annotations\":{\"io.arenafix.enable\":\"true\"}"
#define REFUSED ",\"annotations\":{\"io.arenafix.enable\":\"false\"}"
/* A container that asks is given the library: mounted, first in its
 * /etc/ld.so.preload; the file the hook wrote in the bundle to mount
 * it is gone, the bundle as the runtime made it. */
START_TEST(hook_gives_the_library)
{
    struct box b;
    if (!box_start(&b, __func__))
        return;
    box_config(&b, ASKED);
    struct run r;
    box_hook(&r, &b, NULL, "", NULL, NULL);
    const char *preload = box_preload(&b);
    BOX_ASSERT(&b, strstr(r.err, "given the library: ") != NULL && strstr(preload, "/arenafix/libarenafix.so\n") != NULL
                       && preload[0] == '/',
               "stderr: %s; ld.so.preload: %s", r.err, preload);
    run_free(&r);
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "cd '%s' && ls -A", b.bundle);
    run(&r, NULL, ARGV("sh", "-c", cmd));
    box_stop(&b);
    ck_assert_str_eq(r.out, "config.json\n");
    run_free(&r);
}
END_TEST

/* A bundle that is not root's alone (its group may write to it, or
 * another user owns it) is not believed, though the state asks:
 * whoever may write there chooses the root the hook mounts into. */
START_TEST(hook_bundle_not_roots_alone)
{
    struct box b;
    if (!box_start(&b, __func__))
        return;
    box_config(&b, ASKED);
    struct run r;
    ck_assert_int_eq(chmod(b.bundle, 0775), 0);
    box_hook(&r, &b, NULL, ASKED, NULL, NULL);
    NOT_GIVEN(&r, &b);
    BOX_ASSERT(&b, strstr(r.err, "is not a directory only root may write") != NULL, "%s", r.err);
    run_free(&r);
    ck_assert_int_eq(chmod(b.bundle, 0755), 0);
    ck_assert_int_eq(chown(b.bundle, 65534, 65534), 0);
    box_hook(&r, &b, NULL, ASKED, NULL, NULL);
    box_stop(&b);
    ck_assert_msg(strstr(r.err, "given the library") == NULL
                      && strstr(r.err, "is not a directory only root may write") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

/* Only "true" asks: io.arenafix.enable=false, in the state or in
 * config.json, leaves the container alone. */
START_TEST(hook_enable_false_is_no)
{
    struct box b;
    if (!box_start(&b, __func__))
        return;
    struct run r;
    box_config(&b, "");
    box_hook(&r, &b, NULL, REFUSED, NULL, NULL);
    NOT_GIVEN(&r, &b);
    BOX_ASSERT(&b, strstr(r.err, "left alone: no annotation io.arenafix.enable=true") != NULL, "%s", r.err);
    run_free(&r);
    box_config(&b, REFUSED);
    box_hook(&r, &b, NULL, "", NULL, NULL);
    NOT_GIVEN(&r, &b);
    box_stop(&b);
    ck_assert_msg(strstr(r.err, "left alone: no annotation io.arenafix.enable=true") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

/* A state whose bundle is a relative path names no bundle: the hook
 * would read whichever directory of that name its working directory
 * holds. */
START_TEST(hook_relative_bundle)
{
    struct box b;
    if (!box_start(&b, __func__))
        return;
    box_config(&b, ASKED);
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", b.bundle);
    *strrchr(parent, '/') = '\0';
    struct run r;
    box_hook(&r, &b, strrchr(b.bundle, '/') + 1, "", parent, NULL);
    NOT_GIVEN(&r, &b);
    box_stop(&b);
    ck_assert_msg(strstr(r.err, "has no pid and absolute bundle") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

/* A state over 1 MiB, a config.json over 4 MiB: not read (the hook
 * runs as root on what a runtime or a tenant wrote), the container
 * left alone.  Each is valid JSON and asks (the request in the state
 * too when config.json is the big one). */
START_TEST(hook_reads_bounded)
{
    struct box b;
    if (!box_start(&b, __func__))
        return;
    size_t big = (size_t)5 << 20;
    char *pad = malloc(big + 64);
    ck_assert(pad != NULL);
    snprintf(pad, 64, ",\"pad\":\"");
    size_t at = strlen(pad);
    memset(pad + at, 'a', big);
    snprintf(pad + at + big, 8, "\"");
    char path[PATH_MAX + 16];
    FILE *f;
    struct run r;
    box_config(&b, ASKED);
    /* The state: box_hook's text is too small to hold the pad. */
    f = fopen(b.state, "w");
    ck_assert(f != NULL);
    fprintf(f, "{\"pid\":%ld,\"bundle\":\"%s\"" ASKED "%s}\n", b.pid, b.bundle, pad);
    ck_assert(fclose(f) == 0);
    run(&r, NULL, ARGV("sh", "-c", "exec \"$0\" oci-hook < \"$1\"", cli(), b.state));
    BOX_ASSERT(&b, WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    NOT_GIVEN(&r, &b);
    BOX_ASSERT(&b, strstr(r.err, "has no pid and absolute bundle") != NULL, "%s", r.err);
    run_free(&r);
    snprintf(path, sizeof path, "%s/config.json", b.bundle);
    f = fopen(path, "w");
    ck_assert(f != NULL);
    fprintf(f, "{\"root\":{\"path\":\"/\"}" ASKED "%s}\n", pad);
    ck_assert(fclose(f) == 0);
    free(pad);
    box_hook(&r, &b, NULL, ASKED, NULL, NULL);
    NOT_GIVEN(&r, &b);
    box_stop(&b);
    ck_assert_msg(strstr(r.err, "names no root.path") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

Suite *hook_suite(void)
{
    Suite *s = suite_create("hook");
    TCase *tc = tcase_create("hook");
    tcase_add_test(tc, oci_state);
    tcase_add_test(tc, image_decision);
    tcase_add_test(tc, preload_merge);
    tcase_add_test(tc, image_two_abis);
    tcase_add_test(tc, image_foreign_only);
    tcase_add_test(tc, image_one_answer);
    tcase_add_test(tc, hook_gives_the_library);
    tcase_add_test(tc, hook_bundle_not_roots_alone);
    tcase_add_test(tc, hook_enable_false_is_no);
    tcase_add_test(tc, hook_relative_bundle);
    tcase_add_test(tc, hook_reads_bounded);
    suite_add_tcase(s, tc);
    return s;
}
