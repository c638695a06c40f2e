#include "activate.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "arenacount.h"
#include "config.h"
#include "elfsym.h"
#include "log.h"
#include "mask.h"
#include "policy.h"
#include "real.h"
#include "sysread.h"
#include "tls.h"
#include "usersettings.h"

extern char **environ;

/* What is known at startup and never changes after: written by the one
 * thread that initialises, read by others after init_state is 2. */
static struct afx_facts startup;
static char foreign_name[256];
/* 0: not yet, 1: a thread is initialising, 2: done. */
static atomic_int init_state;

static atomic_bool touch;
static atomic_bool explained;
/* M_ARENA_MAX: 0 armed (or not decided), 1 being set, 2 set, 3 not to be set. */
enum { ARMED, SETTING, SET, STOOD_DOWN };
static atomic_int arena_max_state;
static atomic_long arena_max_value;
static atomic_long arenas_when_set;
static atomic_long creations;
/* The program's own mallopt values (n > 0; glibc ignores the others). */
static atomic_int program_arena_max;
static atomic_int program_arena_test;

static bool is_initialised(void)
{
    return atomic_load_explicit(&init_state, memory_order_acquire) == 2;
}

static void read_config(char **envp)
{
    const char *values[AFX_VAR_COUNT] = { 0 };
    /* Secure-execution processes get the defaults: an unprivileged
     * caller must not steer code running with privileges. */
    if (!startup.secure && envp != NULL) {
        /* The first of duplicates, as getenv reads them. */
        for (char **e = envp; *e != NULL; e++)
            for (int v = 0; v < AFX_VAR_COUNT; v++)
                if (values[v] == NULL)
                    values[v] = afx_env_value(*e, afx_config_names[v]);
    }
    int bad = afx_config_parse(&startup.cfg, values);
    afx_log_setup(NULL, startup.cfg.log);
    if (bad >= 0)
        afx_log("ignoring %s=\"%.64s\": not a valid value, using the default",
                afx_config_names[bad], values[bad]);
}

/* The object that defines malloc, if it is not libc or one of glibc's
 * own wrappers (jemalloc, tcmalloc, mimalloc, a sanitizer): its arenas
 * are not glibc's to size.  Decided
 * by the definition, not by dlsym, which returns an executable's
 * canonical PLT entry when the executable takes malloc's address. */
static const char *foreign_malloc(void)
{
    /* glibc's own debugging wrappers forward to its allocator: the
     * arenas stay glibc's. */
    static const char *const glibc_wrappers[] = { "libc_malloc_debug.so.0", "libmemusage.so" };
    const char *file;
    bool is_libc;
    if (!afx_first_definer("malloc", (const void *)gnu_get_libc_version, &file, &is_libc)
        || is_libc)
        return NULL;
    const char *base = strrchr(file, '/') != NULL ? strrchr(file, '/') + 1 : file;
    for (size_t i = 0; i < sizeof glibc_wrappers / sizeof glibc_wrappers[0]; i++)
        if (strcmp(base, glibc_wrappers[i]) == 0)
            return NULL;
    snprintf(foreign_name, sizeof foreign_name, "%s",
             file[0] != '\0' ? file : "the executable");
    return foreign_name;
}

void afx_init(char **envp, const char *program)
{
    int expected = 0;
    if (is_initialised())
        return;
    if (!atomic_compare_exchange_strong(&init_state, &expected, 1)) {
        /* Another thread initialises: a few string scans, worth a wait. */
        while (!is_initialised())
            sched_yield();
        return;
    }
    int saved = errno;
    afx_log_setup(program, NULL);
    startup.secure = getauxval(AT_SECURE) != 0;
    read_config(envp);
    afx_user_scan(envp, startup.secure, &startup.user);
    startup.foreign_malloc = foreign_malloc();
    startup.arenas = -1;
    startup.thread_cpus = -1;
    (void)afx_real();

    char why[8];
    struct afx_decision d = afx_decide(&startup, why, sizeof why);
    atomic_store(&touch, d.touch);
    if (!d.set_arena_max)
        atomic_store(&arena_max_state, STOOD_DOWN);
    atomic_store_explicit(&init_state, 2, memory_order_release);
    errno = saved;
}

