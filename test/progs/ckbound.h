/* Failure messages of a bounded size, for the check harnesses
 * (test/integration, test/cli); included after <check.h>.
 *
 * libcheck refuses a failure message longer than its limit (4 KiB): the
 * test's process then exits 2 and the log says only "Early exit with
 * return value 2", never what failed.  Every assertion's message goes
 * through afx_ck_failed, which keeps its head (what was wrong, said
 * first) and its tail, and says how many bytes it left out between. */
#ifndef AFX_TEST_CKBOUND_H
#define AFX_TEST_CKBOUND_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a message keeps: well within libcheck's 4 KiB with the file,
 * line and the expression's text beside it. */
enum { AFX_CK_HEAD = 2400, AFX_CK_TAIL = 800 };

static inline void afx_ck_failed(const char *file, int line, const char *expr, const char *msg, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

/* Every check.h assertion macro calls _ck_assert_failed by this name. */
#define _ck_assert_failed(...) afx_ck_failed(__VA_ARGS__)

static inline void afx_ck_failed(const char *file, int line, const char *expr, const char *msg, ...)
{
    static char shown[AFX_CK_HEAD + AFX_CK_TAIL + 64];
    char *text = NULL;
    va_list ap;
    va_start(ap, msg);
    int len = msg != NULL ? vasprintf(&text, msg, ap) : -1;
    va_end(ap);
    if (len < 0)
        (_ck_assert_failed)(file, line, expr, NULL);
    if ((size_t)len <= AFX_CK_HEAD + AFX_CK_TAIL) {
        snprintf(shown, sizeof shown, "%s", text);
    } else {
        snprintf(shown, sizeof shown, "%.*s\n[... %d bytes left out ...]\n%s", (int)AFX_CK_HEAD, text,
                 len - AFX_CK_HEAD - AFX_CK_TAIL, text + len - AFX_CK_TAIL);
    }
    free(text);
    (_ck_assert_failed)(file, line, expr, "%s", shown);
}

#endif
