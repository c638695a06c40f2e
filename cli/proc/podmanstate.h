/* A podman container's name, from the record its storage keeps of it
 * (containers.json under the storage's overlay-containers directory).
 * Pure: the caller reads the file (and checks that only root can have
 * written it). */
#ifndef AFX_PODMANSTATE_H
#define AFX_PODMANSTATE_H

#include <stdbool.h>
#include <stddef.h>

/* In json (len bytes, the file as podman's storage writes it: an array
 * of objects, each beginning {"id":"ID","names":["NAME"...), the first
 * name of the container whose ID is id, copied into out.  Inside a JSON
 * string every '"' is escaped, so {"id":" occurs only where an object
 * begins: a name in another field (the metadata's) is never taken.
 * False (out "") if there is none, it does not fit in size, or it is
 * not a name podman accepts ([a-zA-Z0-9][a-zA-Z0-9_.-]*). */
bool afx_podman_name(const char *json, size_t len, const char *id, char *out, size_t size);

#endif
