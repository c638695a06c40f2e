/* Text from another process, made safe for a terminal.  Pure. */
#ifndef AFX_ESCAPE_H
#define AFX_ESCAPE_H

#include <stddef.h>

/* Copy s into out as `ls -b` does in the C locale: printable ASCII as
 * it is, a backslash doubled, every other byte (control characters,
 * DEL, bytes >= 0x80) as a backslash and three octal digits.  Cut
 * short at a whole escape, with "..." after it, when out is too small.
 * Returns out. */
char *afx_escape(const char *s, char *out, size_t size);

/* s as it is when every byte of it is printable ASCII, backslashes
 * included: a path is shown as it is named, systemd's escaped unit
 * names ("a\x2db.service") too.  Otherwise all of s as afx_escape
 * writes it, so that no byte reaches a terminal unescaped and every
 * backslash in that text is one of the escapes.  Cut short as
 * afx_escape is.  For a line no other escaper sees (standard output):
 * afx_error escapes its whole line itself.  Returns out. */
char *afx_printable(const char *s, char *out, size_t size);

/* The bytes afx_escape needs for n input bytes, its NUL included. */
#define AFX_ESCAPED_SIZE(n) (4 * (n) + 4)

#endif
