/* How many malloc arenas exist: malloc_info's "<heap nr=" elements.
 * Allocates and takes each arena's lock in turn: call it only where
 * malloc may be called. */
#ifndef AFX_ARENACOUNT_H
#define AFX_ARENACOUNT_H

/* The count, or -1 if it cannot be had. */
long afx_count_arenas(void);

#endif
