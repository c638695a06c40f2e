#include "suggest.h"

#include <string.h>

static char fold(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static int min3(int a, int b, int c)
{
    int m = a < b ? a : b;
    return m < c ? m : c;
}

/* The optimal string alignment distance (Damerau-Levenshtein, each
 * letter edited once), three rows at a time.  Longer words than a
 * subcommand's are cut short by limit: a length difference alone is
 * that many edits. */
int afx_edit_distance(const char *a, const char *b, int limit)
{
    enum { MAX = 64 };
    size_t n = strlen(a), m = strlen(b);
    size_t diff = n > m ? n - m : m - n;
    if (diff > (size_t)limit || n >= MAX || m >= MAX)
        return limit + 1;
    int rows[3][MAX + 1];
    int *two = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = (int)i;
        int best = cur[0];
        for (size_t j = 1; j <= m; j++) {
            int same = fold(a[i - 1]) == fold(b[j - 1]);
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + !same);
            if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1])
                && two[j - 2] + 1 < cur[j])
                cur[j] = two[j - 2] + 1;
            if (cur[j] < best)
                best = cur[j];
        }
        if (best > limit)
            return limit + 1;
        int *t = two;
        two = prev;
        prev = cur;
        cur = t;
    }
    return prev[m] > limit ? limit + 1 : prev[m];
}

int afx_misspelt(const char *word, const char *const *words, size_t count)
{
    int best = -1, best_edits = 3;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(word, words[i]) == 0)
            return -1;
        int edits = afx_edit_distance(word, words[i], 2);
        /* "cat" is no misspelling of "cdi", nor "bash" of "path": a
         * short word is one edit away from few others, two from many. */
        if (edits < best_edits && 2 * (size_t)edits < strlen(words[i])) {
            best = (int)i;
            best_edits = edits;
        }
    }
    return best;
}
