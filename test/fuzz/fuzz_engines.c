/* libFuzzer target: inspect's readers of docker's and containerd's files
 * and command lines (cli/proc/enginestate.c).  docker's config.v2.json
 * holds what an image's author wrote (its labels, its environment), and
 * a shim's command line the IDs its caller chose.
 *
 * Oracles, beyond ASan and UBSan:
 *   - a top-level string found is in the input, between quotes, with no
 *     quote, backslash or NUL in it, and fits;
 *   - a docker name is [A-Za-z0-9][A-Za-z0-9_.-]+;
 *   - an option's value and a shim's namespace and ID are in the input,
 *     each one whole argument (NUL-terminated there), the latter of
 *     containerd's name characters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/proc/enginestate.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char name_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";

/* s occurs in the input followed by end (a character, or -1: none). */
static bool in_input(const char *text, size_t size, const char *s, int end)
{
    size_t n = strlen(s);
    for (const char *at = text; at + n <= text + size; at++) {
        at = memmem(at, (size_t)(text + size - at), s, n);
        if (at == NULL)
            return false;
        if (end < 0 || (at + n < text + size && at[n] == (char)end))
            return true;
    }
    return false;
}

static void check_name(const char *s, size_t min)
{
    if (strlen(s) < min || s[strspn(s, name_chars)] != '\0' || strchr("_.-", s[0]) != NULL)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    char out[64], ns[80], id[80];
    if (afx_json_top_string(text, size, "Name", out, sizeof out)) {
        if (strpbrk(out, "\"\\") != NULL || strlen(out) >= sizeof out || !in_input(text, size, out, '"'))
            abort();
    } else if (out[0] != '\0') {
        abort();
    }
    if (afx_docker_name(text, size, "0123456789abcdef", out, sizeof out))
        check_name(out, 2);
    if (afx_argv_option(text, size, "--data-root", out, sizeof out) && !in_input(text, size, out, '\0'))
        abort();
    if (afx_shim_task(text, size, ns, sizeof ns, id, sizeof id)) {
        check_name(ns, 1);
        check_name(id, 1);
        if (!in_input(text, size, ns, '\0') || !in_input(text, size, id, '\0'))
            abort();
    }
    return 0;
}
