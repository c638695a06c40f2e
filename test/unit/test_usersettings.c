#include <limits.h>
#include <stdarg.h>
#include <stdint.h>

#include "suites.h"
#include "usersettings.h"

static unsigned long tunable(const char *s)
{
    unsigned long v = 0;
    return afx_tunables_arena_max(s, &v) ? v : 0;
}

START_TEST(tunables_found)
{
    ck_assert_uint_eq(tunable("glibc.malloc.arena_max=8"), 8);
    ck_assert_uint_eq(tunable("glibc.malloc.tcache_count=0:glibc.malloc.arena_max=32"), 32);
    ck_assert_uint_eq(tunable("glibc.malloc.arena_max=4:glibc.malloc.check=3"), 4);
    ck_assert_uint_eq(tunable("junk:glibc.malloc.arena_max=8"), 8);
    ck_assert_uint_eq(tunable("glibc.malloc.arena_max=0x10"), 16);
    ck_assert_uint_eq(tunable("glibc.malloc.arena_max=010"), 8);
}
END_TEST

START_TEST(tunables_last_valid_wins)
{
    ck_assert_uint_eq(tunable("glibc.malloc.arena_max=4:glibc.malloc.arena_max=6"), 6);
    ck_assert_uint_eq(tunable("glibc.malloc.arena_max=4:glibc.malloc.arena_max=junk"), 4);
    ck_assert_uint_eq(tunable("glibc.malloc.arena_max=4:glibc.malloc.arena_max=0"), 4);
}
END_TEST

START_TEST(tunables_absent_or_junk)
{
    ck_assert_uint_eq(tunable(NULL), 0);
    ck_assert_uint_eq(tunable(""), 0);
    ck_assert_uint_eq(tunable(":::"), 0);
    ck_assert_uint_eq(tunable("glibc.malloc.arena_max"), 0);
    ck_assert_uint_eq(tunable("glibc.malloc.arena_max="), 0);
    ck_assert_uint_eq(tunable("glibc.malloc.arena_max=0"), 0);
    ck_assert_uint_eq(tunable("glibc.malloc.arena_maxx=8"), 0);
    ck_assert_uint_eq(tunable("xglibc.malloc.arena_max=8"), 0);
    ck_assert_uint_eq(tunable("glibc.malloc.arena_test=8"), 0);
    ck_assert_uint_eq(tunable("=8:glibc.malloc.arena_max:8"), 0);
}
END_TEST

/* _dl_strtoul's forms, as glibc 2.36 applies them (elf/dl-misc.c). */
START_TEST(numbers_as_dl_strtoul)
{
    unsigned long v = 0;
#define NUM(text) (afx_dl_strtoul(text, sizeof text - 1))
    ck_assert_uint_eq(NUM(" 2"), 2);
    ck_assert_uint_eq(NUM("\t 3"), 3);
    ck_assert_uint_eq(NUM("+2"), 2);
    ck_assert_uint_eq(NUM("-1"), ULLONG_MAX);
    ck_assert_uint_eq(NUM("4junk"), 4);
    ck_assert_uint_eq(NUM("0x1F"), 31);
    ck_assert_uint_eq(NUM("0X1f"), 31);
    /* glibc saturates a little early: kept, the value is glibc's. */
    ck_assert_uint_eq(NUM("18446744073709551610"), ULLONG_MAX);
    ck_assert_uint_eq(NUM("1844674407370955160"), 1844674407370955160ULL);
    ck_assert_uint_eq(NUM("0X"), 0);
    ck_assert_uint_eq(NUM("017"), 15);
    ck_assert_uint_eq(NUM("08"), 0);
    ck_assert_uint_eq(NUM("99999999999999999999999"), ULLONG_MAX);
    ck_assert_uint_eq(NUM(" - 2"), 0);
    ck_assert_uint_eq(NUM("\n2"), 0);
#undef NUM
    ck_assert_uint_eq(afx_dl_strtoul("123", 2), 12);   /* stops at the length */
    /* glibc's bounds for a size_t tunable are [1, SIZE_MAX], compared
     * as 64-bit numbers: -1 wraps to SIZE_MAX on 64-bit and lies
     * beyond it on 32-bit, where glibc ignores the setting. */
    if (ULLONG_MAX == SIZE_MAX) {
        ck_assert(afx_tunable_number("-1", 2, &v));
        ck_assert_uint_eq(v, SIZE_MAX);
    } else {
        ck_assert(!afx_tunable_number("-1", 2, &v));
        ck_assert(afx_tunable_number("4294967295", 10, &v));
        ck_assert_uint_eq(v, SIZE_MAX);
        ck_assert(!afx_tunable_number("4294967296", 10, &v));
    }
    ck_assert(!afx_tunable_number("-0", 2, &v));
    ck_assert(!afx_tunable_number("x", 1, &v));
}
END_TEST

