/* The Container Device Interface spec arenafix cdi writes: one device,
 * arenafix.dev/fix=NAME, whose only edit is a createRuntime hook that
 * runs this host's `arenafix oci-hook --cdi`.  The hook, not the spec,
 * mounts the library, once it has judged the image's libc: a mount or
 * an LD_PRELOAD in the spec would reach musl and static images too.
 * Pure: the caller finds the paths and writes the text. */
#ifndef AFX_CDISPEC_H
#define AFX_CDISPEC_H

#include <stddef.h>

#define AFX_CDI_KIND "arenafix.dev/fix"
#define AFX_CDI_DEVICE "libarenafix"
/* The oldest CDI version that has hooks (podman 4.3 reads 0.3.0 to
 * 0.5.0; later readers still take 0.3.0). */
#define AFX_CDI_VERSION "0.3.0"

/* Why NAME cannot be a CDI device's name (a letter, then letters,
 * digits, '_', '-', '.', ':', the last a letter or digit; at most 64),
 * or NULL. */
const char *afx_cdi_name_problem(const char *name);

/* Why PATH cannot be put into the spec (it must be absolute, printable
 * ASCII, without '"' or '\\', so that it goes into the JSON as it is),
 * or NULL. */
const char *afx_cdi_path_problem(const char *path);

/* The spec for the device NAME whose hook runs COMMAND (its absolute
 * path) with "--log LOG" when LOG is not NULL, into out[size].  The
 * length written, or -1 if an argument has a problem above or the text
 * does not fit. */
int afx_cdi_spec(char *out, size_t size, const char *command, const char *name, const char *log);

#endif
