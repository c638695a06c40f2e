/* Root's podman database (BoltDB, /var/lib/containers/storage/libpod/
 * bolt_state.db): what podman recorded of a container when it made it. */
#ifndef AFX_PODMANDB_H
#define AFX_PODMANDB_H

#include <stdbool.h>
#include <stddef.h>

/* The largest database read. */
#define AFX_PODMAN_DB_MAX (64L << 20)

/* The config JSON podman keeps of root's container id (its whole ID),
 * as the span *json, *len of the database, read once a run: only if
 * the file and every directory on its way are root's, writable by no
 * one else, no link followed, a regular file of at most
 * AFX_PODMAN_DB_MAX bytes.  False if not, or if it holds no such
 * container.  path: the database, NULL for podman's default. */
bool afx_podman_config(const char *path, const char *id, const char **json, size_t *len);

#endif
