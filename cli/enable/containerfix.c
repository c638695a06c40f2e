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

/* podman's configurations, in the order it reads them: a hooks_dir
 * set in one replaces the default list. */
static const char *const podman_confs[] = {
    "usr/share/containers/containers.conf",
    "etc/containers/containers.conf",
    /* podman 4.4 and later, as root */
    "usr/share/containers/containers.rootful.conf",
    "etc/containers/containers.rootful.conf",
    /* root's own (its $HOME) */
    "root/.config/containers/containers.conf",
};
static const char *const podman_conf_dirs[] = {
    "usr/share/containers/containers.conf.d",
    "etc/containers/containers.conf.d",
    "usr/share/containers/containers.rootful.conf.d",
    "etc/containers/containers.rootful.conf.d",
    "root/.config/containers/containers.conf.d",
};

/* Whether a containers.conf (text) leaves podman reading dir (absolute):
 * it sets no hooks_dir, or names dir in the file that does. */
static bool conf_keeps(const char *text, const char *dir)
{
    for (const char *p = text; (p = strstr(p, "hooks_dir")) != NULL; p += 9) {
        const char *line = p;
        while (line > text && line[-1] != '\n')
            line--;
        while (*line == ' ' || *line == '\t')
            line++;
        if (line != p)
            continue;   /* a comment, or another key's value */
        /* Its list, to the closing bracket. */
        const char *end = strchr(p, ']');
        char quoted[PATH_MAX + 2];
        int n = snprintf(quoted, sizeof quoted, "\"%s\"", dir);
        return end != NULL && memmem(p, (size_t)(end - p), quoted, (size_t)n) != NULL;
    }
    return true;
}

/* A directory under r, walked as rootdir.h walks (no link of its
 * owner's followed); NULL where there is none. */
static DIR *root_dir(const struct afx_root *r, const char *path)
{
    int fd = afx_root_opendir(r, path);
    if (fd < 0)
        return NULL;
    DIR *d = fdopendir(fd);
    if (d == NULL)
        close(fd);
    return d;
}
/* Whether podman, as root, reads the hooks.d entry at rel (under the
 * default hooks directory): no containers.conf here, nor one in its
 * drop-in directories, sets a hooks_dir that leaves that directory out. */
static bool podman_reads(const struct afx_root *r, const char *rel)
{
    if (strncmp(rel, hook_dirs[0], strlen(hook_dirs[0])) != 0)
        return false;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "/%s", hook_dirs[0]);
    bool keeps = true;
    for (size_t i = 0; keeps && i < sizeof podman_confs / sizeof podman_confs[0]; i++) {
        char *text = read_text(r, podman_confs[i], MAX_CONFIG, NULL);
        keeps = text == NULL || conf_keeps(text, dir);
        free(text);
    }
    for (size_t i = 0; keeps && i < sizeof podman_conf_dirs / sizeof podman_conf_dirs[0]; i++) {
        DIR *d = root_dir(r, podman_conf_dirs[i]);
        if (d == NULL)
            continue;
        for (struct dirent *e; keeps && (e = readdir(d)) != NULL;) {
            char conf[PATH_MAX];
            size_t n = strlen(e->d_name);
            if (e->d_name[0] == '.' || n < 6 || strcmp(e->d_name + n - 5, ".conf") != 0
                || (size_t)snprintf(conf, sizeof conf, "%s/%s", podman_conf_dirs[i], e->d_name) >= sizeof conf)
                continue;
            char *text = read_text(r, conf, MAX_CONFIG, NULL);
            keeps = text == NULL || conf_keeps(text, dir);
            free(text);
        }
        closedir(d);
    }
    return keeps;
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
            if (f->podman_hook[0] == '\0' && strstr(text, "io\\\\.arenafix\\\\.enable") != NULL && podman_reads(r, rel))
                snprintf(f->podman_hook, sizeof f->podman_hook, "%s", rel);
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
        DIR *d = root_dir(r, cdi_dirs[i]);
        if (d == NULL)
            continue;
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

/* The end of the JSON string that starts at p (its opening quote), or
 * NULL if it does not end. */
static const char *string_end(const char *p)
{
    for (p++; *p != '\0' && *p != '"'; p++)
        if (*p == '\\' && p[1] != '\0')
            p++;
    return *p == '"' ? p : NULL;
}

/* A name docker accepts for a runtime, and a shell would not change. */
static bool runtime_name(const char *p, size_t n, size_t size)
{
    if (n == 0 || n >= size)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9')
              || (i > 0 && strchr("_.-", p[i]) != NULL)))
            return false;
    return true;
}

/* The key of daemon.json's top-level "runtimes" whose entry's "path"
 * is arenafix-runtime, into out: {"runtimes": {"NAME": {"path":
 * "/usr/bin/arenafix-runtime"}}}. */
static void docker_runtime(const char *text, char *out, size_t size)
{
    int depth = 0;
    const char *last = NULL, *last_end = NULL;      /* the last string read */
    const char *name = NULL, *name_end = NULL;      /* the runtime entry's key */
    bool in_runtimes = false, after_path = false, runs_it = false;
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '"') {
            const char *end = string_end(p);
            if (end == NULL)
                return;
            if (depth == 3 && name != NULL && after_path
                && memmem(p + 1, (size_t)(end - p - 1), "arenafix-runtime", 16) != NULL)
                runs_it = true;
            after_path = depth == 3 && name != NULL && end - p - 1 == 4 && memcmp(p + 1, "path", 4) == 0;
            last = p + 1;
            last_end = end;
            p = end;
        } else if (*p == '{' || *p == '[') {
            depth++;
            if (depth == 2)
                in_runtimes = *p == '{' && last != NULL && last_end - last == 8 && memcmp(last, "runtimes", 8) == 0;
            else if (depth == 3 && in_runtimes && *p == '{') {
                name = last;
                name_end = last_end;
                runs_it = false;
            }
        } else if (*p == '}' || *p == ']') {
            if (depth == 3 && name != NULL) {
                if (runs_it && out[0] == '\0' && runtime_name(name, (size_t)(name_end - name), size))
                    snprintf(out, size, "%.*s", (int)(name_end - name), name);
                name = NULL;
            }
            if (depth == 2)
                in_runtimes = false;
            depth--;
        } else if (*p != ':' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            after_path = after_path && *p != ',';
        }
    }
}

static void runtimes(const struct afx_root *r, struct afx_container_fixes *f)
{
    for (size_t i = 0; i < sizeof runtime_configs / sizeof runtime_configs[0]; i++) {
        char *text = read_text(r, runtime_configs[i], MAX_CONFIG, NULL);
        /* runtime.conf is the shim's own; the engines' must name it. */
        if (text != NULL && (i == 2 || strstr(text, "arenafix-runtime") != NULL))
            snprintf(f->runtimes[f->nruntimes++], PATH_MAX, "%s", runtime_configs[i]);
        if (text != NULL && i == 0)
            docker_runtime(text, f->docker_runtime, sizeof f->docker_runtime);
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
