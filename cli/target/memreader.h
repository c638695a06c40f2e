/* Reads of another process's memory (/proc/PID/mem) that no user can
 * hold.  A page of that memory may be a file on a user's FUSE file
 * system, mapped there after inspect read the maps (a munmap and a
 * MAP_FIXED mmap between the two reads): reading it asks that file
 * system's program, which need never answer, and the reader sleeps in
 * the kernel, past any deadline of ours and, once the program has
 * taken the request, past SIGKILL too.  (environ and cmdline are read
 * by the kernel from anonymous memory only, and a userfaultfd fails a
 * read from another process rather than wait: neither can be held.)
 *
 * So the reads are made by a helper process, forked on first use and
 * kept for the run.  One the reads of a process left asleep past their
 * budget is killed and forgotten, never waited for: asleep in the
 * kernel, it ends when the file system's program answers or ends, and
 * this command goes on and exits meanwhile. */
#ifndef AFX_MEMREADER_H
#define AFX_MEMREADER_H

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

#endif
