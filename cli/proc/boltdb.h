/* A value in a BoltDB file (bbolt's format: podman's bolt_state.db),
 * read from the file's bytes alone.  Pure and bounded: every page and
 * element is checked against the bytes given, the walk nested at most
 * AFX_BOLT_DEPTH pages deep; nothing is written.  The caller reads the
 * file (and checks that only root can have written it). */
#ifndef AFX_BOLTDB_H
#define AFX_BOLTDB_H

#include <stdbool.h>
#include <stddef.h>

#define AFX_BOLT_DEPTH 32

/* In db (len bytes, the whole file), the value of key in the bucket
 * buckets[0], bucket buckets[1] in it, ... (nbuckets of them, each a
 * NUL-terminated name), as the span *val, *vlen of db.  The meta page
 * taken is the valid one (magic, version 2, checksum) of the later
 * transaction.  False if the file is not that format, a page or element
 * lies outside it, a bucket or the key is missing, or the key names a
 * bucket. */
bool afx_bolt_get(const unsigned char *db, size_t len, const char *const *buckets, size_t nbuckets,
                  const char *key, size_t klen, const unsigned char **val, size_t *vlen);

#endif
