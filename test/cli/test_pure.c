/* The command's pure helpers, called directly. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hostinfo.h"
#include "json.h"
#include "preload.h"
#include "glibcprobe/proclimits.h"
#include "proc/procmaps.h"
#include "proc/procstatus.h"
#include "readfile.h"
#include "suggest.h"
#include "inspect/usertime.h"
#include "target/verdict.h"
#include "libc/glibcversion.h"
#include "probe/rootjudge.h"

START_TEST(preload_append)
{
    static const struct {
        const char *list, *want;
    } cases[] = {
        { NULL, "/l/a.so" },
        { "", "/l/a.so" },
        { " : ", "/l/a.so" },
        { "libm.so.6", "libm.so.6:/l/a.so" },
        { "x.so y.so", "x.so y.so:/l/a.so" },
        { "/l/a.so", "/l/a.so" },
        { "x.so:/l/a.so y.so", "x.so:/l/a.so y.so" },
        { "/real/a.so", "/real/a.so" },         /* the alias counts as there */
        { "/l/a.so.1", "/l/a.so.1:/l/a.so" },   /* a prefix is not a match */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = afx_preload_append(cases[i].list, "/l/a.so", "/real/a.so");
        ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: got %s", i, got);
        free(got);
    }
    ck_assert(!afx_preload_has("/l/a.sox", "/l/a.so"));
    ck_assert(afx_preload_has("::/l/a.so::", "/l/a.so"));
}
END_TEST

START_TEST(misspelt_subcommand)
{
    static const char *const words[] = { "probe", "inspect", "enable", "disable", "status", "path", "cdi", "help" };
    static const struct {
        const char *word;
        int meant;  /* index in words, -1: none */
    } cases[] = {
        { "inpsect", 1 }, { "insect", 1 },  { "inspec", 1 },  { "INSPECT", 1 }, { "stat", 4 },    { "stats", 4 },
        { "prove", 0 },   { "prob", 0 },    { "disble", 3 },  { "enabl", 2 },   { "patch", 5 },   { "cd", 6 },
        { "hlep", 7 },    { "inspect", -1 }, { "ps", -1 },    { "cat", -1 },    { "bash", -1 },   { "date", -1 },
        { "id", -1 },     { "dd", -1 },     { "python3", -1 }, { "top", -1 },   { "", -1 },       { "pr", -1 },
        { "inspector", 1 }, { "xyzinspectxyz", -1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(afx_misspelt(cases[i].word, words, sizeof words / sizeof words[0]) == cases[i].meant,
                      "%s: want %d", cases[i].word, cases[i].meant);
    ck_assert_int_eq(afx_edit_distance("inpsect", "inspect", 2), 1);  /* a swap is one edit */
    ck_assert_int_eq(afx_edit_distance("ab", "ba", 2), 1);
    ck_assert_int_eq(afx_edit_distance("kitten", "sitting", 5), 3);
    ck_assert_int_eq(afx_edit_distance("kitten", "sitting", 2), 3);  /* limit + 1 */
    ck_assert_int_eq(afx_edit_distance("ca", "abc", 5), 3);           /* one edit per letter */
}
END_TEST

START_TEST(cpuset_format)
{
    cpu_set_t set;
    char out[64];
    CPU_ZERO(&set);
    afx_cpuset_format(&set, sizeof set, out, sizeof out);
    ck_assert_str_eq(out, "");
    CPU_SET(0, &set);
    CPU_SET(1, &set);
    CPU_SET(2, &set);
    CPU_SET(5, &set);
    CPU_SET(1023, &set);
    afx_cpuset_format(&set, sizeof set, out, sizeof out);
    ck_assert_str_eq(out, "0-2,5,1023");
    CPU_ZERO(&set);
    for (int c = 0; c < 200; c += 2)
        CPU_SET(c, &set);
    afx_cpuset_format(&set, sizeof set, out, 16);
    ck_assert_msg(strlen(out) < 16 && strstr(out, "...") != NULL, "%s", out);
}
END_TEST

START_TEST(json_quote)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    afx_json_quote(f, "a\"b\\c\nd");
    fclose(f);
    ck_assert_str_eq(buf, "\"a\\\"b\\\\c\\u000ad\"");
    free(buf);
}
END_TEST

START_TEST(maps_heaps)
{
    static const char text[] =
        "55557b8ed000-55557b90e000 rw-p 00000000 00:00 0                          [heap]\n"
        "7f1d5f800000-7f1d60000000 rw-p 00000000 00:00 0 \n"          /* a stack below */
        "7f1d60000000-7f1d60021000 rw-p 00000000 00:00 0 \n"          /* heap 1 */
        "7f1d60021000-7f1d64000000 ---p 00000000 00:00 0 \n"
        "7f1d64000000-7f1d68000000 rw-p 00000000 00:00 0 \n"          /* heap 2, full */
        "7f1d68000000-7f1d68021000 rw-p 00000000 00:00 0 \n"          /* too short a tail */
        "7f1d68021000-7f1d68022000 ---p 00000000 00:00 0 \n"
        "7f1d70000000-7f1d70021000 rw-p 00000000 fe:00 12 /tmp/file\n" /* not anonymous */
        "7f1d70021000-7f1d74000000 ---p 00000000 00:00 0 \n"
        "7f1d78000000-7f1d78021000 rw-p 00000000 00:00 0 \n"          /* heap 3, guard merged */
        "7f1d78021000-7f1d7c001000 ---p 00000000 00:00 0 \n"
        "7f1d80000000-7f1d80100000 r-xp 00000000 fe:00 7 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
        "7f1d80200000-7f1d80201000 r-xp 00000000 fe:00 8 /opt/x/libarenafix.so\n"
        "7f1d80300000-7f1d80301000 r-xp 00000000 fe:00 9 /lib64/ld-linux-x86-64.so.2\n";
    static struct afx_maps m;
    afx_maps_scan(text, &m);
    ck_assert_int_eq(m.heaps, 3);
    ck_assert_uint_eq(m.heap_at[0], 0x7f1d60000000UL);
    ck_assert_uint_eq(m.heap_at[2], 0x7f1d78000000UL);
    ck_assert(m.arenafix);
    ck_assert_str_eq(m.libc.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    ck_assert_str_eq(m.loader.path, "/lib64/ld-linux-x86-64.so.2");
    ck_assert_str_eq(m.foreign, "");
    afx_maps_scan("", &m);
    ck_assert_int_eq(m.heaps, 0);
}
END_TEST

START_TEST(process_verdict)
{
    char why[256];
    struct afx_process_facts f = { .threads = 31, .online = 2, .narrowed = 30, .arenas = 9,
                                   .glibc = AFX_GLIBC_AFFECTED };
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_HIT);
    f.glibc = AFX_GLIBC_UNKNOWN;
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_HIT);
    f.glibc = AFX_GLIBC_FIXED;
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_FINE);
    f.glibc = AFX_GLIBC_AFFECTED;
    f.arenas = 16;      /* 8 x 2 CPUs: the right limit */
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_AT_RISK);
    f.arenafix = true;
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_FINE);
    f = (struct afx_process_facts){ .threads = 5, .online = 2, .narrowed = 4, .arenas = 5 };
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_AT_RISK);
    f.user_limit = true;
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_FINE);
    f = (struct afx_process_facts){ .threads = 31, .online = 2, .narrowed = 30, .arenas = 9,
                                    .foreign = "/usr/lib/libjemalloc.so.2" };
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_FINE);
    ck_assert_msg(strstr(why, "libjemalloc") != NULL, "%s", why);
}
END_TEST

