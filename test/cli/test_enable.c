/* arenafix enable/disable in a scratch root.
 *
 * The unit trees here use what systemd's own loader does with unit
 * files (spaces around '=', continuation lines, templates, "-" prefix
 * and type drop-ins, escapes, specifiers, aliases); where systemd is
 * installed, its loader (`systemd --test`) is asked the same question
 * and must agree: enabling adds the library to what systemd preloads,
 * and keeps the rest. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"

static char root[64], lib[PATH_MAX], dropin[PATH_MAX];

/* snprintf into an array, failing the test if it does not fit. */
#define FMT(buf, ...) ck_assert_msg(snprintf(buf, sizeof buf, __VA_ARGS__) < (int)sizeof buf, "too long")

static void path_of(char *out, size_t size, const char *rel)
{
    ck_assert(snprintf(out, size, "%s/%s", root, rel) < (int)size);
}

static void mkdirs(const char *rel)
{
    char path[PATH_MAX];
    path_of(path, sizeof path, rel);
    make_dirs(path);
}

static void write_file(const char *rel, const char *text)
{
    char path[PATH_MAX], dir[PATH_MAX];
    path_of(path, sizeof path, rel);
    snprintf(dir, sizeof dir, "%s", rel);
    char *slash = strrchr(dir, '/'), full[PATH_MAX];
    if (slash != NULL) {
        *slash = '\0';
        path_of(full, sizeof full, dir);
        if (access(full, F_OK) != 0)
            mkdirs(dir);
    }
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

static void link_file(const char *rel, const char *target)
{
    char path[PATH_MAX];
    path_of(path, sizeof path, rel);
    ck_assert_msg(symlink(target, path) == 0, "%s: %s", path, strerror(errno));
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
    /* Directories made here must pass the checks enable makes as root. */
    umask(022);
    snprintf(root, sizeof root, "/tmp/arenafix-root-XXXXXX");
    ck_assert(mkdtemp(root) != NULL);
    ck_assert(chmod(root, 0755) == 0);
    /* The library as an installation has it: a root-owned copy when run
     * as root, wherever the checkout lives. */
    snprintf(lib, sizeof lib, "%s/opt/arenafix/libarenafix.so", root);
    mkdirs("opt/arenafix");
    copy_file(testlib(), lib);
    setenv("ARENAFIX_LIBRARY", lib, 1);
    snprintf(dropin, sizeof dropin, "%s/etc/systemd/system/web.service.d/arenafix.conf", root);
    write_file("lib/systemd/system/web.service",
               "[Unit]\nDescription=web\n[Service]\nEnvironment=\"LD_PRELOAD=libm.so.6\" A=1\n"
               "ExecStart=/bin/true\n");
    mkdirs("etc/systemd/system");
}

static void teardown(void)
{
    ck_assert(remove_tree(root));
}

static void want_preload(const char *value)
{
    char want[PATH_MAX * 2];
    snprintf(want, sizeof want, "Environment=\"LD_PRELOAD=%s\"\n", value);
    const char *text = read_dropin();
    ck_assert_msg(text != NULL, "no drop-in at %s", dropin);
    ck_assert_msg(strstr(text, "[Service]\n") != NULL && strstr(text, want) != NULL, "want %s in:\n%s", want, text);
}

/* enable --dry-run UNIT must carry before (NULL: nothing) and add the library. */
static void want_carried(const char *unit, const char *before)
{
    struct run r;
    char want[PATH_MAX * 2];
    snprintf(want, sizeof want, "Environment=\"LD_PRELOAD=%s%s%s\"\n", before ? before : "", before ? ":" : "", lib);
    run(&r, NULL, ARGV(cli(), "enable", "--dry-run", "--root", root, unit));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, want) != NULL, "%s: want %s in:\n%s\nstderr: %s", unit, want, r.out, r.err);
    run_free(&r);
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
    write_file("etc/systemd/system/web.service.d/zz-reset.conf", "[Service]\nEnvironment=\n");
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.err, "zz-late.conf sets LD_PRELOAD after arenafix.conf") != NULL, "%s", r.err);
    ck_assert_msg(strstr(r.err, "zz-reset.conf sets LD_PRELOAD after arenafix.conf") != NULL, "%s", r.err);
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
    /* A template: each instance may have its own drop-ins. */
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web@"));
    ck_assert_status(&r, 2);
    ck_assert_msg(strstr(r.err, "web@.service is a template; give an instance") != NULL, "%s", r.err);
    run_free(&r);
    /* A root without systemd. */
    run(&r, NULL, ARGV(cli(), "enable", "--root", "/proc/self/fdinfo", "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "does not exist; is systemd installed?") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

/* A unit whose name systemd escaped (a "-" inside an instance or path
 * name): every path enable and disable print is the file they wrote or
 * removed, and the commands they suggest name the unit as one word. */
START_TEST(escaped_unit_named_as_on_disk)
{
    static const char unit[] = "a\\x2db.service";
    static const char then[] = "on the system that boots it, if it runs: systemctl daemon-reload && systemctl "
                               "restart 'a\\x2db.service'\n";
    char path[PATH_MAX], want[PATH_MAX * 2];
    write_file("lib/systemd/system/a\\x2db.service", "[Service]\nExecStart=/bin/true\n");
    path_of(path, sizeof path, "etc/systemd/system/a\\x2db.service.d/arenafix.conf");
    struct run r;
    run(&r, NULL, ARGV(cli(), "enable", "--dry-run", "--root", root, unit));
    ck_assert_status(&r, 0);
    FMT(want, "# %s\n", path);
    ck_assert_msg(strncmp(r.out, want, strlen(want)) == 0, "want %s at the start of:\n%s", want, r.out);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, unit));
    ck_assert_status(&r, 0);
    FMT(want, "wrote %s\n%s", path, then);
    ck_assert_str_eq(r.out, want);
    run_free(&r);
    ck_assert_msg(access(path, F_OK) == 0, "%s: %s", path, strerror(errno));
    run(&r, NULL, ARGV(cli(), "disable", "--dry-run", "--root", root, unit));
    ck_assert_status(&r, 0);
    FMT(want, "would remove %s\n", path);
    ck_assert_str_eq(r.out, want);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "disable", "--root", root, unit));
    ck_assert_status(&r, 0);
    FMT(want, "removed %s\n%s", path, then);
    ck_assert_str_eq(r.out, want);
    run_free(&r);
    ck_assert_msg(access(path, F_OK) != 0, "%s is still there", path);
    run(&r, NULL, ARGV(cli(), "disable", "--root", root, unit));
    ck_assert_status(&r, 0);
    FMT(want, "arenafix is not enabled for a\\x2db.service (no %s): nothing to do\n", path);
    ck_assert_str_eq(r.out, want);
    run_free(&r);
}
END_TEST

