#include "podmandb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/rootonly.h"
#include "proc/boltdb.h"

#define DEFAULT_DB "/var/lib/containers/storage/libpod/bolt_state.db"

/* The whole of the database at path, read once (NULL if it cannot be). */
static const unsigned char *database(const char *path, size_t *len)
{
    static unsigned char *db;
    static size_t size;
    static char read_from[4096];
    static bool read;
    if (read && strcmp(read_from, path) == 0) {
        *len = size;
        return db;
    }
    free(db);
    db = NULL;
    size = 0;
    read = true;
    snprintf(read_from, sizeof read_from, "%s", path);
    struct stat st;
    int fd = afx_open_root_program(path);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size <= AFX_PODMAN_DB_MAX
        && (db = malloc((size_t)st.st_size)) != NULL) {
        /* As long as it was when opened: podman may write it meanwhile,
         * and a torn read fails the reader's checks, not this. */
        while (size < (size_t)st.st_size) {
            ssize_t got = pread(fd, db + size, (size_t)st.st_size - size, (off_t)size);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                break;
            size += (size_t)got;
        }
    }
    close(fd);
    *len = size;
    return db;
}

bool afx_podman_config(const char *path, const char *id, const char **json, size_t *len)
{
    const char *const buckets[] = { "ctr", id };
    size_t n = 0;
    const unsigned char *db = database(path != NULL ? path : DEFAULT_DB, &n), *v;
    size_t vlen;
    if (db == NULL || n == 0 || !afx_bolt_get(db, n, buckets, 2, "config", 6, &v, &vlen))
        return false;
    *json = (const char *)v;
    *len = vlen;
    return true;
}