static struct afx_user_settings scan(bool secure, ...)
{
    char *env[16];
    int n = 0;
    va_list ap;
    va_start(ap, secure);
    for (char *e; n < 15 && (e = va_arg(ap, char *)) != NULL;)
        env[n++] = e;
    va_end(ap);
    env[n] = NULL;
    struct afx_user_settings u;
    afx_user_scan(env, secure, &u);
    return u;
}

/* glibc's rules for the initial environment (elf/dl-tunables.c): the
 * first valid MALLOC_ARENA_MAX, overridden by any valid tunable, every
 * GLIBC_TUNABLES entry parsed in order. */
START_TEST(environment_as_glibc_reads_it)
{
    struct afx_user_settings u;
    u = scan(false, "MALLOC_ARENA_MAX=2", "MALLOC_ARENA_MAX=5", NULL);
    ck_assert(u.arena_max_from == AFX_FROM_ENV && u.arena_max == 2);
    u = scan(false, "MALLOC_ARENA_MAX=0", "MALLOC_ARENA_MAX=5", NULL);
    ck_assert(u.arena_max_from == AFX_FROM_ENV && u.arena_max == 5);
    u = scan(false, "MALLOC_ARENA_MAX=2", "GLIBC_TUNABLES=glibc.malloc.arena_max=3", NULL);
    ck_assert(u.arena_max_from == AFX_FROM_TUNABLES && u.arena_max == 3);
    u = scan(false, "GLIBC_TUNABLES=glibc.malloc.arena_max=3", "MALLOC_ARENA_MAX=2", NULL);
    ck_assert(u.arena_max_from == AFX_FROM_TUNABLES && u.arena_max == 3);
    u = scan(false, "GLIBC_TUNABLES=glibc.malloc.arena_max=3",
             "GLIBC_TUNABLES=glibc.malloc.arena_max=4", NULL);
    ck_assert(u.arena_max == 4);
    u = scan(false, "GLIBC_TUNABLES=glibc.malloc.arena_max=3",
             "GLIBC_TUNABLES=glibc.malloc.arena_max=junk", NULL);
    ck_assert(u.arena_max == 3);
    u = scan(false, "MALLOC_ARENA_TEST=100", "GLIBC_TUNABLES=glibc.malloc.arena_test=50", NULL);
    ck_assert(u.arena_test_from == AFX_FROM_TUNABLES && u.arena_test == 50);
    ck_assert(u.arena_max_from == AFX_UNSET);
    u = scan(false, "MALLOC_ARENA_MAX", "MALLOC_ARENA_MAXX=3", "XMALLOC_ARENA_MAX=3",
             "MALLOC_ARENA_MAX2=3", "MALLOC_ARENA_MAX_2=3", NULL);
    ck_assert(u.arena_max_from == AFX_UNSET);
    /* Both are SXID_IGNORE: a secure process applies neither. */
    u = scan(true, "MALLOC_ARENA_MAX=2", "GLIBC_TUNABLES=glibc.malloc.arena_max=3",
             "MALLOC_ARENA_TEST=4", NULL);
    ck_assert(u.arena_max_from == AFX_UNSET && u.arena_test_from == AFX_UNSET);
}
END_TEST

/* glibc builds without the CVE-2023-4911 fix parse the last value
 * again as items: a setting only they apply still counts. */
