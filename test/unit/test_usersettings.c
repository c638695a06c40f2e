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
    ck_assert_uint_eq(tunable("glibc.malloc.arena_max=-3"), 0);
    ck_assert_uint_eq(tunable("glibc.malloc.arena_maxx=8"), 0);
    ck_assert_uint_eq(tunable("xglibc.malloc.arena_max=8"), 0);
    ck_assert_uint_eq(tunable("glibc.malloc.arena_test=8"), 0);
    ck_assert_uint_eq(tunable("glibc.malloc.arena_max=99999999999999999999999"), 0);
    ck_assert_uint_eq(tunable("=8:glibc.malloc.arena_max:8"), 0);
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
}
END_TEST

Suite *usersettings_suite(void)
{
    Suite *s = suite_create("usersettings");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, tunables_found);
    tcase_add_test(tc, tunables_last_valid_wins);
    tcase_add_test(tc, tunables_absent_or_junk);
    tcase_add_test(tc, malloc_arena_max_env);
    suite_add_tcase(s, tc);
    return s;
}