/* What a terminal would act on is escaped once, as inspect escapes it
 * (\001), in an error line (the root's path, ARENAFIX_LIBRARY) and in
 * what enable prints: not again on the way through the error line. */
START_TEST(escaped_once)
{
    char odd[128], want[PATH_MAX * 2];
    path_of(odd, sizeof odd, "q\001");
    ck_assert(mkdir(odd, 0755) == 0);
    struct run r;
    run(&r, NULL, ARGV(cli(), "enable", "--root", odd, "web"));
    ck_assert_status(&r, 1);
    FMT(want, "arenafix: %s/q\\001/etc/systemd/system does not exist; is systemd installed?", root);
    ck_assert_msg(strncmp(r.err, want, strlen(want)) == 0, "want %s in:\n%s", want, r.err);
    run_free(&r);
    run(&r, ARGV("ARENAFIX_LIBRARY=/opt/x\001y.so"), ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strncmp(r.err, "arenafix: ARENAFIX_LIBRARY=/opt/x\\001y.so: ", 43) == 0, "%s", r.err);
    run_free(&r);

    /* A tree there. */
    FMT(want, "mkdir -p '%s/etc/systemd/system' '%s/lib/systemd/system' && "
        "printf '[Service]\\nExecStart=/bin/true\\n' > '%s/lib/systemd/system/web.service'", odd, odd, odd);
    ck_assert(system(want) == 0);
    run(&r, NULL, ARGV(cli(), "enable", "--root", odd, "web"));
    ck_assert_status(&r, 0);
    FMT(want, "wrote %s/q\\001/etc/systemd/system/web.service.d/arenafix.conf\n", root);
    ck_assert_msg(strncmp(r.out, want, strlen(want)) == 0, "want %s at the start of:\n%s", want, r.out);
    ck_assert_msg(terminal_safe(r.out), "%s", r.out);
    run_free(&r);
}
END_TEST

/* ---- the drop-in's mode ----------------------------------------------- */

static void enable_with_umask(const char *mask)
{
    struct run r;
    char cmd[64];
    snprintf(cmd, sizeof cmd, "umask %s && exec \"$@\"", mask);
    run(&r, NULL, ARGV("sh", "-c", cmd, "sh", cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 0);
    run_free(&r);
    struct stat file, dir;
    char path[PATH_MAX];
    path_of(path, sizeof path, "etc/systemd/system/web.service.d");
    ck_assert(stat(dropin, &file) == 0 && stat(path, &dir) == 0);
    ck_assert_msg((file.st_mode & 07777) == 0644, "umask %s: drop-in mode %04o", mask, file.st_mode & 07777);
    ck_assert_msg((dir.st_mode & 07777) == 0755, "umask %s: directory mode %04o", mask, dir.st_mode & 07777);
}

/* systemd runs what a drop-in says as root: no one else may write it,
 * whatever umask the operator has. */
START_TEST(mode_ignores_umask)
{
    struct run r;
    enable_with_umask("000");
    run(&r, NULL, ARGV(cli(), "disable", "--root", root, "web"));
    run_free(&r);
    enable_with_umask("077");
    /* Replacing a drop-in gives the new one the same mode. */
    ck_assert(chmod(dropin, 0666) == 0);
    enable_with_umask("000");
    /* And nothing else is left in the directory. */
    char cmd[PATH_MAX];
    snprintf(cmd, sizeof cmd, "ls -A '%s/etc/systemd/system/web.service.d'", root);
    run(&r, NULL, ARGV("sh", "-c", cmd));
    ck_assert_msg(strcmp(r.out, "arenafix.conf\n") == 0, "left behind: %s", r.out);
    run_free(&r);
}
END_TEST

/* ---- the library's path ------------------------------------------------ */

/* A library at name (in the tree's opt/; "=PATH": PATH as it is) given
 * as ARENAFIX_LIBRARY: refused, with why, in one line, and no drop-in. */
static void want_library_refused(const char *name, const char *why)
{
    char path[PATH_MAX], env[PATH_MAX + 32], cmd[PATH_MAX * 3];
    path_of(path, sizeof path, name);
    if (name[0] != '=') {
        FMT(cmd, "%s", path);
        *strrchr(cmd, '/') = '\0';
        make_dirs(cmd);
        copy_file(lib, path);
    }
    snprintf(env, sizeof env, "ARENAFIX_LIBRARY=%s", name[0] == '=' ? name + 1 : path);
    struct run r;
    run(&r, ARGV(env), ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "ARENAFIX_LIBRARY=") != NULL && strstr(r.err, why) != NULL, "%s: %s", name, r.err);
    ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "%s: not one line: %s", name, r.err);
    run_free(&r);
    ck_assert_msg(read_dropin() == NULL, "%s: a drop-in was written", name);
}

/* ld.so splits LD_PRELOAD at spaces and colons (a space made root load
 * a library relative to the current directory), and a newline would
 * start a new line of the drop-in (ExecStartPre=, run as root). */
START_TEST(library_path_checked)
{
    want_library_refused("opt/two words/libarenafix.so", "holds a space");
    want_library_refused("opt/a:b/libarenafix.so", "holds a ':'");
    want_library_refused("opt/x\nExecStartPre=touch pwned\ny/libarenafix.so", "holds a newline");
    want_library_refused("opt/tab\there/libarenafix.so", "holds a control character");
    want_library_refused("opt/$ORIGIN/libarenafix.so", "holds a '$'");
    want_library_refused("=libarenafix.so", "not an absolute path");
    want_library_refused("=shim/../shim/libarenafix.so", "not an absolute path");
}
END_TEST