/* A glibc inspect would not run (not root's) is never called fine on
 * its account; a hit, a risk, or a limit that does not apply still
 * say so. */
START_TEST(untested_glibc_is_never_fine)
{
    char why[512];
    struct afx_process_facts f = { .threads = 5, .online = 2, .arenas = 5, .glibc_untested = true };
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_UNDETERMINED);
    ck_assert_str_eq(afx_health_names[AFX_UNDETERMINED], "cannot tell");
    ck_assert_msg(strstr(why, "not tested") != NULL, "%s", why);
    f.narrowed = 4;
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_AT_RISK);
    f = (struct afx_process_facts){ .threads = 31, .online = 2, .narrowed = 30, .arenas = 9, .glibc_untested = true };
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_HIT);
    f = (struct afx_process_facts){ .threads = 5, .online = 2, .arenas = 5, .glibc_untested = true, .user_limit = true };
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_FINE);
    f = (struct afx_process_facts){ .threads = 5, .online = 2, .arenas = 5, .glibc_untested = true, .arenafix = true };
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_FINE);
}
END_TEST

/* The start time, the process's identity where there is no pidfd: the
 * 22nd field, counted after the name's last ')' (a name may hold ") 1 2"). */
/* A process not read whole cannot tell, whatever the part read says,
 * and the reason is why it was not read. */
START_TEST(unread_process_cannot_tell)
{
    char why[512];
    struct afx_process_facts f = { .threads = 31, .online = 2, .narrowed = 30, .arenas = 9,
                                   .glibc = AFX_GLIBC_AFFECTED, .unread = "its memory map is too large" };
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_UNDETERMINED);
    ck_assert_str_eq(why, "its memory map is too large");
    f = (struct afx_process_facts){ .threads = 2, .online = 2, .arenas = 1, .glibc = AFX_GLIBC_FIXED,
                                    .unread = "reading it took too long" };
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_UNDETERMINED);
    f.unread = NULL;
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_FINE);
}
END_TEST

