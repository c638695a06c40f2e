#include "podmancmd.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ocijson.h"

/* Word i of the array (alen bytes) into out.  False for a control
 * character too: escaped for a terminal inside the shell's quotes, it
 * would be printed as a backslash and digits, not the recorded byte. */
static bool word(const char *array, size_t alen, size_t i, char *out)
{
    const char *v;
    size_t vlen;
    if (!afx_json_element(array, alen, i, &v, &vlen) || !afx_json_string(v, vlen, out, AFX_PODMAN_WORD))
        return false;
    for (const unsigned char *c = (const unsigned char *)out; *c != '\0'; c++)
        if (*c < 0x20 || *c == 0x7f)
            return false;
    return true;
}

/* w marks a command a systemd unit runs (a quadlet's): its notify
 * socket, the file its ID goes to, or its unit's label. */
static bool unit_mark(const char *w)
{
    return strncmp(w, "--sdnotify", 10) == 0 || strncmp(w, "--cidfile", 9) == 0
           || strstr(w, "PODMAN_SYSTEMD_UNIT") != NULL;
}

/* word names the container: "--name NAME" or "--name=NAME" (a single
 * dash is pflag's -n -a -m -e, never the name). */
static bool names(const char *w, const char *next, const char *name)
{
    const char *opt = strncmp(w, "--name", 6) == 0 ? w + 6 : NULL;
    if (opt == NULL || name[0] == '\0')
        return false;
    if (*opt == '=')
        return strcmp(opt + 1, name) == 0;
    return *opt == '\0' && next != NULL && strcmp(next, name) == 0;
}

char **afx_podman_command(const char *config, size_t len, const char *name, const char *const *opts, size_t nopts)
{
    static const char *const key[] = { "CreateCommand" };
    static char words[AFX_PODMAN_WORDS][AFX_PODMAN_WORD];
    const char *array;
    size_t alen, n = 0;
    if (!afx_json_member(config, len, key, 1, &array, &alen))
        return NULL;
    while (n < AFX_PODMAN_WORDS && word(array, alen, n, words[n]))
        n++;
    const char *v;
    size_t vlen;
    if (n == AFX_PODMAN_WORDS || afx_json_element(array, alen, n, &v, &vlen))
        return NULL;    /* too long, or a word that is no string */
    /* podman [container] run|create */
    size_t sub = n > 2 && strcmp(words[1], "container") == 0 ? 2 : 1;
    if (n <= sub || (strcmp(words[sub], "run") != 0 && strcmp(words[sub], "create") != 0))
        return NULL;
    bool replace = false;
    for (size_t i = sub + 1; i < n; i++) {
        if (unit_mark(words[i]))
            return NULL;
        replace = replace || names(words[i], i + 1 < n ? words[i + 1] : NULL, name);
    }
    size_t count = n + nopts + replace, bytes = (count + 1) * sizeof(char *);
    for (size_t i = 0; i < n; i++)
        bytes += strlen(words[i]) + 1;
    for (size_t i = 0; i < nopts; i++)
        bytes += strlen(opts[i]) + 1;
    bytes += sizeof "--replace";
    char **argv = malloc(bytes);
    if (argv == NULL)
        return NULL;
    char *at = (char *)(argv + count + 1);
    size_t k = 0;
#define PUT(s) (argv[k++] = at, at = stpcpy(at, (s)) + 1)
    for (size_t i = 0; i <= sub; i++)
        PUT(words[i]);
    if (replace)
        PUT("--replace");
    for (size_t i = 0; i < nopts; i++)
        PUT(opts[i]);
    for (size_t i = sub + 1; i < n; i++)
        PUT(words[i]);
#undef PUT
    argv[k] = NULL;
    return argv;
}
