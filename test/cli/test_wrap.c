/* arenafix [OPTIONS] CMD: the wrapper, run for real. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static char lib[PATH_MAX];

static void setup(void)
{
    ck_assert_msg(realpath(testlib(), lib) != NULL, "no library at %s; run make", testlib());
}

START_TEST(appends_to_existing_preload)
{
    struct run r;
    char want[PATH_MAX + 32];
    run(&r, ARGV("LD_PRELOAD=libm.so.6"), ARGV(cli(), "sh", "-c", "printf %s \"$LD_PRELOAD\""));
    ck_assert_status(&r, 0);
    snprintf(want, sizeof want, "libm.so.6:%s", lib);
    ck_assert_str_eq(r.out, want);
    run_free(&r);
}
END_TEST

START_TEST(no_duplicate_when_already_preloaded)
{
    struct run r;
    char env[PATH_MAX + 32];
    snprintf(env, sizeof env, "LD_PRELOAD=libm.so.6 %s", lib);
    run(&r, (const char *[]){ env, NULL }, ARGV(cli(), "sh", "-c", "printf %s \"$LD_PRELOAD\""));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, env + strlen("LD_PRELOAD="));
    run_free(&r);
}
END_TEST

START_TEST(empty_preload_gets_the_library)
{
    struct run r;
    run(&r, ARGV("LD_PRELOAD"), ARGV(cli(), "sh", "-c", "printf %s \"$LD_PRELOAD\""));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, lib);
    run_free(&r);
}
END_TEST

START_TEST(exit_status_passes_through)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "sh", "-c", "exit 7"));
    ck_assert_status(&r, 7);
    run_free(&r);
}
END_TEST

START_TEST(signal_passes_through)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "sh", "-c", "kill -TERM $$"));
    ck_assert_msg(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM,
                  "want death by SIGTERM, got 0x%x", r.status);
    run_free(&r);
}
END_TEST

/* exec, not fork: the command is our child, in arenafix's place. */
START_TEST(command_replaces_arenafix)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "sh", "-c", "echo $PPID"));
    ck_assert_status(&r, 0);
    ck_assert_int_eq(atoi(r.out), getpid());
    run_free(&r);
}
END_TEST

START_TEST(options_become_the_library_variables)
{
    struct run r;
    run(&r, ARGV("ARENAFIX_VERBOSE", "ARENAFIX_EAGER"),
        ARGV(cli(), "-m", "both", "--arena-max", "5", "-v", "--eager", "--", "sh", "-c",
             "printf %s,%s,%s,%s \"$ARENAFIX_MODE\" \"$ARENAFIX_ARENA_MAX\" \"$ARENAFIX_VERBOSE\" "
             "\"$ARENAFIX_EAGER\""));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, "both,5,1,1");
    /* eager + verbose: the library in sh said what it did. */
    if (!skip_emulated("options_become_the_library_variables: the activation line in sh",
                       "sh is the host's, of another machine than the library under test"))
        ck_assert_msg(strstr(r.err, "arenafix: ") != NULL && strstr(r.err, "]: glibc") != NULL,
                      "no activation line: %s", r.err);
    run_free(&r);
}
END_TEST

START_TEST(fixes_pinned_program_on_affected_glibc)
{
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    char loader[PATH_MAX];
    snprintf(loader, sizeof loader, "%s", affected_loader(g));
    struct run r;
    run(&r, ARGV("LD_PRELOAD"), ARGV(loader, "--library-path", g, test_prog("pinned"), "self", "30"));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, "arenas=9\n");  /* the bug, without us */
    run_free(&r);
    run(&r, ARGV("LD_PRELOAD"),
        ARGV(cli(), loader, "--library-path", g, test_prog("pinned"), "self", "30"));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, "arenas=16\n");  /* 8 x 2 CPUs: fixed */
    run_free(&r);
}
END_TEST

START_TEST(warns_on_static_program)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), test_prog("cli-static")));
    ck_assert_status(&r, 0);  /* warned, not refused */
    ck_assert_msg(strstr(r.err, "statically linked") != NULL, "no warning: %s", r.err);
    run_free(&r);
    if (skip_emulated("warns_on_static_program: no warning for a dynamic program",
                      "true is the host's, of another machine than the library under test"))
        return;
    run(&r, NULL, ARGV(cli(), "true"));
    ck_assert_str_eq(r.err, "");
    run_free(&r);
}
END_TEST