static void count_bytes(void *ctx, const char *piece, size_t len)
{
    (void)piece;
    *(size_t *)ctx += len;
}

/* A read of another process's /proc ends at its byte bound (EFBIG) and
 * once its deadline has passed (ETIME, nothing read after); a deadline
 * an hour away, or none, stops nothing. */
START_TEST(reads_end_at_their_bounds)
{
    struct afx_deadline now, later;
    size_t fed = 0, len;
    afx_deadline_in(&now, 0);
    afx_deadline_in(&later, 3600);
    ck_assert(afx_deadline_passed(&now) && !afx_deadline_passed(&later) && !afx_deadline_passed(NULL));
    ck_assert(afx_read_pieces("/proc/self/maps", (size_t)-1, &later, count_bytes, &fed));
    size_t whole = fed;
    ck_assert_uint_gt(whole, 1024);
    fed = 0;
    errno = 0;
    ck_assert(!afx_read_pieces("/proc/self/maps", (size_t)-1, &now, count_bytes, &fed));
    ck_assert_int_eq(errno, ETIME);
    ck_assert_uint_eq(fed, 0);
    errno = 0;
    ck_assert(!afx_read_pieces("/proc/self/maps", 1024, NULL, count_bytes, &fed));
    ck_assert_int_eq(errno, EFBIG);
    fed = 0;
    ck_assert(afx_read_pieces("/proc/self/maps", whole + 4096, NULL, count_bytes, &fed));
    errno = 0;
    ck_assert(afx_slurp_max("/proc/self/status", 1 << 20, &now, &len) == NULL);
    ck_assert_int_eq(errno, ETIME);
    errno = 0;
    ck_assert(afx_slurp_max("/proc/self/status", 16, NULL, &len) == NULL);
    ck_assert_int_eq(errno, EFBIG);
    char *text = afx_slurp_max("/proc/self/status", 1 << 20, &later, &len);
    ck_assert(text != NULL && strstr(text, "Uid:") != NULL);
    free(text);
}
END_TEST

/* Each user's account is its own, kept across thousands of users (one
 * per process, as subordinate IDs allow), and spent at the bound. */
START_TEST(user_time_accounts)
{
    struct afx_user_time t = { 0 };
    ck_assert(!afx_user_time_spent(&t, 1000));
    afx_user_time_add(&t, 1000, AFX_USER_SECONDS - 1);
    ck_assert(!afx_user_time_spent(&t, 1000));
    for (uid_t u = 100000; u < 165536; u++)
        afx_user_time_add(&t, u, 0.001);
    afx_user_time_add(&t, 0, AFX_USER_SECONDS / 2.0);
    ck_assert(!afx_user_time_spent(&t, 1000) && !afx_user_time_spent(&t, 0) && !afx_user_time_spent(&t, 100000));
    afx_user_time_add(&t, 1000, 1);
    ck_assert(afx_user_time_spent(&t, 1000));
    ck_assert(!afx_user_time_spent(&t, 0) && !afx_user_time_spent(&t, 1001));
    afx_user_time_add(&t, 165535, AFX_USER_SECONDS);
    ck_assert(afx_user_time_spent(&t, 165535) && !afx_user_time_spent(&t, 165534));
    ck_assert_uint_eq(t.count, 65536 + 2);
    afx_user_time_free(&t);
}
END_TEST

START_TEST(stat_start_time)
{
    unsigned long long t = 0;
    const char *line = "4242 (a) 1 2 3) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654321 "
                       "1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
    ck_assert(afx_stat_start_time(line, &t));
    ck_assert_uint_eq(t, 987654321ULL);
    ck_assert(!afx_stat_start_time("4242 (a) S 1 2\n", &t));
    ck_assert(!afx_stat_start_time("no parenthesis", &t));
}
END_TEST

/* /proc/PID/limits as the kernel writes it, for a root that prlimit
 * refuses: both columns, "unlimited", the names with blanks in them. */
