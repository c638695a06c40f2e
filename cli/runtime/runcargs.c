#include "runcargs.h"

#include <stddef.h>
#include <string.h>

/* runc's global options that take a value; --debug, --systemd-cgroup,
 * --help and --version take none (Go's flag package: "--debug=false"
 * is one argument).  --rootless is a string (true, false, auto). */
static const char *const global_values[] = { "root", "log", "log-format", "criu", "rootless", NULL };
static const char *const global_flags[] = { "debug", "systemd-cgroup", "help", "h", "version", "v", NULL };
/* create's and run's. */
static const char *const create_values[] = { "bundle", "b", "console-socket", "pid-file", "preserve-fds", NULL };
static const char *const create_flags[] = { "no-pivot", "no-new-keyring", "detach", "d", "keep", "no-subreaper",
                                            "help", "h", NULL };

static bool listed(const char *const *names, const char *name, size_t len)
{
    for (; *names != NULL; names++)
        if (strlen(*names) == len && strncmp(*names, name, len) == 0)
            return true;
    return false;
}

enum kind { VALUE, FLAG, UNKNOWN };

/* An option as Go's flag package reads it: one or two dashes, the name,
 * "=value" or the next argument for one that takes a value. */
static enum kind option(const char *arg, const char *const *values, const char *const *flags, const char **name,
                        size_t *len, const char **inline_value)
{
    const char *p = arg + (arg[1] == '-' ? 2 : 1);
    const char *eq = strchr(p, '=');
    *name = p;
    *len = eq != NULL ? (size_t)(eq - p) : strlen(p);
    *inline_value = eq != NULL ? eq + 1 : NULL;
    if (*len == 0 || p[0] == '-')
        return UNKNOWN;
    if (listed(values, p, *len))
        return VALUE;
    return listed(flags, p, *len) ? FLAG : UNKNOWN;
}

static bool is_option(const char *arg)
{
    return arg[0] == '-' && arg[1] != '\0';
}

/* create's or run's arguments: urfave/cli v1 moves the options found
 * after the container ID before it, up to a "--". */
static void create_args(int argc, char *const *argv, int at, struct afx_runc_args *a)
{
    for (int i = at; i < argc; i++) {
        const char *arg = argv[i], *name, *value;
        size_t len;
        if (strcmp(arg, "--") == 0)
            return;
        if (!is_option(arg)) {
            if (a->id == NULL)
                a->id = arg;
            continue;
        }
        enum kind k = option(arg, create_values, create_flags, &name, &len, &value);
        if (k == UNKNOWN) {
            a->problem = "an option runc's create and run do not have";
            return;
        }
        if (k == FLAG)
            continue;
        if (value == NULL) {
            if (i + 1 >= argc) {
                a->problem = "an option without its value";
                return;
            }
            value = argv[++i];
        }
        if ((len == 6 && strncmp(name, "bundle", 6) == 0) || (len == 1 && name[0] == 'b'))
            a->bundle = value;
    }
}

void afx_runc_args_read(int argc, char *const *argv, int first, struct afx_runc_args *a)
{
    *a = (struct afx_runc_args){ .command = -1, .bundle = "." };
    int i = first;
    for (; i < argc && is_option(argv[i]); i++) {
        const char *name, *value;
        size_t len;
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        enum kind k = option(argv[i], global_values, global_flags, &name, &len, &value);
        if (k == UNKNOWN) {
            a->problem = "a global option runc does not have";
            return;
        }
        if (k == VALUE && value == NULL && ++i >= argc) {
            a->problem = "a global option without its value";
            return;
        }
    }
    if (i >= argc)
        return;
    a->command = i;
    a->creates = strcmp(argv[i], "create") == 0 || strcmp(argv[i], "run") == 0;
    if (a->creates)
        create_args(argc, argv, i + 1, a);
    /* runc changes into a bundle only when one is named. */
    if (a->bundle[0] == '\0')
        a->bundle = ".";
}
