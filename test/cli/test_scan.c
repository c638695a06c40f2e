/* arenafix inspect --all: the whole host, with live processes of known
 * state among whatever else runs.  Other processes come and go during a
 * scan, so the tests look only at their own lines, at the exit status
 * where theirs is the worst there can be, and at the summary agreeing
 * with the lines. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "inspect/denied.h"
#include "target/verdict.h"
#include "proc/boltdb.h"
#include "proc/podmancmd.h"
#include "proc/podmanstate.h"
#include "proc/proccgroup.h"
#include "proc/procstatus.h"

/* ---- the text report ---------------------------------------------------- */

struct summary {
    long hit, at_risk, cannot_tell, fine, fixed, unreadable, gone, single, kernel, no_glibc, other, processes;
};

/* Every process line has a verdict the summary counts, and the summary
 * accounts for every process. */
static struct summary text_consistent(const char *out)
{
    static const char *const verdicts[] = { "hit ", "at risk ", "fine ", "unreadable ", "cannot tell " };
    long lines[5] = { 0 };
    struct summary s;
    const char *p = out;
    const char *unit = strstr(p, " UNIT ");
    ck_assert_msg(strncmp(p, "    PID  VERDICT ", 17) == 0 && unit != NULL && unit < strchr(p, '\n'),
                  "no header: %s", out);
    long folded = 0;
    for (p = strchr(p, '\n') + 1; strncmp(p, "summary: ", 9) != 0; p = strchr(p, '\n') + 1) {
        long pid;
        if (sscanf(p, "not listed: %ld processes this user may not read; run as root", &folded) == 1) {
            lines[3] += folded;
            continue;
        }
        int n = 0, v = 0;
        ck_assert_msg(sscanf(p, "%ld%n", &pid, &n) == 1 && strncmp(p + n, "  ", 2) == 0, "not a line: %.200s", p);
        while (v < 5 && strncmp(p + n + 2, verdicts[v], strlen(verdicts[v])) != 0)
            v++;
        ck_assert_msg(v < 5, "no verdict: %.200s", p);
        lines[v]++;
        ck_assert_msg(strchr(p, '\n') != NULL, "no summary: %s", out);
    }
    ck_assert_msg(sscanf(p,
                         "summary: hit %ld, at risk %ld, cannot tell %ld, fine %ld (fixed by libarenafix %ld), "
                         "unreadable %ld; not listed: gone %ld, single-threaded %ld, kernel threads %ld, no glibc "
                         "%ld, other malloc %ld; processes %ld",
                         &s.hit, &s.at_risk, &s.cannot_tell, &s.fine, &s.fixed, &s.unreadable, &s.gone, &s.single,
                         &s.kernel, &s.no_glibc, &s.other, &s.processes)
                      == 12,
                  "bad summary: %s", p);
    ck_assert_int_eq(s.hit, lines[0]);
    ck_assert_int_eq(s.at_risk, lines[1]);
    ck_assert_int_eq(s.fine, lines[2]);
    ck_assert_int_eq(s.unreadable, lines[3]);
    ck_assert_int_eq(s.cannot_tell, lines[4]);
    ck_assert_int_le(s.fixed, s.fine);
    ck_assert_int_eq(s.processes, lines[0] + lines[1] + lines[2] + lines[3] + lines[4] + s.gone + s.single
                                      + s.kernel + s.no_glibc + s.other);
    ck_assert_msg(strstr(p, "\nhost glibc: ") != NULL, "%s", p);
    return s;
}

/* The line of pid in the text report, without its newline, or "". */
static const char *line_of(const char *out, pid_t pid)
{
    static char line[8192];
    char key[32];
    snprintf(key, sizeof key, "\n%7d  ", (int)pid);
    const char *p = strstr(out, key);
    line[0] = '\0';
    if (p != NULL)
        snprintf(line, sizeof line, "%.*s", (int)strcspn(p + 1, "\n"), p + 1);
    return line;
}

/* The verdict column of a line. */
static bool verdict_is(const char *line, const char *verdict)
{
    char want[32];
    snprintf(want, sizeof want, "  %-10s ", verdict);
    return line[0] != '\0' && strncmp(line + 7, want, strlen(want)) == 0;
}

static void scan_text(struct run *r, const char *opt)
{
    if (opt != NULL)
        run(r, NULL, ARGV(cli(), "inspect", "--all", opt));
    else
        run(r, NULL, ARGV(cli(), "inspect", "--all"));
}

/* ---- the JSON document -------------------------------------------------- */

static bool have_python(const char *test)
{
    struct run r;
    bool ok = run(&r, NULL, ARGV(python3(), "-c", "import json")) == 0;
    run_free(&r);
    if (!ok)
        printf("SKIP %s (JSON part): no python3 to check the document with\n", test);
    return ok;
}

/* Check the document in r->out with scanjson.py, as a monitoring system
 * would read it; its listing (PID, verdict, name, exe) in *listing. */
static void json_checked(const struct run *r, struct run *listing)
{
    char path[] = "/tmp/arenafix-scan-json-XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    size_t len = strlen(r->out);
    ck_assert(write(fd, r->out, len) == (ssize_t)len);
    close(fd);
    run(listing, NULL, ARGV(python3(), "test/cli/scanjson.py", path));
    unlink(path);
    ck_assert_msg(WIFEXITED(listing->status) && WEXITSTATUS(listing->status) == 0, "%s%s\ndocument: %.2000s",
                  listing->out, listing->err, r->out);
    char status[32];
    snprintf(status, sizeof status, "\nexit_status=%d\n", WEXITSTATUS(r->status));
    ck_assert_msg(strstr(listing->out, status) != NULL, "exit status %d, document says: %s",
                  WEXITSTATUS(r->status), listing->out);
}

/* pid's entry in a listing: "verdict\tname\texe\tunit", or "". */
static const char *entry_of(const struct run *listing, pid_t pid)
{
    static char entry[8192];
    char key[32];
    snprintf(key, sizeof key, "\n%d\t", (int)pid);
    const char *p = strstr(listing->out, key);
    entry[0] = '\0';
    if (p != NULL)
        snprintf(entry, sizeof entry, "%.*s", (int)strcspn(p + strlen(key), "\n"), p + strlen(key));
    return entry;
}

static bool entry_verdict(const char *entry, const char *verdict)
{
    size_t n = strlen(verdict);
    return strncmp(entry, verdict, n) == 0 && entry[n] == '\t';
}

/* inspect --all --json [opt], run by prefix (NULL: none); unchecked. */
static int scan_json_unchecked(struct run *r, const char *const *prefix, const char *opt)
{
    const char *argv[16];
    int n = 0;
    for (; prefix != NULL && prefix[n] != NULL; n++)
        argv[n] = prefix[n];
    argv[n++] = cli();
    argv[n++] = "inspect";
    argv[n++] = "--all";
    argv[n++] = "--json";
    if (opt != NULL)
        argv[n++] = opt;
    argv[n] = NULL;
    int status = run(r, NULL, argv);
    ck_assert_msg(status != 1 && status != 2 && status < 100, "scan failed (%d): %s", status, r->err);
    return status;
}

/* The same, checked; the listing in *listing, the exit status returned. */
static int scan_json(struct run *listing, const char *const *prefix, const char *opt)
{
    struct run r;
    int status = scan_json_unchecked(&r, prefix, opt);
    json_checked(&r, listing);
    run_free(&r);
    return status;
}

/* ---- pure parts --------------------------------------------------------- */

START_TEST(stat_flags)
{
    unsigned long flags;
    ck_assert(afx_stat_flags("2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 9 0 0", &flags));
    ck_assert((flags & AFX_PF_KTHREAD) != 0);
    ck_assert(afx_stat_flags("28868 (cat) R 28824 28824 19525 0 -1 4194304 100 0\n", &flags));
    ck_assert_uint_eq(flags, 4194304);
    ck_assert((flags & AFX_PF_KTHREAD) == 0);
    /* A name that plays a kernel thread's fields: the last ')' counts. */
    ck_assert(afx_stat_flags("77 (x) S 0 0 0 0 -1 2129984 )\n) R 1 2 3 0 -1 4194560 0", &flags));
    ck_assert_uint_eq(flags, 4194560);
    ck_assert(!afx_stat_flags("", &flags));
    ck_assert(!afx_stat_flags("1 (init) S 0 0 0 0 -1", &flags));
    ck_assert(!afx_stat_flags("1 (init) S 0 0 0 0 -1 x1", &flags));
    ck_assert(!afx_stat_flags("1 init S 0 0 0 0 -1 4194560", &flags));
}
END_TEST

