/* When and how the fix is applied.  Settings are read once, at startup,
 * from the initial environment as glibc read them; M_ARENA_MAX is set
 * when the process gets close to the arena count at which glibc fixes
 * its limit, not before, so that a program may still choose its own. */
#ifndef AFX_ACTIVATE_H
#define AFX_ACTIVATE_H

#include <stdbool.h>

/* Read the settings and bind the real functions, once.  ENVP is the
 * initial environment (the constructor's third argument), PROGRAM its
 * argv[0].  Callers hold afx_enter(). */
void afx_init(char **envp, const char *program);

/* From pthread_create, before the real one runs (afx_enter() held):
 * initialise if the constructor has not run yet, explain the decision
 * once, and set M_ARENA_MAX when this thread brings the process close
 * to glibc's arena_test. */
void afx_before_create(void);

/* Whether a creation has nothing left for arenafix to do (the limit
 * settled, the decision explained, touch off, or mode off): no lock, no
 * system call, no thread-local access. */
bool afx_creation_quiet(void);

/* Before a call behind which glibc starts threads of its own
 * (helpers.c; afx_enter() held): decide, and set M_ARENA_MAX now where
 * this thread, whose mask they inherit, is narrower than the CPUs
 * online. */
void afx_before_helpers(void);

/* After the real create returned, whatever it returned. */
void afx_after_create(void);

/* From the affinity interposers, only where they may do more than
 * forward (afx_enter() held): explain the decision once.  System calls
 * only: no lock, no allocation. */
void afx_before_narrowing(void);

/* Whether new threads malloc before their mask narrows. */
bool afx_touch_enabled(void);

/* Whether a narrowing may need a touch: as decided, or, before the
 * settings are read (another library's constructor may pin a thread
 * before arenafix's runs), where ARENAFIX_MODE names touch or both. */
bool afx_touch_possible(void);

/* The program called mallopt(PARAM, VALUE): note the user's choice
 * (afx_enter() held; the real mallopt not yet called). */
void afx_note_program_mallopt(int param, int value);

/* After the real mallopt(PARAM, VALUE) the program called (afx_enter()
 * held): act on its arena_test. */
void afx_after_program_mallopt(int param, int value);

/* ARENAFIX_MODE=off: the interposers only forward.  afx_off reads the
 * settings first if no one has (afx_enter() held); afx_off_if_known
 * reads nothing (for the async-signal-safe interposers). */
bool afx_off(void);
bool afx_off_if_known(void);

#endif
