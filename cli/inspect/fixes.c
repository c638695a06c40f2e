#include "fixes.h"

#include <stdlib.h>
#include <string.h>

#include "arenarule.h"
#include "cli.h"
#include "enable/containerfix.h"
#include "escape.h"
#include "library.h"
#include "proc/podmancmd.h"
#include "proc/userns.h"
#include "target/podmandb.h"

/* How a process is fixed. */
enum fix_kind {
    FIX_SERVICE,    /* arenafix enable UNIT, then restart it */
    FIX_LOADED,     /* libarenafix is loaded: its reason says what to change */
    FIX_WRAP,       /* no system service to enable: arenafix CMD */
    FIX_CONTAINER,  /* in a container: run it again with the library mounted */
    FIX_OWN_ROOT,   /* in a root of its own, no engine's files name it: its unit's drop-in never reaches it */
    FIX_STATIC,     /* glibc linked in: no preload reaches it */
};

struct afx_fix {
    enum fix_kind kind;
    long pid;
    char name[64];
    char exe[PATH_MAX];
    struct afx_unit unit;
    struct afx_container container;
    char libdir[PATH_MAX];      /* its libc's directory, as the container sees it */
    bool preload_set, preload_long;
    char preload[1024];
};

static void fill(struct afx_fix *x, const struct afx_report *r);

void afx_fixes_add(struct afx_fixes *f, const struct afx_report *r)
{
    /* musl has no arenas, and libarenafix would stop it. */
    if ((r->health != AFX_HIT && r->health != AFX_AT_RISK) || r->libc_kind == AFX_LIBC_MUSL)
        return;
    if (f->count == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 8;
        struct afx_fix *bigger = realloc(f->list, cap * sizeof *bigger);
        if (bigger == NULL)
            return;     /* the report stands without its advice */
        f->list = bigger;
        f->cap = cap;
    }
    f->online = r->host.online;
    fill(&f->list[f->count++], r);
}

/* x: how r is fixed. */
static void fill(struct afx_fix *x, const struct afx_report *r)
{
    x->kind = r->libc_kind == AFX_LIBC_STATIC_GLIBC ? FIX_STATIC
              : r->maps.arenafix ? FIX_LOADED
              : afx_in_container(&r->container) ? FIX_CONTAINER
              : r->own_root ? FIX_OWN_ROOT
              : !r->unit.user && afx_unit_commandable(r->unit.name) ? FIX_SERVICE : FIX_WRAP;
    x->container = r->container;
    snprintf(x->libdir, sizeof x->libdir, "%s", r->maps.libc.path);
    char *slash = strrchr(x->libdir, '/');
    if (slash != NULL)
        *slash = '\0';
    x->preload_set = r->env.preload_set;
    x->preload_long = r->env.preload_long;
    snprintf(x->preload, sizeof x->preload, "%s", r->env.preload);
    x->pid = r->pid;
    x->unit = r->unit;
    snprintf(x->name, sizeof x->name, "%s", r->name);
    snprintf(x->exe, sizeof x->exe, "%s", r->exe[0] ? r->exe : "?");
}

/* An earlier entry is the same service. */
static bool seen(const struct afx_fixes *f, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (f->list[k].kind == FIX_SERVICE && strcmp(f->list[k].unit.name, f->list[i].unit.name) == 0)
            return true;
    return false;
}

/* The services' commands: each enable, one reload, each restart. */
static void print_services(const struct afx_fixes *f, FILE *out)
{
    char word[AFX_UNIT_MAX + 2];
    const char *const steps[] = { "arenafix enable", "systemctl daemon-reload", "systemctl restart" };
    bool any = false;
    for (size_t i = 0; i < f->count; i++)
        any = any || f->list[i].kind == FIX_SERVICE;
    if (!any)
        return;
    fputs("fix the services (as root):\n", out);
    for (int step = 0; step < 3; step++) {
        if (step == 1) {
            fprintf(out, "    %s\n", steps[step]);
            continue;
        }
        for (size_t i = 0; i < f->count; i++)
            if (f->list[i].kind == FIX_SERVICE && !seen(f, i))
                fprintf(out, "    %s %s\n", steps[step], afx_unit_shell_word(f->list[i].unit.name, word, sizeof word));
    }
}

