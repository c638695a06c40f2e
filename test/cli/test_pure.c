/* The command's pure helpers, called directly. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hostinfo.h"
#include "json.h"
#include "preload.h"

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

Suite *pure_suite(void)
{
    Suite *s = suite_create("pure");
    TCase *tc = tcase_create("pure");
    tcase_add_test(tc, preload_append);
    tcase_add_test(tc, cpuset_format);
    tcase_add_test(tc, json_quote);
    suite_add_tcase(s, tc);
    return s;
}
