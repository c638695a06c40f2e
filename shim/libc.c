#include "libc.h"

#include <stdatomic.h>
#include <stdio.h>

enum { UNKNOWN, SERVED, UNSERVED };
static atomic_int state;

bool afx_libc_maybe_served(void)
{
    /* Defined from glibc 2.32; musl has none (symvers.h).  And
     * gnu_get_libc_version, which every glibc defines: a layer of
     * compatibility on musl may define the one and not the other. */
    return &__libc_single_threaded != NULL && &gnu_get_libc_version != NULL;
}

static unsigned long number(const char **p)
{
    unsigned long n = 0;
    for (; **p >= '0' && **p <= '9' && n < 100000; (*p)++)
        n = n * 10 + (unsigned long)(**p - '0');
    return n;
}

/* "2.34", "2.36", "2.39.9000": the major and minor numbers. */
static bool at_least_2_34(const char *v)
{
    if (v == NULL)
        return false;
    unsigned long major = number(&v);
    if (*v++ != '.')
        return false;
    unsigned long minor = number(&v);
    return major > 2 || (major == 2 && minor >= 34);
}

bool afx_libc_served(void)
{
    int s = atomic_load_explicit(&state, memory_order_relaxed);
    if (s == UNKNOWN) {
        /* Where both are defined, the libc is glibc 2.32 or later. */
        bool served = afx_libc_maybe_served() && at_least_2_34(gnu_get_libc_version());
        s = served ? SERVED : UNSERVED;
        atomic_store_explicit(&state, s, memory_order_relaxed);
    }
    return s == SERVED;
}

const char *afx_libc_name(void)
{
    static char name[64];
    /* Older glibcs define gnu_get_libc_version too, at their first
     * version; musl none. */
    if (&gnu_get_libc_version == NULL)
        return "a libc other than glibc (musl?)";
    snprintf(name, sizeof name, "glibc %s", gnu_get_libc_version());
    return name;
}
