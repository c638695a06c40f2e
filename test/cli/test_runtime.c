/* arenafix-runtime, the OCI runtime shim, run for real in front of a
 * recording stand-in for runc (a script that writes its argv and the
 * config.json it finds when it runs): every subcommand's arguments
 * reach it unchanged; create and run add arenafix's hook to the
 * bundle once; a malformed or linked config.json is left as it was.
 * runcargs.c, the pure part, is called directly too.
 * test/containers/runtime.sh runs the shim in front of the real runc. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "proc/ocijson.h"
#include "runtime/runcargs.h"

static char dir[PATH_MAX], bundle[PATH_MAX + 8], conf_env[PATH_MAX + 40], rec_env[PATH_MAX + 8];

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void put(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(chmod(path, mode), 0);
}

static const char *at(const char *name)
{
    static char path[8][PATH_MAX + 64];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    return p;
}

/* A bundle with config (0640) and a rootfs, the stand-in, and the
 * shim's configuration (extra: more lines). */
static void fixture(const char *config, const char *extra)
{
    char text[4 * PATH_MAX];
    snprintf(dir, sizeof dir, "/tmp/afx-runtime-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(bundle, sizeof bundle, "%s/b", dir);
    ck_assert_int_eq(mkdir(bundle, 0700), 0);
    ck_assert_int_eq(mkdir(at("b/rootfs"), 0755), 0);
    put(at("b/config.json"), config, 0640);
    snprintf(text, sizeof text,
             "#!/bin/sh\nprintf '%%s\\n' \"$0\" \"$@\" > \"$REC/argv\"\n"
             "cp \"$REC/b/config.json\" \"$REC/seen\" 2>/dev/null || : > \"$REC/seen\"\n");
    put(at("fake"), text, 0755);
    put(at("other"), text, 0755);
    snprintf(text, sizeof text, "# the stand-in\nruntime = %s/fake\nhook = /usr/bin/arenafix\nlog = %s/log\n%s", dir,
             dir, extra);
    put(at("conf"), text, 0644);
    snprintf(conf_env, sizeof conf_env, "ARENAFIX_RUNTIME_CONFIG=%s/conf", dir);
    snprintf(rec_env, sizeof rec_env, "REC=%s", dir);
}

static void cleanup(void)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

static const char *shim(void)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", cli());
    char *slash = strrchr(path, '/');
    snprintf(slash != NULL ? slash + 1 : path, sizeof path - (size_t)(slash != NULL ? slash + 1 - path : 0),
             "arenafix-runtime");
    return path;
}

/* The shim run with args (after its name), the stand-in's argv
 * (one a line, its own path first) returned. */