/* Run as root, enable names in a service only a library only root can change. */
START_TEST(library_owned_by_root)
{
    if (geteuid() != 0) {
        printf("SKIP library_owned_by_root: needs root (its checks apply to root only)\n");
        return;
    }
    char path[PATH_MAX], env[PATH_MAX + 32], cmd[PATH_MAX * 2];
    struct run r;
    path_of(path, sizeof path, "opt/user/libarenafix.so");
    snprintf(env, sizeof env, "ARENAFIX_LIBRARY=%s", path);
    FMT(cmd, "mkdir -p '%s/opt/user' && cp '%s' '%s' && chown 64123 '%s'", root, lib, path, path);
    ck_assert(system(cmd) == 0);
    run(&r, ARGV(env), ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "libarenafix.so: is not owned by root") != NULL, "%s", r.err);
    run_free(&r);
    /* Root's file in a directory someone else may write to. */
    snprintf(cmd, sizeof cmd, "chown 0 '%s' && chmod 775 '%s/opt/user'", path, root);
    ck_assert(system(cmd) == 0);
    run(&r, ARGV(env), ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "opt/user: is a directory its group or others may write to") != NULL, "%s", r.err);
    run_free(&r);
    ck_assert(read_dropin() == NULL);
    /* Made root's alone: accepted. */
    snprintf(cmd, sizeof cmd, "chmod 755 '%s/opt/user'", root);
    ck_assert(system(cmd) == 0);
    run(&r, ARGV(env), ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 0);
    run_free(&r);
}
END_TEST

/* ---- only arenafix's drop-in ------------------------------------------- */

START_TEST(foreign_dropin_left_alone)
{
    static const char mine[] = "[Service]\nEnvironment=LD_PRELOAD=/opt/mine.so\n";
    write_file("etc/systemd/system/web.service.d/arenafix.conf", mine);
    struct run r;
    run(&r, NULL, ARGV(cli(), "disable", "--root", root, "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "was not written by arenafix") != NULL, "%s", r.err);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "was not written by arenafix") != NULL, "%s", r.err);
    run_free(&r);
    ck_assert_msg(read_dropin() != NULL && strcmp(read_dropin(), mine) == 0, "the operator's file changed");
    /* One that arenafix 0.1.0 wrote is arenafix's. */
    write_file("etc/systemd/system/web.service.d/arenafix.conf",
               "# Written by arenafix enable; remove with: arenafix disable web.service\n[Service]\n"
               "Environment=\"LD_PRELOAD=/old/libarenafix.so\"\n");
    run(&r, NULL, ARGV(cli(), "disable", "--root", root, "web"));
    ck_assert_status(&r, 0);
    run_free(&r);
    ck_assert(read_dropin() == NULL);
}
END_TEST

/* ---- systemd's rules --------------------------------------------------- */

/* The unit file of name with body in its [Service] section. */
static void unit(const char *rel, const char *service_lines)
{
    char text[8192];
    snprintf(text, sizeof text, "[Unit]\nDescription=test\n\n[Service]\nExecStart=/bin/true\n%s", service_lines);
    write_file(rel, text);
}

/* The type's drop-ins: for every service (so, not always there). */
static void type_dropin(void)
{
    write_file("usr/lib/systemd/system/service.d/50-every.conf",
               "[Service]\nEnvironment=\"LD_PRELOAD=/opt/every.so\"\n");
}

static void make_rule_trees(void)
{
    /* Spaces around '=', quotes, C escapes. */
    unit("lib/systemd/system/spaces.service", "Environment = \"LD_PRELOAD=/opt/one two.so\"   B=2  \n");
    unit("lib/systemd/system/escapes.service", "Environment=LD_PRELOAD=\\x2fopt\\x2fesc.so\\s'/opt/q.so'\n");
    unit("lib/systemd/system/percent.service", "Environment=LD_PRELOAD=/opt/100%%.so\n");
    /* A continuation line, a comment inside it, CR LF line ends. */
    unit("lib/systemd/system/cont.service", "Environment=A=1 \\\r\n# a comment\r\n  LD_PRELOAD=/opt/c.so \\\r\n  B=2\r\n");
    /* The empty line ends the continuation: LD_PRELOAD= is a key of its own, ignored. */
    unit("lib/systemd/system/contend.service",
         "Environment=LD_PRELOAD=/opt/kept.so \\\n\n LD_PRELOAD=/opt/not.so\n");
    /* A template and an instance, each with drop-ins. */
    unit("lib/systemd/system/tpl@.service", "Environment=LD_PRELOAD=/opt/tpl.so\n");
    write_file("etc/systemd/system/tpl@.service.d/10-all.conf", "[Service]\nEnvironment=LD_PRELOAD=/opt/all.so\n");
    write_file("etc/systemd/system/tpl@one.service.d/20-one.conf", "[Service]\nEnvironment=LD_PRELOAD=/opt/one.so\n");
    /* "-" prefix drop-ins, applied by name among the others. */
    unit("lib/systemd/system/front-api.service", "");
    write_file("lib/systemd/system/front-.service.d/10-prefix.conf",
               "[Service]\nEnvironment=LD_PRELOAD=/opt/prefix.so\n");
    unit("lib/systemd/system/typed.service", "Environment=LD_PRELOAD=/opt/own.so\n");
    /* Many drop-ins; the last by name wins. */
    for (int i = 999; i >= 0; i--) {
        char rel[128], text[128];
        snprintf(rel, sizeof rel, "etc/systemd/system/many.service.d/%04d.conf", i);
        snprintf(text, sizeof text, "[Service]\nEnvironment=LD_PRELOAD=/opt/%04d.so\n", i);
        write_file(rel, text);
    }
    unit("lib/systemd/system/many.service", "");
    /* An alias (Debian's sshd.service): its drop-ins apply too. */
    unit("lib/systemd/system/ssh.service", "Environment=LD_PRELOAD=/opt/ssh.so\n");
    link_file("etc/systemd/system/sshd.service", "../../../lib/systemd/system/ssh.service");
    write_file("etc/systemd/system/sshd.service.d/10-alias.conf", "[Service]\nEnvironment=LD_PRELOAD=/opt/alias.so\n");
    /* Sections: only [Service] counts; later ones end it. */
    write_file("lib/systemd/system/sections.service",
               "[Service]\nExecStart=/bin/true\n[X-Mine]\nEnvironment=LD_PRELOAD=/opt/no.so\n"
               "[Unit]\nEnvironment=LD_PRELOAD=/opt/no.so\n");
}

START_TEST(systemd_rules)
{
    make_rule_trees();
    want_carried("spaces", "/opt/one two.so");
    want_carried("escapes", "/opt/esc.so /opt/q.so");
    want_carried("percent", "/opt/100%%.so");   /* doubled again in the drop-in */
    want_carried("cont", "/opt/c.so");
    want_carried("contend", "/opt/kept.so");
    want_carried("tpl@one", "/opt/one.so");
    want_carried("tpl@two", "/opt/all.so");
    want_carried("front-api", "/opt/prefix.so");
    want_carried("typed", "/opt/own.so");
    want_carried("many", "/opt/0999.so");
    want_carried("ssh", "/opt/alias.so");
    want_carried("sections", NULL);
    type_dropin();
    want_carried("typed", "/opt/every.so");
    want_carried("sections", "/opt/every.so");
    want_carried("many", "/opt/every.so");  /* "50-every.conf" sorts after "0999.conf" */

    struct run r;
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "tpl@one"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "etc/systemd/system/tpl@one.service.d/arenafix.conf") != NULL, "%s", r.out);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "sshd"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "sshd.service is another name of ssh.service") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

