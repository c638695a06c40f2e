#include "activate.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/single_threaded.h>
#include <unistd.h>

#include "arenacount.h"
#include "config.h"
#include "elfsym.h"
#include "livecount.h"
#include "log.h"
#include "mask.h"
#include "policy.h"
#include "real.h"
#include "sysread.h"
#include "tls.h"
#include "usersettings.h"

extern char **environ;

/* What is known at startup and never changes after: written by the one
 * thread that initialises, read by others once initialised is true. */
static struct afx_facts startup;
static char foreign_name[256];
static atomic_bool initialised;
/* The work done once per process, and waited for by the threads that
 * come while another does it, runs under pthread_once: glibc's starts
 * it again in a child forked meanwhile, where no thread is left to
 * finish it and a flag of ours would hold the child for ever. */
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* afx_init's arguments, for whichever thread runs it. */
static AFX_TLS char **init_envp;
static AFX_TLS const char *init_program;

static atomic_bool touch;
static atomic_bool explained;
/* M_ARENA_MAX: armed (or not decided), being set, set, not to be set. */
enum { ARMED, SETTING, SET, STOOD_DOWN };
static atomic_int arena_max_state;
static pthread_once_t set_once = PTHREAD_ONCE_INIT;
static atomic_long arena_max_value;
static atomic_long arenas_when_set;
static atomic_long creations;
/* Creations begun and not returned: their threads may run before /proc
 * counts them.  A child forked meanwhile inherits its parent's, and so
 * sets M_ARENA_MAX early, never late. */
static atomic_long in_flight;
/* The thread count last read from /proc, and the creations then: a read
 * that fails for want of a descriptor counts every creation since as
 * alive (early, never late). */
static atomic_long last_alive = -1;
static atomic_long creations_then;
/* The program's own mallopt values (n > 0; glibc ignores the others). */
static atomic_int program_arena_max;
static atomic_int program_arena_test;