START_TEST(glibc_state_by_version)
{
    static const struct {
        const char *version;
        enum afx_glibc_state want;
    } cases[] = {
        { "2.17", AFX_GLIBC_FIXED },   { "2.33", AFX_GLIBC_FIXED },   { "2.34", AFX_GLIBC_UNKNOWN },
        { "2.36", AFX_GLIBC_UNKNOWN }, { "2.38.9", AFX_GLIBC_UNKNOWN }, { "2.39", AFX_GLIBC_FIXED },
        { "2.41", AFX_GLIBC_FIXED },   { "3.0", AFX_GLIBC_FIXED },    { "unknown", AFX_GLIBC_UNKNOWN },
        { "", AFX_GLIBC_UNKNOWN },     { "2", AFX_GLIBC_UNKNOWN },    { "2.36x", AFX_GLIBC_UNKNOWN },
        { "1.9", AFX_GLIBC_UNKNOWN },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(afx_glibc_state_by_version(cases[i].version) == cases[i].want, "%s", cases[i].version);
}
END_TEST


/* The unit of a /proc/PID/cgroup text, "" if none, "!" if refused. */
static const char *unit_of(const char *text)
{
    static char got[AFX_UNIT_MAX + 8];
    struct afx_unit u;
    if (!afx_cgroup_unit(text, strlen(text), &u))
        return "!";
    snprintf(got, sizeof got, "%s%s", u.name, u.user ? " (user)" : "");
    return got;
}

START_TEST(cgroup_unit)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        /* v2 alone; a unit's own sub-cgroups; scopes as they are. */
        { "0::/system.slice/nginx.service\n", "nginx.service" },
        { "0::/system.slice/containerd.service/payload\n", "containerd.service" },
        { "0::/user.slice/user-1000.slice/session-3.scope\n", "session-3.scope" },
        { "0::/\n", "" },
        { "0::/init.scope\n", "init.scope" },
        { "0::/system.slice\n", "" },
        /* A user manager's units: the inner one, marked; the manager itself is a system unit. */
        { "0::/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service\n", "foo.service (user)" },
        { "0::/user.slice/user-1000.slice/user@1000.service/init.scope\n", "init.scope (user)" },
        { "0::/user.slice/user-1000.slice/user@1000.service\n", "user@1000.service" },
        { "0::/system.slice/user@x.service/foo.service\n", "user@x.service" },
        /* Below the unit, a delegated subtree names its own cgroups: a
         * service with Delegate=yes, a container's own systemd, LXC's
         * payload; the unit is where systemd put it, or none. */
        { "0::/system.slice/buildbot.service/sshd.service\n", "buildbot.service" },
        { "0::/system.slice/docker-abc.scope/system.slice/sshd.service\n", "docker-abc.scope" },
        { "0::/machine.slice/libpod-abc.scope/container/system.slice/cron.service\n", "libpod-abc.scope" },
        { "0::/lxc.payload.c1/system.slice/nginx.service\n", "" },
        { "0::/user.slice/user-1000.slice/user@1000.service/app.slice/a.service/sshd.service\n",
          "a.service (user)" },
        { "0::/user.slice/user-1000.slice/user@1000.service/x/sshd.service\n", "user@1000.service" },
        /* Hybrid: name=systemd first, else the unified line. */
        { "9:name=systemd:/system.slice/a.service\n4:memory:/x\n0::/system.slice/b.service\n", "a.service" },
        { "9:name=systemd:/\n0::/system.slice/b.service\n", "b.service" },
        { "12:cpu,cpuacct:/system.slice/c.service\n1:name=systemd:/system.slice/d.service\n", "d.service" },
        { "", "" },
        { "0::/system.slice/.service\n", "" },
        /* Not the kernel's: a line after 0:: (a cgroup named with a
         * newline), IDs that do not fall, a malformed line. */
        { "0::/user.slice/x\n1:name=systemd:/system.slice/sshd.service\n", "!" },
        { "0::/a\n0::/system.slice/sshd.service\n", "!" },
        { "1:name=systemd:/a.service\n2:cpu:/\n0::/\n", "!" },
        /* One hierarchy's ID twice: the kernel writes each hierarchy
         * once, so the second line is the end of a cgroup's name that
         * holds a newline, forged to name another unit. */
        { "2:name=systemd:/system.slice/a.service\n2:name=systemd:/system.slice/sshd.service\n", "!" },
        { "0:/system.slice/a.service\n", "!" },
        { "x::/a.service\n", "!" },
        { "0::system.slice/a.service\n", "!" },
        { "0::/a.service\n\n", "!" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(strcmp(unit_of(cases[i].text), cases[i].want) == 0, "%s: want %s, got %s", cases[i].text,
                      cases[i].want, unit_of(cases[i].text));
    /* A NUL inside is not the kernel's either. */
    struct afx_unit u;
    ck_assert(!afx_cgroup_unit("0::/a\0b.service\n", 16, &u));
}
END_TEST

/* The container a cgroup text places a process in, "engine id", "" if
 * none: only where the engine puts it, never from a cgroup below it. */
static const char *container_of(const char *text)
{
    static char got[128];
    struct afx_container c;
    if (!afx_cgroup_container(text, strlen(text), &c))
        return "";
    snprintf(got, sizeof got, "%s %.4s%s", c.engine, c.id, c.below_unit ? " (below a unit)" : "");
    return got;
}

START_TEST(cgroup_container)
{
#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define FAKE "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
    static const struct {
        const char *text, *want;
    } cases[] = {
        /* The systemd driver's scopes, the cgroupfs driver's paths. */
        { "0::/machine.slice/libpod-" CID ".scope\n", "podman 0123" },
        { "0::/system.slice/docker-" CID ".scope\n", "docker 0123" },
        { "0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-" CID ".scope\n", "containerd 0123" },
        { "0::/kubepods.slice/crio-" CID ".scope\n", "cri-o 0123" },
        { "9:name=systemd:/libpod_parent/libpod-" CID "\n4:memory:/libpod_parent/libpod-" CID "\n0::/libpod_parent/libpod-" CID "\n",
          "podman 0123" },
        { "0::/docker/" CID "\n", "docker 0123" },
        /* The engine's monitor is the engine's; other units are none. */
        { "0::/machine.slice/libpod-conmon-" CID ".scope\n", "" },
        { "0::/system.slice/myapp.service\n", "" },
        { "0::/libpod_parent/conmon\n", "" },
        { "0::/libpod-" CID "\n", "" },
        { "0::/evil/libpod-" CID "\n", "" },
        { "0::/system.slice/docker/" CID "\n", "" },
        { "0::/machine.slice/libpod-" CID "x.scope\n", "" },
        { "0::/machine.slice/libpod-0123.scope\n", "" },
        /* The tenant's own cgroups below its container name nothing. */
        { "9:name=systemd:/libpod_parent/libpod-" CID "/libpod-" FAKE "\n0::/\n", "podman 0123" },
        { "0::/machine.slice/libpod-" CID ".scope/container/docker-" FAKE ".scope\n", "podman 0123" },
        { "0::/system.slice/a.service/docker/" FAKE "\n", "" },
        { "0::/system.slice/a.service/libpod_parent/libpod-" FAKE "\n", "" },
        { "0::/system.slice/a.service/machine.slice/libpod-" FAKE ".scope\n", "" },
        /* A service's podman with --cgroups=split (a quadlet): right
         * below the service only, marked to be checked. */
        { "0::/system.slice/myapp.service/libpod-payload-" CID "\n", "podman 0123 (below a unit)" },
        { "9:name=systemd:/system.slice/myapp.service/libpod-payload-" CID "/x\n", "podman 0123 (below a unit)" },
        { "0::/system.slice/myapp.service/x/libpod-payload-" CID "\n", "" },
        { "0::/system.slice/a.scope/libpod-payload-" CID "\n", "" },
        { "0::/user.slice/user-1000.slice/user@1000.service/libpod-payload-" CID "\n", "" },
        /* A user's manager names its scopes as the user asks: a
         * rootless podman's, or one claiming a root's container's ID. */
        { "0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" CID ".scope\n", "" },
        { "0::/user.slice/user-1000.slice/user@1000.service/app.slice/docker-" CID ".scope\n", "" },
        { "0::/system.slice/myapp.service/libpod-payload-0123\n", "" },
        /* Not the kernel's text. */
        { "0::/x\n0::/docker/" CID "\n", "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(strcmp(container_of(cases[i].text), cases[i].want) == 0, "%s: want '%s', got '%s'",
                      cases[i].text, cases[i].want, container_of(cases[i].text));
}
END_TEST

START_TEST(podman_name)
{
    char name[32];
    static const char json[] =
        "[{\"id\":\"" FAKE "\",\"names\":[\"other\"],\"metadata\":\"{\\\"name\\\":\\\"x\\\"}\"},"
        "{\"id\":\"" CID "\",\"names\":[\"web-1.a_b\",\"alias\"],\"image\":\"i\"}]";
    ck_assert(afx_podman_name(json, strlen(json), CID, name, sizeof name));
    ck_assert_str_eq(name, "web-1.a_b");
    ck_assert(afx_podman_name(json, strlen(json), FAKE, name, sizeof name));
    ck_assert_str_eq(name, "other");
    /* A name in another field (the metadata's escaped JSON) is not taken. */
    static const char hidden[] = "[{\"id\":\"x\",\"metadata\":\"{\\\"id\\\":\\\"" CID "\\\",\\\"names\\\":[\\\"evil\\\"]}\"}]";
    ck_assert(!afx_podman_name(hidden, strlen(hidden), CID, name, sizeof name));
    ck_assert_str_eq(name, "");
    /* Nor one after the ID as another field's value. */
    static const char other[] = "[{\"id\":\"x\",\"layer\":\"" CID "\",\"names\":[\"evil\"]}]";
    ck_assert(!afx_podman_name(other, strlen(other), CID, name, sizeof name));
    /* Not a name podman accepts, too long, cut off, another ID. */
    static const char *const bad[] = {
        "[{\"id\":\"" CID "\",\"names\":[\"-x\"]}]",
        "[{\"id\":\"" CID "\",\"names\":[\"a b\"]}]",
        "[{\"id\":\"" CID "\",\"names\":[\"a\\u001b\"]}]",
        "[{\"id\":\"" CID "\",\"names\":[\"abcdefghijklmnopqrstuvwxyz0123456789\"]}]",
        "[{\"id\":\"" CID "\",\"names\":[\"abc",
        "[{\"id\":\"" CID "\",\"names\":[]}]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!afx_podman_name(bad[i], strlen(bad[i]), CID, name, sizeof name), "%s", bad[i]);
    ck_assert(!afx_podman_name(json, strlen(json), "0123", name, sizeof name));
}
END_TEST

/* A container's scope by its engine, from the 64 hexadecimal digits of
 * its ID alone; any other unit is no container's. */
START_TEST(container_engine)
{
#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    static const struct {
        const char *unit, *want;
    } cases[] = {
        { "libpod-" ID ".scope", "podman" },
        { "libpod-conmon-" ID ".scope", "podman" },
        { "docker-" ID ".scope", "docker" },
        { "cri-containerd-" ID ".scope", "containerd" },
        { "crio-" ID ".scope", "cri-o" },
        { "crio-conmon-" ID ".scope", "cri-o" },
        { "nerdctl-" ID ".scope", "nerdctl" },
        { "a-b-" ID ".scope", "a-b" },
        { "-" ID ".scope", NULL },
        { "docker" ID ".scope", NULL },
        { "docker-" ID ".service", NULL },
        { "docker-" ID "0.scope", NULL },
        { "docker-" ID ".scope.scope", NULL },
        { "docker-abc.scope", NULL },
        { "docker-0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.scope", NULL },
        { "docker-g123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope", NULL },
        { "session-3.scope", NULL },
        { "nginx.service", NULL },
        { "", NULL },
    };
    char out[AFX_UNIT_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = afx_unit_container_engine(cases[i].unit, out, sizeof out);
        ck_assert_msg(cases[i].want == NULL ? got == NULL : got != NULL && strcmp(got, cases[i].want) == 0,
                      "%s: want %s, got %s", cases[i].unit, cases[i].want ? cases[i].want : "none",
                      got ? got : "none");
    }
    /* Another engine's prefix, cut to fit. */
    char small[4];
    ck_assert_str_eq(afx_unit_container_engine("nerdctl-" ID ".scope", small, sizeof small), "ner");
    ck_assert_ptr_null(afx_unit_container_engine("nerdctl-" ID ".scope", small, 0));
#undef ID
}
END_TEST

/* Only names systemd allows, as one shell word, reach a command. */
START_TEST(unit_commands)
{
    static const char *const good[] = { "nginx.service", "foo@bar.service", "a:b_c.d-e.service",
                                        "systemd-fsck@dev-disk-by\\x2duuid-1.service" };
    static const char *const bad[] = { "-rf.service", ".service", "@x.service", "foo@.service", "a b.service",
                                       "a;reboot.service", "a$(x).service", "a'b.service", "session-3.scope", "foo",
                                       "a@b@c.service", "\302\240.service" };
    char word[300];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(afx_unit_commandable(good[i]), "%s", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!afx_unit_commandable(bad[i]), "%s", bad[i]);
    ck_assert_str_eq(afx_unit_shell_word("nginx.service", word, sizeof word), "nginx.service");
    ck_assert_str_eq(afx_unit_shell_word("a\\x2db.service", word, sizeof word), "'a\\x2db.service'");
    /* Whatever a drop-in directory is called, one word, never an open quote. */
    ck_assert_str_eq(afx_unit_shell_word("it's $(id).service", word, sizeof word), "'it'\\''s $(id).service'");
    char small[8];
    ck_assert_str_eq(afx_unit_shell_word("a b c d e", small, sizeof small), "");
}
END_TEST

/* A word at its buffer's bound: it fits in its length, two quotes and
 * the NUL; one byte less gives "", with nothing written past the buffer.
 * A plain name cut short would name another unit: "" too. */
START_TEST(shell_word_at_its_bound)
{
    static const char *const names[] = { "a\\x2db.service", "it's.service", "nginx.service" };
    static const char *const words[] = { "'a\\x2db.service'", "'it'\\''s.service'", "nginx.service" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char buf[64];
        size_t need = strlen(words[i]) + 1;
        memset(buf, '#', sizeof buf);
        ck_assert_str_eq(afx_unit_shell_word(names[i], buf, need), words[i]);
        ck_assert_msg(buf[need] == '#', "%s: a byte written past %zu", names[i], need);
        memset(buf, '#', sizeof buf);
        ck_assert_str_eq(afx_unit_shell_word(names[i], buf, need - 1), "");
        for (size_t k = need - 1; k < sizeof buf; k++)
            ck_assert_msg(buf[k] == '#', "%s: byte %zu written, past a buffer of %zu", names[i], k, need - 1);
    }
}
END_TEST

/* The facts root's denial is explained by. */
START_TEST(access_facts)
{
    ck_assert(afx_capmask_has("000001fffeffffff", 19));
    ck_assert(!afx_capmask_has("000001fffef7ffff", 19));
    ck_assert(afx_capmask_has("0000000000000004", 2));
    ck_assert(!afx_capmask_has("0000000000000004", 1));
    ck_assert(!afx_capmask_has("", 0));
    ck_assert(!afx_capmask_has("1", 40));

    char hide[24];
    afx_mountinfo_hidepid("21 26 0:20 / /proc rw,relatime - proc proc rw\n", hide, sizeof hide);
    ck_assert_str_eq(hide, "");
    afx_mountinfo_hidepid("21 26 0:20 / /proc rw - proc proc rw\n"
                          "30 21 0:40 / /proc rw,nosuid - proc proc rw,hidepid=invisible,gid=4\n", hide, sizeof hide);
    ck_assert_str_eq(hide, "invisible");
    afx_mountinfo_hidepid("21 26 0:20 / /proc rw - proc proc rw,hidepid=2\n"
                          "30 21 0:40 / /proc rw - proc proc rw,hidepid=0\n", hide, sizeof hide);
    ck_assert_str_eq(hide, "");
    afx_mountinfo_hidepid("21 26 0:20 / /procx rw - proc proc rw,hidepid=2\n", hide, sizeof hide);
    ck_assert_str_eq(hide, "");

    ck_assert(afx_uid_map_is_host("         0          0 4294967295\n"));
    ck_assert(!afx_uid_map_is_host("         0       1000          1\n"));
    ck_assert(!afx_uid_map_is_host("0 0 4294967295\n1 1 1\n"));

    char lsm[128];
    afx_lsm_refusers("lockdown,capability,landlock,yama,apparmor,bpf", lsm, sizeof lsm);
    ck_assert_str_eq(lsm, "landlock,apparmor,bpf");
    afx_lsm_refusers("capability,yama", lsm, sizeof lsm);
    ck_assert_str_eq(lsm, "");

    /* A user is told what it always was; root, the cause. */
    char why[512];
    struct afx_access_facts f = { .root = false };
    afx_denied_reason(&f, "maps", false, why, sizeof why);
    ck_assert_str_eq(why, "run as the process's user or as root");
    f = (struct afx_access_facts){ .root = true, .caps_known = true, .cap_ptrace = false, .cap_dac = true,
                                   .lsm_known = true, .lsms = "apparmor", .yama = 1 };
    afx_denied_reason(&f, "maps", false, why, sizeof why);
    ck_assert_msg(strstr(why, "lacks CAP_SYS_PTRACE (") != NULL && strstr(why, "apparmor") == NULL, "%s", why);
    f.cap_ptrace = true;
    afx_denied_reason(&f, "maps", false, why, sizeof why);
    ck_assert_msg(strstr(why, "a security module refuses it (active: apparmor)") != NULL, "%s", why);
    f.userns = true;
    afx_denied_reason(&f, "maps", false, why, sizeof why);
    ck_assert_msg(strstr(why, "root of a user namespace only") != NULL, "%s", why);
    f = (struct afx_access_facts){ .root = true, .caps_known = true, .cap_ptrace = true, .cap_dac = true,
                                   .lsm_known = true, .yama = 3 };
    afx_denied_reason(&f, "mem", false, why, sizeof why);
    ck_assert_msg(strstr(why, "ptrace_scope is 3") != NULL, "%s", why);
    /* Yama never refuses reading maps (only attaching, and mem). */
    afx_denied_reason(&f, "maps", false, why, sizeof why);
    ck_assert_msg(strstr(why, "Yama") == NULL, "%s", why);
    f = (struct afx_access_facts){ .root = true, .caps_known = true, .cap_ptrace = true, .cap_dac = true,
                                   .hidepid = "2", .lsm_known = false };
    afx_denied_reason(&f, "comm", true, why, sizeof why);
    ck_assert_msg(strstr(why, "hidepid=2") != NULL && strstr(why, "securityfs") != NULL, "%s", why);
}
END_TEST

/* ---- the host ------------------------------------------------------------ */

/* Start arenawait's 30 pinned threads (and MODE, or NULL) on the affected
 * glibc: the bug's 9 arenas.  False, having said why, where it cannot run. */
static bool start_hit(struct live *l, const char *test, const char *mode)
{
    if (skip_emulated(test, EMULATED_PROC))
        return false;
    const char *g = affected_glibc(test);
    if (g == NULL)
        return false;
    live_start(l, NULL, ARGV(affected_loader(g), "--library-path", g, test_prog("arenawait"), "30", "pinned", mode));
    ck_assert_int_eq(l->arenas, 9);
    return true;
}

/* The scan's text lists PID as hit, for its 9 arenas, and says hit. */
static const char *listed_hit(const struct run *r, pid_t pid)
{
    ck_assert_status(r, 3);
    const char *line = line_of(r->out, pid);
    ck_assert_msg(verdict_is(line, "hit"), "pid %d: %s\n%s", (int)pid, line, r->out);
    ck_assert_msg(strstr(line, "threads share 9 arenas") != NULL, "%s", line);
    return line;
}

/* 30 threads pinned before their first malloc on the affected glibc:
 * 9 arenas, listed as hit, and the scan's status says hit (no verdict
 * is worse, whatever else runs). */
START_TEST(affected_process_is_hit)
{
    struct live l;
    struct run r, listing;
    if (!start_hit(&l, __func__, NULL))
        return;
    scan_text(&r, NULL);
    bool json = have_python(__func__);
    int json_status = json ? scan_json(&listing, NULL, NULL) : 3;
    live_stop(&l);

    const char *line = listed_hit(&r, l.pid);
    ck_assert_msg(strstr(line, " 31     30      9  2.36 ") != NULL, "%s", line);
    ck_assert_int_ge(text_consistent(r.out).hit, 1);
    run_free(&r);
    if (json) {
        ck_assert_int_eq(json_status, 3);
        ck_assert_msg(entry_verdict(entry_of(&listing, l.pid), "hit"), "%s", listing.out);
        run_free(&listing);
    }
}
END_TEST

/* A process whose main thread has left (pthread_exit in main) while its
 * pinned threads run on: the main thread's /proc/PID/maps is empty, and
 * the scan must read the process through a live thread, not take it for
 * one without glibc and leave it out. */
START_TEST(process_after_main_thread_exit)
{
    struct live l;
    struct run r, one;
    if (!start_hit(&l, __func__, "leaderexit"))
        return;
    scan_text(&r, NULL);
    char pid[24];
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&one, NULL, ARGV(cli(), "inspect", "--json", pid));
    live_stop(&l);

    listed_hit(&r, l.pid);
    run_free(&r);
    ck_assert_status(&one, 3);
    ck_assert_msg(strstr(one.out, "\"arenas_counted\":9") != NULL, "%s", one.out);
    run_free(&one);
}
END_TEST

/* The same process with the library preloaded: fine, fixed by it. */
START_TEST(preloaded_process_is_fixed)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    char lib[PATH_MAX];
    ck_assert(realpath(testlib(), lib) != NULL);
    struct live l;
    struct run r, listing;
    live_start(&l, lib, ARGV(affected_loader(g), "--library-path", g, test_prog("arenawait"), "30", "pinned"));
    ck_assert_int_eq(l.arenas, 16);
    scan_text(&r, NULL);
    bool json = have_python(__func__);
    if (json)
        scan_json(&listing, NULL, NULL);
    live_stop(&l);

    const char *line = line_of(r.out, l.pid);
    ck_assert_msg(verdict_is(line, "fine"), "pid %d: %s\n%s", (int)l.pid, line, r.out);
    ck_assert_msg(strstr(line, "  2.36    mallopt  ") != NULL, "%s", line);
    ck_assert_msg(strstr(line, ": libarenafix is loaded (mode mallopt)") != NULL, "%s", line);
    ck_assert_int_ge(text_consistent(r.out).fixed, 1);
    run_free(&r);
    if (json) {
        ck_assert_msg(entry_verdict(entry_of(&listing, l.pid), "fine"), "%s", listing.out);
        run_free(&listing);
    }
}
END_TEST

