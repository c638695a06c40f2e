/* arenafix cdi: the Container Device Interface spec for this host, so
 * that `podman run --device arenafix.dev/fix=libarenafix` (or any
 * engine that reads CDI) gives a container the library without
 * rebuilding its image.  The spec only names this host's command as a
 * createRuntime hook; the hook judges each image (cli/hook/). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdispec.h"
#include "cli.h"
#include "files/outfile.h"
#include "library.h"
#include "selfexe.h"

static const char cdi_usage[] =
    "Usage: arenafix cdi [--output FILE] [--name NAME] [--log FILE]\n"
    "Write the Container Device Interface spec of the device " AFX_CDI_KIND "=NAME\n"
    "(NAME " AFX_CDI_DEVICE " unless given): a container run with it (podman run\n"
    "--device; CRI-O, containerd 1.7 and later and docker 25 and later read CDI\n"
    "too, not containerd 1.6 or docker 20.10) runs this command's oci-hook --cdi\n"
    "before it starts, which mounts the library read-only and lists it in the\n"
    "container's /etc/ld.so.preload where the image's glibc is 2.34 to 2.38.  A\n"
    "musl or static image, another architecture, a glibc older than 2.34 or newer\n"
    "than 2.38, or a byte-for-byte copy of the host's fixed one is left alone, as\n"
    "the hook always does (a fixed 2.34 to 2.38 of another build cannot be told\n"
    "from its file: it gets the library, which gives the fixed count either way).\n"
    "Engines read specs in /etc/cdi and /var/run/cdi.\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE  write the spec to FILE, whole or not at all (mode 0644),\n"
    "                     not to standard output; its directory is made when\n"
    "                     missing, and must be root's alone, as those above it\n"
    "      --name NAME    the device's name (default " AFX_CDI_DEVICE ")\n"
    "      --log FILE     the hook appends what it says to FILE\n"
    "  -h, --help         print this help and exit\n"
    "\n"
    "Examples:\n"
    "  arenafix cdi -o /etc/cdi/arenafix.json                  install the spec\n"
    "  podman run --device " AFX_CDI_KIND "=" AFX_CDI_DEVICE " IMAGE  IMAGE with the fix\n"
    "\n"
    "Exit status: 0 written; 1 failure (no library, a command, library or directory\n"
    "others may change, FILE not written); 2 usage error.\n"
    "See arenafix-cdi(1).\n";

#define CDI_USAGE "usage: arenafix cdi [--output FILE] [--name NAME] [--log FILE]"

/* The file this program runs from, by its real path: what an engine
 * runs as root, so root's alone. */
static bool own_command(char *command, size_t size)
{
    char self[PATH_MAX], real[PATH_MAX], where[PATH_MAX];
    if (!afx_self_path(self, sizeof self) || realpath(self, real) == NULL) {
        afx_error("cdi: cannot tell which file this command runs from: %s", strerror(errno));
        return false;
    }
    const char *why = afx_cdi_path_problem(real);
    if (why != NULL) {
        afx_error("cdi: this command's path %s %s, which a spec cannot hold; install it elsewhere", real, why);
        return false;
    }
    why = afx_root_only_file(real, where, sizeof where);
    if (why != NULL) {
        afx_error("cdi: %s: %s; an engine runs the spec's hook as root, so it names only a command only root "
                  "can change: run the installed arenafix (make install, or the package)", where, why);
        return false;
    }
    snprintf(command, size, "%s", real);
    return true;
}

/* The library the hook will find: the build's beside a built command,
 * else the installed one.  The hook runs in the engine's environment,
 * not this one: ARENAFIX_LIBRARY set here would not reach it. */
static bool hook_library(void)
{
    struct afx_library lib;
    char where[PATH_MAX];
    bool had = getenv("ARENAFIX_LIBRARY") != NULL;
    unsetenv("ARENAFIX_LIBRARY");
    if (!afx_find_library(&lib)) {
        if (had)
            afx_error("cdi: ARENAFIX_LIBRARY is not used: the hook runs in the engine's environment, not this one");
        return false;
    }
    const char *why = afx_root_only_file(lib.file, where, sizeof where);
    if (why != NULL) {
        afx_error("cdi: %s: %s; the hook mounts only a library only root can change: install it "
                  "(make install, or the package)", where, why);
        return false;
    }
    return true;
}

int afx_cmd_cdi(int argc, char **argv)
{
    static const struct option options[] = {
        { "output", required_argument, NULL, 'o' },
        { "name", required_argument, NULL, 'n' },
        { "log", required_argument, NULL, 'l' },
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    const char *output = NULL, *name = AFX_CDI_DEVICE, *log = NULL, *why;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:ho:", options, NULL)) != -1) {
        if (c == 'h') {
            fputs(cdi_usage, stdout);
            return fflush(stdout) == 0 ? AFX_EXIT_OK : AFX_EXIT_FAIL;
        }
        if (c == 'o')
            output = optarg;
        else if (c == 'n')
            name = optarg;
        else if (c == 'l')
            log = optarg;
        else
            afx_usage_error("cdi: %s %s; " CDI_USAGE, c == ':' ? "missing value for" : "unknown option",
                            argv[optind - 1]);
    }
    if (optind < argc)
        afx_usage_error("cdi: unexpected argument %s; " CDI_USAGE, argv[optind]);
    if ((why = afx_cdi_name_problem(name)) != NULL)
        afx_usage_error("cdi: --name %s: %s", name, why);
    if (log != NULL && (why = afx_cdi_path_problem(log)) != NULL)
        afx_usage_error("cdi: --log %s: %s; name the log by its absolute path", log, why);

    char command[PATH_MAX], text[4096];
    if (!own_command(command, sizeof command) || !hook_library())
        return AFX_EXIT_FAIL;
    int len = afx_cdi_spec(text, sizeof text, command, name, log);
    if (len < 0) {
        afx_error("cdi: the spec does not fit in %zu bytes; name a shorter log", sizeof text);
        return AFX_EXIT_FAIL;
    }
    if (output == NULL) {
        fwrite(text, 1, (size_t)len, stdout);
        return fflush(stdout) == 0 && !ferror(stdout) ? AFX_EXIT_OK : AFX_EXIT_FAIL;
    }
    static struct afx_outfile file;
    FILE *out = afx_outfile_open(&file, output, AFX_OUTFILE_TRUSTED | AFX_OUTFILE_MAKE_DIR);
    if (out == NULL)
        return AFX_EXIT_FAIL;
    fwrite(text, 1, (size_t)len, out);
    return afx_outfile_commit(&file) ? AFX_EXIT_OK : AFX_EXIT_FAIL;
}