START_TEST(warns_on_setuid_program)
{
    char dir[] = "/tmp/arenafix-test-XXXXXX", prog[64];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(prog, sizeof prog, "%s/true", dir);
    struct run r;
    run(&r, NULL, ARGV("cp", "/bin/true", prog));
    ck_assert(chmod(prog, 04755) == 0);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), prog));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.err, "setuid") != NULL, "no warning: %s", r.err);
    run_free(&r);
    unlink(prog);
    rmdir(dir);
}
END_TEST

START_TEST(bad_input)
{
    const struct {
        const char *const *argv;
        int status;
        const char *says;
    } cases[] = {
        { ARGV("--bogus", "true"), 2, "unknown option --bogus" },
        { ARGV("-x"), 2, "unknown option -x" },
        { ARGV("--mode"), 2, "--mode needs a value" },
        { ARGV("--mode", "fast", "true"), 2, "--mode fast: not a valid value" },
        { ARGV("--arena-max", "0", "true"), 2, "--arena-max 0: not a valid value" },
        { ARGV("--arena-max", "12x", "true"), 2, "--arena-max 12x: not a valid value" },
        { ARGV("-v"), 2, "no command given" },
        { ARGV("arenafix-no-such-command"), 127, "arenafix-no-such-command: command not found" },
        { ARGV("/no/such/file"), 127, "command not found" },
        { ARGV("/etc/passwd"), 126, "not executable" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[8] = { cli() };
        for (int k = 0; cases[i].argv[k] != NULL; k++)
            argv[k + 1] = cases[i].argv[k];
        struct run r;
        run(&r, NULL, argv);
        ck_assert_status(&r, cases[i].status);
        ck_assert_msg(strstr(r.err, cases[i].says) != NULL, "case %zu: want \"%s\" in: %s", i,
                      cases[i].says, r.err);
        ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "not one line: %s", r.err);
        run_free(&r);
    }
}
END_TEST

/* Found as execvp finds it: a directory of that name on PATH is
 * skipped, a script without "#!" runs in the shell. */
START_TEST(command_found_as_execvp_finds_it)
{
    char dir[] = "/tmp/arenafix-path-XXXXXX", path[128], env[300];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/a", dir);
    ck_assert(mkdir(path, 0755) == 0);
    snprintf(path, sizeof path, "%s/a/arenafix-test-cmd", dir);
    ck_assert(mkdir(path, 0755) == 0);      /* a directory named like the command */
    snprintf(path, sizeof path, "%s/b", dir);
    ck_assert(mkdir(path, 0755) == 0);
    snprintf(path, sizeof path, "%s/b/arenafix-test-cmd", dir);
    FILE *f = fopen(path, "w");
    fputs("echo found it\n", f);           /* no "#!" */
    fclose(f);
    ck_assert(chmod(path, 0755) == 0);
    snprintf(env, sizeof env, "PATH=%s/a:%s/b:/usr/bin:/bin", dir, dir);
    struct run r;
    run(&r, (const char *[]){ env, NULL }, ARGV(cli(), "arenafix-test-cmd"));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, "found it\n");
    run_free(&r);
    /* Only the directory: not executable, as execvp says (126). */
    snprintf(env, sizeof env, "PATH=%s/a", dir);
    run(&r, (const char *[]){ env, NULL }, ARGV(cli(), "arenafix-test-cmd"));
    ck_assert_status(&r, 126);
    run_free(&r);
    run(&r, NULL, ARGV("rm", "-rf", dir));
    run_free(&r);
}
END_TEST

/* A program in a directory of its own on PATH that says it ran. */
static void fake_program(const char *dir, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "#!/bin/sh\necho %s ran\n", name);
    fclose(f);
    ck_assert_int_eq(chmod(path, 0755), 0);
}

/* A subcommand misspelt runs nothing, even where a program has that
 * name (as root, "arenafix stat" is a typo of status more likely than
 * a wish to run stat): it says which subcommand was meant, and how to
 * run the program after all. */