/* What arenafix cannot know, it says, and writes nothing. */
START_TEST(refuses_when_unsure)
{
    struct run r;
    unit("lib/systemd/system/home.service", "Environment=LD_PRELOAD=%h/lib/mine.so\n");
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "home"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "LD_PRELOAD uses the specifier %h") != NULL, "%s", r.err);
    run_free(&r);
    /* A later assignment settles it. */
    write_file("etc/systemd/system/home.service.d/10.conf", "[Service]\nEnvironment=LD_PRELOAD=/opt/h.so\n");
    want_carried("home", "/opt/h.so");

    /* A drop-in systemd would not load: the unit fails, say so. */
    write_file("etc/systemd/system/web.service.d/10-bad.conf", "[Service\nEnvironment=X=1\n");
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "10-bad.conf line 1: invalid section header: systemd refuses the unit") != NULL,
                  "%s", r.err);
    run_free(&r);
    ck_assert(read_dropin() == NULL);

    /* Another arenafix.conf, in a directory systemd reads first. */
    write_file("etc/systemd/system/web.service.d/10-bad.conf", "[Service]\n");
    write_file("etc/systemd/system.control/web.service.d/arenafix.conf", "[Service]\n");
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "another drop-in named arenafix.conf") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

/* ---- systemd's own answer ---------------------------------------------- */

static const char *systemd_binary(void)
{
    static const char *const where[] = { "/lib/systemd/systemd", "/usr/lib/systemd/systemd" };
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++)
        if (access(where[i], X_OK) == 0)
            return where[i];
    return NULL;
}

/* What systemd's loader gives each of the n units in LD_PRELOAD, from
 * the tree's own directories, in one `systemd --test` (as a user: it
 * refuses to as root) of a target that wants them all: each unit's
 * section of its dump.  found[i]: 1 and values[i], 0 unset, -1 if
 * systemd did not load it (or cannot be asked). */
enum { SAYS_MAX = 16 };
static void systemd_says(const char *const *units, int n, char values[][PATH_MAX], int *found)
{
    ck_assert(n <= SAYS_MAX);
    for (int i = 0; i < n; i++)
        found[i] = -1;
    const char *systemd = systemd_binary();
    if (systemd == NULL)
        return;
    char env[PATH_MAX * 2], head[300], wants[SAYS_MAX * 64] = "";
    snprintf(env, sizeof env,
             "SYSTEMD_UNIT_PATH=%s/etc/systemd/system.control:%s/etc/systemd/system:%s/usr/local/lib/systemd/system:"
             "%s/lib/systemd/system:%s/usr/lib/systemd/system:%s/stub",
             root, root, root, root, root, root);
    for (const char *t = "sysinit\0basic\0shutdown\0"; *t; t += strlen(t) + 1) {
        char rel[64];
        snprintf(rel, sizeof rel, "stub/%s.target", t);
        write_file(rel, "[Unit]\nDefaultDependencies=no\n");
    }
    size_t used = 0;
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(wants + used, sizeof wants - used, " %s", units[i]);
    ck_assert(used < sizeof wants);
    char target[sizeof wants + 64];
    FMT(target, "[Unit]\nDefaultDependencies=no\nWants=%s\n", wants);
    write_file("stub/afx-asked.target", target);
    char cmd[PATH_MAX];
    snprintf(cmd, sizeof cmd, "chmod -R a+rX '%s'", root);
    ck_assert(system(cmd) == 0);
    static const char unit_arg[] = "--unit=afx-asked.target";
    struct run r;
    if (geteuid() == 0)
        run(&r, ARGV(env), ARGV("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", systemd, "--test",
                                "--system", unit_arg, "--no-pager", "--log-target=console"));
    else
        run(&r, ARGV(env), ARGV(systemd, "--test", "--system", unit_arg, "--no-pager", "--log-target=console"));
    for (int i = 0; i < n; i++) {
        snprintf(head, sizeof head, "\t-> Unit %s:\n", units[i]);
        const char *section = strstr(r.out, head);
        found[i] = section != NULL ? 0 : -1;
        if (section == NULL)
            printf("systemd --test did not load %s; it said: %.800s\n", units[i], r.err);
        for (const char *l = section; l != NULL && (l = strchr(l, '\n')) != NULL && strncmp(++l, "\t-> Unit ", 9) != 0;) {
            if (strncmp(l, "\t\tEnvironment: LD_PRELOAD=", 26) == 0) {
                size_t len = strcspn(l + 26, "\n");
                snprintf(values[i], PATH_MAX, "%.*s", (int)len, l + 26);
                found[i] = 1;
            }
        }
    }
    run_free(&r);
}

/* For each unit: enable, then systemd's LD_PRELOAD must be what it was
 * before with the library added.  Then again with a drop-in for every
 * service in place.  systemd is asked about all the units at once,
 * before and after: each enable writes its unit's own drop-in, which no
 * other unit reads. */
