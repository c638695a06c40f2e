/* arenafix [OPTIONS] [--] CMD [ARGS...]: run CMD with the shim. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arenarule.h"
#include "cli.h"
#include "config.h"
#include "elfinfo.h"
#include "library.h"
#include "preload.h"

/* What execvp makes of candidate path: 0 runs it, ENOENT looks further
 * (nothing there), EACCES looks further but is remembered (a directory,
 * a file without execute permission). */
static int candidate(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return ENOENT;
    return S_ISREG(st.st_mode) && access(path, X_OK) == 0 ? 0 : EACCES;
}

/* Find CMD the way execvp will, so that "not found" and "not
 * executable" are told apart before the exec, with a clear message. */
static int resolve(const char *cmd, char *out, size_t size)
{
    if (strchr(cmd, '/') != NULL) {
        snprintf(out, size, "%s", cmd);
        return candidate(cmd);
    }
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    int found = ENOENT;
    for (const char *p = path;; p++) {
        size_t len = strcspn(p, ":");
        /* An empty entry is the current directory, as "./CMD": the
         * name execvp gets must have a slash, or it searches again. */
        snprintf(out, size, "%.*s/%s", len ? (int)len : 1, len ? p : ".", cmd);
        int err = candidate(out);
        if (err == 0)
            return 0;
        if (err == EACCES)
            found = EACCES;
        p += len;
        if (*p == '\0')
            break;
    }
    return found;
}

/* What the preload would do to path: false if it must not be preloaded
 * (it runs untouched, with a warning that says why and what helps);
 * otherwise true, after a warning where ld.so will skip it.  Its ELF
 * headers are read, nothing of it run. */
static bool preload_fits(const char *path, const struct afx_library *lib, long online)
{
    struct afx_exe exe = afx_exe_examine(path);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    /* The dynamic loader itself has no interpreter, yet preloads fine. */
    bool loader = strncmp(base, "ld-", 3) == 0 || strncmp(base, "ld.so", 5) == 0;
    long max = afx_arena_limit(online > 0 ? online : 1);
    /* musl's loader run as the command ("ld-musl-x86_64.so.1 PROG")
     * loads the preload as its program would. */
    if (exe.musl || strncmp(base, "ld-musl-", 8) == 0) {
        /* musl has no arenas: the library, which musl's loader would
         * load, would only stand down (libarenafix(7), "Other libcs"). */
        afx_error("warning: %s is a musl program, not a glibc one: glibc bug 30945 does not apply to it and "
                  "libarenafix would only stand down there; running it without libarenafix", path);
        return false;
    }
    if (exe.kind == AFX_EXE_STATIC && !loader) {
        afx_error("warning: %s is statically linked: no preload reaches it, so arenafix cannot help; running it "
                  "without libarenafix. If the glibc linked into it is affected (arenafix inspect PID tells, from "
                  "its arenas), set MALLOC_ARENA_MAX=%ld (a fixed glibc's limit here) in its environment, or call "
                  "mallopt(M_ARENA_MAX, %ld) in its code", path, max, max);
        return false;
    }
    if (exe.setid)
        afx_error("warning: %s is setuid or setgid: ld.so ignores LD_PRELOAD paths in it, "
                  "so arenafix cannot help; set MALLOC_ARENA_MAX or run it unprivileged", path);
    if (exe.elf_class == 32 && sizeof(void *) == 8 && strstr(lib->preload, "$LIB") == NULL)
        afx_error("warning: %s is a 32-bit program and %s is not: ld.so will skip it; "
                  "install the 32-bit library or point ARENAFIX_LIBRARY at it", path, lib->file);
    return true;
}

static void set_or_die(const char *name, const char *value)
{
    if (setenv(name, value, 1) != 0) {
        afx_error("cannot set %s: %s", name, strerror(errno));
        exit(AFX_EXIT_FAIL);
    }
}

/* Check a value the way the shim will read it, so a typo fails here
 * rather than being ignored in the child. */
static void check_value(int var, const char *value, const char *option)
{
    const char *values[AFX_VAR_COUNT] = { 0 };
    struct afx_config cfg;
    values[var] = value;
    if (afx_config_parse(&cfg, values) >= 0)
        afx_usage_error("%s %s: not a valid value; see arenafix --help", option, value);
}

int afx_cmd_wrap(int argc, char **argv)
{
    static const struct option options[] = {
        { "mode", required_argument, NULL, 'm' },
        { "arena-max", required_argument, NULL, 'a' },
        { "verbose", no_argument, NULL, 'v' },
        { "eager", no_argument, NULL, 'e' },
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    int c;
    opterr = 0;
    /* '+': options end at CMD, whose own options are its own. */
    while ((c = getopt_long(argc, argv, "+:m:a:veh", options, NULL)) != -1) {
        switch (c) {
        case 'm':
            check_value(AFX_VAR_MODE, optarg, "--mode");
            set_or_die("ARENAFIX_MODE", optarg);
            break;
        case 'a':
            check_value(AFX_VAR_ARENA_MAX, optarg, "--arena-max");
            set_or_die("ARENAFIX_ARENA_MAX", optarg);
            break;
        case 'v':
            set_or_die("ARENAFIX_VERBOSE", "1");
            break;
        case 'e':
            set_or_die("ARENAFIX_EAGER", "1");
            break;
        case 'h':
            /* "arenafix -v --help": the wrapper's options are the
             * top-level ones. */
            afx_print_usage();
            return fflush(stdout) == 0 ? AFX_EXIT_OK : AFX_EXIT_FAIL;
        case ':':
            afx_usage_error("%s needs a value; see arenafix --help", argv[optind - 1]);
        default:
            afx_usage_error("unknown option %s; see arenafix --help", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        afx_usage_error("no command given; usage: arenafix [OPTIONS] [--] CMD [ARGS...]");

    struct afx_library lib;
    if (!afx_find_library(&lib))
        return AFX_EXIT_FAIL;

    const char *cmd = argv[optind];
    char path[4096];
    int err = resolve(cmd, path, sizeof path);
    if (err == ENOENT) {
        afx_error("%s: command not found; check its name or PATH", cmd);
        return AFX_EXIT_NOT_FOUND;
    }
    if (err != 0) {
        afx_error("%s: not executable; check its permissions", cmd);
        return AFX_EXIT_CANNOT_EXEC;
    }
    if (!preload_fits(path, &lib, sysconf(_SC_NPROCESSORS_ONLN))) {
        execv(path, argv + optind);
        afx_error("cannot run %s: %s", path, strerror(errno));
        return errno == ENOENT ? AFX_EXIT_NOT_FOUND : AFX_EXIT_CANNOT_EXEC;
    }

    char *list = afx_preload_append(getenv("LD_PRELOAD"), lib.preload, lib.file);
    if (list == NULL) {
        afx_error("out of memory");
        return AFX_EXIT_FAIL;
    }
    set_or_die("LD_PRELOAD", list);
    free(list);

    /* exec, no fork: CMD keeps our PID, gets its signals, and its exit
     * status is ours.  execvp with a path runs it as execv does, and
     * hands a script without "#!" to the shell, as from PATH. */
    execvp(path, argv + optind);
    afx_error("cannot run %s: %s", path, strerror(errno));
    return errno == ENOENT ? AFX_EXIT_NOT_FOUND : AFX_EXIT_CANNOT_EXEC;
}
