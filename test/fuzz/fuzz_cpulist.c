/* libFuzzer target: the /sys and /proc parsers (sysparse.c).
 *
 * The cpulist parser is checked against a plain reference parser below:
 * the count must agree for every input, however the streaming parser
 * is fed (the input's first byte picks where the text is cut).  The
 * /proc/stat parser must not depend on the cuts either, and num_threads
 * must be -1 or a number the kernel could print. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sysparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Reads a number of at most AFX_CPU_INDEX_MAX at s[*i]; -1 if none. */
static long number(const char *s, size_t len, size_t *i)
{
    long n = 0;
    if (*i >= len || !digit(s[*i]))
        return -1;
    for (; *i < len && digit(s[*i]); ++*i)
        if ((n = n * 10 + (s[*i] - '0')) > AFX_CPU_INDEX_MAX)
            return -1;
    return n;
}

/* The cpulist grammar, written out directly: blanks, then items "N" or
 * "N-M" (N <= M) separated by ",", then blanks.  Nothing but blanks is 0.
 * A list naming more CPUs than there are CPU numbers is malformed. */
static long reference_count(const char *s, size_t len)
{
    size_t i = 0;
    long count = 0;
    while (i < len && blank(s[i]))
        i++;
    if (i == len)
        return 0;
    for (;;) {
        long first = number(s, len, &i), last = first;
        if (first < 0)
            return -1;
        if (i < len && s[i] == '-') {
            i++;
            if ((last = number(s, len, &i)) < 0 || last < first)
                return -1;
        }
        count += last - first + 1;
        if (count > AFX_CPU_INDEX_MAX + 1)
            return -1;      /* more CPUs than there are CPU numbers */
        if (i < len && s[i] == ',') {
            i++;
            continue;
        }
        break;
    }
    while (i < len && blank(s[i]))
        i++;
    return i == len ? count : -1;
}

static long cpulist_in_pieces(const char *s, size_t len, unsigned cut)
{
    struct afx_cpulist p;
    afx_cpulist_begin(&p);
    size_t step = cut % 7 + 1;
    for (size_t i = 0; i < len; i += step) {
        size_t n = len - i < step ? len - i : step;
        afx_cpulist_feed(&p, s + i, n);
        afx_cpulist_feed(&p, s + i, 0);     /* empty reads happen too */
    }
    return afx_cpulist_end(&p);
}

static long statcpus_in_pieces(const char *s, size_t len, size_t step)
{
    struct afx_statcpus p;
    afx_statcpus_begin(&p);
    for (size_t i = 0; i < len; i += step)
        afx_statcpus_feed(&p, s + i, len - i < step ? len - i : step);
    return afx_statcpus_end(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    unsigned cut = data[0];
    const char *text = (const char *)data + 1;
    size_t len = size - 1;

    long want = reference_count(text, len);
    long whole = cpulist_in_pieces(text, len, 6);   /* one byte at a time: step 7 */
    if (whole != want || cpulist_in_pieces(text, len, cut) != want)
        abort();

    /* The string form stops at a NUL, as a file read into a C string would. */
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return 0;
    memcpy(copy, text, len);
    copy[len] = '\0';
    if (afx_cpulist_count(copy) != reference_count(copy, strlen(copy)))
        abort();
    free(copy);

    long cpus = statcpus_in_pieces(text, len, len ? len : 1);
    if (cpus < 0 || cpus != statcpus_in_pieces(text, len, cut % 5 + 1))
        abort();

    long threads = afx_stat_num_threads(text, len);
    if (threads < -1 || threads > (1L << 30))
        abort();
    return 0;
}
