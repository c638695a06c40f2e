/* arenafix enable|disable [--dry-run] [--root DIR] UNIT: a systemd
 * drop-in that adds the library to a service's LD_PRELOAD. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "library.h"
#include "preload.h"
#include "readfile.h"
#include "unitfile.h"

#define DROPIN "arenafix.conf"

/* Where systemd looks, most important first (systemd.unit(5)). */
static const char *const unit_dirs[] = {
    "/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
    "/usr/lib/systemd/system", "/lib/systemd/system",
};
#define N_DIRS (sizeof unit_dirs / sizeof unit_dirs[0])

struct dropins {
    char *names[256];
    char *paths[256];
    int count;
};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .conf files in every UNIT.d, one per name (the most important directory wins),
 * sorted by name: the order systemd applies them in. */
static void find_dropins(const char *root, const char *unit, struct dropins *d)
{
    d->count = 0;
    for (size_t i = 0; i < N_DIRS; i++) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s%s/%s.d", root, unit_dirs[i], unit);
        DIR *dh = opendir(dir);
        if (dh == NULL)
            continue;
        struct dirent *e;
        while ((e = readdir(dh)) != NULL && d->count < 256) {
            size_t len = strlen(e->d_name);
            if (len < 6 || strcmp(e->d_name + len - 5, ".conf") != 0)
                continue;
            bool seen = false;
            for (int k = 0; k < d->count && !seen; k++)
                seen = strcmp(d->names[k], e->d_name) == 0;
            if (seen)
                continue;
            d->names[d->count] = strdup(e->d_name);
            if (asprintf(&d->paths[d->count], "%s/%s", dir, e->d_name) < 0)
                continue;
            d->count++;
        }
        closedir(dh);
    }
    /* Few files: a simple sort that keeps names and paths paired. */
    for (int i = 0; i < d->count; i++)
        for (int j = i + 1; j < d->count; j++)
            if (by_name(&d->names[i], &d->names[j]) > 0) {
                char *n = d->names[i], *p = d->paths[i];
                d->names[i] = d->names[j], d->paths[i] = d->paths[j];
                d->names[j] = n, d->paths[j] = p;
            }
}

static bool apply_file(const char *path, char **value, bool *env_files)
{
    char *text = afx_slurp(path, NULL);
    if (text == NULL)
        return false;
    afx_unit_ld_preload(text, value, env_files);
    free(text);
    return true;
}

/* The service's LD_PRELOAD without our drop-in; warns about settings
 * that would override ours. */
static char *current_preload(const char *root, const char *unit)
{
    char *value = NULL;
    bool env_files = false, found = false;
    for (size_t i = 0; i < N_DIRS && !found; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s%s/%s", root, unit_dirs[i], unit);
        found = apply_file(path, &value, &env_files);
    }
    if (!found)
        afx_error("note: no unit file for %s under %s; the drop-in takes effect once the unit exists",
                  unit, *root ? root : "/");
    struct dropins d;
    find_dropins(root, unit, &d);
    for (int i = 0; i < d.count; i++) {
        int order = strcmp(d.names[i], DROPIN);
        if (order < 0) {
            apply_file(d.paths[i], &value, &env_files);
        } else if (order > 0) {
            char *later = NULL;
            bool unused = false;
            apply_file(d.paths[i], &later, &unused);
            if (later != NULL)
                afx_error("warning: %s sets LD_PRELOAD after %s and overrides it; "
                          "add the library there instead (arenafix path --preload)", d.paths[i], DROPIN);
            free(later);
        }
        free(d.names[i]);
        free(d.paths[i]);
    }
    if (env_files)
        afx_error("note: %s reads an EnvironmentFile=; if that sets LD_PRELOAD it overrides the "
                  "drop-in: add the library there as well", unit);
    return value;
}