static void init_late(void)
{
    if (!is_initialised())
        afx_init(environ, program_invocation_name);
}

/* The facts now.  Arenas are counted only where that may allocate. */
static struct afx_facts facts_now(bool may_count)
{
    struct afx_facts f = startup;
    f.program_arena_max = atomic_load(&program_arena_max);
    f.program_arena_test = atomic_load(&program_arena_test);
    f.online = afx_online_cpus(&f.online_source);
    f.thread_cpus = afx_thread_cpus();
    const cpu_set_t *set;
    size_t size;
    f.narrowing_seen = afx_mask_wide(&set, &size);
    /* Arenas exist beyond the main one only once threads do: a
     * single-threaded process pays nothing for counting them. */
    if (may_count && f.foreign_malloc == NULL && afx_thread_count() > 1)
        f.arenas = afx_count_arenas();
    return f;
}

/* Say what was decided, once per process, from the facts F. */
static void explain(const struct afx_facts *f)
{
    char why[400];
    struct afx_decision d = afx_decide(f, why, sizeof why);
    if (!d.set_arena_max && !d.touch) {
        atomic_store(&touch, false);
        int armed = ARMED;
        atomic_compare_exchange_strong(&arena_max_state, &armed, STOOD_DOWN);
    }
    if (!f->cfg.verbose)
        return;
    int state = atomic_load(&arena_max_state);
    afx_log("glibc %s, %ld CPUs online, this thread sees %ld: %s%s", gnu_get_libc_version(),
            f->online, f->thread_cpus, why,
            !d.set_arena_max || state == SET || state == SETTING
                ? ""
                : "; set when the process nears arena_test threads, before glibc fixes its limit");
}

static bool first_to_explain(void)
{
    return !atomic_load(&explained) && !atomic_exchange(&explained, true);
}

/* Set M_ARENA_MAX, or stand down, from the facts F; the caller moved
 * arena_max_state from ARMED to SETTING. */
static void set_arena_max(const struct afx_facts *f, bool explained_now)
{
    char why[400];
    struct afx_decision d = afx_decide(f, why, sizeof why);
    const struct afx_real *real = afx_real();
    if (!d.set_arena_max || real == NULL || real->mallopt.fn == NULL) {
        atomic_store(&arena_max_state, STOOD_DOWN);
        atomic_store(&touch, d.touch);
        /* A change since the line that said it would be set. */
        if (f->cfg.verbose && !explained_now)
            afx_log("%s", why);
        return;
    }
    real->mallopt.fn(M_ARENA_MAX, (int)d.arena_max);
    atomic_store(&arena_max_value, d.arena_max);
    /* The count the program's later mallopt is compared with. */
    long arenas = f->arenas >= 0 ? f->arenas : afx_count_arenas();
    atomic_store(&arenas_when_set, arenas > 0 ? arenas : 1);
    atomic_store(&arena_max_state, SET);
}

/* Whether M_ARENA_MAX is due before this creation.  glibc fixes its
 * limit when a thread needs a new arena while more than arena_test
 * exist, so at least arena_test + 2 threads run then.  Set it two
 * threads earlier, counting the threads that run now, those arenafix
 * did not see start included (/proc).  Threads that came and went hold
 * no arena, so they do not count; but after 64 x arena_test creations
 * it is set anyway, which bounds what a program that keeps starting
 * short-lived threads pays for the reads. */
static bool due_now(void)
{
    struct afx_facts f = startup;
    f.program_arena_test = atomic_load(&program_arena_test);
    long test = afx_arena_test(&f);
    long created = atomic_fetch_add(&creations, 1) + 1;
    /* An explicit ARENAFIX_ARENA_MAX is the user's limit, like
     * MALLOC_ARENA_MAX: in force from the first thread on. */
    if (startup.cfg.arena_max > 0 || created >= 64 * test)
        return true;
    long alive = afx_thread_count();
    return alive < 0 || alive + 1 >= test;
}

