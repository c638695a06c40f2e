#include "unitenv.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The system manager's unit search path, most important first (what
 * `systemd-analyze unit-paths` prints on Debian 12).  A tree that is not
 * this host's / has no /run when it boots: its run/ is not read. */
static const char *const unit_dirs[] = {
    "etc/systemd/system.control", "run/systemd/system.control", "run/systemd/transient",
    "run/systemd/generator.early", "etc/systemd/system", "etc/systemd/system.attached",
    "run/systemd/system", "run/systemd/system.attached", "run/systemd/generator",
    "usr/local/lib/systemd/system", "lib/systemd/system", "usr/lib/systemd/system",
    "run/systemd/generator.late",
};
#define N_DIRS (sizeof unit_dirs / sizeof unit_dirs[0])

#define MAX_DROPINS 10000           /* more and arenafix says it cannot tell */
#define MAX_UNIT_FILE (16u << 20)   /* bytes read of one file */

static bool searched(const struct afx_root *r, size_t i)
{
    return r->host || strncmp(unit_dirs[i], "run/", 4) != 0;
}

struct strv {
    char **v;
    size_t n, cap;
    bool oom;
};

static void strv_add(struct strv *s, char *owned)
{
    if (owned == NULL || s->oom) {
        s->oom = true;
        free(owned);
        return;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        char **v = realloc(s->v, cap * sizeof *v);
        if (v == NULL) {
            s->oom = true;
            free(owned);
            return;
        }
        s->v = v, s->cap = cap;
    }
    s->v[s->n++] = owned;
}

static bool strv_has(const struct strv *s, const char *x)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], x) == 0)
            return true;
    return false;
}