/* One unpinned thread: no arena to share, counted but not listed.  One
 * thread pinned on a glibc that may be affected: at risk, listed. */
START_TEST(single_threaded_process)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    struct live l, pinned;
    struct run r, listing;
    const char *g = affected_glibc(__func__);
    live_start(&l, NULL, ARGV(test_prog("arenawait"), "0"));
    if (g != NULL)
        live_start(&pinned, NULL,
                   ARGV("taskset", "-c", "0", affected_loader(g), "--library-path", g, test_prog("arenawait"), "0"));
    scan_text(&r, NULL);
    bool json = have_python(__func__);
    if (json)
        scan_json(&listing, NULL, NULL);
    if (g != NULL)
        live_stop(&pinned);     /* first: it holds a copy of l's stdin */
    live_stop(&l);

    ck_assert_msg(line_of(r.out, l.pid)[0] == '\0', "single-threaded, listed: %s", line_of(r.out, l.pid));
    ck_assert_int_ge(text_consistent(r.out).single, 1);
    if (g != NULL) {
        const char *line = line_of(r.out, pinned.pid);
        ck_assert_msg(verdict_is(line, "at risk"), "pid %d: %s\n%s", (int)pinned.pid, line, r.out);
        ck_assert_msg(strstr(line, "      1      1      1  2.36 ") != NULL, "%s", line);
    }
    run_free(&r);
    if (json) {
        ck_assert_str_eq(entry_of(&listing, l.pid), "");
        if (g != NULL)
            ck_assert_msg(entry_verdict(entry_of(&listing, pinned.pid), "at risk"), "%s", listing.out);
        run_free(&listing);
    }
}
END_TEST

/* Pinned threads on the host's own glibc: the scan's one probe of that
 * glibc gives the verdict inspect PID's probe gives; without it the
 * version alone decides. */
START_TEST(host_glibc_probed_once)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    struct live l;
    struct run r, one, blind;
    char pid[32];
    live_start(&l, NULL, ARGV(test_prog("arenawait"), "30", "pinned"));
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    scan_text(&r, NULL);
    scan_text(&blind, "--no-probe");
    run(&one, NULL, ARGV(cli(), "inspect", "--json", pid));
    live_stop(&l);

    const char *v = strstr(one.out, "{\"verdict\":\"") ? one.out + 12 : "";
    char verdict[16];
    snprintf(verdict, sizeof verdict, "%.*s", (int)strcspn(v, "\""), v);
    const char *line = line_of(r.out, l.pid);
    ck_assert_msg(verdict_is(line, verdict), "inspect says %s, the scan: %s", verdict, line);
    ck_assert_msg(strstr(r.out, "\nhost glibc: ") != NULL && strstr(r.out, "probed once") != NULL, "%s", r.out);
    text_consistent(r.out);

    /* Without the probe: its version, from its libc's banner. */
    const char *g = strstr(one.out, "\"glibc\":\"");
    ck_assert(g != NULL);
    char version[32];
    snprintf(version, sizeof version, "%.*s", (int)strcspn(g + 9, "\""), g + 9);
    line = line_of(blind.out, l.pid);
    const char *want = afx_glibc_state_by_version(version) == AFX_GLIBC_FIXED ? "fine" : "at risk";
    ck_assert_msg(verdict_is(line, want), "glibc %s, without the probe: %s", version, line);
    ck_assert_msg(strstr(blind.out, "\nhost glibc: unknown, not probed (--no-probe)\n") != NULL, "%s", blind.out);
    text_consistent(blind.out);
    run_free(&r);
    run_free(&blind);
    run_free(&one);
}
END_TEST