static void print_processes(const struct afx_fixes *f, enum fix_kind kind, const char *title, FILE *out)
{
    static char name[AFX_ESCAPED_SIZE(64)], exe[AFX_ESCAPED_SIZE(PATH_MAX)], unit[AFX_ESCAPED_SIZE(AFX_UNIT_MAX)];
    bool first = true;
    for (size_t i = 0; i < f->count; i++) {
        const struct afx_fix *x = &f->list[i];
        if (x->kind != kind)
            continue;
        if (first)
            fprintf(out, "%s\n", title);
        first = false;
        fprintf(out, "    %ld %s (%s)", x->pid, afx_escape(x->name, name, sizeof name),
                afx_escape(x->exe, exe, sizeof exe));
        if (kind == FIX_WRAP && x->unit.name[0] != '\0')
            fprintf(out, ", in %s%s", afx_escape(x->unit.name, unit, sizeof unit),
                    x->unit.user                             ? ", a user's unit (arenafix enable is for system services)"
                    : !afx_unit_commandable(x->unit.name)   ? ", not a service arenafix enable can name"
                                                             : "");
        fputc('\n', out);
    }
}

/* The same container: by its engine, containerd's namespace (each
 * names its containers as it likes: ctr run's "web" in two) and ID; a
 * rootless one (no ID known) by its user and mount namespace. */
static bool same_container(const struct afx_container *a, const struct afx_container *b)
{
    if (a->userns || b->userns)
        return a->userns && b->userns && a->owner == b->owner && a->mntns == b->mntns;
    return strcmp(a->engine, b->engine) == 0 && strcmp(a->ns, b->ns) == 0 && strcmp(a->id, b->id) == 0;
}

/* An earlier entry is the same container. */
static bool seen_container(const struct afx_fixes *f, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (f->list[k].kind == FIX_CONTAINER && same_container(&f->list[k].container, &f->list[i].container))
            return true;
    return false;
}


/* Printable ASCII without white space: a value that, even quoted, can
 * neither break the line it is printed on nor hide a part of it. */
static bool printable(const char *s)
{
    for (; *s; s++)
        if (*s <= ' ' || *s > '~')
            return false;
    return true;
}

/* A directory podman's -v can name: absolute, no ':' or ',' (its
 * separators), no "." or ".." component, printable. */
static bool mountable(const char *dir)
{
    return dir[0] == '/' && strpbrk(dir, ":,") == NULL && strstr(dir, "/./") == NULL && strstr(dir, "/../") == NULL
           && printable(dir);
}

/* The library's path inside container x and its LD_PRELOAD with it. */
static void mount_words(const struct afx_fix *x, const struct afx_library *lib, char *volume, size_t vsize, char *env,
                        size_t esize)
{
    char inside[PATH_MAX + 32];
    snprintf(inside, sizeof inside, "%s/arenafix/libarenafix.so", x->libdir);
    snprintf(volume, vsize, "%s:%s:ro", lib->file, inside);
    if (x->preload_set && x->preload[0] != '\0')
        snprintf(env, esize, "LD_PRELOAD=%s:%s", inside, x->preload);
    else
        snprintf(env, esize, "LD_PRELOAD=%s", inside);
}

/* The whole command that runs root's podman container x again with the
 * options: the command podman recorded when it made it (its
 * CreateCommand, in podman's database, which only root writes), the
 * options after its run or create, --replace where it names the
 * container.  NULL if not root's podman's, or none can be read: a
 * rootless container's database is its user's, and a command built
 * from it is the user's to run, not root's. */
static char **whole_command(const struct afx_fix *x, const char *volume, const char *env)
{
    const char *json;
    size_t len;
    /* Nor one a systemd unit runs (a quadlet's, --cgroups=split): run
     * from a shell, the container would leave its unit, which would
     * then replace it or remove it; the fix goes in the unit's command. */
    if (x->container.userns || x->container.below_unit || strcmp(x->container.engine, "podman") != 0
        || !afx_podman_config(NULL, x->container.id, &json, &len))
        return NULL;
    const char *const opts[] = { "-v", volume, "-e", env };
    return afx_podman_command(json, len, x->container.name, opts, 4);
}