static int write_dropin(const char *dir, const char *path, const char *text)
{
    char tmp[PATH_MAX + 64];
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        afx_error("cannot create %s: %s; run as root or use --root", dir, strerror(errno));
        return AFX_EXIT_FAIL;
    }
    /* Write then rename: systemd never reads half a file. */
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        afx_error("cannot write %s: %s; run as root or use --root", tmp, strerror(errno));
        return AFX_EXIT_FAIL;
    }
    bool ok = fputs(text, f) >= 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        afx_error("cannot write %s: %s; check the disk and retry", path, strerror(errno));
        unlink(tmp);
        return AFX_EXIT_FAIL;
    }
    return AFX_EXIT_OK;
}

static int enable(const char *root, const char *unit, const char *dir, const char *path, bool dry_run)
{
    struct afx_library lib;
    if (!afx_find_library(&lib))
        return AFX_EXIT_FAIL;
    char *existing = current_preload(root, unit);
    char *list = afx_preload_append(existing, lib.preload, lib.file);
    char *text = list ? afx_dropin_text(unit, list) : NULL;
    free(existing);
    free(list);
    if (text == NULL) {
        afx_error("out of memory");
        return AFX_EXIT_FAIL;
    }
    int rc = AFX_EXIT_OK;
    if (dry_run) {
        printf("# %s\n%s", path, text);
    } else if ((rc = write_dropin(dir, path, text)) == AFX_EXIT_OK) {
        printf("wrote %s\nnow run: systemctl daemon-reload && systemctl restart %s\n", path, unit);
    }
    free(text);
    return rc;
}

static int disable(const char *unit, const char *dir, const char *path, bool dry_run)
{
    if (access(path, F_OK) != 0) {
        printf("arenafix is not enabled for %s (no %s): nothing to do\n", unit, path);
        return AFX_EXIT_OK;
    }
    if (dry_run) {
        printf("would remove %s\n", path);
        return AFX_EXIT_OK;
    }
    if (unlink(path) != 0) {
        afx_error("cannot remove %s: %s; run as root or use --root", path, strerror(errno));
        return AFX_EXIT_FAIL;
    }
    rmdir(dir);     /* only if now empty: other drop-ins stay */
    printf("removed %s\nnow run: systemctl daemon-reload && systemctl restart %s\n", path, unit);
    return AFX_EXIT_OK;
}

int afx_cmd_enable(int argc, char **argv, bool on)
{
    static const struct option options[] = {
        { "dry-run", no_argument, NULL, 'n' },
        { "root", required_argument, NULL, 'r' },
        { 0 },
    };
    const char *what = on ? "enable" : "disable";
    bool dry_run = false;
    char root[PATH_MAX] = "";
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:", options, NULL)) != -1) {
        if (c == 'n') {
            dry_run = true;
        } else if (c == 'r') {
            struct stat st;
            if (stat(optarg, &st) != 0 || !S_ISDIR(st.st_mode) || realpath(optarg, root) == NULL)
                afx_usage_error("%s: --root %s: not a directory; give an existing directory", what, optarg);
            if (strcmp(root, "/") == 0)
                root[0] = '\0';
        } else {
            afx_usage_error("%s: %s %s; usage: arenafix %s [--dry-run] [--root DIR] UNIT", what,
                            c == ':' ? "missing value for" : "unknown option", argv[optind - 1], what);
        }
    }
    if (optind != argc - 1)
        afx_usage_error("%s: %s; usage: arenafix %s [--dry-run] [--root DIR] UNIT", what,
                        optind >= argc ? "no unit given" : "one unit only", what);
    char unit[256];
    if (!afx_unit_name(argv[optind], unit, sizeof unit))
        afx_usage_error("%s: %s is not a service unit name; give one such as nginx or nginx.service",
                        what, argv[optind]);

    char dir[PATH_MAX], path[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/etc/systemd/system/%s.d", root, unit);
    snprintf(path, sizeof path, "%s/" DROPIN, dir);
    if (!dry_run && on) {
        /* The parents of the drop-in directory must exist in a real root;
         * in a scratch root create them. */
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%s/etc/systemd/system", root);
        if (access(parent, F_OK) != 0) {
            afx_error("%s does not exist; is systemd installed? (or use --root)", parent);
            return AFX_EXIT_FAIL;
        }
    }
    return on ? enable(root, unit, dir, path, dry_run) : disable(unit, dir, path, dry_run);
}
