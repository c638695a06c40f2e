/* arenafix's createRuntime hook added to a bundle's config.json, as
 * text: the engine's file is kept byte for byte around the one entry
 * inserted.  Pure: the caller reads the file (bounded) and writes the
 * result. */
#ifndef AFX_BUNDLEEDIT_H
#define AFX_BUNDLEEDIT_H

#include <stdbool.h>
#include <stddef.h>

/* The hook to add: the installed command and its arguments (args[0]
 * "arenafix", args[1] "oci-hook", then its options), each printable
 * ASCII without '"' or '\\'. */
struct afx_hook_entry {
    const char *path;
    const char *const *args;    /* NULL-terminated */
};

enum afx_bundle_edit {
    AFX_EDIT_ADDED,         /* *out is the new file */
    AFX_EDIT_PRESENT,       /* a hook of arenafix's that serves the container is there */
    AFX_EDIT_NOT_ASKED,     /* annotated_only, and the container has no annotation */
    AFX_EDIT_MALFORMED,     /* not a configuration the hook can be added to: left as it is */
};

/* Add entry to hooks.createRuntime of config (len bytes), unless an
 * arenafix oci-hook entry (createRuntime or prestart) that serves the
 * container is there already: the same entry, one run with --always or
 * --cdi, or any where the container has io.arenafix.enable=true.  With
 * annotated_only, only a container with that annotation is edited.
 * why: one line saying what was decided.  *out malloc'd. */
enum afx_bundle_edit afx_bundle_add_hook(const char *config, size_t len, const struct afx_hook_entry *entry,
                                         bool annotated_only, char **out, size_t *out_len, char *why, size_t size);

/* Whether s may go into the entry as it is (see struct afx_hook_entry). */
bool afx_hook_entry_text_ok(const char *s);

#endif