/* argv, each word quoted for a shell and escaped for a terminal, on a
 * line of its own that is not the options' (6 spaces, not 8: the
 * role's report and check-fleet take the 8-space lines as options). */
static void print_whole_command(char **argv, FILE *out)
{
    size_t words = 0;
    while (argv[words] != NULL)
        words++;
    /* Every word shown, or no line: a command short of one of its words
     * (--read-only, say) must never be printed to be run. */
    char **shown = calloc(words + 1, sizeof *shown);
    bool whole = shown != NULL;
    for (size_t i = 0; whole && i < words; i++) {
        size_t n = strlen(argv[i]), q = 4 * n + 3;
        char *quoted = malloc(q);
        shown[i] = malloc(AFX_ESCAPED_SIZE(q));
        if (quoted == NULL || shown[i] == NULL)
            whole = false;
        else if (argv[i][0] == '\0')
            strcpy(shown[i], "''");     /* an empty word stays a word */
        else
            afx_printable(afx_unit_shell_word(argv[i], quoted, q), shown[i], AFX_ESCAPED_SIZE(q));
        free(quoted);
    }
    if (whole) {
        fputs("      the whole command, as podman recorded it, with these options:", out);
        for (size_t i = 0; i < words; i++)
            fprintf(out, " %s", shown[i]);
        fputc('\n', out);
    }
    for (size_t i = 0; shown != NULL && i < words; i++)
        free(shown[i]);
    free(shown);
}

/* The options that run one container again with the library. */
static void print_container_options(const struct afx_fix *x, const struct afx_library *lib, FILE *out)
{
    static char volume[2 * PATH_MAX + 128], env[PATH_MAX + 1100];
    static char word[2][2 * (2 * PATH_MAX + 1100)];
    mount_words(x, lib, volume, sizeof volume, env, sizeof env);
    if (strcmp(x->container.engine, "containerd") == 0) {
        /* ctr run's: its --mount takes the options of mount(8). */
        char inside[PATH_MAX + 32];
        snprintf(inside, sizeof inside, "%s/arenafix/libarenafix.so", x->libdir);
        snprintf(volume, sizeof volume, "type=bind,src=%s,dst=%s,options=rbind:ro", lib->file, inside);
        fprintf(out, "        --mount %s --env %s\n", afx_unit_shell_word(volume, word[0], sizeof word[0]),
                afx_unit_shell_word(env, word[1], sizeof word[1]));
        return;
    }
    fprintf(out, "        -v %s -e %s\n", afx_unit_shell_word(volume, word[0], sizeof word[0]),
            afx_unit_shell_word(env, word[1], sizeof word[1]));
    char **argv = whole_command(x, volume, env);
    if (argv != NULL)
        print_whole_command(argv, out);
    free(argv);
}

/* Which container x is in, on a line of its own. */
/* The options that mount the library (lib, if found) into container x's
 * libc directory and name it in its LD_PRELOAD, or why none can be
 * given. */
static void print_mount_fix(const struct afx_fix *x, const struct afx_library *lib, bool found, FILE *out)
{
    if (!found)
        fputs("        (no libarenafix.so found on this host to mount: install it first)\n", out);
    else if (!mountable(x->libdir))
        fputs("        (its libc's directory cannot be named in a mount option: mount libarenafix.so "
              "where its loader looks and name it in LD_PRELOAD)\n", out);
    else if (x->preload_long || !printable(x->preload))
        fputs("        (its LD_PRELOAD is longer than inspect keeps, or holds white space or control characters: "
              "name libarenafix.so first in it)\n", out);
    else
        print_container_options(x, lib, out);
}