START_TEST(systemd_agrees)
{
    if (systemd_binary() == NULL || (geteuid() == 0 && access("/usr/bin/setpriv", X_OK) != 0)) {
        printf("SKIP systemd_agrees: systemd (and, as root, setpriv) not installed\n");
        return;
    }
    make_rule_trees();
    static const char *const all[] = { "web.service",     "spaces.service",    "escapes.service", "cont.service",
                                       "contend.service", "tpl@one.service",   "tpl@two.service", "front-api.service",
                                       "typed.service",   "many.service",      "ssh.service",     "sections.service" };
    /* A few suffice the second time. */
    static const char *const again[] = { "tpl@one.service", "typed.service", "many.service", "sections.service" };
    static char before[SAYS_MAX][PATH_MAX], after[SAYS_MAX][PATH_MAX];
    for (int pass = 0; pass < 2; pass++) {
        const char *const *units = pass == 0 ? all : again;
        int n = pass == 0 ? (int)(sizeof all / sizeof all[0]) : (int)(sizeof again / sizeof again[0]);
        int had[SAYS_MAX], has[SAYS_MAX];
        if (pass == 1)
            type_dropin();
        struct run r;
        for (int i = 0; i < n; i++) {
            run(&r, NULL, ARGV(cli(), "disable", "--root", root, units[i]));
            ck_assert_status(&r, 0);
            run_free(&r);
        }
        systemd_says(units, n, before, had);
        for (int i = 0; i < n; i++)
            if (had[i] < 0) {
                printf("SKIP systemd_agrees: systemd --test cannot load %s here\n", units[i]);
                return;
            }
        for (int i = 0; i < n; i++) {
            run(&r, NULL, ARGV(cli(), "enable", "--root", root, units[i]));
            ck_assert_status(&r, 0);
            run_free(&r);
        }
        systemd_says(units, n, after, has);
        for (int i = 0; i < n; i++) {
            char want[2 * PATH_MAX + 2];
            ck_assert_msg(has[i] == 1, "%s: systemd has no LD_PRELOAD after enable", units[i]);
            FMT(want, "%s%s%s", had[i] ? before[i] : "", had[i] ? ":" : "", lib);
            ck_assert_msg(strcmp(after[i], want) == 0, "%s: systemd has LD_PRELOAD=%s after enable, want %s",
                          units[i], after[i], want);
        }
    }
}
END_TEST

/* ---- a running system: systemd is asked --------------------------------- */

/* enable without --root on a "running" system, in a private mount
 * namespace: /run/systemd/system exists, /etc/systemd/system is a
 * scratch directory, and systemctl is a script saying what systemd
 * would.  Returns the exit status; *r holds the output. */
static int run_live(struct run *r, const char *systemctl_says, const char *extra)
{
    char bin[PATH_MAX], etc[PATH_MAX], script[PATH_MAX * 4], path_env[PATH_MAX * 2 + 16];
    path_of(bin, sizeof bin, "live-bin");
    path_of(etc, sizeof etc, "live-etc");
    mkdirs("live-bin");
    mkdirs("live-etc");
    char fake[PATH_MAX * 2];
    FMT(fake, "%s/systemctl", bin);
    FILE *f = fopen(fake, "w");
    ck_assert(f != NULL);
    fprintf(f, "#!/bin/sh\n%s\n", systemctl_says);
    fclose(f);
    ck_assert(chmod(fake, 0755) == 0);
    write_file("live-etc/afxlive.service", "[Service]\nExecStart=/bin/true\nEnvironment=LD_PRELOAD=/opt/a.so\n");
    FMT(script, "mount --make-rprivate / && mount -t tmpfs none /run/systemd && mkdir /run/systemd/system && "
                "mount --bind '%s' /etc/systemd/system && exec \"$@\"", etc);
    FMT(path_env, "PATH=%s:%s", bin, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    return run(r, ARGV(path_env), ARGV("unshare", "-m", "sh", "-c", script, "sh", cli(), "enable", "--dry-run",
                                       extra != NULL ? extra : "afxlive", extra != NULL ? "afxlive" : NULL));
}

START_TEST(live_system_asks_systemd)
{
    if (geteuid() != 0 || system("unshare -m true 2>/dev/null") != 0) {
        printf("SKIP live_system_asks_systemd: needs root and unshare -m\n");
        return;
    }
    struct run r;
    char want[PATH_MAX + 64];
    FMT(want, "Environment=\"LD_PRELOAD=/opt/a.so:%s\"\n", lib);
    /* systemd agrees with the files. */
    run_live(&r, "printf 'LoadState=loaded\\nNeedDaemonReload=no\\nEnvironment=A=1 LD_PRELOAD=/opt/a.so\\n'", NULL);
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, want) != NULL, "%s", r.out);
    run_free(&r);
    /* It does not: arenafix has read them wrong, or they are not what runs. */
    run_live(&r, "printf 'LoadState=loaded\\nNeedDaemonReload=no\\nEnvironment=\"LD_PRELOAD=/opt/b c.so\"\\n'", NULL);
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "systemd gives afxlive.service LD_PRELOAD \"/opt/b c.so\", but arenafix reads "
                                "\"/opt/a.so\" from its files") != NULL, "%s", r.err);
    run_free(&r);
    /* Changed since systemd loaded it: the files now, and a note. */
    run_live(&r, "printf 'LoadState=loaded\\nNeedDaemonReload=yes\\nEnvironment=\\n'", NULL);
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.err, "NeedDaemonReload=yes") != NULL && strstr(r.out, want) != NULL, "%s%s", r.out, r.err);
    run_free(&r);
    /* systemd cannot be asked: say so, write nothing. */
    run_live(&r, "exit 1", NULL);
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "cannot ask systemd about afxlive.service") != NULL, "%s", r.err);
    run_free(&r);
    /* systemd's answer decides whether the unit exists. */
    run_live(&r, "printf 'LoadState=not-found\nNeedDaemonReload=no\nEnvironment=\n'", NULL);
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "Unit afxlive.service not found. systemd has no such unit") != NULL, "%s", r.err);
    run_free(&r);
    run_live(&r, "printf 'LoadState=not-found\nNeedDaemonReload=no\nEnvironment=\n'", "--force");
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.err, "note: --force: afxlive.service is not installed") != NULL, "%s", r.err);
    run_free(&r);
    /* --root /: the files alone, systemd not asked. */
    run_live(&r, "exit 1", "--root=/");
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, want) != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* A writable cgroup hierarchy to place a process in: v1's name=systemd
 * (a hybrid host's), else v2's; NULL if none. */
static const char *cgroup_hierarchy(void)
{
    static const char *const dirs[] = { "/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
    char procs[PATH_MAX];
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(procs, sizeof procs, "%s/cgroup.procs", dirs[i]);
        if (access(procs, W_OK) == 0)
            return dirs[i];
    }
    return NULL;
}

static bool cgroup_put(const char *dir, long pid)
{
    char path[PATH_MAX + 16];
    FMT(path, "%s/cgroup.procs", dir);
    FILE *f = fopen(path, "w");
    bool ok = f != NULL && fprintf(f, "%ld\n", pid) > 0;
    return f != NULL && fclose(f) == 0 && ok;
}

/* A unit that runs a container (systemd-nspawn@NAME.service's payload,
 * a podman under it): a process in a root of its own in its cgroup, on
 * the affected glibc, hit.  The drop-in would reach the unit's own
 * processes, never it: enable refuses, naming it; --force writes, and
 * says so all the same. */
START_TEST(unit_running_a_container_refused)
{
    const char *hier = cgroup_hierarchy();
    if (geteuid() != 0 || system("unshare -m true 2>/dev/null") != 0 || hier == NULL) {
        printf("SKIP %s: needs root, unshare -m and a writable cgroup hierarchy\n", __func__);
        return;
    }
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    char slice[PATH_MAX], unit[PATH_MAX + 32], payload[PATH_MAX + 64], dir[PATH_MAX], cmd[3 * PATH_MAX];
    FMT(slice, "%s/afxtest-%d.slice", hier, (int)getpid());
    FMT(unit, "%s/afxlive.service", slice);
    FMT(payload, "%s/payload", unit);
    FMT(cmd, "mkdir -p '%s'", payload);
    ck_assert(system(cmd) == 0);
    struct live box;
    long inside = live_start_contained(&box, g, dir, sizeof dir);
    bool placed = inside > 0 && cgroup_put(payload, inside);
    const char *says = "printf 'LoadState=loaded\\nNeedDaemonReload=no\\nEnvironment=A=1 LD_PRELOAD=/opt/a.so\\n'";
    struct run r, forced;
    run_live(&r, says, NULL);
    run_live(&forced, says, "--force");
    if (inside > 0)
        cgroup_put(hier, inside);
    int arenas = box.arenas;
    live_stop(&box);
    remove_tree(dir);
    rmdir(payload);
    rmdir(unit);
    rmdir(slice);
    ck_assert_msg(placed, "cannot place process %ld in %s", inside, payload);
    ck_assert_int_eq(arenas, 9);
    char want[PATH_MAX];
    FMT(want, "enable: afxlive.service runs 1 process in a root of its own (%ld arenawait): a container's", inside);
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, want) != NULL && strstr(r.err, "never it") != NULL
                      && strstr(r.err, "use --force") != NULL && strstr(r.out, "LD_PRELOAD") == NULL,
                  "want %s\nstdout: %s\nstderr: %s", want, r.out, r.err);
    FMT(want, "warning: --force: afxlive.service runs 1 process in a root of its own (%ld arenawait)", inside);
    ck_assert_status(&forced, 0);
    ck_assert_msg(strstr(forced.err, want) != NULL && strstr(forced.out, "LD_PRELOAD=/opt/a.so:") != NULL,
                  "want %s\nstdout: %s\nstderr: %s", want, forced.out, forced.err);
    run_free(&r);
    run_free(&forced);
}
END_TEST

