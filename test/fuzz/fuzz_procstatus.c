/* libFuzzer target: inspect's readers of /proc/PID/status, environ and
 * auxv (cli/proc/procstatus.c, cli/proc/procenv.c), input a process controls
 * through its name, its credentials and its environment.
 *
 * Oracles, beyond ASan and UBSan:
 *   - a field is found as a plain line-by-line search finds it, cut to
 *     the buffer and never past its line;
 *   - credentials read back from the kernel's format they were written
 *     in, and are never the invalid ID;
 *   - the environment's settings are a function of the block: read
 *     twice, and read from a copy, they agree; secure processes get
 *     the defaults. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/proc/procenv.c"
#include "../../cli/proc/procstatus.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The field the slow way: each line, in order. */
static int reference_field(const char *text, const char *name, char *out, size_t size)
{
    size_t n = strlen(name);
    const char *line = text;
    while (*line != '\0') {
        size_t len = strcspn(line, "\n");
        if (len > n && strncmp(line, name, n) == 0 && line[n] == ':') {
            const char *v = line + n + 1;
            size_t vlen = len - n - 1;
            while (vlen > 0 && (*v == ' ' || *v == '\t'))
                v++, vlen--;
            if (vlen >= size)
                vlen = size - 1;
            memcpy(out, v, vlen);
            out[vlen] = '\0';
            return 1;
        }
        line += len;
        if (*line == '\n')
            line++;
    }
    return 0;
}

static void check_fields(const char *text)
{
    static const char *const names[] = { "Name", "Uid", "Groups", "Cpus_allowed_list" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char got[24] = "", want[24] = "";
        int found = afx_status_field(text, names[i], got, sizeof got);
        /* A name at the very end of the text, without ':', is not a field. */
        if (found != reference_field(text, names[i], want, sizeof want) || strcmp(got, want) != 0
            || strchr(got, '\n') != NULL)
            abort();
    }
}

static struct afx_creds creds, again;

static void check_creds(const char *text)
{
    if (!afx_status_creds(text, &creds))
        return;
    if (creds.ngroups > AFX_MAX_GROUPS)
        abort();
    for (int i = 0; i < 4; i++)
        if (creds.uid[i] == (uid_t)-1 || creds.gid[i] == (gid_t)-1)
            abort();
    char *buf = malloc(128 + creds.ngroups * 12);
    int n = sprintf(buf, "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nGroups:\t", creds.uid[0], creds.uid[1],
                    creds.uid[2], creds.uid[3], creds.gid[0], creds.gid[1], creds.gid[2], creds.gid[3]);
    for (size_t i = 0; i < creds.ngroups; i++)
        n += sprintf(buf + n, "%u ", creds.groups[i]);
    strcpy(buf + n, "\n");
    if (!afx_status_creds(buf, &again) || memcmp(creds.uid, again.uid, sizeof creds.uid) != 0
        || memcmp(creds.gid, again.gid, sizeof creds.gid) != 0 || creds.ngroups != again.ngroups
        || memcmp(creds.groups, again.groups, creds.ngroups * sizeof creds.groups[0]) != 0)
        abort();
    free(buf);
}

static void check_env(const uint8_t *data, size_t size)
{
    struct afx_env_facts a, b, s;
    char *copy = malloc(size + 1);
    if (copy == NULL)
        return;
    memcpy(copy, data, size);
    if (!afx_environ_facts((const char *)data, size, false, &a) || !afx_environ_facts(copy, size, false, &b)
        || !afx_environ_facts((const char *)data, size, true, &s))
        abort();
    if (a.user_limit != b.user_limit || a.arenafix.mode != b.arenafix.mode
        || a.arenafix.arena_max != b.arenafix.arena_max || a.arenafix.eager != b.arenafix.eager)
        abort();
    if (s.arenafix.mode != AFX_MODE_MALLOPT || s.arenafix.arena_max != 0 || s.user_limit || !s.secure)
        abort();
    if ((unsigned)a.arenafix.mode > AFX_MODE_OFF || a.arenafix.arena_max < 0
        || a.arenafix.arena_max > AFX_ARENA_MAX_LIMIT || a.arenafix.log != NULL)
        abort();
    free(copy);
    (void)afx_auxv_secure(data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    check_fields(text);
    check_creds(text);
    free(text);
    check_env(data, size);
    return 0;
}