static void print_container(const struct afx_fix *x, FILE *out)
{
    static char name[AFX_ESCAPED_SIZE(64)], exe[AFX_ESCAPED_SIZE(PATH_MAX)], user[AFX_ESCAPED_SIZE(64)];
    char raw[64];
    if (x->container.userns)
        fprintf(out, "    user %s (uid %u), in a user namespace of theirs (a rootless container's, its engine not known to "
                "root, or another sandbox's): process %ld %s (%s)\n",
                afx_user_name(x->container.owner, raw, sizeof raw)[0] ? afx_escape(raw, user, sizeof user)
                                                                      : "with no name",
                x->container.owner, x->pid, afx_escape(x->name, name, sizeof name),
                afx_escape(x->exe, exe, sizeof exe));
    else if (x->container.pod_name[0] != '\0')
        /* A pod's, as kubectl names it. */
        fprintf(out, "    %s container %s of pod %s/%s, id %.12s: process %ld %s (%s)\n", x->container.engine,
                x->container.pod_container[0] ? x->container.pod_container : "(its sandbox)", x->container.pod_ns,
                x->container.pod_name, x->container.id, x->pid, afx_escape(x->name, name, sizeof name),
                afx_escape(x->exe, exe, sizeof exe));
    else {
        /* An engine's 64-digit ID by its first 12, as its client shows it;
         * a name ctr was given as ID, whole. */
        int shown = strlen(x->container.id) == AFX_CONTAINER_HEX_ID_LEN ? 12 : (int)sizeof x->container.id;
        /* containerd's namespace, where its shim said: ctr's -n for the
         * run again (docker's "moby" is docker's own). */
        static char ns[AFX_ESCAPED_SIZE(sizeof x->container.ns)];
        bool in_ns = strcmp(x->container.engine, "containerd") == 0 && x->container.ns[0] != '\0';
        fprintf(out, "    %s container %s, id %.*s%s%s: process %ld %s (%s)\n", x->container.engine,
                x->container.name[0] ? x->container.name : "(name unknown)", shown, x->container.id,
                in_ns ? ", namespace " : "", in_ns ? afx_escape(x->container.ns, ns, sizeof ns) : "", x->pid,
                afx_escape(x->name, name, sizeof name), afx_escape(x->exe, exe, sizeof exe));
    }
}

/* What this host has installed for containers, as arenafix status finds
 * it, read once. */
static const struct afx_container_fixes *installed(void)
{
    static struct afx_container_fixes fixes;
    static bool read;
    if (!read) {
        static struct afx_root root;
        read = true;
        /* This host's /: no message, whatever it finds. */
        if (afx_root_open(&root, NULL, "inspect") == AFX_EXIT_OK) {
            afx_container_fixes_read(&root, &fixes);
            afx_root_close(&root);
        }
    }
    return &fixes;
}

/* The one option that gives root's podman or docker container x the fix
 * this host has installed, alone on its line (the line is the options
 * to add, nothing else: the role's report and an operator's unit take
 * it whole): the annotation the OCI hook podman runs acts on (it mounts
 * the library it finds, so only where one was found), docker's runtime
 * entry for arenafix-runtime.  NULL where none is. */
static const char *installed_option(const struct afx_fix *x, bool found, char *buf, size_t size)
{
    const struct afx_container_fixes *fixes = installed();
    if (strcmp(x->container.engine, "podman") == 0 && fixes->podman_hook[0] != '\0' && found)
        return "--annotation io.arenafix.enable=true";
    if (strcmp(x->container.engine, "docker") == 0 && fixes->docker_runtime[0] != '\0') {
        snprintf(buf, size, "--runtime %.63s", fixes->docker_runtime);
        return buf;
    }
    return NULL;
}

/* A container of engine's, root's, is listed. */
static bool lists_engine(const struct afx_fixes *f, const char *engine)
{
    for (size_t i = 0; i < f->count; i++)
        if (f->list[i].kind == FIX_CONTAINER && !f->list[i].container.userns
            && strcmp(f->list[i].container.engine, engine) == 0)
            return true;
    return false;
}

/* The containers root runs, or (rootless) those users run: root can
 * neither run a user's container again nor should: its engine, storage
 * and options are the user's. */
