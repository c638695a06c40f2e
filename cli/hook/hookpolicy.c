#include "hookpolicy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool afx_hook_decide(const struct afx_image_facts *f, char *why, size_t size)
{
    unsigned major = 0, minor = 0;
    if (f->unreadable[0] != '\0') {
        snprintf(why, size, "its libc.so.6 in %s cannot be read: %s", f->libc_dir, f->unreadable);
        return false;
    }
    if (!f->libc) {
        if (f->musl)
            snprintf(why, size, "a musl image%s%s (no glibc): the library is for glibc", f->machine[0] ? " for " : "",
                     f->machine);
        else
            snprintf(why, size, "no glibc in the image (a static program?): nothing would load the library");
        return false;
    }
    if (!f->elf) {
        snprintf(why, size, "its %s/libc.so.6 is not an ELF shared object", f->libc_dir);
        return false;
    }
    if (!f->same_machine) {
        snprintf(why, size, "its %s/libc.so.6 is for another architecture: the image's glibc is for %s, not %s",
                 f->libc_dir, f->machine, f->lib_machine);
        return false;
    }
    if (f->version[0] == '\0' || !afx_glibc_version_parse(f->version, &major, &minor) || major != 2) {
        snprintf(why, size, "its %s/libc.so.6 is not glibc (no GNU C Library banner)", f->libc_dir);
        return false;
    }
    if (minor < AFX_GLIBC_FIRST_AFFECTED) {
        snprintf(why, size, "glibc %s: older than 2.34, it lacks the library's symbol versions and has no bug 30945",
                 f->version);
        return false;
    }
    if (minor > AFX_GLIBC_LAST_AFFECTED) {
        snprintf(why, size, "glibc %s counts the online CPUs (the bug is in 2.34 to 2.38)", f->version);
        return false;
    }
    if (f->host_copy && f->host != AFX_GLIBC_AFFECTED) {
        snprintf(why, size, "glibc %s, the host's own libc.so.6 byte for byte, which the host's probe found %s",
                 f->version, f->host == AFX_GLIBC_FIXED ? "fixed" : "not affected, or could not tell");
        return false;
    }
    if (f->other_abi[0] != '\0') {
        /* The library is built for one ABI: listed in /etc/ld.so.preload,
         * it would make each program of the other print ld.so's "wrong
         * ELF class" error.  A $LIB entry (2.34 to 2.38 expand it there
         * too) is no way out: $LIB is what each build chose ("lib64"
         * upstream, "lib/x86_64-linux-gnu" on Debian, "lib" on Arch's
         * x86-64 and Fedora's i686), so no one path serves each ABI. */
        snprintf(why, size, "glibc %s in %s, but the image runs %s programs too (%s): each would print ld.so's "
                 "\"wrong ELF class\" error for the %s library in /etc/ld.so.preload", f->version, f->libc_dir,
                 f->other_abi, f->other_loader, f->lib_machine);
        return false;
    }
    snprintf(why, size, "glibc %s in %s, %s", f->version, f->libc_dir,
             f->host_copy ? "the host's own libc.so.6, which the host's probe found affected"
                          : "which may lack the fix (the library gives the fixed glibc's count either way)");
    return true;
}

static bool separator(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == ':' || c == '\0';
}

/* entry is one of list's words, split as ld.so splits /etc/ld.so.preload. */
static bool lists(const char *list, size_t len, const char *entry)
{
    size_t n = strlen(entry);
    for (size_t i = 0; i < len;) {
        while (i < len && separator(list[i]))
            i++;
        size_t start = i;
        while (i < len && !separator(list[i]))
            i++;
        if (i > start && i - start == n && memcmp(list + start, entry, n) == 0)
            return true;
    }
    return false;
}

char *afx_hook_preload_merge(const char *old, size_t len, const char *entry, size_t *out_len, bool *listed)
{
    *listed = old != NULL && lists(old, len, entry);
    if (*listed)
        return NULL;
    size_t n = strlen(entry);
    char *out = malloc(n + 1 + (old ? len : 0) + 1);
    if (out == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy(out, entry, n);
    out[n] = '\n';
    size_t total = n + 1;
    if (old != NULL) {
        memcpy(out + total, old, len);
        total += len;
    }
    out[total] = '\0';
    *out_len = total;
    return out;
}
