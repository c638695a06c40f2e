/* The CPU mask the process had before the first narrowing arenafix saw:
 * touch mode lets threads born into a narrowed mask malloc on it. */
#ifndef AFX_MASK_H
#define AFX_MASK_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/* Room for 8192 CPUs, as glibc's own first sched_getaffinity try. */
enum { AFX_MASK_BYTES = 1024 };

/* The calling thread is about to set its own mask to SET: if that
 * narrows it and nothing is recorded yet, record the mask it has now.
 * System calls and atomics only: async-signal-safe. */
void afx_mask_note_self(size_t size, const cpu_set_t *set);

/* The recorded mask, if any. */
bool afx_mask_wide(const cpu_set_t **set, size_t *size);

/* CPUs in the calling thread's mask, copied into buf[AFX_MASK_BYTES];
 * -1 if unknown (a host with more CPUs than that, or an error). */
long afx_mask_get(unsigned char *buf);

#endif
