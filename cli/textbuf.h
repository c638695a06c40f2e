/* A growable string: bytes appended, kept NUL-terminated, and a failed
 * allocation remembered (every later append does nothing) so that a
 * caller checks once, at the end.  Free data when done. */
#ifndef AFX_TEXTBUF_H
#define AFX_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>

struct afx_textbuf {
    char *data;         /* NULL until the first append */
    size_t len, cap;
    bool oom;
};

/* s[0..n) appended; with n 0, data is allocated ("") if it was not. */
void afx_textbuf_add(struct afx_textbuf *b, const char *s, size_t n);

#endif
