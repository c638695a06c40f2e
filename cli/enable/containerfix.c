#include "containerfix.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cdi/cdispec.h"

/* Where podman and CRI-O read hooks.d entries (containers-common), the
 * package's and a local install's. */
static const char *const hook_dirs[] = {
    "usr/share/containers/oci/hooks.d",
    "etc/containers/oci/hooks.d",
    "usr/local/share/containers/oci/hooks.d",
};
/* Where engines read CDI specs. */
static const char *const cdi_dirs[] = { "etc/cdi", "var/run/cdi" };
/* The engines' own configurations that may name the runtime shim. */
static const char *const runtime_configs[] = {
    "etc/docker/daemon.json",
    "etc/containerd/config.toml",
    "etc/arenafix/runtime.conf",
};
#define DEFAULT_LOG "var/log/arenafix-oci-hook.log"
enum { MAX_CONFIG = 1 << 20, MAX_LOG = 4 << 20 };

/* The text of rel, or NULL (missing, not a regular file, too large). */
static char *read_text(const struct afx_root *r, const char *rel, size_t max, size_t *len)
{
    char *text = NULL;
    struct stat st;
    size_t n = 0;
    if (afx_root_read(r, rel, max, &text, &n, &st) != 0)
        return NULL;
    if (len != NULL)
        *len = n;
    return text;
}

/* The value after "--log", in an entry's "args": "X", if any. */
static void log_of(const char *text, char *out, size_t size)
{
    const char *p = strstr(text, "\"--log\"");
    if (p == NULL || (p = strchr(p + 7, '"')) == NULL)
        return;
    const char *end = strchr(++p, '"');
    if (end == NULL || *p != '/' || (size_t)(end - p) >= size)
        return;
    /* Relative to the root, as every path here. */
    snprintf(out, size, "%.*s", (int)(end - p - 1), p + 1);
}

static void hooks(const struct afx_root *r, struct afx_container_fixes *f)
{
    for (size_t i = 0; i < sizeof hook_dirs / sizeof hook_dirs[0] && f->nhooks < AFX_FIX_MAX; i++) {
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%s/arenafix.json", hook_dirs[i]);
        char *text = read_text(r, rel, MAX_CONFIG, NULL);
        if (text == NULL)
            continue;
        if (strstr(text, "\"oci-hook\"") != NULL) {
            snprintf(f->hooks[f->nhooks++], PATH_MAX, "%s", rel);
            if (f->log[0] == '\0')
                log_of(text, f->log, sizeof f->log);
        }
        free(text);
    }
}

static bool spec_name(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && ((n > 5 && strcmp(name + n - 5, ".json") == 0)
                              || (n > 5 && strcmp(name + n - 5, ".yaml") == 0));
}

static void cdi_specs(const struct afx_root *r, struct afx_container_fixes *f)
{
    for (size_t i = 0; i < sizeof cdi_dirs / sizeof cdi_dirs[0]; i++) {
        int fd = afx_root_opendir(r, cdi_dirs[i]);
        if (fd < 0)
            continue;
        DIR *d = fdopendir(fd);
        if (d == NULL) {
            close(fd);
            continue;
        }
        /* In the order the directory gives, at most AFX_FIX_MAX. */
        for (struct dirent *e; f->ncdi < AFX_FIX_MAX && (e = readdir(d)) != NULL;) {
            if (!spec_name(e->d_name))
                continue;
            char rel[PATH_MAX];
            if ((size_t)snprintf(rel, sizeof rel, "%s/%s", cdi_dirs[i], e->d_name) >= sizeof rel)
                continue;
            char *text = read_text(r, rel, MAX_CONFIG, NULL);
            if (text != NULL && strstr(text, AFX_CDI_KIND) != NULL)
                snprintf(f->cdi[f->ncdi++], PATH_MAX, "%s", rel);
            free(text);
        }
        closedir(d);
    }
}

static void runtimes(const struct afx_root *r, struct afx_container_fixes *f)
{
    for (size_t i = 0; i < sizeof runtime_configs / sizeof runtime_configs[0]; i++) {
        char *text = read_text(r, runtime_configs[i], MAX_CONFIG, NULL);
        /* runtime.conf is the shim's own; the engines' must name it. */
        if (text != NULL && (i == 2 || strstr(text, "arenafix-runtime") != NULL))
            snprintf(f->runtimes[f->nruntimes++], PATH_MAX, "%s", runtime_configs[i]);
        free(text);
    }
}

static void hook_log(const struct afx_root *r, struct afx_container_fixes *f)
{
    if (f->log[0] == '\0')
        snprintf(f->log, sizeof f->log, "%s", DEFAULT_LOG);
    size_t len = 0;
    char *text = read_text(r, f->log, MAX_LOG, &len);
    if (text == NULL)
        return;
    f->log_exists = true;
    const char *last = NULL;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n') {
            f->log_lines++;
            if (i + 1 < len)
                last = text + i + 1;
        }
    if (len > 0 && text[len - 1] != '\n')
        f->log_lines++;
    if (last == NULL && len > 0)
        last = text;
    if (last != NULL)
        snprintf(f->log_last, sizeof f->log_last, "%.*s", (int)strcspn(last, "\n"), last);
    free(text);
}

void afx_container_fixes_read(const struct afx_root *r, struct afx_container_fixes *f)
{
    memset(f, 0, sizeof *f);
    hooks(r, f);
    cdi_specs(r, f);
    runtimes(r, f);
    hook_log(r, f);
}
