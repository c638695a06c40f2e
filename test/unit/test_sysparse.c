#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "sysparse.h"

START_TEST(cpulist_forms)
{
    ck_assert_int_eq(afx_cpulist_count("0"), 1);
    ck_assert_int_eq(afx_cpulist_count("0\n"), 1);
    ck_assert_int_eq(afx_cpulist_count("0-1"), 2);
    ck_assert_int_eq(afx_cpulist_count("0-1\n"), 2);
    ck_assert_int_eq(afx_cpulist_count("0-3,8-11\n"), 8);
    ck_assert_int_eq(afx_cpulist_count("0,2,4,6"), 4);
    ck_assert_int_eq(afx_cpulist_count("0-8191\n"), 8192);
    ck_assert_int_eq(afx_cpulist_count("  0-3 \n"), 4);
    ck_assert_int_eq(afx_cpulist_count("5-5"), 1);
}
END_TEST

START_TEST(cpulist_blank_is_zero)
{
    ck_assert_int_eq(afx_cpulist_count(""), 0);
    ck_assert_int_eq(afx_cpulist_count("\n"), 0);
    ck_assert_int_eq(afx_cpulist_count("  \t\n"), 0);
}
END_TEST

START_TEST(cpulist_malformed)
{
    static const char *const bad[] = {
        "a", "0-", "-1", "3-1", "0,,1", "0,", ",0", "0-1-2", "0 1", "0 - 3",
        "0x3", "1e3", "99999999999", "0-99999999999", "0\n1", "-",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(afx_cpulist_count(bad[i]) == -1, "accepted \"%s\"", bad[i]);
}
END_TEST

/* The reader feeds 512-byte pieces: a list must parse the same however
 * it is cut, including inside a number. */
START_TEST(cpulist_streamed_in_pieces)
{
    char text[48000];
    size_t len = 0;
    for (int cpu = 0; cpu < 8192; cpu += 2)
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%d", cpu ? "," : "", cpu);
    text[len++] = '\n';
    for (size_t piece = 1; piece <= 700; piece += 233) {
        struct afx_cpulist p;
        afx_cpulist_begin(&p);
        for (size_t off = 0; off < len; off += piece)
            afx_cpulist_feed(&p, text + off, len - off < piece ? len - off : piece);
        ck_assert_int_eq(afx_cpulist_end(&p), 4096);
    }
}
END_TEST

static long statcpus(const char *text, size_t piece)
{
    struct afx_statcpus p;
    size_t len = strlen(text);
    afx_statcpus_begin(&p);
    for (size_t off = 0; off < len; off += piece)
        afx_statcpus_feed(&p, text + off, len - off < piece ? len - off : piece);
    return afx_statcpus_end(&p);
}

/* A fragmented list longer than the 1023 bytes glibc's __get_nprocs
 * reads (every other CPU of 1024 online): counted whole, on purpose. */
START_TEST(cpulist_longer_than_glibc_reads)
{
    static char text[8192];
    size_t len = 0;
    for (int cpu = 0; cpu < 1024; cpu += 2)
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%d", cpu ? "," : "", cpu);
    snprintf(text + len, sizeof text - len, "\n");
    ck_assert_uint_gt(strlen(text), 1023);
    ck_assert_int_eq(afx_cpulist_count(text), 512);
}
END_TEST

START_TEST(proc_stat_cpu_lines)
{
    const char *text = "cpu  100 0 10 1000 0 0 0 0 0 0\n"
                       "cpu0 50 0 5 500 0 0 0 0 0 0\n"
                       "cpu1 50 0 5 500 0 0 0 0 0 0\n"
                       "cpu12 1 1 1 1 1 1 1 1 1 1\n"
                       "intr 123 cpu9 0\n"
                       "ctxt 456\n"
                       "cpux 1\n";
    ck_assert_int_eq(statcpus(text, 1), 3);
    ck_assert_int_eq(statcpus(text, 7), 3);
    ck_assert_int_eq(statcpus(text, strlen(text)), 3);
    ck_assert_int_eq(statcpus("", 1), 0);
}
END_TEST

START_TEST(stat_num_threads)
{
    const char *plain = "1234 (prog) S 1 1234 1234 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 "
                        "7 0 12345 1000000 200 18446744073709551615\n";
    ck_assert_int_eq(afx_stat_num_threads(plain, strlen(plain)), 7);
    /* comm may hold spaces and parentheses */
    const char *odd = "99 (a) b (c) S 1 99 99 0 -1 0 0 0 0 0 0 0 0 0 20 0 64 0 1 2 3\n";
    ck_assert_int_eq(afx_stat_num_threads(odd, strlen(odd)), 64);
    ck_assert_int_eq(afx_stat_num_threads("garbage", 7), -1);
    const char *cut = "1 (x) S 1 1 1";
    ck_assert_int_eq(afx_stat_num_threads(cut, strlen(cut)), -1);
    /* qemu-user's emulated /proc/self/stat: no count, not zero threads */
    const char *qemu = "28258 (prog) 0 28249 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1023928 0 0\n";
    ck_assert_int_eq(afx_stat_num_threads(qemu, strlen(qemu)), -1);
}
END_TEST

START_TEST(status_threads)
{
    const char *status = "Name:\tprog\nTgid:\t12\nThreadsX:\t9\nThreads:\t5\nSigQ:\t0/1\n";
    ck_assert_int_eq(afx_status_threads(status, strlen(status)), 5);
    const char *spaces = "Threads:   12\n";
    ck_assert_int_eq(afx_status_threads(spaces, strlen(spaces)), 12);
    /* not at a line's start, cut, empty, zero */
    const char *inside = "Name:\tThreads: 3\n";
    ck_assert_int_eq(afx_status_threads(inside, strlen(inside)), -1);
    ck_assert_int_eq(afx_status_threads("Threads:\t5", 10), -1);
    ck_assert_int_eq(afx_status_threads("Threads:\t\n", 10), -1);
    ck_assert_int_eq(afx_status_threads("Threads:\t0\n", 11), -1);
    ck_assert_int_eq(afx_status_threads("", 0), -1);
}
END_TEST

Suite *sysparse_suite(void)
{
    Suite *s = suite_create("sysparse");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, cpulist_forms);
    tcase_add_test(tc, cpulist_blank_is_zero);
    tcase_add_test(tc, cpulist_malformed);
    tcase_add_test(tc, cpulist_longer_than_glibc_reads);
    tcase_add_test(tc, cpulist_streamed_in_pieces);
    tcase_add_test(tc, proc_stat_cpu_lines);
    tcase_add_test(tc, stat_num_threads);
    tcase_add_test(tc, status_threads);
    suite_add_tcase(s, tc);
    return s;
}
