/* Whole small files (/proc, /sys, unit files) into memory. */
#ifndef AFX_READFILE_H
#define AFX_READFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* The file's contents, NUL-terminated, malloc'd; *len (if not NULL) its
 * length.  NULL with errno set on failure. */
char *afx_slurp(const char *path, size_t *len);

/* All of the open fd, at most max bytes, NUL-terminated (malloc'd), its
 * length in *len; NULL if it holds more, or on an error. */
char *afx_read_fd_max(int fd, size_t max, size_t *len);

/* dir and tail joined ("/proc/42" "/maps") into out; "" if it would not
 * fit.  And "/proc/PID" and tail ("/status"; "" for the directory).  As
 * snprintf would write them, at a tenth of its cost: a scan makes a
 * dozen such paths for each process.  Both return out. */
const char *afx_path_join(char *out, size_t size, const char *dir, const char *tail);
const char *afx_proc_path(char *out, size_t size, long pid, const char *tail);

/* When the reads of one process must end, on the monotonic clock.  It
 * is checked between reads, each of at most a fixed buffer: another
 * user's process can make the kernel slow to write its files (a long
 * map, thousands of threads), never one read endless. */
struct afx_deadline {
    struct timespec at;
};

void afx_deadline_in(struct afx_deadline *d, long seconds);
/* True once the deadline is past; never for NULL (no deadline). */
bool afx_deadline_passed(const struct afx_deadline *d);

/* The same as afx_slurp for a file another process controls: at most
 * max bytes (NULL with errno EFBIG past that), errno ETIME once the
 * deadline by (NULL: none) has passed, never blocking, only a regular
 * file (as /proc's are). */
char *afx_slurp_max(const char *path, size_t max, const struct afx_deadline *by, size_t *len);

/* Read a file to its end in pieces of a fixed buffer, handing each to
 * feed.  False with errno set if it cannot be opened or read, EFBIG
 * once more than max bytes came, ETIME once the deadline by (NULL:
 * none) has passed. */
bool afx_read_pieces(const char *path, size_t max, const struct afx_deadline *by,
                     void (*feed)(void *ctx, const char *piece, size_t len), void *ctx);

/* Open files a and b hold the same first size bytes (each at least that
 * long), read in pieces of a fixed buffer: a copy of a file, byte for
 * byte. */
bool afx_same_bytes(int a, int b, off_t size);

/* The first line of a file, without its newline, into out.  Empty
 * string if the file cannot be read. */
void afx_first_line(const char *path, char *out, size_t size);

#endif
