/* libFuzzer target: inspect's reader of /proc/PID/cgroup
 * (cli/proc/proccgroup.c), input a process controls through the names
 * of the cgroups it may create (a delegated subtree).
 *
 * Oracles, beyond ASan and UBSan:
 *   - a unit found is a whole path component of the input ending in
 *     ".service" or ".scope", without '/', newline or NUL, shorter than
 *     systemd's UNIT_NAME_MAX; a user unit has a unit;
 *   - the text is accepted only with no line after a 0:: line, and a
 *     text with a line after a 0:: line is refused;
 *   - a name accepted for a command is made of systemd's unit-name
 *     characters, starts with none of "-.@", and its shell word is
 *     either itself or itself in single quotes, with no quote inside. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/proc/proccgroup.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

/* A line follows the first "0::" line (at a line's start). */
static bool line_after_v2(const char *text, size_t len)
{
    for (size_t at = 0; at < len;) {
        size_t n = 0;
        while (at + n < len && text[at + n] != '\n')
            n++;
        bool v2 = n >= 3 && memcmp(text + at, "0::", 3) == 0;
        at += n + 1;
        if (v2 && at < len)
            return true;
    }
    return false;
}

static void check_commandable(const char *name)
{
    char word[AFX_UNIT_MAX + 4];
    if (!afx_unit_commandable(name))
        return;
    if (name[strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@")] != '\0'
        || strchr("-.@", name[0]) != NULL || !ends_with(name, ".service"))
        abort();
    afx_unit_shell_word(name, word, sizeof word);
    size_t n = strlen(name);
    if (strchr(word, '\'') != NULL ? !(word[0] == '\'' && strncmp(word + 1, name, n) == 0 && strcmp(word + 1 + n, "'") == 0)
                                   : strcmp(word, name) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct afx_unit u;
    const char *text = (const char *)data;
    bool ok = afx_cgroup_unit(text, size, &u);
    if (!ok && (u.name[0] != '\0' || u.user))
        abort();
    if (ok && line_after_v2(text, size))
        abort();
    if (u.user && u.name[0] == '\0')
        abort();
    if (u.name[0] != '\0') {
        size_t n = strlen(u.name);
        if (n >= AFX_UNIT_MAX || strpbrk(u.name, "/\n") != NULL || !(ends_with(u.name, ".service") || ends_with(u.name, ".scope")))
            abort();
        /* The unit is a component of the input, between '/' and '/' or a line's end. */
        bool found = false;
        for (size_t i = 1; !found && i + n <= size; i++)
            found = text[i - 1] == '/' && memcmp(text + i, u.name, n) == 0
                    && (i + n == size || text[i + n] == '/' || text[i + n] == '\n');
        if (!found)
            abort();
    }
    /* A container: a known engine, an ID of 64 hexadecimal digits that
     * is in the input, never one where the text does not parse. */
    struct afx_container c;
    if (afx_cgroup_container(text, size, &c)) {
        if (!ok || strlen(c.id) != AFX_CONTAINER_HEX_ID_LEN || strspn(c.id, "0123456789abcdef") != strlen(c.id)
            || memmem(text, size, c.id, strlen(c.id)) == NULL || c.name[0] != '\0'
            || (strcmp(c.engine, "podman") != 0 && strcmp(c.engine, "docker") != 0
                && strcmp(c.engine, "containerd") != 0 && strcmp(c.engine, "cri-o") != 0))
            abort();
    } else if (c.engine[0] != '\0' || c.id[0] != '\0') {
        abort();
    }
    /* The input as a name, cut at its first NUL. */
    char name[AFX_UNIT_MAX + 1];
    size_t n = size < AFX_UNIT_MAX ? size : AFX_UNIT_MAX;
    memcpy(name, data, n);
    name[n] = '\0';
    check_commandable(name);
    if (u.name[0] != '\0')
        check_commandable(u.name);
    return 0;
}
