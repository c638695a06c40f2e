/* libFuzzer target: inspect's BoltDB reader and the podman command
 * built from what it finds (cli/proc/boltdb.c, cli/proc/podmancmd.c).
 * Root's podman writes the database, but it is read as it is on disk,
 * while podman may be writing it: any bytes must be read within their
 * bounds or not at all.
 *
 * The input is the file; its meta pages' checksums are set right first
 * (where a meta's magic is), so that mutations reach the pages beyond.
 *
 * Oracles, beyond ASan and UBSan:
 *   - a value found lies inside the input;
 *   - a command built has "run" or "create" as its second or third
 *     word, holds the options given, and no word longer than the limit. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/proc/boltdb.c"
#include "../../cli/proc/ocijson.c"
#include "../../cli/proc/podmancmd.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void set_checksum(unsigned char *db, size_t size, size_t off)
{
    if (off > size || size - off < PAGE_HEADER + META_SIZE + 8 || u32(db + off + PAGE_HEADER) != MAGIC)
        return;
    uint64_t h = fnv1a(db + off + PAGE_HEADER, META_SIZE);
    for (int i = 0; i < 8; i++)
        db[off + PAGE_HEADER + META_SIZE + i] = (unsigned char)(h >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *db = malloc(size ? size : 1);
    if (db == NULL)
        return 0;
    memcpy(db, data, size);
    set_checksum(db, size, 0);
    if (size >= PAGE_HEADER + 12)
        set_checksum(db, size, u32(db + PAGE_HEADER + 8));
    const char *const buckets[] = { "ctr", "a" };
    const unsigned char *val;
    size_t vlen;
    if (afx_bolt_get(db, size, buckets, 2, "config", 6, &val, &vlen)) {
        if (val < db || val + vlen > db + size)
            abort();
        const char *const opts[] = { "-v", "V" };
        char **argv = afx_podman_command((const char *)val, vlen, "a", opts, 2);
        if (argv != NULL) {
            size_t n = 0;
            while (argv[n] != NULL)
                if (strlen(argv[n++]) >= AFX_PODMAN_WORD)
                    abort();
            size_t sub = strcmp(argv[1], "container") == 0 ? 2 : 1;
            if (n < sub + 3 || (strcmp(argv[sub], "run") != 0 && strcmp(argv[sub], "create") != 0))
                abort();
            size_t at = sub + 1 + (strcmp(argv[sub + 1], "--replace") == 0);
            if (at + 2 > n || strcmp(argv[at], "-v") != 0 || strcmp(argv[at + 1], "V") != 0)
                abort();
            free(argv);
        }
    }
    free(db);
    return 0;
}
