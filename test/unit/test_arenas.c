/* The shared arena counter and the fixed glibc's rule (common/). */
#include <pthread.h>
#include <stdlib.h>

#include "arenacount.h"
#include "arenarule.h"
#include "suites.h"

/* The numbers glibc's malloc/arena.c gives on 64-bit: main's arena and
 * arena_test's eight before any limit, then eight per CPU. */
START_TEST(rule_as_glibc_counts)
{
    if (sizeof(long) != 8)
        return;
    ck_assert_int_eq(afx_arena_limit(1), 9);
    ck_assert_int_eq(afx_arena_limit(2), 16);
    ck_assert_int_eq(afx_arena_limit(16), 128);
    ck_assert_int_eq(afx_fixed_glibc_arenas(30, 2), 16);
    ck_assert_int_eq(afx_fixed_glibc_arenas(5, 2), 6);
    ck_assert_int_eq(afx_fixed_glibc_arenas(30, 1), 9);
    ck_assert_int_eq(afx_fixed_glibc_arenas(64, 16), 65);
    ck_assert_int_eq(afx_fixed_glibc_arenas(0, 2), 1);
}
END_TEST

static void *first_malloc(void *arg)
{
    void *volatile p = malloc(64);
    free(p);
    return arg;
}

/* A new thread's first malloc makes an arena of its own: the counter
 * sees main's, then one more. */
START_TEST(count_sees_a_new_arena)
{
#ifdef __SANITIZE_ADDRESS__
    /* ASan's malloc has no glibc arenas to count (check-hard's build). */
    return;
#endif
    long before = afx_count_arenas();
    ck_assert_int_ge(before, 1);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, first_malloc, NULL), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_int_eq(afx_count_arenas(), before + 1);
}
END_TEST

Suite *arenas_suite(void)
{
    Suite *s = suite_create("arenas");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, rule_as_glibc_counts);
    tcase_add_test(tc, count_sees_a_new_arena);
    suite_add_tcase(s, tc);
    return s;
}