START_TEST(before_cve_fix)
{
    unsigned long v = 0;
    const char *t = "x=glibc.malloc.arena_max=5";
    ck_assert(!afx_tunables_get(t, "glibc.malloc.arena_max", &v));
    ck_assert(afx_tunables_get_before_cve_fix(t, "glibc.malloc.arena_max", &v));
    ck_assert_uint_eq(v, 5);
    t = "glibc.malloc.arena_test=glibc.malloc.arena_max=x=glibc.malloc.arena_max=6";
    ck_assert(afx_tunables_get_before_cve_fix(t, "glibc.malloc.arena_max", &v));
    ck_assert_uint_eq(v, 6);
    ck_assert(!afx_tunables_get_before_cve_fix("a=b=c:d", "glibc.malloc.arena_max", &v));
    struct afx_user_settings u = scan(false, "GLIBC_TUNABLES=x=glibc.malloc.arena_max=5", NULL);
    ck_assert(u.arena_max_from == AFX_FROM_OLD_TUNABLES && u.arena_max == 5);
    u = scan(false, "GLIBC_TUNABLES=glibc.malloc.arena_max=3:x=glibc.malloc.arena_max=5", NULL);
    ck_assert(u.arena_max_from == AFX_FROM_TUNABLES && u.arena_max == 3);
}
END_TEST

START_TEST(malloc_arena_max_env)
{
    unsigned long v = 0;
    ck_assert(afx_env_arena_max("4", &v));
    ck_assert_uint_eq(v, 4);
    ck_assert(!afx_env_arena_max(NULL, &v));
    ck_assert(!afx_env_arena_max("", &v));
    ck_assert(!afx_env_arena_max("0", &v));
    ck_assert(!afx_env_arena_max("many", &v));
    ck_assert(afx_env_arena_max(" +7x", &v));
    ck_assert_uint_eq(v, 7);
}
END_TEST

/* The constructor parses nothing (and asks nothing of the auxiliary
 * vector) where this says no: it must say yes wherever arenafix or glibc
 * would read a setting, and no for an ordinary login. */
START_TEST(settings_found_before_they_are_parsed)
{
    static const char *const with[][3] = {
        { "MALLOC_ARENA_MAX=2", NULL },
        { "HOME=/root", "MALLOC_ARENA_TEST=4", NULL },
        { "GLIBC_TUNABLES=glibc.malloc.arena_max=3", NULL },
        { "GLIBC_TUNABLES=", NULL },
        { "ARENAFIX_MODE=off", NULL },
        { "A=1", "ARENAFIX_VERBOSE=1", NULL },
        { "ARENAFIX_LOG=/tmp/x", NULL },
    };
    for (size_t i = 0; i < sizeof with / sizeof with[0]; i++)
        ck_assert_msg(afx_env_has_settings((char *const *)with[i]), "missed %s", with[i][0]);
    static const char *const without[] = {
        "MAIL=/var/mail/root", "MANPATH=/usr/share/man", "GLIBC_TUNABLE=x", "GLIBC_TUNABLES",
        "MALLOC_ARENA", "MALLOC_CHECK_=3", "ARENAFIX", "AR=ar", "GOPATH=/go", "_=/bin/true",
        "", NULL,
    };
    ck_assert(!afx_env_has_settings((char *const *)without));
    ck_assert(!afx_env_has_settings(NULL));
    /* Whatever the scan would take, the pass finds first. */
    struct afx_user_settings u;
    afx_user_scan((char *const *)without, false, &u);
    ck_assert(u.arena_max_from == AFX_UNSET && u.arena_test_from == AFX_UNSET);
}
END_TEST

Suite *usersettings_suite(void)
{
    Suite *s = suite_create("usersettings");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, tunables_found);
    tcase_add_test(tc, tunables_last_valid_wins);
    tcase_add_test(tc, tunables_absent_or_junk);
    tcase_add_test(tc, numbers_as_dl_strtoul);
    tcase_add_test(tc, environment_as_glibc_reads_it);
    tcase_add_test(tc, before_cve_fix);
    tcase_add_test(tc, malloc_arena_max_env);
    tcase_add_test(tc, settings_found_before_they_are_parsed);
    suite_add_tcase(s, tc);
    return s;
}