static bool is_initialised(void)
{
    return atomic_load_explicit(&initialised, memory_order_acquire);
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

static void init_process(void)
{
    int saved = errno;
    char **envp = init_envp;
    afx_log_setup(init_program, NULL);
    startup.secure = getauxval(AT_SECURE) != 0;
    read_config(envp);
    afx_user_scan(envp, startup.secure, &startup.user);
    startup.arenas = -1;
    startup.thread_cpus = -1;
    /* Until the decision at the first thread: touch as the mode says,
     * unless the user chose a limit. */
    atomic_store(&touch, (startup.cfg.mode == AFX_MODE_TOUCH || startup.cfg.mode == AFX_MODE_BOTH)
                             && startup.user.arena_max_from == AFX_UNSET);
    atomic_store_explicit(&initialised, true, memory_order_release);
    errno = saved;
}

/* Once per process, with a wait for a thread that finds another one at
 * it.  Alone (the constructor, as a rule), no other thread can wait or
 * fork meanwhile, and pthread_once would cost a system call (it wakes
 * waiters): a process that never needs the fix makes none. */
static void once(pthread_once_t *control, void (*routine)(void))
{
    if (__libc_single_threaded)
        routine();
    else
        pthread_once(control, routine);
}

void afx_init(char **envp, const char *program)
{
    if (is_initialised())
        return;
    init_envp = envp;
    init_program = program;
    once(&init_once, init_process);
}

static void init_late(void)
{
    if (!is_initialised())
        afx_init(environ, program_invocation_name);
}

/* What only a process that starts a thread needs: who defines malloc,
 * the real functions, the decision.  Kept out of the constructor, which
 * every program on a host with the library in /etc/ld.so.preload runs:
 * these cost eight times what loading any library costs. */
static atomic_bool decided;
static pthread_once_t decide_once = PTHREAD_ONCE_INIT;

static void decide_process(void)
{
    int saved = errno;
    startup.foreign_malloc = foreign_malloc();
    (void)afx_real();
    char why[8];
    struct afx_decision d = afx_decide(&startup, why, sizeof why);
    atomic_store(&touch, d.touch);
    int armed = ARMED;
    if (!d.set_arena_max)
        atomic_compare_exchange_strong(&arena_max_state, &armed, STOOD_DOWN);
    atomic_store_explicit(&decided, true, memory_order_release);
    errno = saved;
}

static void decide_late(void)
{
    if (!atomic_load_explicit(&decided, memory_order_acquire))
        once(&decide_once, decide_process);
}

/* Threads alive: from /proc; where it cannot be read now, the last
 * count plus every creation since; where it never could, counted by
 * arenafix from here on (MAY_BEGIN: not from a signal handler's reach).
 * -1 if unknown. */
static long live_threads(bool may_begin)
{
    long created = atomic_load(&creations);
    long n = afx_thread_count();
    if (n >= 0) {
        atomic_store(&creations_then, created);
        atomic_store(&last_alive, n);
        return n;
    }
    long counted = afx_live_threads();
    if (counted >= 0)
        return counted;
    long last = atomic_load(&last_alive);
    if (last >= 0)
        return last + created - atomic_load(&creations_then);
    return may_begin && afx_live_begin() ? afx_live_threads() : -1;
}

/* CPUs in the widest mask known: the one recorded before the first
 * narrowing, the main thread's, this thread's.  For a process that has
 * never been able to read the online count: the fixed glibc would count
 * the calling thread's mask there, and a pinned thread is what the bug
 * is about. */
static long widest_mask(void)
{
    const cpu_set_t *wide;
    size_t size;
    long n = afx_thread_cpus();
    if (afx_mask_wide(&wide, &size) && CPU_COUNT_S(size, wide) > n)
        n = CPU_COUNT_S(size, wide);
    unsigned char main_mask[AFX_MASK_BYTES];
    int saved = errno;
    /* The main thread's id is the process id. */
    if (sched_getaffinity(getpid(), sizeof main_mask, (cpu_set_t *)main_mask) == 0
        && CPU_COUNT_S(sizeof main_mask, (cpu_set_t *)main_mask) > n)
        n = CPU_COUNT_S(sizeof main_mask, (cpu_set_t *)main_mask);
    errno = saved;
    return n;
}

/* The facts now.  Arenas are counted only where that may allocate. */
static struct afx_facts facts_now(bool may_count)
{
    struct afx_facts f = startup;
    f.program_arena_max = atomic_load(&program_arena_max);
    f.program_arena_test = atomic_load(&program_arena_test);
    f.online = afx_online_cpus(&f.online_source);
    if (f.online < 0) {
        f.online = widest_mask();
        f.online_source = "the widest affinity known (no CPU count could be read)";
    }
    f.thread_cpus = afx_thread_cpus();
    const cpu_set_t *set;
    size_t size;
    f.narrowing_seen = afx_mask_wide(&set, &size);
    /* Arenas exist beyond the main one only once threads do: a
     * single-threaded process pays nothing for counting them. */
    if (may_count && f.foreign_malloc == NULL && live_threads(true) > 1)
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

/* Set M_ARENA_MAX, or stand down, from the facts F; arena_max_state is
 * SETTING. */
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
    /* Threads being created by others at this moment count too: each
     * creator counts itself in in_flight before it reads /proc, so of
     * creators that race, the last to read counts them all. */
    long alive = live_threads(true);
    return alive < 0 || alive + atomic_load(&in_flight) >= test;
}

/* Explain (if no one has) and set M_ARENA_MAX, from one look at the
 * process, so the line and the act agree.  Run once per process. */
static void set_now(void)
{
    struct afx_facts f = facts_now(true);
    bool explaining = first_to_explain();
    if (explaining)
        explain(&f);
    if (atomic_load(&arena_max_state) == SETTING)
        set_arena_max(&f, explaining);
}

/* Set M_ARENA_MAX if DUE, or wait while another thread sets it: no
 * creator may start a thread that could reach glibc's latch before the
 * limit is in force.  Explain the decision if no one has. */
static void decide_now(bool due)
{
    int state = atomic_load(&arena_max_state);
    if ((due && state == ARMED
         && atomic_compare_exchange_strong(&arena_max_state, &state, SETTING))
        || state == SETTING) {
        /* Runs set_now, or waits for the thread that runs it. */
        pthread_once(&set_once, set_now);
        return;
    }
    if (!first_to_explain())
        return;
    struct afx_facts f = facts_now(true);
    explain(&f);
}

void afx_before_create(void)
{
    init_late();
    decide_late();
    atomic_fetch_add(&in_flight, 1);
    int state = atomic_load(&arena_max_state);
    bool due = state == ARMED && due_now();
    if (due || state == SETTING || !atomic_load(&explained))
        decide_now(due);
}

void afx_after_create(void)
{
    atomic_fetch_sub(&in_flight, 1);
}

void afx_before_narrowing(void)
{
    /* Only a verbose process needs the line here, and where arenas
     * cannot be counted, a process with threads may already be past
     * glibc's latch: leave the line to a pthread_create then. */
    if (!is_initialised() || !startup.cfg.verbose || atomic_load(&explained)
        || live_threads(false) > 1 || !first_to_explain())
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
    /* Asked to act now, or to say what it decided: decide now. */
    if (startup.cfg.eager || startup.cfg.verbose)
        decide_late();
    /* Loaded by dlopen into a process whose threads already run, the
     * interposers may never be called (libc's functions come first in the
     * search order): decide now, so verbose mode says it is too late. */
    if (startup.cfg.eager || (startup.cfg.verbose && afx_thread_count() > 1))
        decide_now(startup.cfg.eager);
    afx_leave();
}
