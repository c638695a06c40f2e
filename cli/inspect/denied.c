#include "denied.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/procstatus.h"
#include "readfile.h"

/* linux/capability.h's numbers. */
#define CAP_DAC_OVERRIDE_BIT 1
#define CAP_DAC_READ_SEARCH_BIT 2
#define CAP_SYS_PTRACE_BIT 19

/* Our own files and the host's: small, but read bounded all the same. */
#define SELF_MAX (1L << 20)

bool afx_capmask_has(const char *hex, unsigned bit)
{
    size_t len = strspn(hex, "0123456789abcdefABCDEF");
    if (len == 0 || bit / 4 >= len)
        return false;
    char digit[2] = { hex[len - 1 - bit / 4], '\0' };
    return (strtoul(digit, NULL, 16) >> (bit % 4)) & 1;
}

void afx_mountinfo_hidepid(const char *text, char *out, size_t size)
{
    snprintf(out, size, "%s", "");
    for (const char *line = text; *line != '\0';) {
        size_t len = strcspn(line, "\n");
        /* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - TYPE SOURCE SUPER" */
        const char *p = line;
        for (int field = 0; field < 4 && p < line + len; field++)
            p += strcspn(p, " \n") + (p[strcspn(p, " \n")] == ' ');
        const char *dash = strstr(p, " - ");
        if (strncmp(p, "/proc ", 6) == 0 && dash != NULL && dash < line + len) {
            const char *opt = strstr(dash, "hidepid=");
            snprintf(out, size, "%s", "");
            if (opt != NULL && opt < line + len) {
                opt += 8;
                size_t n = strcspn(opt, ", \n");
                if (!(n == 1 && opt[0] == '0') && !(n == 3 && strncmp(opt, "off", 3) == 0))
                    snprintf(out, size, "%.*s", (int)n, opt);
            }
        }
        line += len + (line[len] == '\n');
    }
}

bool afx_uid_map_is_host(const char *text)
{
    unsigned long inside, outside, count;
    int end = 0;
    return sscanf(text, " %lu %lu %lu %n", &inside, &outside, &count, &end) == 3 && text[end] == '\0'
           && inside == 0 && outside == 0 && count == 4294967295UL;
}

void afx_lsm_refusers(const char *list, char *out, size_t size)
{
    static const char *const refusers[] = { "selinux", "apparmor", "smack", "tomoyo", "landlock", "bpf" };
    size_t used = 0;
    out[0] = '\0';
    for (const char *p = list; *p != '\0';) {
        size_t n = strcspn(p, ",\n");
        for (size_t i = 0; i < sizeof refusers / sizeof refusers[0]; i++)
            if (n == strlen(refusers[i]) && strncmp(p, refusers[i], n) == 0 && used + n + 2 < size)
                used += (size_t)snprintf(out + used, size - used, "%s%.*s", used ? "," : "", (int)n, p);
        p += n + (p[n] != '\0');
    }
}

void afx_access_facts_read(struct afx_access_facts *f)
{
    char cap[40] = "";
    *f = (struct afx_access_facts){ .root = geteuid() == 0, .yama = -1 };
    char *text = afx_slurp_max("/proc/self/status", SELF_MAX, NULL, NULL);
    if (text != NULL && afx_status_field(text, "CapEff", cap, sizeof cap)) {
        f->caps_known = true;
        f->cap_ptrace = afx_capmask_has(cap, CAP_SYS_PTRACE_BIT);
        f->cap_dac = afx_capmask_has(cap, CAP_DAC_OVERRIDE_BIT) || afx_capmask_has(cap, CAP_DAC_READ_SEARCH_BIT);
    }
    free(text);
    text = afx_slurp_max("/proc/self/uid_map", SELF_MAX, NULL, NULL);
    f->userns = text != NULL && !afx_uid_map_is_host(text);
    free(text);
    text = afx_slurp_max("/proc/self/mountinfo", 16 * SELF_MAX, NULL, NULL);
    if (text != NULL)
        afx_mountinfo_hidepid(text, f->hidepid, sizeof f->hidepid);
    free(text);
    text = afx_slurp_max("/sys/kernel/security/lsm", SELF_MAX, NULL, NULL);
    f->lsm_known = text != NULL;
    if (text != NULL)
        afx_lsm_refusers(text, f->lsms, sizeof f->lsms);
    free(text);
    text = afx_slurp_max("/proc/sys/kernel/yama/ptrace_scope", SELF_MAX, NULL, NULL);
    if (text != NULL)
        f->yama = strtol(text, NULL, 10);
    free(text);
}

/* Append to out at *used. */
__attribute__((format(printf, 4, 5))) static void add(char *out, size_t size, size_t *used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (*used < size)
        *used += (size_t)vsnprintf(out + *used, size - *used, fmt, ap);
    va_end(ap);
}

void afx_denied_reason(const struct afx_access_facts *f, const char *what, bool hidden, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    if (!f->root) {
        add(out, size, &used, "%s", "run as the process's user or as root");
        return;
    }
    bool mem = strcmp(what, "mem") == 0;
    char lacks[96] = "";
    if (f->caps_known && !f->cap_ptrace)
        strcat(lacks, "CAP_SYS_PTRACE");
    if (f->caps_known && !f->cap_dac)
        strcat(strcat(lacks, lacks[0] ? " and " : ""), "CAP_DAC_READ_SEARCH (or CAP_DAC_OVERRIDE)");
    add(out, size, &used, "%s", "even as root: ");
    if (f->hidepid[0] != '\0')
        add(out, size, &used, "/proc is mounted hidepid=%s, which hides what root may not trace, and ", f->hidepid);
    else if (hidden)
        add(out, size, &used, "%s", "/proc belongs to another PID namespace, and ");
    if (lacks[0] != '\0') {
        add(out, size, &used, "this root lacks %s (CapEff in /proc/self/status); run it with the capabilities "
                              "root has on the host (not under capsh --drop, setpriv or a container's limits)", lacks);
    } else if (f->userns) {
        add(out, size, &used, "%s", "this root is root of a user namespace only (/proc/self/uid_map), and the "
                                    "process is outside it; run it on the host");
    } else if (mem && f->yama >= 3) {
        add(out, size, &used, "%s", "Yama's ptrace_scope is 3 (/proc/sys/kernel/yama/ptrace_scope): no process may "
                                    "read another's memory until reboot");
    } else if (f->lsm_known && f->lsms[0] != '\0') {
        add(out, size, &used, "a security module refuses it (active: %s); look for the denial in the kernel or "
                              "audit log (journalctl -k)", f->lsms);
    } else if (!f->lsm_known) {
        add(out, size, &used, "%s", "refused with CAP_SYS_PTRACE in the host's user namespace, so most likely by "
                                    "a security module (cannot read /sys/kernel/security/lsm to say which: mount "
                                    "securityfs there); look in the kernel or audit log (journalctl -k)");
    } else {
        add(out, size, &used, "%s", "refused with CAP_SYS_PTRACE in the host's user namespace and no security "
                                    "module active, for a reason arenafix cannot see; look in the kernel or audit "
                                    "log (journalctl -k)");
    }
}