START_TEST(proc_limits)
{
    const char *text = "Limit                     Soft Limit           Hard Limit           Units     \n"
                       "Max cpu time              unlimited            unlimited            seconds   \n"
                       "Max open files            64                   128                  files     \n"
                       "Max realtime priority     0                    0                    \n"
                       "Max realtime timeout      unlimited            unlimited            us        \n";
    struct rlimit l[RLIM_NLIMITS];
    bool found[RLIM_NLIMITS];
    ck_assert(afx_limits_parse(text, l, found));
    ck_assert(found[RLIMIT_NOFILE] && found[RLIMIT_CPU] && found[RLIMIT_RTPRIO] && found[RLIMIT_RTTIME]);
    ck_assert(!found[RLIMIT_AS]);
    ck_assert_uint_eq(l[RLIMIT_NOFILE].rlim_cur, 64);
    ck_assert_uint_eq(l[RLIMIT_NOFILE].rlim_max, 128);
    ck_assert(l[RLIMIT_CPU].rlim_cur == RLIM_INFINITY && l[RLIMIT_CPU].rlim_max == RLIM_INFINITY);
    ck_assert_uint_eq(l[RLIMIT_RTPRIO].rlim_max, 0);
    ck_assert(!afx_limits_parse("Max open files            64x                  128                  files\n", l, found));
    ck_assert(!afx_limits_parse("Max open files            99999999999999999999999 1\n", l, found));
    ck_assert(!afx_limits_parse("Max open files\n", l, found));
}
END_TEST

/* The one glibc version parser: "2.36" and "2.36.1" are versions, and
 * what is not all digits and dots is none; probe --root's judge, from
 * facts alone: the verdict by version, the library's load by
 * architecture and version, a libc that is no regular file unknown. */
START_TEST(glibc_version_and_root_judge)
{
    unsigned major, minor;
    ck_assert(afx_glibc_version_parse("2.36", &major, &minor) && major == 2 && minor == 36);
    ck_assert(afx_glibc_version_parse("2.36.1", &major, &minor) && minor == 36);
    static const char *const none[] = { "", "2", "2.", ".36", "2.x", "2.36 ", "2.36a", "-2.36" };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        ck_assert_msg(!afx_glibc_version_parse(none[i], &major, &minor), "\"%s\"", none[i]);
    ck_assert_int_eq(afx_glibc_state_by_version("2.33"), AFX_GLIBC_FIXED);
    ck_assert_int_eq(afx_glibc_state_by_version("2.34"), AFX_GLIBC_UNKNOWN);
    ck_assert_int_eq(afx_glibc_state_by_version("2.38"), AFX_GLIBC_UNKNOWN);
    ck_assert_int_eq(afx_glibc_state_by_version("2.39"), AFX_GLIBC_FIXED);
    ck_assert_int_eq(afx_glibc_state_by_version("2.x"), AFX_GLIBC_UNKNOWN);

    static struct afx_image_root_facts f;
    static struct afx_image_root_verdict v;
    f = (struct afx_image_root_facts){ .libc = AFX_ROOT_GLIBC, .version = "2.36", .arch = "x86_64",
                                       .found_lib = true, .lib_file = "/lib/libarenafix.so", .lib_arch = "x86_64" };
    afx_image_root_judge(&f, &v);
    ck_assert_str_eq(v.verdict, "cannot tell");
    ck_assert_str_eq(v.loads, "yes");
    snprintf(f.arch, sizeof f.arch, "aarch64");
    afx_image_root_judge(&f, &v);
    ck_assert_str_eq(v.loads, "no");
    ck_assert_msg(strstr(v.loads_why, "the image is aarch64, /lib/libarenafix.so is x86_64") != NULL, "%s", v.loads_why);
    snprintf(f.version, sizeof f.version, "2.39");
    afx_image_root_judge(&f, &v);
    ck_assert_str_eq(v.verdict, "not affected");
    f = (struct afx_image_root_facts){ .libc = AFX_ROOT_GLIBC, .unreadable = "not a regular file" };
    afx_image_root_judge(&f, &v);
    ck_assert_msg(strcmp(v.verdict, "cannot tell") == 0 && strstr(v.why, "cannot be read: not a regular file"),
                  "%s", v.why);
    f = (struct afx_image_root_facts){ .libc = AFX_ROOT_MUSL, .arch = "aarch64" };
    afx_image_root_judge(&f, &v);
    ck_assert_str_eq(v.verdict, "not affected");
    ck_assert_str_eq(v.loads, "stands down");
}
END_TEST


Suite *pure_suite(void)
{
    Suite *s = suite_create("pure");
    TCase *tc = tcase_create("pure");
    tcase_add_test(tc, preload_append);
    tcase_add_test(tc, cpuset_format);
    tcase_add_test(tc, misspelt_subcommand);
    tcase_add_test(tc, json_quote);
    tcase_add_test(tc, maps_heaps);
    tcase_add_test(tc, process_verdict);
    tcase_add_test(tc, untested_glibc_is_never_fine);
    tcase_add_test(tc, unread_process_cannot_tell);
    tcase_add_test(tc, user_time_accounts);
    tcase_add_test(tc, reads_end_at_their_bounds);
    tcase_add_test(tc, stat_start_time);
    tcase_add_test(tc, proc_limits);
    tcase_add_test(tc, glibc_version_and_root_judge);
    suite_add_tcase(s, tc);
    return s;
}
