/* What the suites must leave on the host as they found it, read so that
 * the harness (suiterun.h) and a test can compare before and after.
 * Header-only: static inline, for every harness that includes it. */
#ifndef AFX_TEST_HOSTFILE_H
#define AFX_TEST_HOSTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* /etc/ld.so.preload, which ld.so reads for every program on the host:
 * a test that gives its children one does it in a mount namespace of
 * its own, over a copy of /etc.  Its state: absent, or its bytes. */
struct afx_host_file {
    bool exists;
    size_t len;
    char *text;     /* NULL when absent or unreadable */
};

static inline void afx_host_file_read(const char *path, struct afx_host_file *f)
{
    FILE *in = fopen(path, "rb");
    memset(f, 0, sizeof *f);
    f->exists = in != NULL || access(path, F_OK) == 0;
    if (in == NULL)
        return;
    size_t cap = 4096;
    f->text = malloc(cap);
    for (size_t n; f->text != NULL && (n = fread(f->text + f->len, 1, cap - f->len, in)) > 0;) {
        f->len += n;
        char *more = f->len == cap ? realloc(f->text, cap *= 2) : f->text;
        if (more == NULL)
            free(f->text);
        f->text = more;
    }
    fclose(in);
}

static inline bool afx_host_file_same(const struct afx_host_file *a, const struct afx_host_file *b)
{
    return a->exists == b->exists && a->len == b->len
           && (a->len == 0 || (a->text != NULL && b->text != NULL && memcmp(a->text, b->text, a->len) == 0));
}

#endif