/* A unit whose daemon chroots itself in its private mount namespace
 * (PrivateTmp= and HAProxy's chroot): another root, but one it entered
 * after its unit started it, with what the unit preloads loaded.  Enabled
 * without --force, no word of a root of its own. */
START_TEST(unit_running_a_chrooting_daemon_enabled)
{
    const char *hier = cgroup_hierarchy();
    if (geteuid() != 0 || system("unshare -m true 2>/dev/null") != 0 || hier == NULL) {
        printf("SKIP %s: needs root, unshare -m and a writable cgroup hierarchy\n", __func__);
        return;
    }
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    char slice[PATH_MAX], unit[PATH_MAX + 32], dir[PATH_MAX];
    FMT(slice, "%s/afxtest-%d.slice", hier, (int)getpid());
    FMT(unit, "%s/afxlive.service", slice);
    ck_assert(mkdir(slice, 0755) == 0 && mkdir(unit, 0755) == 0);
    struct live daemon;
    long inside = live_start_chrooting(&daemon, g, NULL, dir, sizeof dir);
    bool placed = inside > 0 && cgroup_put(unit, inside);
    struct run r;
    run_live(&r, "printf 'LoadState=loaded\\nNeedDaemonReload=no\\nEnvironment=A=1 LD_PRELOAD=/opt/a.so\\n'", NULL);
    if (inside > 0)
        cgroup_put(hier, inside);
    int arenas = daemon.arenas;
    live_stop(&daemon);
    rmdir(dir);
    rmdir(unit);
    rmdir(slice);
    ck_assert_msg(placed, "cannot place process %ld in %s", inside, unit);
    ck_assert_int_eq(arenas, 9);
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.err, "root of its own") == NULL && strstr(r.out, "LD_PRELOAD=/opt/a.so:") != NULL,
                  "stdout: %s\nstderr: %s", r.out, r.err);
    run_free(&r);
}
END_TEST

/* ---- never through a symlink ------------------------------------------- */

/* Whoever can write the tree may plant links; enable and disable work
 * only on what is really inside it (test/hard/attack-enable.sh plays
 * this as another user against root). */