static char *run_shim(const char *const *args, const char *const *more_env)
{
    const char *argv[64] = { shim() };
    int n = 1;
    for (; args[n - 1] != NULL; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    const char *env[8] = { conf_env, rec_env, "ARENAFIX_RUNTIME", NULL };
    for (int i = 0; more_env != NULL && more_env[i] != NULL; i++)
        env[3 + i] = more_env[i];
    struct run r;
    unlink(at("argv"));
    unlink(at("seen"));
    run(&r, env, argv);
    ck_assert_status(&r, 0);
    /* Nothing on standard error: an engine reads it as a failure. */
    ck_assert_str_eq(r.err, "");
    run_free(&r);
    char *got = slurp(at("argv"));
    ck_assert_msg(got != NULL, "the stand-in did not run");
    return got;
}

/* The stand-in's argv as one line per argument. */
static char *lines(const char *first, const char *const *args)
{
    char *text = calloc(1, 8192);
    strcat(strcat(text, first), "\n");
    for (; *args != NULL; args++)
        strcat(strcat(text, *args), "\n");
    return text;
}

/* How many createRuntime hooks config has, and the path of the i'th. */
static int hooks_in(const char *config, int i, char *path, size_t size)
{
    const char *arr, *h, *v;
    size_t alen, hlen, vlen;
    int n = 0;
    if (!afx_json_member(config, strlen(config), (const char *const[]){ "hooks", "createRuntime" }, 2, &arr, &alen))
        return 0;
    for (; afx_json_element(arr, alen, (size_t)n, &h, &hlen); n++)
        if (n == i && afx_json_member(h, hlen, (const char *const[]){ "path" }, 1, &v, &vlen))
            afx_json_string(v, vlen, path, size);
    return n;
}

static const char plain[] = "{\"ociVersion\": \"1.0.2\", \"root\": {\"path\": \"rootfs\"}, \"process\": {\"args\": [\"/bin/sh\"]}}\n";

START_TEST(runtime_passes_every_subcommand)
{
    fixture(plain, "");
    const char *const *lines_of[] = {
        ARGV("state", "c1"),
        ARGV("delete", "--force", "c1"),
        ARGV("kill", "--all", "c1", "KILL"),
        ARGV("exec", "--pid-file", "/run/p", "-t", "c1", "sh", "-c", "exit 3"),
        ARGV("features"),
        ARGV("ps", "--format", "json", "c1"),
        ARGV("list"),
        ARGV("start", "c1"),
        ARGV("pause", "c1"),
        ARGV("resume", "c1"),
        ARGV("update", "--memory", "1M", "c1"),
        ARGV("events", "--stats", "c1"),
        ARGV("--version"),
        ARGV("--help"),
        ARGV("--root", "/run/r", "--log=/run/l", "--log-format", "json", "--debug", "--systemd-cgroup", "--criu",
             "/c", "--rootless=false", "state", "c1"),
        ARGV("-root", "/run/r", "--", "delete", "c1"),
        ARGV("spec"),
    };
    for (size_t i = 0; i < sizeof lines_of / sizeof lines_of[0]; i++) {
        char *got = run_shim(lines_of[i], NULL), *want = lines(at("fake"), lines_of[i]);
        ck_assert_str_eq(got, want);
        free(got);
        free(want);
        char *config = slurp(at("b/config.json"));
        ck_assert_str_eq(config, plain);
        free(config);
    }
    /* Nothing was created: nothing to say. */
    ck_assert_int_eq(access(at("log"), F_OK), -1);
    /* No arguments at all: runc's own help. */
    char *got = run_shim((const char *const[]){ NULL }, NULL), *want = lines(at("fake"), (const char *const[]){ NULL });
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    cleanup();
}
END_TEST

START_TEST(runtime_adds_hook_once)
{
    fixture(plain, "");
    const char *const args[] = { "--root", "/run/r", "create", "--bundle", bundle, "--pid-file", "/run/p", "c1", NULL };
    char *got = run_shim(args, NULL), *want = lines(at("fake"), args);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    /* The stand-in saw the hook: the installed command's oci-hook,
     * asked (--always), saying what it does in the shim's log. */
    char *seen = slurp(at("seen")), path[PATH_MAX] = "";
    ck_assert_int_eq(hooks_in(seen, 0, path, sizeof path), 1);
    ck_assert_str_eq(path, "/usr/bin/arenafix");
    char want_args[PATH_MAX + 128];
    snprintf(want_args, sizeof want_args, "\"args\": [\"arenafix\", \"oci-hook\", \"--always\", \"--log\", \"%s\"]",
             at("log"));
    ck_assert_msg(strstr(seen, want_args) != NULL, "no %s in %s", want_args, seen);
    /* The engine's own text kept around it. */
    ck_assert_msg(strncmp(seen, "{\"hooks\": {\"createRuntime\": [{", 30) == 0, "%s", seen);
    ck_assert_ptr_nonnull(strstr(seen, "]}, \"ociVersion\": \"1.0.2\", \"root\": {\"path\": \"rootfs\"}, \"process\""));
    /* Mode kept, no file left beside it. */
    struct stat st;
    ck_assert_int_eq(stat(at("b/config.json"), &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0640);
    struct run r;
    run(&r, NULL, ARGV("ls", "-A", bundle));
    ck_assert_str_eq(r.out, "config.json\nrootfs\n");
    run_free(&r);
    char *log = slurp(at("log"));
    ck_assert_msg(log != NULL && strstr(log, "arenafix-runtime: container c1: bundle ") != NULL
                      && strstr(log, "hooks.createRuntime given") != NULL, "log: %s", log);
    free(log);
    /* Again, and with run: still one. */
    char *once = slurp(at("b/config.json"));
    free(run_shim(args, NULL));
    free(run_shim(ARGV("run", "-d", "-b", bundle, "c2"), NULL));
    char *twice = slurp(at("b/config.json"));
    ck_assert_str_eq(twice, once);
    log = slurp(at("log"));
    ck_assert_ptr_nonnull(strstr(log, "container c2: left alone: hooks.createRuntime runs arenafix's hook already"));
    free(log);
    free(once);
    free(twice);
    free(seen);
    cleanup();
}
END_TEST

/* Each way runc takes the bundle; a plain run of a shim built
 * without a bundle reader would leave config.json as it was. */
START_TEST(runtime_bundle_forms)
{
    char form[sizeof bundle + 16];
    for (int i = 0; i < 7; i++) {
        fixture("{\"root\": {\"path\": \"rootfs\"}, \"hooks\": {\"prestart\": []}}", "");
        snprintf(form, sizeof form, "--bundle=%s", bundle);
        const char *const *args = i == 0   ? ARGV("create", "-b", bundle, "c1")
                                  : i == 1 ? ARGV("create", form, "c1")
                                  : i == 2 ? ARGV("create", "-bundle", bundle, "c1")
                                  : i == 3 ? ARGV("create", "c1", "--bundle", bundle)
                                  : i == 4 ? ARGV("--log", "/dev/null", "run", "--detach", "--bundle", "/nowhere",
                                                  "-b", bundle, "c1")
                                  : i == 5 ? ARGV("create", "--console-socket", "-b", "c1")
                                           : ARGV("create", "--pid-file", "/run/p", "c1");
        if (i == 5) {
            /* "-b" is the console socket here, not an option. */
            free(run_shim(args, NULL));
            char *config = slurp(at("b/config.json"));
            ck_assert_int_eq(hooks_in(config, 0, NULL, 0), 0);
            free(config);
        } else if (i == 6) {
            /* No --bundle: the current directory, runc's default. */
            char cmd[4 * PATH_MAX];
            snprintf(cmd, sizeof cmd, "cd '%s' && exec '%s' create --pid-file /run/p c1", bundle, shim());
            struct run r;
            run(&r, (const char *const[]){ conf_env, rec_env, NULL }, ARGV("/bin/sh", "-c", cmd));
            ck_assert_status(&r, 0);
            run_free(&r);
        } else {
            char *got = run_shim(args, NULL), *want = lines(at("fake"), args);
            ck_assert_str_eq(got, want);
            free(got);
            free(want);
        }
        if (i != 5) {
            char *seen = slurp(at("seen")), path[PATH_MAX] = "";
            ck_assert_msg(hooks_in(seen, 0, path, sizeof path) == 1, "form %d: %s", i, seen);
            ck_assert_str_eq(path, "/usr/bin/arenafix");
            ck_assert_ptr_nonnull(strstr(seen, "\"prestart\": []"));
            free(seen);
        }
        cleanup();
    }
}
END_TEST

/* Not JSON, two "hooks", hooks that is no object, an option runc does
 * not have: passed to runc as it is, the reason logged. */
START_TEST(runtime_leaves_malformed)
{
    static const char *const bad[] = {
        "{\"root\": {\"path\": \"rootfs\"}, \"hooks\": {",
        "{\"hooks\": {}, \"root\": {\"path\": \"rootfs\"}, \"hooks\": {}}",
        "{\"hooks\": [], \"root\": {\"path\": \"rootfs\"}}",
        "{\"hooks\": {\"createRuntime\": {}}}",
        "[1, 2]",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fixture(bad[i], "");
        free(run_shim(ARGV("create", "--bundle", bundle, "c1"), NULL));
        char *seen = slurp(at("seen")), *log = slurp(at("log"));
        ck_assert_str_eq(seen, bad[i]);
        ck_assert_msg(log != NULL && strstr(log, "container c1: left alone: ") != NULL, "%zu: log %s", i, log);
        free(seen);
        free(log);
        cleanup();
    }
    fixture(plain, "");
    const char *const args[] = { "create", "--bundle", bundle, "--no-such-option", "c1", NULL };
    char *got = run_shim(args, NULL), *want = lines(at("fake"), args), *seen = slurp(at("seen"));
    ck_assert_str_eq(got, want);
    ck_assert_str_eq(seen, plain);
    free(got);
    free(want);
    free(seen);
    cleanup();
}
END_TEST

/* config.json a link (to a file elsewhere, to /etc/passwd's kind): not
 * followed, not replaced; a bundle others may write: left alone. */
START_TEST(runtime_refuses_links)
{
    fixture(plain, "");
    put(at("elsewhere.json"), plain, 0644);
    ck_assert_int_eq(unlink(at("b/config.json")), 0);
    ck_assert_int_eq(symlink(at("elsewhere.json"), at("b/config.json")), 0);
    free(run_shim(ARGV("create", "--bundle", bundle, "c1"), NULL));
    struct stat st;
    ck_assert_int_eq(lstat(at("b/config.json"), &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    char *other = slurp(at("elsewhere.json")), *log = slurp(at("log"));
    ck_assert_str_eq(other, plain);
    ck_assert_msg(log != NULL && strstr(log, "left alone: its bundle's config.json cannot be opened: a symbolic link"),
                  "log: %s", log);
    free(other);
    free(log);
    /* A bundle anyone may write. */
    ck_assert_int_eq(unlink(at("b/config.json")), 0);
    put(at("b/config.json"), plain, 0644);
    ck_assert_int_eq(chmod(bundle, 0777), 0);
    free(run_shim(ARGV("create", "--bundle", bundle, "c1"), NULL));
    other = slurp(at("b/config.json"));
    ck_assert_str_eq(other, plain);
    free(other);
    cleanup();
}
END_TEST

START_TEST(runtime_annotated_only)
{
    fixture(plain, "annotated-only = true\n");
    free(run_shim(ARGV("create", "--bundle", bundle, "c1"), NULL));
    char *seen = slurp(at("seen")), *log = slurp(at("log"));
    ck_assert_str_eq(seen, plain);
    ck_assert_ptr_nonnull(strstr(log, "left alone: no annotation io.arenafix.enable=true (annotated-only)"));
    free(seen);
    free(log);
    cleanup();
    fixture("{\"root\": {\"path\": \"rootfs\"}, \"annotations\": {\"io.arenafix.enable\": \"true\"}}",
            "annotated-only = true\n");
    free(run_shim(ARGV("create", "--bundle", bundle, "c1"), NULL));
    seen = slurp(at("seen"));
    ck_assert_int_eq(hooks_in(seen, 0, NULL, 0), 1);
    free(seen);
    cleanup();
}
END_TEST

/* The hooks.d entry (waiting for the annotation) or the CDI one (--cdi)
 * there already: added once. */
START_TEST(runtime_engine_hook_present)
{
    static const char cdi[] = "{\"root\": {\"path\": \"rootfs\"}, \"hooks\": {\"createRuntime\": [{\"path\": "
                              "\"/usr/bin/arenafix\", \"args\": [\"arenafix\", \"oci-hook\", \"--cdi\"]}]}}";
    fixture(cdi, "");
    free(run_shim(ARGV("create", "--bundle", bundle, "c1"), NULL));
    char *seen = slurp(at("seen"));
    ck_assert_str_eq(seen, cdi);
    free(seen);
    cleanup();
    static const char hooksd[] = "{\"root\": {\"path\": \"rootfs\"}, \"annotations\": {\"io.arenafix.enable\": "
                                 "\"true\"}, \"hooks\": {\"createRuntime\": [{\"path\": \"/usr/local/bin/arenafix\", "
                                 "\"args\": [\"arenafix\", \"oci-hook\"]}]}}";
    fixture(hooksd, "");
    free(run_shim(ARGV("create", "--bundle", bundle, "c1"), NULL));
    seen = slurp(at("seen"));
    ck_assert_str_eq(seen, hooksd);
    free(seen);
    cleanup();
    /* The same entry without the annotation waits for it: this
     * container is served by the shim's own, after it. */
    static const char waiting[] = "{\"hooks\": {\"createRuntime\": [{\"path\": \"/usr/bin/arenafix\", \"args\": "
                                  "[\"arenafix\", \"oci-hook\"]}]}, \"root\": {\"path\": \"rootfs\"}}";
    fixture(waiting, "");
    free(run_shim(ARGV("create", "--bundle", bundle, "c1"), NULL));
    seen = slurp(at("seen"));
    char path[PATH_MAX];
    ck_assert_int_eq(hooks_in(seen, 1, path, sizeof path), 2);
    ck_assert_ptr_nonnull(strstr(seen, "[\"arenafix\", \"oci-hook\"]}, {\"path\": \"/usr/bin/arenafix\", \"args\": "
                                       "[\"arenafix\", \"oci-hook\", \"--always\""));
    free(seen);
    cleanup();
}
END_TEST

/* The real runtime: --runtime first (the shim's own, not passed on),
 * then ARENAFIX_RUNTIME, then the file's. */
START_TEST(runtime_chosen)
{
    fixture(plain, "");
    char opt[PATH_MAX + 16];
    snprintf(opt, sizeof opt, "--runtime=%s", at("other"));
    char *got = run_shim(ARGV("--runtime", at("other"), "state", "c1"), NULL);
    char *want = lines(at("other"), ARGV("state", "c1"));
    ck_assert_str_eq(got, want);
    free(got);
    got = run_shim(ARGV(opt, "state", "c1"), NULL);
    ck_assert_str_eq(got, want);
    free(got);
    char env[PATH_MAX + 32];
    snprintf(env, sizeof env, "ARENAFIX_RUNTIME=%s", at("other"));
    got = run_shim(ARGV("state", "c1"), (const char *const[]){ env, NULL });
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    /* None to run: runc's kind of failure, on standard error. */
    struct run r;
    run(&r, (const char *const[]){ conf_env, "ARENAFIX_RUNTIME=/nonexistent/runc", NULL },
        ARGV(shim(), "state", "c1"));
    ck_assert_status(&r, 127);
    ck_assert_ptr_nonnull(strstr(r.err, "arenafix-runtime: "));
    run_free(&r);
    cleanup();
}
END_TEST

/* The pure reader: what runc would take as the subcommand and bundle. */
START_TEST(runtime_runc_args)
{
    struct afx_runc_args a;
    char *const line1[] = { "x", "--root", "create", "state", "c1", NULL };
    afx_runc_args_read(5, line1, 1, &a);
    ck_assert_int_eq(a.command, 3);
    ck_assert(!a.creates);
    char *const line2[] = { "x", "--debug", "--systemd-cgroup=true", "create", "c1", "--bundle", "/b", NULL };
    afx_runc_args_read(7, line2, 1, &a);
    ck_assert_int_eq(a.command, 3);
    ck_assert(a.creates);
    ck_assert_str_eq(a.bundle, "/b");
    ck_assert_str_eq(a.id, "c1");
    char *const line3[] = { "x", "create", "--bundle", "/b", "--", "--bundle", "/c", NULL };
    afx_runc_args_read(7, line3, 1, &a);
    ck_assert_str_eq(a.bundle, "/b");
    char *const line4[] = { "x", "--bogus", "create", NULL };
    afx_runc_args_read(3, line4, 1, &a);
    ck_assert_ptr_nonnull(a.problem);
    char *const line5[] = { "x", "run", "--bundle", NULL };
    afx_runc_args_read(3, line5, 1, &a);
    ck_assert_ptr_nonnull(a.problem);
    char *const line6[] = { "x", "run", "--bundle=", "c", NULL };
    afx_runc_args_read(4, line6, 1, &a);
    ck_assert_str_eq(a.bundle, ".");
}
END_TEST

Suite *runtime_suite(void)
{
    Suite *s = suite_create("runtime");
    TCase *tc = tcase_create("runtime");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, runtime_passes_every_subcommand);
    tcase_add_test(tc, runtime_adds_hook_once);
    tcase_add_test(tc, runtime_bundle_forms);
    tcase_add_test(tc, runtime_leaves_malformed);
    tcase_add_test(tc, runtime_refuses_links);
    tcase_add_test(tc, runtime_annotated_only);
    tcase_add_test(tc, runtime_engine_hook_present);
    tcase_add_test(tc, runtime_chosen);
    tcase_add_test(tc, runtime_runc_args);
    suite_add_tcase(s, tc);
    return s;
}
