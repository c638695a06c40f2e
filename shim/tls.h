/* Per-thread flags.  initial-exec TLS: no __tls_get_addr call (which
 * could allocate, and would add ld.so to the library's dependencies),
 * so they are safe to read in a signal handler. */
#ifndef AFX_TLS_H
#define AFX_TLS_H

#include <stdbool.h>

#define AFX_TLS __thread __attribute__((tls_model("initial-exec")))

/* Non-zero while this thread runs arenafix code that takes locks or
 * allocates (binding, activation, mallopt, the touch).  An interposer
 * entered while it is set was reached from that code or from a signal
 * handler interrupting it: it must only forward the call. */
extern AFX_TLS int afx_busy;

static inline bool afx_enter(void)
{
    if (afx_busy)
        return false;
    afx_busy = 1;
    return true;
}

static inline void afx_leave(void)
{
    afx_busy = 0;
}

#endif
