/* libFuzzer target: the unit-file reader of arenafix enable (cli/enable/unitfile.c),
 * the reader of `systemctl show`, unit names and the library path check
 * (cli/preload.c): input a unit file's owner or a local user controls.
 *
 * The input is a unit file as it is (NULs included).  Oracles, beyond
 * ASan and UBSan:
 *   - reading is a function of the text; a value read is UTF-8 without
 *     NUL, "unsure" and "refused" always say why;
 *   - the drop-in written for a value gives systemd that value back,
 *     whatever it holds (no line of it can be injected);
 *   - what systemctl prints for a value (shell_maybe_quote(), written
 *     again here from systemd's escape.c) reads back as that value;
 *   - the input's first line as a unit name: accepted names and every
 *     drop-in directory name derived from them are unit names, without
 *     '/', '.' first, or a length over systemd's limit;
 *   - a library path accepted holds nothing ld.so splits or expands. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload.h"
#include "unitfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_read(const struct afx_unit_env *e)
{
    if (e->broken[0] != '\0')
        return;
    if (e->state == AFX_ENV_SET
        && (e->preload == NULL || !afx_utf8_valid(e->preload, strlen(e->preload))))
        abort();
    if (e->state != AFX_ENV_SET && e->preload != NULL)
        abort();
    if (e->state == AFX_ENV_UNSURE && e->unsure[0] == '\0')
        abort();
}

static bool same(const struct afx_unit_env *a, const struct afx_unit_env *b)
{
    if (strcmp(a->broken, b->broken) != 0 || a->state != b->state || strcmp(a->unsure, b->unsure) != 0
        || a->environment_files != b->environment_files || a->unsets_preload != b->unsets_preload)
        return false;
    return a->state != AFX_ENV_SET || strcmp(a->preload, b->preload) == 0;
}

/* The drop-in for value must read back as value. */
static void check_dropin(const char *value)
{
    char *text = afx_dropin_text("fuzz.service", value);
    if (*value == '\0') {
        if (text != NULL)
            abort();
        return;
    }
    if (text == NULL || !afx_dropin_is_ours(text, strlen(text)))
        abort();
    size_t lines = 0;
    for (const char *p = text; (p = strpbrk(p, "\n\r")) != NULL; p++)
        lines++;
    if (lines != 5)
        abort();
    struct afx_unit_env e;
    afx_unit_env_init(&e);
    afx_unit_env_apply(&e, text, strlen(text), "dropin");
    if (e.broken[0] != '\0' || e.state != AFX_ENV_SET || strcmp(e.preload, value) != 0)
        abort();
    afx_unit_env_free(&e);
    free(text);
}

/* systemd's shell_maybe_quote(s, 0): bare if nothing needs quoting,
 * else in double quotes with \ before \ " ` $ and control characters
 * (and bytes that are not UTF-8) as C escapes. */
static char *shell_quote(const char *s)
{
    static const char special[] = " \t\n\r\"\\`$*?['()<>|&;!";
    bool bare = afx_utf8_valid(s, strlen(s));
    for (const unsigned char *p = (const unsigned char *)s; bare && *p; p++)
        bare = *p >= ' ' && *p != 127 && strchr(special, *p) == NULL;
    size_t n = strlen(s);
    char *out = malloc(4 * n + 3), *o = out;
    if (out == NULL || bare)
        return out != NULL ? strcpy(out, s) : NULL;
    *o++ = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < ' ' || *p >= 127) {
            o += sprintf(o, "\\%03o", *p);
        } else {
            if (strchr("\"\\`$", *p) != NULL)
                *o++ = '\\';
            *o++ = (char)*p;
        }
    }
    *o++ = '"';
    *o = '\0';
    return out;
}

static void check_show(const char *value)
{
    char *word = malloc(strlen(value) + 12), *v = NULL;
    if (word == NULL)
        return;
    sprintf(word, "LD_PRELOAD=%s", value);
    char *quoted = shell_quote(word), *show = NULL;
    if (quoted != NULL && asprintf(&show, "LoadState=loaded\nEnvironment=A=1 %s \"B=x y\"\nX=1\n", quoted) > 0) {
        if (afx_show_preload(show, &v) != 1 || strcmp(v, value) != 0)
            abort();
        free(v);
        free(show);
    }
    free(quoted);
    free(word);
}

static bool check_name(const char *name, void *arg)
{
    size_t *count = arg;
    char again[300];
    /* a name of n dashes gives O(n^2) of them, as systemd's walk does */
    if (++*count > 100000 || !afx_unit_name(name, again, sizeof again) || strcmp(again, name) != 0)
        abort();
    return true;
}

static void check_unit_name(const char *text)
{
    char name[300], service[256];
    size_t n = strcspn(text, "\n");
    if (n >= sizeof name)
        return;
    memcpy(name, text, n);
    name[n] = '\0';
    if (!afx_unit_name(name, service, sizeof service))
        return;
    size_t len = strlen(service), count = 0;
    if (len < 9 || len >= 256 || strchr(service, '/') != NULL || service[0] == '.'
        || strcmp(service + len - 8, ".service") != 0)
        abort();
    afx_unit_dropin_names(service, check_name, &count);
    if (count == 0)
        abort();
}

static void check_library(const char *path)
{
    if (afx_preload_entry_problem(path, true) != NULL)
        return;
    if (path[0] != '/')
        abort();
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        if (*p <= ' ' || *p == ':' || *p >= 127 || (*p == '$' && strncmp((const char *)p, "$LIB/", 5) != 0))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    struct afx_unit_env a, b;
    afx_unit_env_init(&a);
    afx_unit_env_init(&b);
    afx_unit_env_apply(&a, text, size, "fuzz.service");
    afx_unit_env_apply(&b, text, size, "fuzz.service");
    check_read(&a);
    if (!same(&a, &b))
        abort();
    if (a.broken[0] == '\0' && a.state == AFX_ENV_SET) {
        check_dropin(a.preload);
        check_show(a.preload);
    }
    afx_unit_env_free(&a);
    afx_unit_env_free(&b);

    /* The input itself as a value, where it is one systemd keeps. */
    if (strlen(text) == size && afx_utf8_valid(text, size)) {
        check_dropin(text);
        check_show(text);
    }
    check_unit_name(text);
    check_library(text);
    free(text);
    return 0;
}