START_TEST(misspelt_subcommand_runs_nothing)
{
    char dir[] = "/tmp/arenafix-typo-XXXXXX", env[300], prog[PATH_MAX];
    ck_assert(mkdtemp(dir) != NULL);
    fake_program(dir, "inpsect");
    fake_program(dir, "stat");
    fake_program(dir, "ps");
    fake_program(dir, "bash");
    snprintf(env, sizeof env, "PATH=%s:/usr/bin:/bin", dir);
    const char *const *path_env = (const char *[]){ env, NULL };
    static const struct {
        const char *word, *meant;
    } typos[] = {
        { "inpsect", "inspect" }, { "inspec", "inspect" }, { "stat", "status" }, { "Status", "status" },
        { "prbe", "probe" },      { "enabel", "enable" },   { "cd", "cdi" },       { "oci-hok", "oci-hook" },
        { "pth", "path" },        { "INSPECT", "inspect" },
    };
    for (size_t i = 0; i < sizeof typos / sizeof typos[0]; i++) {
        struct run r;
        char want[128];
        run(&r, path_env, ARGV(cli(), typos[i].word, "1"));
        ck_assert_status(&r, 2);
        ck_assert_str_eq(r.out, "");
        snprintf(want, sizeof want, "arenafix: %s: no such subcommand; did you mean %s? (a program named %s runs "
                 "with arenafix -- %s)\n", typos[i].word, typos[i].meant, typos[i].word, typos[i].word);
        ck_assert_str_eq(r.err, want);
        run_free(&r);
    }
    /* The program runs where it is named as one: after "--" or an
     * option, or by a path. */
    struct run r;
    run(&r, path_env, ARGV(cli(), "--", "inpsect"));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, "inpsect ran\n");
    run_free(&r);
    run(&r, path_env, ARGV(cli(), "-m", "mallopt", "stat"));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, "stat ran\n");
    run_free(&r);
    snprintf(prog, sizeof prog, "%s/stat", dir);
    run(&r, path_env, ARGV(cli(), prog));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, "stat ran\n");
    run_free(&r);
    /* A word that misspells no subcommand is CMD, as before: ps, and
     * bash, two letters from path but half of it. */
    run(&r, path_env, ARGV(cli(), "ps"));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, "ps ran\n");
    run_free(&r);
    run(&r, path_env, ARGV(cli(), "bash"));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, "bash ran\n");
    run_free(&r);
    /* help names the one meant too. */
    run(&r, NULL, ARGV(cli(), "help", "inpsect"));
    ck_assert_status(&r, 2);
    ck_assert_str_eq(r.err, "arenafix: help: no subcommand inpsect; did you mean inspect?\n");
    run_free(&r);
    run(&r, NULL, ARGV("rm", "-rf", dir));
    run_free(&r);
}
END_TEST

START_TEST(path_prints_the_library)
{
    struct run r;
    char want[PATH_MAX + 2];
    snprintf(want, sizeof want, "%s\n", lib);
    run(&r, ARGV("ARENAFIX_LIBRARY"), ARGV(cli(), "path"));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, want);
    run_free(&r);
    run(&r, ARGV("ARENAFIX_LIBRARY"), ARGV(cli(), "path", "--preload"));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, want);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "path", "--bogus"));
    ck_assert_status(&r, 2);
    run_free(&r);
}
END_TEST

START_TEST(library_variable_overrides)
{
    struct run r;
    char env[PATH_MAX + 32], want[PATH_MAX + 8];
    /* Another spelling of the same file: only the variable can give it. */
    char *slash = strrchr(lib, '/');
    snprintf(want, sizeof want, "%.*s/.%s\n", (int)(slash - lib), lib, slash);
    snprintf(env, sizeof env, "ARENAFIX_LIBRARY=%.*s", (int)strlen(want) - 1, want);
    run(&r, (const char *[]){ env, NULL }, ARGV(cli(), "path"));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, want);
    run_free(&r);
    run(&r, ARGV("ARENAFIX_LIBRARY=/no/such/lib.so"), ARGV(cli(), "true"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "ARENAFIX_LIBRARY=/no/such/lib.so") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

START_TEST(version_and_help)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "--version"));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, "arenafix " AFX_VERSION "\n");
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "--help"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strncmp(r.out, "Usage: arenafix", 15) == 0, "%s", r.out);
    run_free(&r);
}
END_TEST

Suite *wrap_suite(void)
{
    Suite *s = suite_create("wrap");
    TCase *tc = tcase_create("wrap");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, appends_to_existing_preload);
    tcase_add_test(tc, no_duplicate_when_already_preloaded);
    tcase_add_test(tc, empty_preload_gets_the_library);
    tcase_add_test(tc, exit_status_passes_through);
    tcase_add_test(tc, signal_passes_through);
    tcase_add_test(tc, command_replaces_arenafix);
    tcase_add_test(tc, options_become_the_library_variables);
    tcase_add_test(tc, fixes_pinned_program_on_affected_glibc);
    tcase_add_test(tc, warns_on_static_program);
    tcase_add_test(tc, warns_on_setuid_program);
    tcase_add_test(tc, bad_input);
    tcase_add_test(tc, command_found_as_execvp_finds_it);
    tcase_add_test(tc, misspelt_subcommand_runs_nothing);
    tcase_add_test(tc, path_prints_the_library);
    tcase_add_test(tc, library_variable_overrides);
    tcase_add_test(tc, version_and_help);
    suite_add_tcase(s, tc);
    return s;
}
