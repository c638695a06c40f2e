/* Logging: one line per message, built on the stack, one write(2).
 * Never allocates, never changes errno, never fails the caller. */
#ifndef AFX_LOG_H
#define AFX_LOG_H

#include <stdbool.h>

/* Name the process in every line and choose where lines go: PROGRAM is
 * copied (argv[0]'s last component), PATH (NULL: stderr) is copied and
 * opened for appending at each line, so no descriptor is kept open in
 * the host.  Only a regular file of the process's effective user with
 * a single name is written; anything else (a FIFO, another user's file)
 * is refused and the line goes to stderr.  Called once, before any
 * thread could log. */
void afx_log_setup(const char *program, const char *path);

/* Writes "arenafix: PROGRAM[PID]: <message>\n". */
void afx_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
