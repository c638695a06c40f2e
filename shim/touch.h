/* Touch mode: a thread attaches its malloc arena while its mask is
 * still wide, so that glibc sizes the arena limit from the full mask.
 * Only threads whose first malloc could otherwise come on a narrowed
 * mask are touched: those born narrow (their attribute's CPU set, or a
 * creator that narrowed itself), at birth, and those that narrow their
 * own mask, at that call. */
#ifndef AFX_TOUCH_H
#define AFX_TOUCH_H

#include <pthread.h>
#include <stdbool.h>
#include <threads.h>

/* The real creation functions a call goes to. */
typedef int afx_create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int afx_thrd_create_fn(thrd_t *, thrd_start_t, void *);

/* Create a thread through CREATE with the caller's attribute unchanged;
 * a thread born narrow gets a trampoline that touches before ROUTINE
 * runs, and the call returns once the thread is back on its birth mask
 * (a placement its creator makes after the call is never undone).  OLD_ATTR: attr is i386's GLIBC_2.0 one (no CPU set, no process
 * default), for CREATE to convert.  errno is set to ERRNO before CREATE
 * runs and left as CREATE leaves it.  Callers hold afx_enter(). */
int afx_touch_create(afx_create_fn *create, bool old_attr, pthread_t *thread,
                     const pthread_attr_t *attr, void *(*routine)(void *), void *arg, int errno_in);

/* The same for C11's thrd_create (the process default attribute applies). */
int afx_touch_thrd_create(afx_thrd_create_fn *create, thrd_t *thread, thrd_start_t routine,
                          void *arg, int errno_in);

/* Whether the calling thread still needs a touch if it narrows its own
 * mask.  Async-signal-safe. */
bool afx_touch_pending(void);

/* After a successful call that set the calling thread's own mask, made
 * while afx_touch_pending() was true, whose mask before it was BEFORE
 * (AFX_MASK_BYTES) with CPUS CPUs: if it narrowed, mark the thread and
 * malloc on the mask it had before, then take the new one back.  errno
 * kept.  Reached from a
 * signal handler that interrupted a malloc in this thread, that malloc
 * is not safe: see "Async-signal safety" in docs/internals.md. */
void afx_touch_after_narrowing(const unsigned char *before, long cpus);

/* Whether this thread runs on its signal alternate stack (a system
 * call through a pointer filled at load: no lazy binding). */
bool afx_on_alternate_stack(void);

/* Touch mode: makes the key that marks a touched thread (settings read,
 * under the once); false if none can be had (the program holds every
 * key): touch mode is then off. */
bool afx_touch_prepare(void);

/* From arenafix's constructor, settings read: its thread has allocated
 * already (the main thread owns glibc's main arena; a thread that
 * dlopen()s the library allocated in dlopen), and its narrowings never
 * malloc. */
void afx_touch_constructor_thread(void);

#endif
