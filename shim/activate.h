/* When and how the fix is applied: once, at the first call of an
 * interposed function (or from the constructor in eager mode). */
#ifndef AFX_ACTIVATE_H
#define AFX_ACTIVATE_H

#include <stdbool.h>

/* Apply the fix if not done yet.  Cheap after the first call; safe
 * from any thread; errno preserved. */
void afx_activate(void);

/* After afx_activate: whether threads should malloc before narrowing. */
bool afx_touch_enabled(void);

/* The program set M_ARENA_MAX itself; if before activation, that is the
 * user's choice and arenafix stands down. */
void afx_note_program_mallopt(int value);

#endif
