/* Live threads counted without /proc (no file is read at a creation: a
 * sandbox may forbid it by then): from startup until M_ARENA_MAX is set
 * or will not be, each thread created through arenafix is counted from
 * its creation until its kernel task is gone.  Threads started behind
 * its back are not counted. */
#ifndef AFX_LIVECOUNT_H
#define AFX_LIVECOUNT_H

#include <stdbool.h>

/* Start counting (creations from now on), RUNNING threads besides the
 * main one counted for good. */
void afx_live_begin(long running);

/* Stop counting: nothing is wrapped from now on. */
void afx_live_end(void);

/* Threads alive (the main thread and the counted ones, those being
 * created included), or -1 when not counting. */
long afx_live_threads(void);

/* When counting: make *routine and *arg start a counted thread (the
 * C11 form for thrd_create).  After a creation that failed, undo it
 * with afx_live_unwrap(the new *arg).  False: nothing to undo. */
bool afx_live_wrap(void *(**routine)(void *), void **arg);
bool afx_live_wrap_c11(int (**routine)(void *), void **arg);
void afx_live_unwrap(void *arg);

#endif