START_TEST(symlinks_not_followed)
{
    char outside[PATH_MAX], victim[PATH_MAX], cmd[PATH_MAX * 2];
    snprintf(outside, sizeof outside, "%s-outside", root);
    FMT(victim, "%s/arenafix.conf", outside);
    FMT(cmd, "mkdir -p '%s' && printf '# Written by arenafix enable\\n' > '%s'", outside, victim);
    ck_assert(system(cmd) == 0);
    link_file("etc/systemd/system/web.service.d", outside);
    struct run r;
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "web.service.d: a symlink; arenafix does not follow symlinks") != NULL, "%s", r.err);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "disable", "--root", root, "web"));
    ck_assert_status(&r, 1);
    run_free(&r);
    ck_assert_msg(access(victim, F_OK) == 0, "disable removed a file outside the tree");
    snprintf(cmd, sizeof cmd, "[ \"$(ls -A '%s')\" = arenafix.conf ]", outside);
    ck_assert_msg(system(cmd) == 0, "enable wrote outside the tree");

    /* The temporary name 0.1.0 used, planted as a link: left as it is. */
    char path[PATH_MAX];
    path_of(path, sizeof path, "etc/systemd/system/web.service.d");
    ck_assert(unlink(path) == 0);
    mkdirs("etc/systemd/system/web.service.d");
    snprintf(cmd, sizeof cmd, "%s/etc/systemd/system/web.service.d/arenafix.conf.new", root);
    ck_assert(symlink(victim, cmd) == 0);
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 0);
    run_free(&r);
    snprintf(cmd, sizeof cmd, "[ \"$(cat '%s')\" = '# Written by arenafix enable' ]", victim);
    ck_assert_msg(system(cmd) == 0, "enable wrote through the planted link");
    /* The drop-in itself as a link: not arenafix's, left alone. */
    ck_assert(unlink(dropin) == 0 && symlink(victim, dropin) == 0);
    run(&r, NULL, ARGV(cli(), "disable", "--root", root, "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "arenafix.conf: a symlink") != NULL, "%s", r.err);
    run_free(&r);
    ck_assert(access(victim, F_OK) == 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", outside);
    ck_assert(system(cmd) == 0);
}
END_TEST

/* ---- kernels without openat2 ------------------------------------------- */

/* From here on, openat2() fails with ENOSYS in this process and what it
 * runs, as on Linux < 5.6 or under an old seccomp profile.  check runs
 * each test in a process of its own: the filter ends with the test. */
static void no_openat2(void)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { sizeof filter / sizeof filter[0], filter };
    ck_assert(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
    ck_assert(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0);
}

START_TEST(fallback_without_openat2)
{
    if (skip_emulated(__func__, "qemu-user does not run seccomp filters, with which the test "
                                "takes openat2 away"))
        return;
    if (getenv("CK_FORK") != NULL && strcmp(getenv("CK_FORK"), "no") == 0) {
        printf("SKIP fallback_without_openat2: with CK_FORK=no its filter would outlive it\n");
        return;
    }
    make_rule_trees();
    /* Symlinks the walk must follow inside the tree: a relative one
     * climbing past the root with "..", an absolute one. */
    unit("opt/units/linked.service", "Environment=LD_PRELOAD=/opt/real.so\n");
    link_file("lib/systemd/system/linked.service", "../../../../../../opt/units/linked.service");
    unit("lib/systemd/system/linked2.service", "");
    link_file("lib/systemd/system/linked2.service.d", "/lib/systemd/system/front-.service.d");
    static const char *const units[][2] = {
        { "ssh", "/opt/alias.so" }, { "tpl@one", "/opt/one.so" }, { "typed", "/opt/own.so" },
        { "linked", "/opt/real.so" }, { "linked2", "/opt/prefix.so" }, { "many", "/opt/0999.so" },
    };
    no_openat2();
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        want_carried(units[i][0], units[i][1]);
}
END_TEST

/* ---- a unit that does not exist ---------------------------------------- */

/* A typo must not leave a drop-in behind: refused as systemctl refuses
 * it, nothing written, no directory made; --force writes it anyway, and
 * disable still takes it out. */
START_TEST(unknown_unit_refused)
{
    struct run r;
    char dir[PATH_MAX], ghost[PATH_MAX];
    path_of(dir, sizeof dir, "etc/systemd/system/nginix.service.d");
    FMT(ghost, "%s/arenafix.conf", dir);
    for (int dry_run = 0; dry_run < 2; dry_run++) {
        run(&r, NULL, ARGV(cli(), "enable", dry_run ? "--dry-run" : "--root", dry_run ? "--root" : root,
                           dry_run ? root : "nginix", dry_run ? "nginix" : NULL));
        ck_assert_status(&r, 1);
        ck_assert_msg(strstr(r.err, "arenafix: Unit nginix.service not found.") != NULL, "%s", r.err);
        ck_assert_msg(strstr(r.err, "--force") != NULL, "the way to write it anyway is not named: %s", r.err);
        ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "not one line: %s", r.err);
        ck_assert_msg(r.out[0] == '\0', "%s", r.out);
        run_free(&r);
        ck_assert_msg(access(dir, F_OK) != 0, "%s was created", dir);
    }
    /* An instance of an installed template exists. */
    unit("lib/systemd/system/tpl@.service", "");
    run(&r, NULL, ARGV(cli(), "enable", "--dry-run", "--root", root, "tpl@any"));
    ck_assert_status(&r, 0);
    run_free(&r);

    run(&r, NULL, ARGV(cli(), "enable", "--force", "--root", root, "nginix"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.err, "note: --force: nginix.service is not installed") != NULL, "%s", r.err);
    run_free(&r);
    ck_assert_msg(access(ghost, F_OK) == 0, "--force wrote nothing");
    /* The way back works for a unit that is not there. */
    run(&r, NULL, ARGV(cli(), "disable", "--root", root, "nginix"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "removed ") != NULL, "%s", r.out);
    /* An image's services are restarted where it boots, not here. */
    ck_assert_msg(strstr(r.out, "\non the system that boots it, if it runs: systemctl daemon-reload && "
                                "systemctl restart nginix.service\n") != NULL, "%s", r.out);
    run_free(&r);
    ck_assert_msg(access(dir, F_OK) != 0, "%s left behind", dir);
}
END_TEST

/* systemd treats an empty unit file, as a link to /dev/null, as masked:
 * enable says so (the drop-in waits for the unmask). */
START_TEST(empty_unit_is_masked)
{
    struct run r;
    write_file("lib/systemd/system/empty.service", "");
    link_file("etc/systemd/system/nulled.service", "/dev/null");
    unit("lib/systemd/system/nulled.service", "");
    static const char *const units[] = { "empty", "nulled" };
    for (size_t i = 0; i < 2; i++) {
        run(&r, NULL, ARGV(cli(), "enable", "--dry-run", "--root", root, units[i]));
        ck_assert_status(&r, 0);
        char want[128];
        FMT(want, "note: %s.service is masked; the drop-in takes effect once it is unmasked", units[i]);
        ck_assert_msg(strstr(r.err, want) != NULL, "want \"%s\" in: %s", want, r.err);
        run_free(&r);
    }
}
END_TEST

/* ---- errors name what really failed ------------------------------------ */

static bool can_drop_to_nobody(const char *test)
{
    if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0) {
        printf("SKIP %s: needs root and setpriv to run the command as nobody\n", test);
        return false;
    }
    return true;
}

/* As an ordinary user: the permission it lacks, and the way out, not
 * "does not exist; is systemd installed?". */