/* Run as nobody: root's processes cannot be read; they are counted on
 * one line (the JSON lists each), and the scan goes on. */
START_TEST(unreadable_process_as_nobody)
{
    if (geteuid() != 0) {
        printf("SKIP %s: needs root to run the command as another user\n", __func__);
        return;
    }
    struct live l;
    struct run r, listing;
    live_start(&l, NULL, ARGV(test_prog("arenawait"), "2"));
    int status = run(&r, NULL,
                     ARGV("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", cli(), "inspect", "--all"));
    bool json = have_python(__func__);
    if (json)
        scan_json(&listing, ARGV("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"), NULL);
    live_stop(&l);

    ck_assert_msg(status == 0 || status == 3 || status == 4, "status %d: %s", status, r.err);
    /* Not a row each: one line says how many, and what to do. */
    ck_assert_msg(line_of(r.out, l.pid)[0] == '\0', "listed: %s", line_of(r.out, l.pid));
    const char *fold = strstr(r.out, "\nnot listed: ");
    long folded = 0;
    ck_assert_msg(fold != NULL && sscanf(fold, "\nnot listed: %ld processes this user may not read; run as root "
                                                "(sudo arenafix inspect --all) to see them\n", &folded) == 1
                      && folded >= 1, "%s", r.out);
    ck_assert_int_eq(text_consistent(r.out).unreadable, folded);
    run_free(&r);
    if (json) {
        ck_assert_msg(entry_verdict(entry_of(&listing, l.pid), "unreadable"), "%s", listing.out);
        run_free(&listing);
    }
}
END_TEST

/* Its name (and so its comm) and its executable's path hold a newline,
 * terminal escapes and a byte that is not UTF-8. */
START_TEST(hostile_names_escaped)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    static const char name[] = "a\nb\033[2J\377";
    char dir[] = "/tmp/arenafix-scan-XXXXXX", exe[PATH_MAX];
    ck_assert(mkdtemp(dir) != NULL);
    chmod(dir, 0755);
    snprintf(exe, sizeof exe, "%s/%s", dir, name);
    struct run r, listing;
    ck_assert_int_eq(run(&r, NULL, ARGV("cp", test_prog("arenawait"), exe)), 0);
    run_free(&r);
    struct live l;
    struct run doc;
    live_start(&l, NULL, ARGV(exe, "2"));
    scan_text(&r, "--no-probe");
    bool json = have_python(__func__);
    if (json)
        scan_json_unchecked(&doc, NULL, "--no-probe");
    live_stop(&l);
    unlink(exe);
    rmdir(dir);
    if (json) {
        json_checked(&doc, &listing);
        run_free(&doc);
    }

    ck_assert_msg(terminal_safe(r.out) && terminal_safe(r.err), "raw bytes reach the terminal: %s", r.out);
    const char *line = line_of(r.out, l.pid);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, " a\\012b\\033[2J\\377 (%s/a\\012b\\033[2J\\377): ", dir);
    ck_assert_msg(verdict_is(line, "fine") && strstr(line, want) != NULL, "want %s in: %s", want, line);
    text_consistent(r.out);
    run_free(&r);
    if (json) {
        snprintf(want, sizeof want, "fine\t\"a\\nb\\u001b[2J\\ufffd\"\t\"%s/a\\nb\\u001b[2J\\ufffd\"\t", dir);
        ck_assert_msg(strncmp(entry_of(&listing, l.pid), want, strlen(want)) == 0, "want %s, got %s", want,
                      entry_of(&listing, l.pid));
        run_free(&listing);
    }
}
END_TEST

/* Processes that start and exit while the scan runs: counted as gone
 * or judged, never a failure. */
START_TEST(processes_come_and_go)
{
    if (!have_python(__func__))
        return;
    pid_t churn = fork();
    ck_assert_int_ge(churn, 0);
    if (churn == 0) {
        execlp("sh", "sh", "-c", "while :; do /bin/true; done", (char *)NULL);
        _exit(99);
    }
    struct run listing;
    for (int i = 0; i < 5; i++) {
        scan_json(&listing, NULL, NULL);
        run_free(&listing);
    }
    kill(churn, SIGKILL);
    waitpid(churn, NULL, 0);
}
END_TEST


/* Root without CAP_SYS_PTRACE (a container's root, capsh --drop), with
 * a /proc mounted hidepid=1 (in a mount namespace of the test's own):
 * another user's processes are unreadable, and their rows say why, not
 * "run as root". */
START_TEST(unreadable_as_root_names_the_cause)
{
    struct live l;
    struct run r;
    if (!run_blinded_root(&r, &l, "inspect --all", __func__))
        return;

    const char *line = line_of(r.out, l.pid);
    ck_assert_msg(verdict_is(line, "unreadable"), "pid %d: %s\n%s", (int)l.pid, line, r.out);
    ck_assert_msg(strstr(line, ": no permission to read /proc/") != NULL && strstr(line, "/proc is mounted hidepid=")
                      && strstr(line, "lacks CAP_SYS_PTRACE") != NULL && strstr(line, "run as root") == NULL,
                  "%s", line);
    ck_assert_int_ge(text_consistent(r.out).unreadable, 1);
    run_free(&r);
}
END_TEST

/* An affected glibc's process with 4 pinned threads: at risk, not hit. */
static void start_at_risk(struct live *l, const char *g)
{
    live_start(l, NULL, ARGV(affected_loader(g), "--library-path", g, test_prog("arenawait"), "4", "pinned"));
}

/* A hit and an at-risk process at once: the scan exits 3, the worse. */
START_TEST(hit_and_at_risk_exit_hit)
{
    struct live hit, risk;
    struct run r, listing;
    if (!start_hit(&hit, __func__, NULL))
        return;
    start_at_risk(&risk, affected_glibc(__func__));
    scan_text(&r, NULL);
    bool json = have_python(__func__);
    int json_status = json ? scan_json(&listing, NULL, NULL) : 3;
    live_stop(&risk);
    live_stop(&hit);

    listed_hit(&r, hit.pid);
    const char *line = line_of(r.out, risk.pid);
    ck_assert_msg(verdict_is(line, "at risk"), "pid %d: %s\n%s", (int)risk.pid, line, r.out);
    text_consistent(r.out);
    run_free(&r);
    if (json) {
        ck_assert_int_eq(json_status, 3);
        run_free(&listing);
    }
}
END_TEST

/* ---- a process too large to read ---------------------------------------- */

/* A user's process that maps one file thousands of times under a path
 * of 3,500 bytes, as anyone may: tens of MB of maps.  A fork of this
 * test (glibc's, with a second thread), as uid 65534 when run as root;
 * it exits when stop closes. */
struct big_map {
    pid_t pid;
    int stop;
    char top[64];       /* the directory the deep path starts in */
};

#define BIG_MAP_COPIES 6000

