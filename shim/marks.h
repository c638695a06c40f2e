/* Per-thread marks, held while a thread runs arenafix's own code, kept
 * without thread-local storage: a library with a TLS segment has glibc
 * set up its block in every new thread, some 100 instructions at each
 * pthread_create for the life of the process, and these marks are held
 * only for the length of a call.  Async-signal-safe: no lock, no
 * allocation, no call through the PLT: one system call, gettid, to
 * take a mark once the process has threads. */
#ifndef AFX_MARKS_H
#define AFX_MARKS_H

#include <stdbool.h>

enum afx_mark {
    /* Running arenafix code that takes locks or allocates (binding,
     * activation, mallopt, the touch).  An interposer entered while it
     * is held was reached from that code or from a signal handler
     * interrupting it: it must only forward the call. */
    AFX_MARK_BUSY = 1,
    /* Binding the table of glibc's functions (real.c). */
    AFX_MARK_BINDING = 2,
};

/* Takes the mark for the calling thread: false if it holds it already
 * (or, with more threads inside arenafix's code at once than it has
 * room for, the table is full: taken as held).  One system call
 * (gettid) once the process has threads. */
bool afx_mark(enum afx_mark mark);
void afx_unmark(enum afx_mark mark);

/* The same, telling a mark held already from a table with no room. */
enum { AFX_MARK_TAKEN, AFX_MARK_WAS_HELD, AFX_MARK_NO_ROOM };
int afx_mark_try(enum afx_mark mark);

/* This thread's identity: its thread pointer, read from the register
 * (pthread_self is a call through the PLT, bound lazily). */
static inline unsigned long afx_thread_id(void)
{
    return (unsigned long)__builtin_thread_pointer();
}

static inline bool afx_enter(void)
{
    return afx_mark(AFX_MARK_BUSY);
}

static inline void afx_leave(void)
{
    afx_unmark(AFX_MARK_BUSY);
}

#endif
