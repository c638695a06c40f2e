#include "activate.h"

#include <dlfcn.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include "config.h"
#include "log.h"
#include "policy.h"
#include "real.h"
#include "sysread.h"
#include "usersettings.h"

static struct afx_config config;
static bool secure;
/* 0: not read, 1: being read, 2: read.  Not pthread_once: its futex
 * wake would be a system call in every process (see the cost test). */
static atomic_int config_state;

static pthread_once_t activation_once = PTHREAD_ONCE_INIT;
static atomic_bool activated;
static atomic_bool touch;
static atomic_bool program_mallopt;
static atomic_int program_mallopt_value;

/* The thread activating, while it does: a call back into a wrapper
 * from inside (a foreign malloc creating a thread, say) must not wait
 * on its own pthread_once.  Not a TLS flag: that would pull in ld.so's
 * __tls_get_addr, and may allocate in a dlopen()ed copy. */
static _Atomic uintptr_t activator;

/* Reads only the environment: no system call, so the constructor
 * costs nothing in processes that never need the fix. */
static void read_config(void)
{
    const char *values[AFX_VAR_COUNT] = { 0 };
    secure = getauxval(AT_SECURE) != 0;
    /* Secure-execution processes get the defaults: an unprivileged
     * caller must not steer code running with privileges. */
    if (!secure) {
        for (int v = 0; v < AFX_VAR_COUNT; v++)
            values[v] = getenv(afx_config_names[v]);
    }
    int bad = afx_config_parse(&config, values);
    if (bad >= 0)
        afx_log("ignoring %s=\"%.64s\": not a valid value, using the default",
                afx_config_names[bad], values[bad]);
}

static const struct afx_config *get_config(void)
{
    int state = atomic_load_explicit(&config_state, memory_order_acquire);
    if (state == 2)
        return &config;
    if (state == 0 && atomic_compare_exchange_strong(&config_state, &state, 1)) {
        read_config();
        atomic_store_explicit(&config_state, 2, memory_order_release);
        return &config;
    }
    /* Another thread is reading: a few getenv calls, worth a short wait. */
    while (atomic_load_explicit(&config_state, memory_order_acquire) != 2)
        sched_yield();
    return &config;
}

/* The object that defines malloc, if it is not libc (jemalloc, tcmalloc,
 * mimalloc, a sanitizer): its arenas are not glibc's to size. */
static const char *foreign_malloc(void)
{
    Dl_info m, libc;
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    if (sym == NULL || !dladdr(sym, &m) || !dladdr((void *)gnu_get_libc_version, &libc))
        return NULL;
    return m.dli_fbase == libc.dli_fbase ? NULL : m.dli_fname;
}

static void gather(struct afx_facts *f)
{
    f->cfg = *get_config();
    f->secure = secure;
    f->tunable_set = afx_tunables_arena_max(getenv("GLIBC_TUNABLES"), &f->tunable_value);
    f->env_set = afx_env_arena_max(getenv("MALLOC_ARENA_MAX"), &f->env_value);
    f->program_mallopt = atomic_load(&program_mallopt);
    f->program_mallopt_value = atomic_load(&program_mallopt_value);
    f->foreign_malloc = foreign_malloc();
    f->threads = afx_thread_count();
    f->online = afx_online_cpus(&f->online_source);
}

static void activate_once(void)
{
    int saved = errno;
    struct afx_facts facts = { 0 };
    char why[320];

    atomic_store(&activator, (uintptr_t)pthread_self());
    gather(&facts);
    struct afx_decision d = afx_decide(&facts, why, sizeof why);
    if (d.set_arena_max && afx_real()->mallopt.fn != NULL)
        afx_real()->mallopt.fn(M_ARENA_MAX, (int)d.arena_max);
    atomic_store(&touch, d.touch);
    if (facts.cfg.verbose)
        afx_log("glibc %s, %ld CPUs online, this thread sees %ld: %s", gnu_get_libc_version(),
                facts.online, afx_thread_cpus(), why);
    atomic_store_explicit(&activated, true, memory_order_release);
    atomic_store(&activator, 0);
    errno = saved;
}

void afx_activate(void)
{
    if (atomic_load_explicit(&activated, memory_order_acquire)
        || atomic_load(&activator) == (uintptr_t)pthread_self())
        return;
    pthread_once(&activation_once, activate_once);
}

bool afx_touch_enabled(void)
{
    return atomic_load_explicit(&touch, memory_order_relaxed);
}

void afx_note_program_mallopt(int value)
{
    if (atomic_load(&activated))
        return;
    atomic_store(&program_mallopt_value, value);
    atomic_store(&program_mallopt, true);
}

__attribute__((constructor)) static void afx_init(void)
{
    const struct afx_config *cfg = get_config();
    /* Loaded by dlopen into a process whose threads already run, the
     * interposers may never be called (libc's functions come first in the
     * search order): decide now, so verbose mode says it is too late. */
    if (cfg->eager || (cfg->verbose && afx_thread_count() > 1))
        afx_activate();
}