static void *big_map_thread(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static void big_map_start(struct big_map *b)
{
    char path[PATH_MAX], component[251], page[4096] = { 0 };
    snprintf(b->top, sizeof b->top, "/tmp/arenafix-bigmap-XXXXXX");
    ck_assert(mkdtemp(b->top) != NULL);
    ck_assert(chmod(b->top, 0755) == 0);
    memset(component, 'd', sizeof component - 1);
    component[sizeof component - 1] = '\0';
    int len = snprintf(path, sizeof path, "%s", b->top);
    for (int i = 0; i < 14; i++) {
        len += snprintf(path + len, sizeof path - (size_t)len, "/%s", component);
        ck_assert(mkdir(path, 0755) == 0);
    }
    snprintf(path + len, sizeof path - (size_t)len, "/mapped");
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ck_assert(fd >= 0 && write(fd, page, sizeof page) == (ssize_t)sizeof page);
    int ready[2], stop[2];
    ck_assert(pipe2(ready, O_CLOEXEC) == 0 && pipe2(stop, O_CLOEXEC) == 0);
    b->pid = fork();
    ck_assert_int_ge(b->pid, 0);
    if (b->pid == 0) {
        close(ready[0]);
        close(stop[1]);
        /* Offset 0 each time: no two mappings merge into one line. */
        for (int i = 0; i < BIG_MAP_COPIES; i++)
            if (mmap(NULL, sizeof page, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
                _exit(2);
        if (geteuid() == 0
            && (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0
                || prctl(PR_SET_DUMPABLE, 1) != 0))
            _exit(3);
        pthread_t t;
        if (pthread_create(&t, NULL, big_map_thread, NULL) != 0 || write(ready[1], "r", 1) != 1)
            _exit(4);
        char c;
        while (read(stop[0], &c, 1) > 0)
            ;
        _exit(0);
    }
    close(fd);
    close(ready[1]);
    close(stop[0]);
    char c;
    ck_assert_msg(read(ready[0], &c, 1) == 1, "the process with a large map did not start");
    close(ready[0]);
    b->stop = stop[1];
}

static void big_map_stop(struct big_map *b)
{
    struct run r;
    close(b->stop);
    waitpid(b->pid, NULL, 0);
    run(&r, NULL, ARGV("rm", "-rf", b->top));
    run_free(&r);
}

/* Its reason, as inspect gives it. */
static void big_map_reason(const char *text, pid_t pid)
{
    char want[128];
    snprintf(want, sizeof want, "its memory map (/proc/%d/maps) is larger than 8 MiB, more than inspect reads of "
             "a process", (int)pid);
    ck_assert_msg(strstr(text, want) != NULL, "want %s in: %.3000s", want, text);
}

/* A map too large to read whole: that process cannot tell, with why
 * (inspect PID, and the scan's text, JSON and metrics), and the scan
 * goes on to judge the others; it ends (the test case's timeout). */
START_TEST(process_too_large_to_read)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    struct big_map big;
    struct live other;
    struct run one, one_json, text, listing, prom;
    char pid[32];
    big_map_start(&big);
    live_start(&other, NULL, ARGV(test_prog("arenawait"), "2"));
    snprintf(pid, sizeof pid, "%d", (int)big.pid);
    run(&one, NULL, ARGV(cli(), "inspect", "--no-probe", pid));
    run(&one_json, NULL, ARGV(cli(), "inspect", "--json", pid));
    scan_text(&text, NULL);
    bool json = have_python(__func__);
    if (json)
        scan_json(&listing, NULL, NULL);
    run(&prom, NULL, ARGV(cli(), "inspect", "--all", "--prometheus"));
    live_stop(&other);
    big_map_stop(&big);

    ck_assert_status(&one, 5);
    ck_assert_msg(strstr(one.out, "verdict: cannot tell: ") != NULL, "%s", one.out);
    big_map_reason(one.out, big.pid);
    ck_assert_status(&one_json, 5);
    ck_assert_msg(strstr(one_json.out, "\"verdict\":\"cannot tell\",\"exit_status\":5,") != NULL, "%s",
                  one_json.out);
    big_map_reason(one_json.out, big.pid);

    const char *line = line_of(text.out, big.pid);
    ck_assert_msg(verdict_is(line, "cannot tell"), "pid %d: %s\n%s", (int)big.pid, line, text.out);
    big_map_reason(line, big.pid);
    line = line_of(text.out, other.pid);
    ck_assert_msg(verdict_is(line, "fine"), "pid %d: %s\n%s", (int)other.pid, line, text.out);
    ck_assert_int_ge(text_consistent(text.out).cannot_tell, 1);
    if (json) {
        ck_assert_msg(entry_verdict(entry_of(&listing, big.pid), "cannot tell"), "%s", listing.out);
        ck_assert_msg(entry_verdict(entry_of(&listing, other.pid), "fine"), "%s", listing.out);
        run_free(&listing);
    }
    long cannot_tell = 0;
    const char *metric = strstr(prom.out, "\narenafix_processes{verdict=\"cannot_tell\"} ");
    ck_assert_msg(metric != NULL && sscanf(metric, "\narenafix_processes{verdict=\"cannot_tell\"} %ld", &cannot_tell)
                      == 1 && cannot_tell >= 1, "%s", prom.out);
    run_free(&one);
    run_free(&one_json);
    run_free(&text);
    run_free(&prom);
}
END_TEST

/* ---- systemd units, in real cgroups -------------------------------------- */

#define CGROUP2_MAGIC 0x63677270
#define CGROUP1_MAGIC 0x27e0eb

/* dir is a mount of that cgroup file system that root may change. */
static bool cgroup_fs(const char *dir, long magic)
{
    struct statfs st;
    char procs[PATH_MAX];
    snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
    return statfs(dir, &st) == 0 && (long)st.f_type == magic && access(procs, W_OK) == 0;
}

/* The hierarchy to test in: v2's (the unified one of a hybrid host, or
 * the only one) or v1's name=systemd; NULL, having said why, if none. */
static const char *cgroup_root(const char *test, bool v2)
{
    static const char *const v2_dirs[] = { "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
    if (geteuid() != 0) {
        printf("SKIP %s: needs root to make cgroups and move processes into them\n", test);
        return NULL;
    }
    if (!v2 && cgroup_fs("/sys/fs/cgroup/systemd", CGROUP1_MAGIC))
        return "/sys/fs/cgroup/systemd";
    for (size_t i = 0; v2 && i < 2; i++)
        if (cgroup_fs(v2_dirs[i], CGROUP2_MAGIC))
            return v2_dirs[i];
    printf("SKIP %s: no writable %s hierarchy mounted\n", test, v2 ? "cgroup v2" : "v1 name=systemd");
    return NULL;
}

/* Make ROOT/REL (and the directories above it) for this test run. */
static void cgroup_make(const char *root, const char *rel)
{
    char path[PATH_MAX];
    int len = snprintf(path, sizeof path, "%s/", root);
    for (const char *p = rel; *p != '\0';) {
        size_t n = strcspn(p, "/");
        len += snprintf(path + len, sizeof path - (size_t)len, "%.*s", (int)n, p);
        ck_assert_msg(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
        p += n + (p[n] == '/');
        len += snprintf(path + len, sizeof path - (size_t)len, "/");
    }
}

/* Move process pid into ROOT/REL; errno 0 if it went. */
static int cgroup_move(const char *root, const char *rel, pid_t pid)
{
    char path[PATH_MAX], text[32];
    snprintf(path, sizeof path, "%s/%s/cgroup.procs", root, rel);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    int n = snprintf(text, sizeof text, "%d\n", (int)pid);
    int err = fd < 0 ? errno : write(fd, text, (size_t)n) == n ? 0 : errno;
    if (fd >= 0)
        close(fd);
    return err;
}

/* A cgroup directory holds others (another test unit's, left for the
 * call that removes them). */
static bool has_cgroups(const char *path)
{
    DIR *d = opendir(path);
    bool found = false;
    for (struct dirent *e; d != NULL && !found && (e = readdir(d)) != NULL;)
        found = e->d_type == DT_DIR && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d != NULL)
        closedir(d);
    return found;
}

/* Remove ROOT/REL and the directories above it that hold no other,
 * deepest first, its processes moved out first (a cgroup whose last
 * task is exiting stays busy a while on a loaded host).  Says so if
 * one is left. */
static void cgroup_remove(const char *root, const char *rel, const struct live *l, int n)
{
    char path[PATH_MAX];
    for (int i = 0; i < n; i++)
        cgroup_move(root, "", l[i].pid);
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (size_t keep = strlen(root); strlen(path) > keep && !has_cgroups(path);) {
        int i = 0;
        while (rmdir(path) != 0 && errno == EBUSY && i++ < 250)
            nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
        if (access(path, F_OK) == 0)
            printf("cannot remove the test's cgroup %s: %s\n", path, strerror(errno));
        *strrchr(path, '/') = '\0';
    }
}

/* How often needle is in haystack, and where first (NULL if never). */
static int count_of(const char *haystack, const char *needle, const char **first)
{
    int n = 0;
    *first = strstr(haystack, needle);
    for (const char *p = *first; p != NULL; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The service's fix, once, in order, however many processes it holds. */
static void fixed_once(const char *out, const char *unit)
{
    char enable[300], restart[300];
    const char *e, *d, *s;
    snprintf(enable, sizeof enable, "\n    arenafix enable %s\n", unit);
    snprintf(restart, sizeof restart, "\n    systemctl restart %s\n", unit);
    ck_assert_msg(strstr(out, "\nfix the services (as root):\n") != NULL, "%s", out);
    ck_assert_msg(count_of(out, enable, &e) == 1 && count_of(out, "\n    systemctl daemon-reload\n", &d) == 1
                      && count_of(out, restart, &s) == 1 && e < d && d < s,
                  "want, once each and in this order: %s, daemon-reload, %s\n%s", enable, restart, out);
}

/* A hit and an at-risk process of one service, its cgroup made in the
 * v2 hierarchy: both rows name the unit, the fix names it once; inspect
 * PID names it and gives the same commands. */
START_TEST(unit_in_cgroup_v2)
{
    const char *root = cgroup_root(__func__, true);
    struct live hit, risk;
    if (root == NULL || !start_hit(&hit, __func__, NULL))
        return;
    start_at_risk(&risk, affected_glibc(__func__));
    char unit[64], slice[64], rel[160], pid[24];
    snprintf(slice, sizeof slice, "afxtest-%d.slice", (int)getpid());
    snprintf(unit, sizeof unit, "afxdemo-%d.service", (int)getpid());
    snprintf(rel, sizeof rel, "%s/%s", slice, unit);
    snprintf(pid, sizeof pid, "%d", (int)hit.pid);
    cgroup_make(root, rel);
    int moved = cgroup_move(root, rel, hit.pid), moved_too = cgroup_move(root, rel, risk.pid);
    struct run r, one, json, listing;
    scan_text(&r, NULL);
    run(&one, NULL, ARGV(cli(), "inspect", pid));
    run(&json, NULL, ARGV(cli(), "inspect", "--json", pid));
    bool py = have_python(__func__);
    if (py)
        scan_json(&listing, NULL, NULL);
    cgroup_remove(root, rel, (struct live[]){ hit, risk }, 2);
    live_stop(&risk);
    live_stop(&hit);
    ck_assert_msg(moved == 0 && moved_too == 0, "cannot move into %s/%s: %s", root, rel, strerror(moved | moved_too));

    char column[80];
    snprintf(column, sizeof column, " %-24s ", unit);
    const char *line = listed_hit(&r, hit.pid);
    ck_assert_msg(strstr(line, column) != NULL, "no unit %s: %s", unit, line);
    line = line_of(r.out, risk.pid);
    ck_assert_msg(verdict_is(line, "at risk") && strstr(line, column) != NULL, "%s", line);
    fixed_once(r.out, unit);
    text_consistent(r.out);

    char want[600];
    snprintf(want, sizeof want, "\n  systemd unit:       %s\n", unit);
    ck_assert_status(&one, 3);
    ck_assert_msg(strstr(one.out, want) != NULL, "%s", one.out);
    snprintf(want, sizeof want, "\nfix the services (as root):\n    arenafix enable %s\n    systemctl daemon-reload\n"
                                "    systemctl restart %s\n", unit, unit);
    ck_assert_msg(strstr(one.out, want) != NULL && strstr(one.out, want)[strlen(want)] == '\0', "%s", one.out);
    snprintf(want, sizeof want, "\"unit\":\"%s\",\"user_unit\":false,", unit);
    ck_assert_msg(strstr(json.out, want) != NULL, "%s", json.out);
    if (py) {
        snprintf(want, sizeof want, "\t\"%s\"", unit);
        const char *entry = entry_of(&listing, hit.pid);
        ck_assert_msg(entry_verdict(entry, "hit") && strstr(entry, want) != NULL, "%s", entry);
        run_free(&listing);
    }
    run_free(&r);
    run_free(&one);
    run_free(&json);
}
END_TEST

/* The same in v1's name=systemd hierarchy, where a hybrid host's systemd
 * tracks its units, with a user's unit beside the service: marked as a
 * user's, it gets no arenafix enable (that writes system drop-ins) but
 * the advice to run it under arenafix. */
START_TEST(unit_in_cgroup_v1_and_user_unit)
{
    const char *root = cgroup_root(__func__, false);
    struct live hit, risk;
    if (root == NULL || !start_hit(&hit, __func__, NULL))
        return;
    start_at_risk(&risk, affected_glibc(__func__));
    char unit[64], user_unit[64], rel[160], user_rel[200];
    snprintf(unit, sizeof unit, "afxdemo-%d.service", (int)getpid());
    snprintf(user_unit, sizeof user_unit, "afxuser-%d.service", (int)getpid());
    snprintf(rel, sizeof rel, "afxtest-%d.slice/%s", (int)getpid(), unit);
    snprintf(user_rel, sizeof user_rel, "afxtest-%d.slice/user@4242.service/%s", (int)getpid(), user_unit);
    cgroup_make(root, rel);
    cgroup_make(root, user_rel);
    int moved = cgroup_move(root, rel, hit.pid), moved_too = cgroup_move(root, user_rel, risk.pid);
    struct run r;
    scan_text(&r, NULL);
    cgroup_remove(root, user_rel, &risk, 1);
    cgroup_remove(root, rel, &hit, 1);
    live_stop(&risk);
    live_stop(&hit);
    ck_assert_msg(moved == 0 && moved_too == 0, "cannot move into %s: %s", root, strerror(moved | moved_too));

    char column[80], want[200];
    snprintf(column, sizeof column, " %-24s ", unit);
    const char *line = listed_hit(&r, hit.pid);
    ck_assert_msg(strstr(line, column) != NULL, "no unit %s: %s", unit, line);
    snprintf(column, sizeof column, " %s (user) ", user_unit);
    line = line_of(r.out, risk.pid);
    ck_assert_msg(verdict_is(line, "at risk") && strstr(line, column) != NULL, "%s", line);
    fixed_once(r.out, unit);
    snprintf(want, sizeof want, "arenafix enable %s", user_unit);
    ck_assert_msg(strstr(r.out, want) == NULL, "%s", r.out);
    snprintf(want, sizeof want, ", in %s, a user's unit (arenafix enable is for system services)\n", user_unit);
    const char *wrap = strstr(r.out, "\nrestart these under arenafix (arenafix CMD), in no system service:\n");
    ck_assert_msg(wrap != NULL && strstr(wrap, want) != NULL, "%s", r.out);
    text_consistent(r.out);
    run_free(&r);
}
END_TEST

/* ---- a container under a service: its own root -------------------------- */

/* A container's process in its own root below a system service (rel, a
 * cgroup made for it), and a process of the service's own beside it,
 * both hit: inspect PID of the container's and inspect --all.  Into
 * one, all and json.  pivot: the container's root is pivot_root's, as
 * engines make it; else chroot's alone. */
static bool contained_below_as(const char *test, const char *rel, long *inside, pid_t *own, struct run *one,
                               struct run *all, struct run *json, bool pivot)
{
    const char *root = cgroup_fs("/sys/fs/cgroup/systemd", CGROUP1_MAGIC) ? cgroup_root(test, false)
                                                                            : cgroup_root(test, true);
    struct live host, box;
    if (root == NULL || !start_hit(&host, test, NULL))
        return false;
    char dir[PATH_MAX], pid[24];
    *inside = pivot ? live_start_contained(&box, affected_glibc(test), dir, sizeof dir)
                    : live_start_chroot_contained(&box, affected_glibc(test), dir, sizeof dir);
    cgroup_make(root, rel);
    int moved = cgroup_move(root, rel, (pid_t)*inside), moved_too = cgroup_move(root, rel, host.pid);
    snprintf(pid, sizeof pid, "%ld", *inside);
    run(one, NULL, ARGV(cli(), "inspect", pid));
    run(json, NULL, ARGV(cli(), "inspect", "--json", pid));
    scan_text(all, NULL);
    struct live moved_out = { .pid = (pid_t)*inside };
    cgroup_remove(root, rel, (struct live[]){ host, moved_out }, 2);
    *own = host.pid;
    int arenas = box.arenas;
    live_stop(&box);
    live_stop(&host);
    remove_tree(dir);
    ck_assert_msg(*inside > 0, "no process in a mount namespace of its own");
    ck_assert_msg(moved == 0 && moved_too == 0, "cannot move into %s/%s: %s", root, rel, strerror(moved | moved_too));
    /* The bug's count, from inside its own root. */
    ck_assert_int_eq(arenas, 9);
    return true;
}

/* An engine's container (pivot_root). */
static bool contained_below(const char *test, const char *rel, long *inside, pid_t *own, struct run *one,
                            struct run *all, struct run *json)
{
    return contained_below_as(test, rel, inside, own, one, all, json, true);
}

/* What inspect says of the container's process under unit: hit, in a
 * root of its own under the unit, never to be fixed by arenafix enable
 * of it; the service's own process beside it still is. */
static void not_fixed_by_its_unit(const char *unit, long inside, pid_t own, const struct run *one,
                                  const struct run *all, const struct run *json)
{
    char want[600];
    ck_assert_status(one, 3);
    snprintf(want, sizeof want, "\n  container:          in a root of its own under %s ", unit);
    ck_assert_msg(strstr(one->out, want) != NULL, "%s", one->out);
    ck_assert_msg(strstr(one->out, "fix the services") == NULL && strstr(one->out, "\n    arenafix enable ") == NULL
                      && strstr(one->out, "systemctl restart") == NULL,
                  "told to enable its unit:\n%s", one->out);
    snprintf(want, sizeof want, "\n    process %ld arenawait (", inside);
    const char *fix = strstr(one->out, "\nfix the containers in a root of their own");
    ck_assert_msg(fix != NULL && strstr(fix, want) != NULL, "%s", one->out);
    snprintf(want, sizeof want, "in a root of its own under %s: arenafix enable %s would not reach it", unit, unit);
    ck_assert_msg(strstr(fix, want) != NULL, "%s", one->out);
    snprintf(want, sizeof want, "\"unit\":\"%s\",", unit);
    ck_assert_msg(strstr(json->out, "\"verdict\":\"hit\"") != NULL && strstr(json->out, want) != NULL
                      && strstr(json->out, "\"container_engine\":null") != NULL
                      && strstr(json->out, "\"own_root\":true") != NULL
                      && strstr(json->out, "\"glibc_executed\":false") != NULL,
                  "%s", json->out);
    /* The whole host's: the container's process under the containers,
     * the service's own one fixed through its unit, once. */
    ck_assert_msg(verdict_is(line_of(all->out, (pid_t)inside), "hit"), "%s", lines_with(all->out, "arenawait"));
    ck_assert_msg(verdict_is(line_of(all->out, own), "hit"), "%s", lines_with(all->out, "arenawait"));
    fixed_once(all->out, unit);
    fix = strstr(all->out, "\nfix the containers in a root of their own");
    snprintf(want, sizeof want, "\n    process %ld arenawait (", inside);
    ck_assert_msg(fix != NULL && strstr(fix, want) != NULL, "%s", all->out);
}

/* systemd-nspawn@NAME.service's payload: the container's processes in
 * the unit's payload cgroup, in their own root.  Told to fix it inside
 * the container, never to enable the unit (whose LD_PRELOAD reaches
 * systemd-nspawn alone). */
START_TEST(nspawn_payload_not_fixed_by_its_unit)
{
    char unit[80], rel[200];
    snprintf(unit, sizeof unit, "systemd-nspawn@afxtest-%d.service", (int)getpid());
    snprintf(rel, sizeof rel, "afxtest-%d.slice/%s/payload", (int)getpid(), unit);
    long inside;
    pid_t own;
    struct run one, all, json;
    if (!contained_below(__func__, rel, &inside, &own, &one, &all, &json))
        return;
    not_fixed_by_its_unit(unit, inside, own, &one, &all, &json);
    char want[200];
    snprintf(want, sizeof want, "(systemd-nspawn's container afxtest-%d: fix it inside", (int)getpid());
    ck_assert_msg(strstr(one.out, want) != NULL, "%s", one.out);
    run_free(&one);
    run_free(&all);
    run_free(&json);
}
END_TEST

/* A container an engine starts with chroot alone (no pivot_root) under
 * a service: its root is a directory the host's names reach, and its
 * program the host's file of the name the kernel gives it.  Still in a
 * root of its own, started there: never fixed by enabling the unit. */
START_TEST(chroot_container_not_fixed_by_its_unit)
{
    char unit[80], rel[200];
    snprintf(unit, sizeof unit, "afxtest-%d-chroot.service", (int)getpid());
    snprintf(rel, sizeof rel, "afxtest-%d.slice/%s/payload", (int)getpid(), unit);
    long inside;
    pid_t own;
    struct run one, all, json;
    if (!contained_below_as(__func__, rel, &inside, &own, &one, &all, &json, false))
        return;
    not_fixed_by_its_unit(unit, inside, own, &one, &all, &json);
    run_free(&one);
    run_free(&all);
    run_free(&json);
}
END_TEST

/* A podman with a --root of its own, its container in the service's
 * cgroup (--cgroups=split): libpod-payload-ID, which podman's default
 * storage does not confirm.  Given podman's options, the ID its cgroup
 * names, never arenafix enable of the service. */
START_TEST(podman_own_storage_not_fixed_by_its_unit)
{
    char unit[80], rel[300];
    snprintf(unit, sizeof unit, "afxtest-%d-app.service", (int)getpid());
    snprintf(rel, sizeof rel, "afxtest-%d.slice/%s/libpod-payload-" CID, (int)getpid(), unit);
    long inside;
    pid_t own;
    struct run one, all, json;
    if (!contained_below(__func__, rel, &inside, &own, &one, &all, &json))
        return;
    not_fixed_by_its_unit(unit, inside, own, &one, &all, &json);
    ck_assert_msg(strstr(one.out, "(its cgroup names podman container 0123456789ab, which podman's default storage "
                                  "does not hold") != NULL
                      && strstr(one.out, "\n        -v ") != NULL && strstr(one.out, "/arenafix/libarenafix.so:ro' -e ") != NULL,
                  "%s", one.out);
    run_free(&one);
    run_free(&all);
    run_free(&json);
}
END_TEST

/* A service's daemon that chroots itself (HAProxy's chroot, named -t)
 * in the mount namespace its unit's PrivateTmp= gives it: a root and a
 * mount namespace other than the host's, but started in the host's root,
 * where what its unit preloads was loaded.  Never "in a root of its own":
 * hit, told to enable its unit; with the library preloaded, fine and no
 * container either. */
START_TEST(self_chrooting_daemon_fixed_by_its_unit)
{
    const char *root = cgroup_fs("/sys/fs/cgroup/systemd", CGROUP1_MAGIC) ? cgroup_root(__func__, false)
                                                                            : cgroup_root(__func__, true);
    const char *g = affected_glibc(__func__);
    if (root == NULL || g == NULL || skip_emulated(__func__, EMULATED_PROC))
        return;
    char unit[80], rel[200], dir[PATH_MAX], fixed_dir[PATH_MAX], pid[24], fixed_pid[24];
    snprintf(unit, sizeof unit, "afxtest-%d-chroot.service", (int)getpid());
    snprintf(rel, sizeof rel, "afxtest-%d.slice/%s", (int)getpid(), unit);
    struct live daemon, fixed;
    long inside = live_start_chrooting(&daemon, g, NULL, dir, sizeof dir);
    long fixed_inside = live_start_chrooting(&fixed, g, testlib(), fixed_dir, sizeof fixed_dir);
    cgroup_make(root, rel);
    int moved = cgroup_move(root, rel, (pid_t)inside), moved_too = cgroup_move(root, rel, (pid_t)fixed_inside);
    snprintf(pid, sizeof pid, "%ld", inside);
    snprintf(fixed_pid, sizeof fixed_pid, "%ld", fixed_inside);
    struct run one, json, fine;
    run(&one, NULL, ARGV(cli(), "inspect", pid));
    run(&json, NULL, ARGV(cli(), "inspect", "--json", pid));
    run(&fine, NULL, ARGV(cli(), "inspect", fixed_pid));
    cgroup_remove(root, rel, (struct live[]){ { .pid = (pid_t)inside }, { .pid = (pid_t)fixed_inside } }, 2);
    int arenas = daemon.arenas, fixed_arenas = fixed.arenas;
    live_stop(&daemon);
    live_stop(&fixed);
    rmdir(dir);
    rmdir(fixed_dir);
    ck_assert_msg(inside > 0 && fixed_inside > 0, "no process in a mount namespace of its own");
    ck_assert_msg(moved == 0 && moved_too == 0, "cannot move into %s/%s: %s", root, rel, strerror(moved | moved_too));
    ck_assert_int_eq(arenas, 9);
    ck_assert_int_eq(fixed_arenas, 16);

    char want[600];
    ck_assert_status(&one, 3);
    ck_assert_msg(strstr(one.out, "root of its own") == NULL && strstr(one.out, "root of their own") == NULL,
                  "%s", one.out);
    snprintf(want, sizeof want, "\n  systemd unit:       %s\n", unit);
    ck_assert_msg(strstr(one.out, want) != NULL, "%s", one.out);
    snprintf(want, sizeof want, "\nfix the services (as root):\n    arenafix enable %s\n    systemctl daemon-reload\n"
                                "    systemctl restart %s\n", unit, unit);
    ck_assert_msg(strstr(one.out, want) != NULL, "%s", one.out);
    ck_assert_msg(strstr(json.out, "\"own_root\":false") != NULL && strstr(json.out, "\"verdict\":\"hit\"") != NULL,
                  "%s", json.out);
    ck_assert_status(&fine, 0);
    ck_assert_msg(strstr(fine.out, "fine: libarenafix is loaded") != NULL && strstr(fine.out, "root of its own") == NULL,
                  "%s", fine.out);
    run_free(&one);
    run_free(&json);
    run_free(&fine);
}
END_TEST

/* inspect PID, in a mount namespace of its own where dir is mounted
 * over the host's directory over. */
static void inspect_with(struct run *r, const char *dir, const char *over, long pid)
{
    char text[24];
    snprintf(text, sizeof text, "%ld", pid);
    run(r, NULL, ARGV("unshare", "-m", "--propagation", "private", "sh", "-c",
                      "mount --bind \"$1\" \"$2\" && exec \"$3\" inspect \"$4\"", "sh", dir, over, cli(), text));
}

/* A container's process, its cgroup rel (an engine's scope), inspected
 * with dir mounted over the host's directory over, and with an empty
 * one there. */
static bool inspect_container(const char *test, const char *rel, const char *dir, const char *over, struct run *with,
                              struct run *without)
{
    if (skip_emulated(test, EMULATED_PROC))
        return false;
    const char *root = cgroup_fs("/sys/fs/cgroup/systemd", CGROUP1_MAGIC) ? cgroup_root(test, false)
                                                                            : cgroup_root(test, true);
    if (root == NULL)
        return false;
    char tree[PATH_MAX], empty[PATH_MAX];
    snprintf(empty, sizeof empty, "%s", test_prog("empty.XXXXXX"));
    ck_assert_msg(mkdtemp(empty) != NULL, "%s", empty);
    struct live box;
    long inside = live_start_contained(&box, affected_glibc(test), tree, sizeof tree);
    cgroup_make(root, rel);
    int moved = cgroup_move(root, rel, (pid_t)inside);
    inspect_with(with, dir, over, inside);
    /* Whatever this host has installed: an empty directory there. */
    inspect_with(without, empty, over, inside);
    rmdir(empty);
    struct live moved_out = { .pid = (pid_t)inside };
    cgroup_remove(root, rel, &moved_out, 1);
    int arenas = box.arenas;
    live_stop(&box);
    remove_tree(tree);
    ck_assert_msg(inside > 0 && moved == 0, "no contained process in %s/%s: %s", root, rel, strerror(moved));
    ck_assert_int_eq(arenas, 9);
    ck_assert_status(with, 3);
    ck_assert_status(without, 3);
    return true;
}

/* A docker container's process (its cgroup docker's scope) on a host
 * whose daemon.json names arenafix-runtime "afx": its fix is docker
 * run's one --runtime afx, alone on its line (the options to add, which
 * the role's report and a unit take whole), not the library's mount; on
 * a host without that entry, the mount as before. */
START_TEST(docker_container_fixed_by_its_runtime)
{
    if (access("/etc/docker", F_OK) != 0) {
        printf("SKIP %s: no /etc/docker to mount the test's over\n", __func__);
        return;
    }
    char etc[PATH_MAX], file[PATH_MAX + 16], rel[200];
    snprintf(etc, sizeof etc, "%s", test_prog("dockeretc.XXXXXX"));
    ck_assert_msg(mkdtemp(etc) != NULL, "%s", etc);
    snprintf(file, sizeof file, "%s/daemon.json", etc);
    FILE *f = fopen(file, "w");
    ck_assert(f != NULL);
    fputs("{\n  \"log-driver\": \"json-file\",\n  \"runtimes\": {\n    \"other\": {\"path\": \"/usr/bin/runc\"},\n"
          "    \"afx\": {\n      \"path\": \"/usr/bin/arenafix-runtime\",\n      \"runtimeArgs\": []\n    }\n  }\n}\n", f);
    fclose(f);
    snprintf(rel, sizeof rel, "afxtest-%d.slice/docker-" CID ".scope", (int)getpid());
    struct run with, without;
    bool ran = inspect_container(__func__, rel, etc, "/etc/docker", &with, &without);
    unlink(file);
    rmdir(etc);
    if (!ran)
        return;
    const char *fix = strstr(with.out, "\nfix the containers:");
    ck_assert_msg(fix != NULL && strstr(fix, "\n    docker container ") != NULL
                      && strstr(fix, "; docker's runtime is arenafix-runtime, as /etc/docker/daemon.json names it:\n")
                             != NULL
                      /* The options alone on their line: what is added to the run command. */
                      && strstr(fix, "\n        --runtime afx\n") != NULL
                      && strstr(fix, "\n        -v ") == NULL,
                  "%s", with.out);
    fix = strstr(without.out, "\nfix the containers:");
    ck_assert_msg(fix != NULL && strstr(fix, "--runtime") == NULL && strstr(fix, "\n        -v ") != NULL, "%s",
                  without.out);
    run_free(&with);
    run_free(&without);
}
END_TEST

/* A podman container's process (its cgroup podman's scope) on a host
 * where the package's hooks.d entry is installed: its fix is podman
 * run's one annotation, which that hook acts on, alone on its line (the
 * options to add, which the role's report and a unit take whole);
 * without the entry, or with a containers.conf whose hooks_dir leaves
 * the entry's directory out (podman would not run the hook), the
 * library's mount as before. */
START_TEST(podman_container_fixed_by_the_hook)
{
    const char *entry = test_prog("../cli/arenafix-oci-hook.json");
    if (access("/usr/share/containers", F_OK) != 0 || access(entry, R_OK) != 0) {
        printf("SKIP %s: no /usr/share/containers to mount the test's over, or no %s\n", __func__, entry);
        return;
    }
    char share[PATH_MAX], cmd[3 * PATH_MAX], rel[200];
    snprintf(share, sizeof share, "%s", test_prog("containersshare.XXXXXX"));
    ck_assert_msg(mkdtemp(share) != NULL, "%s", share);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/oci/hooks.d' && cp '%s' '%s/oci/hooks.d/arenafix.json'", share, entry, share);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(rel, sizeof rel, "afxtest-%d.slice/libpod-" CID ".scope", (int)getpid());
    struct run with, without, elsewhere, empty;
    bool ran = inspect_container(__func__, rel, share, "/usr/share/containers", &with, &without);
    /* podman's own containers.conf, there, naming hooks directories of
     * its own: the default one is no longer read. */
    snprintf(cmd, sizeof cmd, "%s/containers.conf", share);
    FILE *conf = fopen(cmd, "w");
    ck_assert(conf != NULL);
    fputs("[engine]\n# hooks_dir = [\"/usr/share/containers/oci/hooks.d\"]\n"
          "hooks_dir = [\n  \"/etc/containers/oci/hooks.d\",\n]\n", conf);
    fclose(conf);
    ran = ran && inspect_container(__func__, rel, share, "/usr/share/containers", &elsewhere, &empty);
    /* The same in the file podman 4.4 and later read as root alone. */
    char rootful[PATH_MAX + 32];
    snprintf(rootful, sizeof rootful, "%s/containers.rootful.conf", share);
    ck_assert(rename(cmd, rootful) == 0);
    struct run as_root, as_root_empty;
    ran = ran && inspect_container(__func__, rel, share, "/usr/share/containers", &as_root, &as_root_empty);
    remove_tree(share);
    if (!ran)
        return;
    const char *fix = strstr(with.out, "\nfix the containers:");
    ck_assert_msg(fix != NULL && strstr(fix, "\n    podman container ") != NULL
                      && strstr(fix, "; podman's annotation is the one the OCI hook installed here acts on "
                                     "(/usr/share/containers/oci/hooks.d/arenafix.json):\n") != NULL
                      && strstr(fix, "\n        --annotation io.arenafix.enable=true\n") != NULL
                      && strstr(fix, "\n        -v ") == NULL,
                  "%s", with.out);
    fix = strstr(without.out, "\nfix the containers:");
    ck_assert_msg(fix != NULL && strstr(fix, "--annotation") == NULL && strstr(fix, "\n        -v ") != NULL, "%s",
                  without.out);
    fix = strstr(elsewhere.out, "\nfix the containers:");
    ck_assert_msg(fix != NULL && strstr(fix, "--annotation") == NULL && strstr(fix, "OCI hook") == NULL
                      && strstr(fix, "\n        -v ") != NULL,
                  "%s", elsewhere.out);
    fix = strstr(as_root.out, "\nfix the containers:");
    ck_assert_msg(fix != NULL && strstr(fix, "--annotation") == NULL && strstr(fix, "\n        -v ") != NULL, "%s",
                  as_root.out);
    run_free(&as_root);
    run_free(&as_root_empty);
    run_free(&with);
    run_free(&without);
    run_free(&elsewhere);
    run_free(&empty);
}
END_TEST

/* The words of argv, joined by "|", into out. */
static const char *joined(char **argv, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (char **w = argv; w != NULL && *w != NULL && n < size; w++)
        n += (size_t)snprintf(out + n, size - n, "%s%s", w == argv ? "" : "|", *w);
    return out;
}

/* The command podman recorded, made one that runs the container again:
 * the options after run/create (create stays create), --replace where
 * it names the container; none where it cannot be told where run is. */
START_TEST(podman_recorded_command)
{
    static const struct {
        const char *json, *name, *want;
    } cases[] = {
        { "{\"CreateCommand\":[\"podman\",\"run\",\"-d\",\"--name\",\"web\",\"img\",\"sh\",\"-c\",\"a b\"]}", "web",
          "podman|run|--replace|-v|V|-e|E|-d|--name|web|img|sh|-c|a b" },
        { "{\"x\":{\"CreateCommand\":[]},\"CreateCommand\":[\"/usr/bin/podman\",\"create\",\"--name=web\",\"img\"]}",
          "web", "/usr/bin/podman|create|--replace|-v|V|-e|E|--name=web|img" },
        { "{\"CreateCommand\":[\"podman\",\"container\",\"run\",\"img\",\"--name\",\"web\"]}", "other",
          "podman|container|run|-v|V|-e|E|img|--name|web" },
        { "{\"CreateCommand\":[\"podman\",\"run\",\"img\"]}", "", "podman|run|-v|V|-e|E|img" },
        { "{\"CreateCommand\":[\"podman\",\"--root\",\"/x\",\"run\",\"img\"]}", "web", NULL },
        { "{\"CreateCommand\":[\"podman\",\"start\",\"web\"]}", "web", NULL },
        { "{\"CreateCommand\":[\"podman\",\"run\",1]}", "web", NULL },
        { "{\"CreateCommand\":[\"podman\",\"run\",\"\\u00e9\"]}", "web", NULL },
        { "{\"CreateCommand\":\"podman run img\"}", "web", NULL },
        { "{\"Name\":\"web\"}", "web", NULL },
        { "{\"CreateCommand\":[\"podman\",\"run\",\"img\"]", "web", NULL },
        /* A control character would print as a backslash and digits. */
        { "{\"CreateCommand\":[\"podman\",\"run\",\"-e\",\"A=x\\ny\",\"img\"]}", "web", NULL },
        { "{\"CreateCommand\":[\"podman\",\"run\",\"-e\",\"A=\\u007f\",\"img\"]}", "web", NULL },
        /* A quadlet's (a unit runs it): the fix goes in the unit. */
        { "{\"CreateCommand\":[\"podman\",\"run\",\"--cidfile=/run/x.cid\",\"img\"]}", "web", NULL },
        { "{\"CreateCommand\":[\"podman\",\"run\",\"--sdnotify=conmon\",\"img\"]}", "web", NULL },
        { "{\"CreateCommand\":[\"podman\",\"run\",\"--label\",\"PODMAN_SYSTEMD_UNIT=a.service\",\"img\"]}",
          "web", NULL },
        /* -name is pflag's -n -a -m -e, never the name. */
        { "{\"CreateCommand\":[\"podman\",\"run\",\"-name\",\"web\",\"img\"]}", "web",
          "podman|run|-v|V|-e|E|-name|web|img" },
    };
    const char *const opts[] = { "-v", "V", "-e", "E" };
    char got[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char **argv = afx_podman_command(cases[i].json, strlen(cases[i].json), cases[i].name, opts, 4);
        if (cases[i].want == NULL)
            ck_assert_msg(argv == NULL, "%s: %s", cases[i].json, joined(argv, got, sizeof got));
        else
            ck_assert_msg(argv != NULL && strcmp(joined(argv, got, sizeof got), cases[i].want) == 0, "%s: %s",
                          cases[i].json, argv ? got : "none");
        free(argv);
    }
}
END_TEST

/* The whole of file path, malloc'd. */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s", path);
    size_t cap = 1 << 20, n = 0, got;
    unsigned char *buf = malloc(cap);
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0)
        if ((n += got) == cap)
            buf = realloc(buf, cap *= 2);
    fclose(f);
    ck_assert(buf != NULL);
    *len = n;
    return buf;
}

/* The BoltDB reader on a database real podman wrote (root's, copied
 * here): a container made with a known command is found, its config
 * the JSON whose CreateCommand is that command; the copy cut short at
 * any length, or with any one byte changed, is read within its bytes
 * or not at all. */
START_TEST(bolt_reader_on_podman_db)
{
    if (getuid() != 0 || system("command -v podman >/dev/null 2>&1") != 0) {
        printf("SKIP %s: needs root and podman\n", __func__);
        return;
    }
    char dir[PATH_MAX], cmd[4 * PATH_MAX], name[64], image[64], id[80] = "", db[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s", test_prog("bolt.XXXXXX"));
    ck_assert_msg(mkdtemp(dir) != NULL, "%s", dir);
    snprintf(name, sizeof name, "afxtest-%d-bolt", (int)getpid());
    snprintf(image, sizeof image, "localhost/afxtest-%d-bolt", (int)getpid());
    snprintf(db, sizeof db, "%s/bolt_state.db", dir);
    /* An image of one file: podman create runs nothing of it. */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && mkdir root && echo x > root/x && tar -C root -c . | podman import - %s >/dev/null 2>&1 && "
             "podman create --name %s %s /x 'a b' >/dev/null 2>&1 && podman inspect -f '{{.Id}}' %s > id && "
             "cp /var/lib/containers/storage/libpod/bolt_state.db '%s'",
             dir, image, name, image, name, db);
    int made = system(cmd);
    snprintf(cmd, sizeof cmd, "%s/id", dir);
    FILE *f = fopen(cmd, "r");
    if (f != NULL) {
        if (fgets(id, sizeof id, f) != NULL)
            id[strcspn(id, "\n")] = '\0';
        fclose(f);
    }
    snprintf(cmd, sizeof cmd, "podman rm -f %s >/dev/null 2>&1; podman rmi -f %s >/dev/null 2>&1", name, image);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_msg(made == 0 && strlen(id) == 64, "podman could not make the container: %d %s", made, id);

    size_t len;
    unsigned char *bytes = slurp(db, &len);
    const char *const buckets[] = { "ctr", id };
    const unsigned char *val;
    size_t vlen;
    ck_assert_msg(afx_bolt_get(bytes, len, buckets, 2, "config", 6, &val, &vlen), "no config of %s in %s", id, db);
    const char *const opts[] = { "-v", "V" };
    char got[512];
    char **argv = afx_podman_command((const char *)val, vlen, name, opts, 2);
    char want[256];
    snprintf(want, sizeof want, "podman|create|--replace|-v|V|--name|%s|%s|/x|a b", name, image);
    ck_assert_msg(argv != NULL && strcmp(joined(argv, got, sizeof got), want) == 0, "%.*s", (int)vlen, val);
    free(argv);
    /* Not a bucket, no such container, a bucket asked for as a value. */
    const char *const other[] = { "ctr", "0000000000000000000000000000000000000000000000000000000000000000" };
    ck_assert(!afx_bolt_get(bytes, len, other, 2, "config", 6, &val, &vlen));
    ck_assert(!afx_bolt_get(bytes, len, buckets, 1, id, strlen(id), &val, &vlen));
    ck_assert(!afx_bolt_get(bytes, len, buckets, 2, "nothing", 7, &val, &vlen));

    /* Cut short anywhere, and each byte of its first pages changed. */
    for (size_t n = 0; n < len; n += n < 3 * 4096 ? 1 : 61) {
        if (afx_bolt_get(bytes, n, buckets, 2, "config", 6, &val, &vlen))
            ck_assert(val >= bytes && val + vlen <= bytes + n);
    }
    size_t pages = len < 64 * 4096 ? len : 64 * 4096;
    for (size_t i = 0; i < pages; i++) {
        unsigned char was = bytes[i];
        bytes[i] ^= (unsigned char)(1 + i % 255);
        if (afx_bolt_get(bytes, len, buckets, 2, "config", 6, &val, &vlen))
            ck_assert(val >= bytes && val + vlen <= bytes + len);
        bytes[i] = was;
    }
    free(bytes);
    remove_tree(dir);
}
END_TEST

START_TEST(usage)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "inspect", "--all", "1"));
    ck_assert_status(&r, 2);
    ck_assert_msg(strstr(r.err, "--all takes no PID") != NULL, "%s", r.err);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "inspect", "--all", "--bogus"));
    ck_assert_status(&r, 2);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "--help"));
    ck_assert_msg(strstr(r.out, "arenafix inspect --all [--json] [--no-probe]") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* ---- what a scan costs ------------------------------------------------- */

struct scan_cost {
    long processes, instructions, status_reads, most_reads;
};

/* test/cli/scancost.sh: a scan of a PID namespace of its own holding flat
 * idle processes and a chain of depth shells in a mount namespace of
 * their own, its clock stopped (stillclock.so: no deadline of the scan's
 * passes under callgrind); false (and SKIP for test) where it cannot
 * run. */
static bool scan_cost(int flat, int depth, struct scan_cost *c, const char *test)
{
    char f[16], d[16];
    struct run r;
    snprintf(f, sizeof f, "%d", flat);
    snprintf(d, sizeof d, "%d", depth);
    run(&r, NULL, ARGV("timeout", "-k", "5", "240", "sh", "test/cli/scancost.sh", cli(), f, d, test_prog("stillclock.so")));
    if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 77) {
        printf("SKIP %s: %s", test, r.out);
        run_free(&r);
        return false;
    }
    ck_assert_msg(sscanf(r.out, "processes=%ld instructions=%ld status_reads=%ld most_reads_of_one=%ld", &c->processes,
                         &c->instructions, &c->status_reads, &c->most_reads) == 4,
                  "scancost.sh: status 0x%x: %s%s", r.status, r.out, r.err);
    run_free(&r);
    return true;
}

