/* The command that created a podman container, as podman recorded it
 * (its config's "CreateCommand"), made into one that runs the container
 * again with more options.  Pure: the caller reads the config (from
 * root's podman database, see target/podmandb.h). */
#ifndef AFX_PODMANCMD_H
#define AFX_PODMANCMD_H

#include <stddef.h>

/* The most words a command may have, and bytes a word. */
#define AFX_PODMAN_WORDS 1024
#define AFX_PODMAN_WORD 4096

/* In config (len bytes, the container's config JSON), its CreateCommand
 * ("podman" or a path, then "run" or "create", or "container" and one
 * of them; no option before them), with opts (nopts words) after
 * "run"/"create", and "--replace" before them where the command names
 * the container name with --name (so that it replaces the old one).
 * The words, in one malloc'd block (free it), NULL after the last.
 * NULL if there is no such command, a word is not ASCII or holds a
 * NUL or another control character, it is longer than the limits
 * above, or it is a systemd unit's (--sdnotify, --cidfile, the label
 * PODMAN_SYSTEMD_UNIT: the fix goes in the unit). */
char **afx_podman_command(const char *config, size_t len, const char *name, const char *const *opts, size_t nopts);

#endif
