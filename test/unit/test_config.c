#include "config.h"
#include "suites.h"

static int parse(struct afx_config *c, const char *mode, const char *max, const char *verbose,
                 const char *eager)
{
    const char *v[AFX_VAR_COUNT] = {
        [AFX_VAR_MODE] = mode,
        [AFX_VAR_ARENA_MAX] = max,
        [AFX_VAR_VERBOSE] = verbose,
        [AFX_VAR_EAGER] = eager,
    };
    return afx_config_parse(c, v);
}

START_TEST(defaults_when_unset)
{
    struct afx_config c;
    ck_assert_int_eq(parse(&c, NULL, NULL, NULL, NULL), -1);
    ck_assert_int_eq(c.mode, AFX_MODE_MALLOPT);
    ck_assert_int_eq(c.arena_max, 0);
    ck_assert(!c.verbose);
    ck_assert(!c.eager);
    /* An empty value is an unset one, without a warning. */
    ck_assert_int_eq(parse(&c, "", "", "", ""), -1);
    ck_assert_int_eq(c.mode, AFX_MODE_MALLOPT);
}
END_TEST

START_TEST(valid_values)
{
    struct afx_config c;
    ck_assert_int_eq(parse(&c, "touch", "64", "1", "yes"), -1);
    ck_assert_int_eq(c.mode, AFX_MODE_TOUCH);
    ck_assert_int_eq(c.arena_max, 64);
    ck_assert(c.verbose);
    ck_assert(c.eager);
    ck_assert_int_eq(parse(&c, "both", NULL, "0", "false"), -1);
    ck_assert_int_eq(c.mode, AFX_MODE_BOTH);
    ck_assert(!c.verbose);
    ck_assert_int_eq(parse(&c, "off", NULL, NULL, NULL), -1);
    ck_assert_int_eq(c.mode, AFX_MODE_OFF);
    ck_assert_int_eq(parse(&c, "mallopt", "1000000", NULL, NULL), -1);
    ck_assert_int_eq(c.arena_max, 1000000);
}
END_TEST

START_TEST(malformed_fall_back_and_are_named)
{
    struct afx_config c;
    ck_assert_int_eq(parse(&c, "fast", NULL, NULL, NULL), AFX_VAR_MODE);
    ck_assert_int_eq(c.mode, AFX_MODE_MALLOPT);
    static const char *const bad_max[] = { "0", "-4", "1000001", "99999999999999999999", "12x",
                                           " 8", "0x10", "+8" };
    for (size_t i = 0; i < sizeof bad_max / sizeof bad_max[0]; i++) {
        ck_assert_int_eq(parse(&c, NULL, bad_max[i], NULL, NULL), AFX_VAR_ARENA_MAX);
        ck_assert_int_eq(c.arena_max, 0);
    }
    ck_assert_int_eq(parse(&c, NULL, NULL, "loud", NULL), AFX_VAR_VERBOSE);
    ck_assert(!c.verbose);
    /* Only the first bad one is named; the others still fall back. */
    ck_assert_int_eq(parse(&c, "MALLOPT", "x", "2", "2"), AFX_VAR_MODE);
    ck_assert(!c.eager);
    ck_assert_int_eq(parse(&c, "touch", "x", NULL, NULL), AFX_VAR_ARENA_MAX);
    ck_assert_int_eq(c.mode, AFX_MODE_TOUCH);
}
END_TEST

Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, defaults_when_unset);
    tcase_add_test(tc, valid_values);
    tcase_add_test(tc, malformed_fall_back_and_are_named);
    suite_add_tcase(s, tc);
    return s;
}