/* Instructions a process adds to a scan, from a to b. */
static long per_process(const struct scan_cost *a, const struct scan_cost *b)
{
    ck_assert_int_gt(b->processes, a->processes);
    return (b->instructions - a->instructions) / (b->processes - a->processes);
}

/* A fleet's hosts run thousands of processes, scanned every few minutes:
 * each costs the scan at most 100,000 instructions (callgrind's count,
 * which load does not change), the same for the hundredth as for the
 * first.  It cost 420,000, most of them zeroing a 300 KiB report. */
START_TEST(scan_cost_per_process)
{
    if (skip_emulated(__func__, "valgrind is built for this machine, not the emulated one"))
        return;
    struct scan_cost c[3];
    static const int flat[3] = { 20, 120, 220 };
    for (int i = 0; i < 3; i++)
        if (!scan_cost(flat[i], 0, &c[i], __func__))
            return;
    long first = per_process(&c[0], &c[1]), then = per_process(&c[1], &c[2]);
    printf("inspect --all: %ld instructions a process from %ld to %ld processes, %ld from %ld to %ld\n", first,
           c[0].processes, c[1].processes, then, c[1].processes, c[2].processes);
    ck_assert_msg(first <= 100000 && then <= 100000, "%ld and %ld instructions a process, more than 100,000", first,
                  then);
    ck_assert_msg(4 * then <= 5 * first && 4 * first <= 5 * then, "%ld then %ld instructions a process: not linear",
                  first, then);
    for (int i = 0; i < 3; i++)
        ck_assert_msg(c[i].most_reads == 1, "a process's status read %ld times in one scan", c[i].most_reads);
}
END_TEST