static void print_containers(const struct afx_fixes *f, bool rootless, FILE *out)
{
    static struct afx_library lib;
    char buf[96];
    const char *option;
    bool first = true, found = false;
    for (size_t i = 0; i < f->count; i++) {
        const struct afx_fix *x = &f->list[i];
        if (x->kind != FIX_CONTAINER || x->container.userns != rootless || seen_container(f, i))
            continue;
        if (first) {
            found = afx_find_library(&lib);
            if (rootless)
                fputs("fix the rootless containers: root cannot; each user named runs the container again, as that "
                      "user, with these options added to its podman run (or docker run); a program in another "
                      "sandbox (bubblewrap's, a browser's) is started again under arenafix CMD instead:\n", out);
            else {
                const struct afx_container_fixes *fixes = installed();
                fputs("fix the containers: run each again (as root) with these options added to its podman run "
                      "(or docker run; ctr run's for containerd's; a Kubernetes pod's, the line for its spec)", out);
                if (fixes->podman_hook[0] != '\0' && found && lists_engine(f, "podman"))
                    fprintf(out, "; podman's annotation is the one the OCI hook installed here acts on (/%s)",
                            fixes->podman_hook);
                if (fixes->docker_runtime[0] != '\0' && lists_engine(f, "docker"))
                    fputs("; docker's runtime is arenafix-runtime, as /etc/docker/daemon.json names it", out);
                fputs(":\n", out);
            }
        }
        first = false;
        print_container(x, out);
        /* A container ctr runs, its shim says (not Kubernetes' namespace). */
        bool ctr = strcmp(x->container.engine, "containerd") == 0 && x->container.ns[0] != '\0'
                   && strcmp(x->container.ns, "k8s.io") != 0;
        bool runs = rootless || strcmp(x->container.engine, "podman") == 0 || strcmp(x->container.engine, "docker") == 0
                    || ctr;
        /* A Kubernetes pod's: its spec selects the fix, the node gives it
         * (containerd: arenafix-runtime's handler; CRI-O: the hook). */
        if (!runs && strcmp(x->container.engine, "cri-o") == 0)
            fputs("        io.arenafix.enable: \"true\"    (in the pod's metadata.annotations, then the pod created "
                  "again: CRI-O runs arenafix's hook for it)\n", out);
        else if (!runs)
            fputs("        runtimeClassName: arenafix    (in the pod's spec, beside its containers, then the pod created "
                  "again: the RuntimeClass whose handler is the node's arenafix runtime)\n", out);
        else if (!rootless && (option = installed_option(x, found, buf, sizeof buf)) != NULL)
            fprintf(out, "        %s\n", option);
        else
            print_mount_fix(x, &lib, found, out);
    }
}

/* The nspawn container's name in unit, "systemd-nspawn@NAME.service",
 * into out; false if unit is not that template's. */
static bool nspawn_machine(const char *unit, char *out, size_t size)
{
    static const char prefix[] = "systemd-nspawn@", suffix[] = ".service";
    size_t n = strlen(unit), p = sizeof prefix - 1, q = sizeof suffix - 1;
    if (n <= p + q || strncmp(unit, prefix, p) != 0 || strcmp(unit + n - q, suffix) != 0 || n - p - q >= size)
        return false;
    snprintf(out, size, "%.*s", (int)(n - p - q), unit + p);
    return true;
}

/* One process in a root of its own: where it runs, that its unit's
 * drop-in does not reach it, and what does. */
