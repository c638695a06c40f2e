/* Reads of another process that no user can hold: of its memory
 * (/proc/PID/mem), and of the files the kernel writes from its memory
 * map (environ, cmdline, maps).
 *
 * A page of that memory may be a file on a user's FUSE file system,
 * mapped there after inspect read the maps (a munmap and a MAP_FIXED
 * mmap between the two reads): reading it asks that file system's
 * program, which need never answer, and the reader sleeps in the
 * kernel, past any deadline of ours and, once the program has taken the
 * request, past SIGKILL too.  And the kernel reads environ and cmdline
 * (maps too, before 6.17) under the lock of the process's memory map,
 * which a user can hold for ever: a read of one of its own pages their
 * server never answers keeps it taken (across the fault), and a thread
 * of theirs asking to change the map (mmap) queues every later reader
 * behind it.  (A userfaultfd fails a read from another process rather
 * than wait: it cannot hold one.)
 *
 * So the reads are made by a helper process, forked on first use and
 * kept for the run.  One the reads of a process left asleep past their
 * budget is killed and forgotten, never waited for: asleep in the
 * kernel, it ends when the file system's program answers or ends, and
 * this command goes on (a fresh helper for the next process) and exits
 * meanwhile.  auxv (a copy the kernel keeps), status and stat take no
 * such lock: they are read here. */
#ifndef AFX_MEMREADER_H
#define AFX_MEMREADER_H

#include <stdbool.h>
#include <stddef.h>

#include "readfile.h"

/* What inspect spends reading one process, however slow the kernel is to
 * write what it shows (its thousands of threads' status, say): a real
 * process takes milliseconds, and a scan of a host stays within the
 * minutes a timer allows it however many such processes a user runs. */
#define AFX_READ_SECONDS 2

/* What one read gets: a heap header's first words (heaps.h). */
#define AFX_MEM_WORDS 4

/* Read AFX_MEM_WORDS words at each of the count addresses at[] of the
 * memory open as fd into words[] (count * AFX_MEM_WORDS), in order,
 * stopping at the first that cannot be read whole.  The number read
 * whole; -1 with errno ETIME if the deadline by passed first, or if
 * the helper was left asleep in the kernel past the time left to by
 * (AFX_READ_SECONDS if none), which a helper at work, however slow,
 * never is; -1 with another errno if no helper could be started. */
long afx_mem_read_words(int fd, const unsigned long *at, size_t count, unsigned long *words,
                        const struct afx_deadline *by);

/* As afx_read_pieces (readfile.h) for path, a file of /proc/PID the
 * kernel writes under that process's memory map lock, read by the
 * helper (which opens it) in pieces of up to 256 KiB: false with errno
 * ETIME past the deadline by, or when the helper was left asleep past
 * the time left to by (AFX_READ_SECONDS if none). */
bool afx_mem_read_pieces(const char *path, size_t max, const struct afx_deadline *by,
                         void (*feed)(void *ctx, const char *piece, size_t len), void *ctx);

/* The same as afx_slurp_max (readfile.h), read so. */
char *afx_mem_slurp(const char *path, size_t max, const struct afx_deadline *by, size_t *len);

#endif
