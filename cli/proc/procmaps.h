/* What /proc/PID/maps says about a process's malloc.  Pure: the text is
 * fed in pieces as it is read, in constant memory and linear time. */
#ifndef AFX_PROCMAPS_H
#define AFX_PROCMAPS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* glibc's HEAP_MAX_SIZE (2 x DEFAULT_MMAP_THRESHOLD_MAX): every heap of
 * a non-main arena is a reservation this big, aligned to its size. */
#define AFX_HEAP_MAX (sizeof(long) == 8 ? 64UL << 20 : 1UL << 20)

#define AFX_MAX_HEAPS 16384

/* The longest line the kernel writes: a path of PATH_MAX - 1 bytes,
 * each escaped to four, after the fields.  Longer is not a maps line. */
#define AFX_MAPS_LINE_MAX (4 * PATH_MAX + 256)

struct afx_map_line {
    unsigned long start, end;
    char perms[5];
    unsigned long offset;
    unsigned dev_major, dev_minor;
    unsigned long inode;
    const char *path;           /* into the line; "" if none */
    size_t path_len;
};

/* One line, without its newline.  False if it is not a maps line. */
bool afx_maps_parse_line(const char *line, size_t len, struct afx_map_line *l);

enum afx_lib { AFX_LIB_NONE, AFX_LIB_LIBC, AFX_LIB_LOADER, AFX_LIB_ARENAFIX, AFX_LIB_FOREIGN, AFX_LIB_MUSL };

/* Which library a mapped file is, by its exact file name ("libc.so.6",
 * "ld-linux-x86-64.so.2", "libjemalloc.so.2"; " (deleted)" allowed
 * after it), never by a prefix. */
enum afx_lib afx_lib_kind(const char *path, size_t len);

/* A mapped file: one of its mappings (the name /proc/PID/map_files/
 * gives it) and the identity of the file maps reports. */
struct afx_mapping {
    unsigned long start, end;
    unsigned dev_major, dev_minor;
    unsigned long inode;
    char path[PATH_MAX];        /* as maps shows it; "" if none */
};

struct afx_maps {
    bool arenafix;              /* libarenafix is mapped as code */
    struct afx_mapping libc;    /* glibc's libc and ld.so, as code */
    struct afx_mapping loader;
    char foreign[PATH_MAX];     /* jemalloc, tcmalloc or mimalloc, "" if none */
    bool musl;                  /* musl's libc (ld-musl-ARCH.so.1) is mapped as code */
    long heaps;                 /* non-main arena heaps seen */
    long kept;                  /* of which heap_at holds the first ones */
    unsigned long heap_at[AFX_MAX_HEAPS];   /* their start addresses */
    unsigned long heap_rw[AFX_MAX_HEAPS];   /* bytes writable from there */
    long lines, bad_lines;
    unsigned long find;         /* set after afx_maps_begin: the mapping */
    struct afx_mapping found;   /* that holds this address, if any */

    /* The scanner's state. */
    struct afx_map_prev {
        bool valid, anonymous;
        unsigned long start, end;
        char perms[5];
    } prev;
    size_t used;
    bool overlong;
    char line[AFX_MAPS_LINE_MAX];
};

void afx_maps_begin(struct afx_maps *m);
/* Any piece of the text: a line may be cut anywhere. */
void afx_maps_feed(struct afx_maps *m, const char *text, size_t len);
void afx_maps_end(struct afx_maps *m);

/* The whole text at once. */
void afx_maps_scan(const char *text, struct afx_maps *m);

#endif