static void print_own_root(const struct afx_fix *x, const struct afx_library *lib, bool found, FILE *out)
{
    static char name[AFX_ESCAPED_SIZE(64)], exe[AFX_ESCAPED_SIZE(PATH_MAX)], unit[AFX_ESCAPED_SIZE(AFX_UNIT_MAX)];
    static char machine[AFX_ESCAPED_SIZE(AFX_UNIT_MAX)];
    char raw[AFX_UNIT_MAX];
    fprintf(out, "    process %ld %s (%s), in a root of its own", x->pid, afx_escape(x->name, name, sizeof name),
            afx_escape(x->exe, exe, sizeof exe));
    if (x->unit.name[0] == '\0') {
        fputs(", in no unit\n", out);
    } else if (x->unit.user || !afx_unit_commandable(x->unit.name)) {
        fprintf(out, " under %s%s\n", afx_escape(x->unit.name, unit, sizeof unit), x->unit.user ? " (a user's unit)" : "");
    } else {
        afx_escape(x->unit.name, unit, sizeof unit);
        fprintf(out, " under %s: arenafix enable %s would not reach it (the drop-in's LD_PRELOAD reaches the unit's "
                "own processes, the engine's, never a process in another root)\n", unit, unit);
    }
    if (!x->unit.user && nspawn_machine(x->unit.name, raw, sizeof raw)) {
        afx_escape(raw, machine, sizeof machine);
        fprintf(out, "        (systemd-nspawn's container %s: fix it inside, as a host of its own: arenafix installed "
                "there, arenafix enable of its service there; or bind the library in, BindReadOnly= in "
                "/etc/systemd/nspawn/%s.nspawn, and name it in that service's LD_PRELOAD)\n", machine, machine);
        return;
    }
    if (x->container.unconfirmed[0] != '\0')
        fprintf(out, "        (its cgroup names podman container %.12s, which podman's default storage does not hold: a "
                "podman with a --root of its own, as the unit runs it; add these options to that podman run, or "
                "--annotation io.arenafix.enable=true with the OCI hook installed, or --runtime "
                "/usr/bin/arenafix-runtime)\n", x->container.unconfirmed);
    else
        fputs("        (a container its engine runs, or a service's RootDirectory=: give the container the library as "
              "its engine allows: the OCI hook (annotation io.arenafix.enable=true), arenafix-runtime as its runtime, "
              "or these options of podman run and docker run)\n", out);
    print_mount_fix(x, lib, found, out);
}

/* The processes in a root of their own that no engine's files name. */
static void print_own_roots(const struct afx_fixes *f, FILE *out)
{
    static struct afx_library lib;
    bool first = true, found = false;
    for (size_t i = 0; i < f->count; i++) {
        const struct afx_fix *x = &f->list[i];
        if (x->kind != FIX_OWN_ROOT)
            continue;
        if (first) {
            fputs("fix the containers in a root of their own (a mount namespace and root other than the host's, "
                  "which no engine's files here name): their unit's drop-in never reaches them; give each the "
                  "library inside its root:\n", out);
            found = afx_find_library(&lib);
        }
        first = false;
        print_own_root(x, &lib, found, out);
    }
}

void afx_fixes_print(struct afx_fixes *f, FILE *out)
{
    print_containers(f, false, out);
    print_containers(f, true, out);
    print_own_roots(f, out);
    print_services(f, out);
    print_processes(f, FIX_WRAP, "restart these under arenafix (arenafix CMD), in no system service:", out);
    long max = afx_arena_limit(f->online > 0 ? f->online : 1);
    char title[384];
    snprintf(title, sizeof title, "these are static programs, which no preload reaches (neither arenafix CMD nor a "
             "container's LD_PRELOAD): restart each with MALLOC_ARENA_MAX=%ld in its environment (the fixed "
             "glibc's limit with %ld online CPUs), or call mallopt(M_ARENA_MAX, %ld) in its code:",
             max, f->online, max);
    print_processes(f, FIX_STATIC, title, out);
    print_processes(f, FIX_LOADED, "these load libarenafix already; their reasons say what to change:", out);
    free(f->list);
    *f = (struct afx_fixes){ 0 };
}

char **afx_fix_command(const struct afx_report *r)
{
    static struct afx_fix x;
    static struct afx_library lib;
    static bool looked, found;
    static char volume[2 * PATH_MAX + 128], env[PATH_MAX + 1100];
    char buf[96];
    if ((r->health != AFX_HIT && r->health != AFX_AT_RISK) || r->libc_kind == AFX_LIBC_MUSL)
        return NULL;
    fill(&x, r);
    if (x.kind != FIX_CONTAINER || x.container.userns || strcmp(x.container.engine, "podman") != 0)
        return NULL;
    if (!looked) {
        looked = true;
        found = afx_find_library(&lib);
    }
    /* Where the text gives the options (and no reason instead). */
    if (!found || installed_option(&x, found, buf, sizeof buf) != NULL || !mountable(x.libdir) || x.preload_long
        || !printable(x.preload))
        return NULL;
    mount_words(&x, &lib, volume, sizeof volume, env, sizeof env);
    return whole_command(&x, volume, env);
}