/* A process under 200 nested shells in a container: the walk up to the
 * shim it may run under goes past each of them once a scan, not once
 * for every process below, and each status is read once.  It took
 * 21,000 reads of status and 200 million instructions. */
START_TEST(ancestors_walked_once)
{
    if (skip_emulated(__func__, "valgrind is built for this machine, not the emulated one"))
        return;
    struct scan_cost shallow, deep;
    if (!scan_cost(0, 50, &shallow, __func__) || !scan_cost(0, 200, &deep, __func__))
        return;
    long per = per_process(&shallow, &deep);
    printf("inspect --all: %ld processes under 200 nested shells, %ld status reads (at most %ld of one), "
           "%ld instructions a process\n", deep.processes, deep.status_reads, deep.most_reads, per);
    ck_assert_msg(shallow.most_reads == 1 && deep.most_reads == 1, "a process's status read %ld times in one scan",
                  deep.most_reads > shallow.most_reads ? deep.most_reads : shallow.most_reads);
    ck_assert_msg(deep.status_reads <= deep.processes + 4, "%ld status reads for %ld processes", deep.status_reads,
                  deep.processes);
    ck_assert_msg(per <= 100000, "%ld instructions a process under nested shells", per);
}
END_TEST

Suite *scan_suite(void)
{
    Suite *s = suite_create("scan");
    TCase *tc = tcase_create("scan");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, stat_flags);
    tcase_add_test(tc, cgroup_unit);
    tcase_add_test(tc, container_engine);
    tcase_add_test(tc, cgroup_container);
    tcase_add_test(tc, podman_name);
    tcase_add_test(tc, unit_commands);
    tcase_add_test(tc, shell_word_at_its_bound);
    tcase_add_test(tc, access_facts);
    tcase_add_test(tc, glibc_state_by_version);
    tcase_add_test(tc, affected_process_is_hit);
    tcase_add_test(tc, process_after_main_thread_exit);
    tcase_add_test(tc, preloaded_process_is_fixed);
    tcase_add_test(tc, single_threaded_process);
    tcase_add_test(tc, host_glibc_probed_once);
    tcase_add_test(tc, unreadable_process_as_nobody);
    tcase_add_test(tc, unreadable_as_root_names_the_cause);
    tcase_add_test(tc, hit_and_at_risk_exit_hit);
    tcase_add_test(tc, process_too_large_to_read);
    tcase_add_test(tc, unit_in_cgroup_v2);
    tcase_add_test(tc, unit_in_cgroup_v1_and_user_unit);
    tcase_add_test(tc, nspawn_payload_not_fixed_by_its_unit);
    tcase_add_test(tc, podman_own_storage_not_fixed_by_its_unit);
    tcase_add_test(tc, self_chrooting_daemon_fixed_by_its_unit);
    tcase_add_test(tc, chroot_container_not_fixed_by_its_unit);
    tcase_add_test(tc, docker_container_fixed_by_its_runtime);
    tcase_add_test(tc, podman_container_fixed_by_the_hook);
    tcase_add_test(tc, podman_recorded_command);
    tcase_add_test(tc, bolt_reader_on_podman_db);
    tcase_add_test(tc, hostile_names_escaped);
    tcase_add_test(tc, processes_come_and_go);
    tcase_add_test(tc, usage);
    suite_add_tcase(s, tc);
    /* callgrind, five scans: the slow tier's (make check-cost). */
    TCase *cost = tcase_create("cost");
    tcase_set_tags(cost, "cost");
    tcase_set_timeout(cost, 600);
    tcase_add_test(cost, scan_cost_per_process);
    tcase_add_test(cost, ancestors_walked_once);
    suite_add_tcase(s, cost);
    return s;
}