START_TEST(unprivileged_user_told_permission)
{
    if (!can_drop_to_nobody(__func__))
        return;
    char cmd[PATH_MAX * 2];
    FMT(cmd, "chmod -R a+rX '%s'", root);
    ck_assert(system(cmd) == 0);
    struct run r;
    run(&r, NULL, ARGV("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", cli(), "enable", "--root",
                       root, "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "web.service.d: Permission denied; run as root") != NULL, "%s", r.err);
    ck_assert_msg(strstr(r.err, "does not exist") == NULL, "%s", r.err);
    run_free(&r);
    ck_assert(read_dropin() == NULL);

    /* Live, in a private mount namespace where systemd does not run and
     * /etc/systemd/system is the tree's: the hint is --root. */
    if (system("unshare -m true 2>/dev/null") != 0) {
        printf("SKIP %s (live): no unshare -m\n", __func__);
        return;
    }
    char script[PATH_MAX * 2];
    FMT(script, "mount --make-rprivate / && mount -t tmpfs none /run/systemd && "
                "mount --bind '%s/etc/systemd/system' /etc/systemd/system && "
                "mount --bind '%s/lib/systemd/system' /lib/systemd/system && exec \"$@\"", root, root);
    run(&r, NULL, ARGV("unshare", "-m", "sh", "-c", script, "sh", "setpriv", "--reuid=65534", "--regid=65534",
                       "--clear-groups", cli(), "enable", "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "cannot create /etc/systemd/system/web.service.d: Permission denied; run as root, "
                                "or use --root DIR") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

/* A read-only file system is named as such, for enable and disable. */
START_TEST(read_only_named)
{
    if (geteuid() != 0 || system("unshare -m true 2>/dev/null") != 0) {
        printf("SKIP read_only_named: needs root and unshare -m\n");
        return;
    }
    write_file("etc/systemd/system/old.service.d/arenafix.conf",
               "# Written by arenafix enable; remove with: arenafix disable old.service\n[Service]\n");
    char script[PATH_MAX * 2];
    FMT(script, "mount --make-rprivate / && mount --bind '%s' '%s' && mount -o remount,bind,ro '%s' && "
                "exec \"$@\"", root, root, root);
    struct run r;
    run(&r, NULL, ARGV("unshare", "-m", "sh", "-c", script, "sh", cli(), "enable", "--root", root, "web"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "web.service.d: Read-only file system; the file system is mounted read-only")
                  != NULL, "%s", r.err);
    run_free(&r);
    run(&r, NULL, ARGV("unshare", "-m", "sh", "-c", script, "sh", cli(), "disable", "--root", root, "old"));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "Read-only file system; the file system is mounted read-only") != NULL, "%s", r.err);
    ck_assert_msg(strstr(r.err, "run as root") == NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

/* Root refused (an immutable directory): no advice to run as root. */
START_TEST(refused_to_root_named)
{
    char dir[PATH_MAX], cmd[PATH_MAX + 32];
    FMT(dir, "%s/etc/systemd/system", root);
    FMT(cmd, "chattr +i '%s' 2>/dev/null", dir);
    if (geteuid() != 0 || system(cmd) != 0) {
        printf("SKIP refused_to_root_named: needs root and a file system with chattr +i\n");
        return;
    }
    struct run r;
    run(&r, NULL, ARGV(cli(), "enable", "--root", root, "web"));
    FMT(cmd, "chattr -i '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "web.service.d: Operation not permitted; refused even to root: look for an "
                                "immutable attribute") != NULL, "%s", r.err);
    ck_assert_msg(strstr(r.err, "run as root") == NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

/* ---- --help ------------------------------------------------------------ */

/* -h and --help anywhere among the options: the usage, options and
 * examples on stdout, exit 0 (arenafix status is tested in test_status.c). */
START_TEST(help_anywhere)
{
    static const char *const cmds[] = { "enable", "disable" };
    for (size_t i = 0; i < 2; i++) {
        const char *const *argvs[] = {
            ARGV(cli(), cmds[i], "--help"),
            ARGV(cli(), cmds[i], "-h"),
            ARGV(cli(), cmds[i], "--root", "/no/such/dir", "--bogus", "--help", "web"),
        };
        for (size_t k = 0; k < 3; k++) {
            struct run r;
            char usage[64], see[64];
            run(&r, NULL, argvs[k]);
            ck_assert_status(&r, 0);
            FMT(usage, "Usage: arenafix %s [--dry-run]", cmds[i]);
            FMT(see, "\nSee arenafix-%s(1).\n", cmds[i]);
            ck_assert_msg(strncmp(r.out, usage, strlen(usage)) == 0, "%s", r.out);
            ck_assert_msg(strstr(r.out, "\nOptions:\n") != NULL && strstr(r.out, "\nExamples:\n") != NULL
                          && strstr(r.out, "  -h, --help       print this help and exit\n") != NULL
                          && strstr(r.out, see) != NULL, "%s", r.out);
            ck_assert_msg(r.err[0] == '\0', "%s", r.err);
            run_free(&r);
        }
    }
}
END_TEST

Suite *enable_suite(void)
{
    Suite *s = suite_create("enable");
    TCase *tc = tcase_create("enable");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, dry_run_writes_nothing);
    tcase_add_test(tc, other_dropins);
    tcase_add_test(tc, bad_input);
    tcase_add_test(tc, escaped_unit_named_as_on_disk);
    tcase_add_test(tc, escaped_once);
    tcase_add_test(tc, mode_ignores_umask);
    tcase_add_test(tc, library_path_checked);
    tcase_add_test(tc, library_owned_by_root);
    tcase_add_test(tc, foreign_dropin_left_alone);
    tcase_add_test(tc, systemd_rules);
    tcase_add_test(tc, refuses_when_unsure);
    tcase_add_test(tc, systemd_agrees);
    tcase_add_test(tc, live_system_asks_systemd);
    tcase_add_test(tc, unit_running_a_container_refused);
    tcase_add_test(tc, unit_running_a_chrooting_daemon_enabled);
    tcase_add_test(tc, symlinks_not_followed);
    tcase_add_test(tc, fallback_without_openat2);
    tcase_add_test(tc, unknown_unit_refused);
    tcase_add_test(tc, empty_unit_is_masked);
    tcase_add_test(tc, unprivileged_user_told_permission);
    tcase_add_test(tc, read_only_named);
    tcase_add_test(tc, refused_to_root_named);
    tcase_add_test(tc, help_anywhere);
    suite_add_tcase(s, tc);
    return s;
}
