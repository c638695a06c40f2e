/* arenafix-runtime's configuration, /etc/arenafix/runtime.conf: lines
 * "key = value", "#" comments.  Pure: the caller reads the file. */
#ifndef AFX_RUNTIMECONF_H
#define AFX_RUNTIMECONF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct afx_runtime_conf {
    char runtime[PATH_MAX];     /* the real runtime: a path, or a name looked up in PATH */
    char hook[PATH_MAX];        /* the arenafix command the hook entry runs */
    char log[PATH_MAX];         /* appended to by the shim and the hook; "" none */
    bool annotated_only;        /* only containers with io.arenafix.enable=true */
};

/* The defaults: runc, the installed arenafix, the log in /var/log. */
void afx_runtime_conf_default(struct afx_runtime_conf *c);

/* Apply the file's text (len bytes) over c.  False at the first line
 * that is not a known key with a good value, which why names; the lines
 * before it are applied. */
bool afx_runtime_conf_parse(struct afx_runtime_conf *c, const char *text, size_t len, char *why, size_t size);

#endif