/* Explain (if no one has) and set M_ARENA_MAX (if due and no one is),
 * from one look at the process, so the line and the act agree. */
static void decide_now(bool due)
{
    int armed = ARMED;
    bool claimed = due && atomic_load(&arena_max_state) == ARMED
                   && atomic_compare_exchange_strong(&arena_max_state, &armed, SETTING);
    bool explaining = first_to_explain();
    if (!claimed && !explaining)
        return;
    struct afx_facts f = facts_now(true);
    if (explaining)
        explain(&f);
    if (claimed)
        set_arena_max(&f, explaining);
}

void afx_before_create(void)
{
    init_late();
    bool due = atomic_load(&arena_max_state) == ARMED && due_now();
    if (due || !atomic_load(&explained))
        decide_now(due);
}

void afx_before_narrowing(void)
{
    /* Only a verbose process needs the line here, and where arenas
     * cannot be counted, a process with threads may already be past
     * glibc's latch: leave the line to a pthread_create then. */
    if (!is_initialised() || !startup.cfg.verbose || atomic_load(&explained)
        || afx_thread_count() > 1 || !first_to_explain())
        return;
    struct afx_facts f = facts_now(false);
    explain(&f);
}

bool afx_touch_enabled(void)
{
    return atomic_load_explicit(&touch, memory_order_relaxed);
}

bool afx_touch_possible(void)
{
    return !is_initialised() || afx_touch_enabled();
}

void afx_note_program_mallopt(int param, int value)
{
    /* mallopt ignores these values: no choice was made. */
    if (value <= 0 || (param != M_ARENA_MAX && param != M_ARENA_TEST))
        return;
    if (param == M_ARENA_TEST) {
        atomic_store(&program_arena_test, value);
        /* glibc reads arena_test only while M_ARENA_MAX is unset. */
        if (startup.cfg.verbose && atomic_load(&arena_max_state) == SET)
            afx_log("the program called mallopt(M_ARENA_TEST, %d) too late: arenafix had set "
                    "M_ARENA_MAX to %ld, and glibc reads arena_test only while that is unset; "
                    "the program's value does not apply (set MALLOC_ARENA_TEST, or "
                    "ARENAFIX_MODE=touch)",
                    value, atomic_load(&arena_max_value));
        return;
    }
    if (atomic_load(&arena_max_state) != SET) {
        atomic_store(&program_arena_max, value);
        if (atomic_load(&explained) && startup.cfg.verbose
            && atomic_load(&arena_max_state) == ARMED)
            afx_log("standing down: the program called mallopt(M_ARENA_MAX, %d)", value);
        return;
    }
    if (!startup.cfg.verbose)
        return;
    /* glibc fixes its limit at the first arena created after
     * M_ARENA_MAX is set: if none was, the program's value applies. */
    long now = afx_count_arenas(), then = atomic_load(&arenas_when_set);
    if (now >= 0 && now <= then)
        afx_log("the program called mallopt(M_ARENA_MAX, %d) after arenafix set %ld, before "
                "glibc fixed its limit: the program's value applies",
                value, atomic_load(&arena_max_value));
    else
        afx_log("the program called mallopt(M_ARENA_MAX, %d) too late: arenafix had set %ld "
                "and glibc has fixed its limit since (%ld arenas); the program's value does not "
                "apply (set MALLOC_ARENA_MAX, or ARENAFIX_MODE=touch)",
                value, atomic_load(&arena_max_value), now);
}

/* Bind and read the settings before main, while the process is single
 * threaded; glibc passes the initial environment to constructors. */
__attribute__((constructor)) static void afx_ctor(int argc, char **argv, char **envp)
{
    (void)argc;
    if (!afx_enter())
        return;
    afx_init(envp, argv != NULL ? argv[0] : NULL);
    /* Loaded by dlopen into a process whose threads already run, the
     * interposers may never be called (libc's functions come first in the
     * search order): decide now, so verbose mode says it is too late. */
    if (startup.cfg.eager || (startup.cfg.verbose && afx_thread_count() > 1))
        decide_now(startup.cfg.eager);
    afx_leave();
}
