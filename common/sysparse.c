#include "sysparse.h"

#include <stdbool.h>
#include <string.h>

enum {
    CL_LEAD,     /* blanks before the list */
    CL_FIRST,    /* digits of N in N or N-M */
    CL_DASH,     /* just read '-' */
    CL_SECOND,   /* digits of M */
    CL_ITEM,     /* just read ',', a number must follow */
    CL_TRAIL,    /* blanks after the list */
    CL_BAD,
};

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

void afx_cpulist_begin(struct afx_cpulist *p)
{
    memset(p, 0, sizeof *p);
    p->state = CL_LEAD;
}

static bool add_digit(long *n, char c)
{
    *n = *n * 10 + (c - '0');
    return *n <= AFX_CPU_INDEX_MAX;
}

/* An item ended: count it.  False if its range is backwards. */
static bool close_item(struct afx_cpulist *p, bool range)
{
    long last = range ? p->cur : p->first;
    if (last < p->first)
        return false;
    p->count += last - p->first + 1;
    /* Overlapping items can name more CPUs than there are CPU numbers:
     * no kernel wrote that, and the count would overflow the arena
     * limit derived from it. */
    return p->count <= AFX_CPU_INDEX_MAX + 1;
}

static int step(struct afx_cpulist *p, char c)
{
    switch (p->state) {
    case CL_LEAD:
    case CL_ITEM:
        if (p->state == CL_LEAD && is_blank(c))
            return CL_LEAD;
        if (!is_digit(c))
            return CL_BAD;
        p->first = c - '0';
        return CL_FIRST;
    case CL_FIRST:
    case CL_SECOND: {
        bool range = p->state == CL_SECOND;
        if (is_digit(c))
            return add_digit(range ? &p->cur : &p->first, c) ? p->state : CL_BAD;
        if (c == '-' && !range)
            return CL_DASH;
        if (c != ',' && !is_blank(c))
            return CL_BAD;
        if (!close_item(p, range))
            return CL_BAD;
        return c == ',' ? CL_ITEM : CL_TRAIL;
    }
    case CL_DASH:
        if (!is_digit(c))
            return CL_BAD;
        p->cur = c - '0';
        return CL_SECOND;
    case CL_TRAIL:
        return is_blank(c) ? CL_TRAIL : CL_BAD;
    default:
        return CL_BAD;
    }
}

void afx_cpulist_feed(struct afx_cpulist *p, const char *text, size_t len)
{
    for (size_t i = 0; i < len && p->state != CL_BAD; i++)
        p->state = step(p, text[i]);
}

long afx_cpulist_end(struct afx_cpulist *p)
{
    switch (p->state) {
    case CL_LEAD:
        return 0;
    case CL_FIRST:
    case CL_SECOND:
        if (!close_item(p, p->state == CL_SECOND))
            return -1;
        p->state = CL_TRAIL;
        return p->count;
    case CL_TRAIL:
        return p->count;
    default:
        return -1;
    }
}

long afx_cpulist_count(const char *text)
{
    struct afx_cpulist p;
    afx_cpulist_begin(&p);
    afx_cpulist_feed(&p, text, strlen(text));
    return afx_cpulist_end(&p);
}

void afx_statcpus_begin(struct afx_statcpus *p)
{
    memset(p, 0, sizeof *p);
}

/* A line counts when it starts with "cpu" and a digit ("cpu" alone is
 * the total). */
void afx_statcpus_feed(struct afx_statcpus *p, const char *text, size_t len)
{
    static const char tag[] = "cpu";
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '\n') {
            p->col = 0;
            p->skip = 0;
            continue;
        }
        if (p->skip)
            continue;
        if (p->col < 3) {
            if (c != tag[p->col])
                p->skip = 1;
            p->col++;
            continue;
        }
        if (is_digit(c))
            p->count++;
        p->skip = 1;
    }
}

long afx_statcpus_end(const struct afx_statcpus *p)
{
    return p->count;
}

long afx_stat_num_threads(const char *text, size_t len)
{
    /* comm may hold spaces and parentheses: fields start after the last ')'. */
    size_t i = len;
    while (i > 0 && text[i - 1] != ')')
        i--;
    if (i == 0)
        return -1;
    /* After ") " come fields 3 (state) .. 20 (num_threads). */
    int field = 2;
    long n = -1;
    for (; i < len; i++) {
        if (text[i] == ' ') {
            if (field == 20)
                break;
            field++;
            n = -1;
            continue;
        }
        if (field != 20)
            continue;
        if (!is_digit(text[i]))
            return -1;
        n = (n < 0 ? 0 : n * 10) + (text[i] - '0');
        if (n > (1L << 30))
            return -1;
    }
    /* A live process has a thread: 0 is no count (qemu-user's emulated
     * /proc/self/stat writes 0 in every field it does not know). */
    return field == 20 && n > 0 ? n : -1;
}

long afx_status_threads(const char *text, size_t len)
{
    static const char key[] = "Threads:";
    const size_t keylen = sizeof key - 1;
    for (size_t i = 0; i + keylen <= len; i++) {
        if ((i > 0 && text[i - 1] != '\n') || memcmp(text + i, key, keylen) != 0)
            continue;
        size_t j = i + keylen;
        while (j < len && (text[j] == ' ' || text[j] == '\t'))
            j++;
        long n = -1;
        for (; j < len && is_digit(text[j]); j++) {
            n = (n < 0 ? 0 : n * 10) + (text[j] - '0');
            if (n > (1L << 30))
                return -1;
        }
        return n > 0 && j < len && text[j] == '\n' ? n : -1;
    }
    return -1;
}