static void strv_free(struct strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

static char *joined(const char *a, const char *b)
{
    char *out;
    return asprintf(&out, "%s/%s", a, b) < 0 ? NULL : out;
}

static bool is_dev_null(const struct stat *st)
{
    return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 && minor(st->st_rdev) == 3;
}

/* The unit file for name: the first in the search path.  1 if found (or
 * masked, or an alias), 0 if none, -1 with f->problem. */
static int find_fragment(const struct afx_root *r, const char *name, struct afx_unit_files *f, struct stat *st)
{
    char where[2 * PATH_MAX];
    for (size_t i = 0; i < N_DIRS; i++) {
        if (!searched(r, i))
            continue;
        char *rel = joined(unit_dirs[i], name), target[PATH_MAX];
        if (rel == NULL)
            return -1;
        if (afx_root_readlink(r, rel, target, sizeof target) >= 0) {
            const char *base = strrchr(target, '/');
            base = base != NULL ? base + 1 : target;
            if (strcmp(target, "/dev/null") == 0) {
                f->masked = true;
                free(rel);
                return 1;
            }
            if (strcmp(base, name) != 0) {
                snprintf(f->alias_of, sizeof f->alias_of, "%.255s", base);
                free(rel);
                return 1;
            }
        }
        int rc = afx_root_stat(r, rel, st);
        if (rc == -ENOENT || rc == -ENOTDIR) {
            free(rel);
            continue;
        }
        if (rc == 0 && (S_ISREG(st->st_mode) || is_dev_null(st))) {
            f->masked = !S_ISREG(st->st_mode) || st->st_size == 0;
            f->fragment = rel;
            return 1;
        }
        snprintf(f->problem, sizeof f->problem, "%.400s: %s", afx_root_path(r, rel, where, sizeof where),
                 rc < 0 ? strerror(-rc) : "not a regular file");
        free(rel);
        return -1;
    }
    return 0;
}

/* Names linked to the unit file (as Debian's sshd.service to
 * ssh.service): systemd applies their drop-ins too.  For an instance of
 * a template, a template alias counts with the same instance. */
static void find_aliases(const struct afx_root *r, const char *service, const struct stat *unit, struct strv *names)
{
    const char *at = strchr(service, '@');
    for (size_t i = 0; i < N_DIRS && !names->oom; i++) {
        int fd = searched(r, i) ? afx_root_opendir(r, unit_dirs[i]) : -1;
        DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
        if (dir == NULL) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        for (struct dirent *e; (e = readdir(dir)) != NULL;) {
            size_t len = strlen(e->d_name);
            if (e->d_name[0] == '.' || len <= 8 || strcmp(e->d_name + len - 8, ".service") != 0
                || (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN))
                continue;
            char *rel = joined(unit_dirs[i], e->d_name), target[PATH_MAX];
            struct stat st;
            bool same = rel != NULL && afx_root_readlink(r, rel, target, sizeof target) >= 0
                        && afx_root_stat(r, rel, &st) == 0 && st.st_dev == unit->st_dev && st.st_ino == unit->st_ino;
            free(rel);
            if (!same)
                continue;
            char *alias = NULL;
            const char *its_at = strchr(e->d_name, '@');
            if (at != NULL && its_at != NULL && strcmp(its_at, "@.service") == 0) {
                if (asprintf(&alias, "%.*s%s", (int)(its_at - e->d_name), e->d_name, at) < 0)
                    alias = NULL;
            } else {
                alias = strdup(e->d_name);
            }
            if (alias != NULL && (strcmp(alias, service) == 0 || strv_has(names, alias)))
                free(alias);
            else
                strv_add(names, alias);
        }
        closedir(dir);
    }
}

struct dirs_of {
    const char *dir;
    struct strv *out;
};

static bool add_dropin_dir(const char *name, void *arg)
{
    struct dirs_of *d = arg;
    char *rel;
    strv_add(d->out, asprintf(&rel, "%s/%s.d", d->dir, name) < 0 ? NULL : rel);
    return !d->out->oom;
}

struct found {
    char *name, *path;
    size_t order;
};

static int by_name_then_order(const void *a, const void *b)
{
    const struct found *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c != 0 ? c : x->order < y->order ? -1 : x->order > y->order;
}

/* The *.conf files of each directory (conf_files_list_strv()): one per
 * name, the first directory's, sorted by name. */
static bool list_dropins(const struct afx_root *r, const struct strv *dirs, const char *watch,
                         struct afx_unit_files *f)
{
    struct found *all = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    char where[2 * PATH_MAX];
    for (size_t i = 0; i < dirs->n && ok; i++) {
        int fd = afx_root_opendir(r, dirs->v[i]);
        DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
        if (dir == NULL) {
            if (fd >= 0)
                close(fd);
            else if (errno != ENOENT && errno != ENOTDIR) {
                snprintf(f->problem, sizeof f->problem, "%.400s: %s",
                         afx_root_path(r, dirs->v[i], where, sizeof where), strerror(errno));
                ok = false;
            }
            continue;
        }
        for (struct dirent *e; ok && (e = readdir(dir)) != NULL;) {
            size_t len = strlen(e->d_name);
            if (e->d_name[0] == '.' || len < 5 || strcmp(e->d_name + len - 5, ".conf") != 0
                || (e->d_type != DT_REG && e->d_type != DT_LNK && e->d_type != DT_UNKNOWN))
                continue;
            if (n == MAX_DROPINS) {
                snprintf(f->problem, sizeof f->problem, "more than %d drop-ins", MAX_DROPINS);
                ok = false;
                break;
            }
            if (n == cap) {
                struct found *more = realloc(all, (cap = cap ? 2 * cap : 64) * sizeof *all);
                if (more == NULL) {
                    ok = false;
                    break;
                }
                all = more;
            }
            all[n] = (struct found){ strdup(e->d_name), joined(dirs->v[i], e->d_name), n };
            ok = all[n].name != NULL && all[n].path != NULL;
            n++;
        }
        closedir(dir);
    }
    if (ok && n > 0)
        qsort(all, n, sizeof *all, by_name_then_order);
    if (ok && ((f->dropins = calloc(n + 1, sizeof *f->dropins)) == NULL
               || (f->watched = calloc(n + 1, sizeof *f->watched)) == NULL))
        ok = false;
    for (size_t i = 0; i < n; i++) {
        if (ok && strcmp(all[i].name, watch) == 0)
            ok = (f->watched[f->nwatched++] = strdup(all[i].path)) != NULL;
        if (ok && (i == 0 || strcmp(all[i].name, all[i - 1].name) != 0)) {
            f->dropins[f->count++] = (struct afx_dropin){ all[i].name, all[i].path };
            continue;
        }
        free(all[i].name);
        free(all[i].path);
    }
    free(all);
    return ok;
}

bool afx_unit_files_find(const struct afx_root *r, const char *service, const char *watch,
                         struct afx_unit_files *f)
{
    memset(f, 0, sizeof *f);
    struct stat unit;
    int found = find_fragment(r, service, f, &unit);
    const char *at = strchr(service, '@');
    if (found == 0 && at != NULL && strcmp(at, "@.service") != 0) {
        char template[512];
        snprintf(template, sizeof template, "%.*s@.service", (int)(at - service), service);
        found = find_fragment(r, template, f, &unit);
    }
    if (found < 0 || f->alias_of[0] != '\0')
        return found >= 0;

    struct strv names = { 0 }, dirs = { 0 };
    strv_add(&names, strdup(service));
    if (f->fragment != NULL && !f->masked)
        find_aliases(r, service, &unit, &names);
    for (size_t k = 0; k < names.n; k++)
        for (size_t i = 0; i < N_DIRS; i++) {
            struct dirs_of d = { unit_dirs[i], &dirs };
            if (searched(r, i))
                afx_unit_dropin_names(names.v[k], add_dropin_dir, &d);
        }
    /* The type's own drop-ins last: the most general. */
    for (size_t i = 0; i < N_DIRS; i++)
        if (searched(r, i))
            add_dropin_dir("service", &(struct dirs_of){ unit_dirs[i], &dirs });
    bool ok = !names.oom && !dirs.oom && list_dropins(r, &dirs, watch, f);
    strv_free(&names);
    strv_free(&dirs);
    if (!ok && f->problem[0] == '\0')
        snprintf(f->problem, sizeof f->problem, "out of memory");
    return ok;
}

void afx_unit_files_free(struct afx_unit_files *f)
{
    free(f->fragment);
    for (size_t i = 0; i < f->count; i++) {
        free(f->dropins[i].name);
        free(f->dropins[i].path);
    }
    free(f->dropins);
    for (size_t i = 0; i < f->nwatched; i++)
        free(f->watched[i]);
    free(f->watched);
    memset(f, 0, sizeof *f);
}

void afx_unit_files_apply(const struct afx_root *r, const char *rel, struct afx_unit_env *e)
{
    char where[2 * PATH_MAX], target[PATH_MAX], *text;
    size_t len;
    struct stat st;
    afx_root_path(r, rel, where, sizeof where);
    if (afx_root_readlink(r, rel, target, sizeof target) >= 0 && strcmp(target, "/dev/null") == 0)
        return;     /* masked: nothing */
    int rc = afx_root_read(r, rel, MAX_UNIT_FILE, &text, &len, &st);
    if (rc == -ENOENT)
        return;     /* a dangling link: systemd skips it too */
    if (rc == -EINVAL && is_dev_null(&st))
        return;
    if (rc < 0) {
        snprintf(e->broken, sizeof e->broken, "%.400s: %s", where,
                 rc == -EINVAL  ? "not a regular file"
                 : rc == -EFBIG ? "larger than arenafix reads (16 MiB)"
                                : strerror(-rc));
        return;
    }
    afx_unit_env_apply(e, text, len, where);
    free(text);
}
