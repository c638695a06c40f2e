/* Logging: one line per message, built on the stack, one write(2).
 * Never allocates, never changes errno, never fails the caller. */
#ifndef AFX_LOG_H
#define AFX_LOG_H

#include <stdbool.h>

/* Writes "arenafix: <message>\n" to stderr. */
void afx_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
