#include "activate.h"

#include <dlfcn.h>
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
#include <sys/syscall.h>
#include <unistd.h>

#include "arenacount.h"
#include "config.h"
#include "elfsym.h"
#include "libc.h"
#include "livecount.h"
#include "log.h"
#include "mask.h"
#include "policy.h"
#include "real.h"
#include "sysread.h"
#include "marks.h"
#include "touch.h"
#include "usersettings.h"


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
/* afx_init's arguments, for whichever thread runs it: the first
 * caller's (the constructor's, or a thread's started before it, which
 * passes the same environment as found then). */
static _Atomic(char **) init_envp;
static _Atomic(const char *) init_program;

static atomic_bool touch;
static atomic_bool explained;
/* ARENAFIX_MODE=off: every interposer only forwards, from the moment
 * the settings are read; nothing is read, recorded or wrapped. */
static atomic_bool off;
/* Off because the libc is not an affected glibc (libc.h). */
static atomic_bool unserved;
/* Read once, at startup, while no program can have locked itself down
 * (a seccomp filter that kills on openat): the CPUs online and the
 * process's own.  Nothing is read from a file after that. */
static long online_at_start = -1;
static const char *online_source_at_start;
/* M_ARENA_MAX: armed (or not decided), being set, set, not to be set. */
enum { ARMED, SETTING, SET, STOOD_DOWN };
static atomic_int arena_max_state;
static pthread_once_t set_once = PTHREAD_ONCE_INIT;
static atomic_long arena_max_value;
static atomic_long arenas_when_set;
static atomic_long creations;
/* Creations begun and not returned.  A child forked meanwhile inherits
 * its parent's, and so sets M_ARENA_MAX early, never late. */
static atomic_long in_flight;
/* The program's own mallopt values (n > 0; glibc ignores the others),
 * and the highest arena_test in force so far: glibc may have fixed its
 * limit under it before the program lowered it. */
static atomic_int program_arena_max;
static atomic_int program_arena_test;
static atomic_long highest_arena_test;

/* Nothing is left to do at a creation: the limit settled (set, or not
 * to be set), the decision explained, touch off; or mode off.  Each
 * creation then goes to glibc's function at once, for the rest of the
 * process's life. */
static atomic_bool quiet;

/* Settle M_ARENA_MAX (set, or not to be set) from ARMED or SETTING:
 * nothing is counted after that. */
static void settle(int from, int to)
{
    if (atomic_compare_exchange_strong(&arena_max_state, &from, to))
        afx_live_end();
}

static bool is_initialised(void)
{
    return atomic_load_explicit(&initialised, memory_order_acquire);
}

static void read_config(char **envp, const char *program)
{
    const char *values[AFX_VAR_COUNT] = { 0 };
    /* Secure-execution processes get the defaults: an unprivileged
     * caller must not steer code running with privileges. */
    if (!startup.secure && envp != NULL) {
        /* The first of duplicates, as getenv reads them; every variable
         * but ours is passed over at its first byte. */
        for (char **e = envp; *e != NULL; e++)
            if (**e == 'A')
                for (int v = 0; v < AFX_VAR_COUNT; v++)
                    if (values[v] == NULL)
                        values[v] = afx_env_value(*e, afx_config_names[v]);
    }
    int bad = afx_config_parse(&startup.cfg, values);
    /* The name only a line needs, kept only where one may be written. */
    if (startup.cfg.verbose || bad >= 0)
        afx_log_setup(program, startup.cfg.log);
    if (bad >= 0)
        afx_log("ignoring %s=\"%.64s\": not a valid value, using the default",
                afx_config_names[bad], values[bad]);
}

/* The object that defines malloc, if it is not libc or one of glibc's
 * own wrappers (jemalloc, tcmalloc, mimalloc, a sanitizer): its arenas
 * are not glibc's to size; its name is written into NAME.  Decided
 * by the definition, not by dlsym, which returns an executable's
 * canonical PLT entry when the executable takes malloc's address.
 * Calls the loader (dlsym, dl_iterate_phdr): never under a once or a
 * wait of the library's (decide_late says why). */
static const char *foreign_malloc(char *name, size_t size)
{
    /* glibc's own debugging wrappers forward to its allocator: the
     * arenas stay glibc's. */
    static const char *const glibc_wrappers[] = { "libc_malloc_debug.so.0", "libmemusage.so" };
    const char *file;
    bool is_libc;
    /* A function of libc's that nothing else defines names libc (not
     * syscall: a program may define its own).  Looked up here, by the
     * first thread, not referenced: a reference costs every process a
     * symbol lookup at load. */
    const void *libc_fn = dlsym(RTLD_NEXT, "gnu_get_libc_version");
    if (libc_fn == NULL
        || !afx_first_definer("malloc", libc_fn, &file, &is_libc)
        || is_libc)
        return NULL;
    const char *base = strrchr(file, '/') != NULL ? strrchr(file, '/') + 1 : file;
    for (size_t i = 0; i < sizeof glibc_wrappers / sizeof glibc_wrappers[0]; i++)
        if (strcmp(base, glibc_wrappers[i]) == 0)
            return NULL;
    snprintf(name, size, "%s", file[0] != '\0' ? file : "the executable");
    return name;
}

static void init_process(void)
{
    /* The auxiliary vector is read only where a variable is to be
     * judged by it: a call bound lazily costs most processes, which set
     * none, more than the rest of the constructor. */
    char **found = atomic_load(&init_envp);
    char **envp = afx_env_has_settings(found) ? found : NULL;
    int saved = errno;
    startup.secure = envp != NULL && getauxval(AT_SECURE) != 0;
    read_config(envp, atomic_load(&init_program));
    /* Only where a setting was found is glibc asked its version here:
     * a lazily bound call costs every process; a glibc 2.32 or 2.33
     * without settings is found out at its first thread (afx_off). */
    if (envp != NULL && !afx_libc_served()) {
        atomic_store(&unserved, true);
        startup.cfg.mode = AFX_MODE_OFF;
    }
    /* A touched thread is marked with a key of glibc's: with none left
     * (the program holds all 1,024) a narrowing would malloc each time,
     * from a signal handler too.  Touch is left out then. */
    bool touching = startup.cfg.mode == AFX_MODE_TOUCH || startup.cfg.mode == AFX_MODE_BOTH;
    if (touching && !afx_touch_prepare()) {
        startup.cfg.mode = startup.cfg.mode == AFX_MODE_BOTH ? AFX_MODE_MALLOPT : AFX_MODE_OFF;
        if (startup.cfg.verbose)
            afx_log("no pthread key left for touch mode's mark (the program holds every one): "
                    "%s", startup.cfg.mode == AFX_MODE_OFF ? "mode off, nothing changed"
                                                           : "mode mallopt");
    }
    if (startup.cfg.mode == AFX_MODE_OFF) {
        atomic_store(&off, true);
        atomic_store(&quiet, true);
        atomic_store_explicit(&initialised, true, memory_order_release);
        errno = saved;
        return;
    }
    afx_user_scan(envp, startup.secure, &startup.user);
    startup.arenas = -1;
    startup.thread_cpus = -1;
    atomic_store(&highest_arena_test, afx_arena_test(&startup));
    online_at_start = afx_online_cpus(&online_source_at_start);
    /* Threads are counted by arenafix as it creates them (no /proc
     * read at a creation); those that run already (a library loaded
     * by dlopen) are counted once, here, for good: early, never late. */
    long before = afx_single_threaded() ? 1 : afx_thread_count();
    afx_live_begin(before > 1 ? before - 1 : 0);
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
    if (afx_single_threaded())
        routine();
    else
        pthread_once(control, routine);
}

/* On a libc where the library surely stands down (musl, glibc before
 * 2.32), which may have no pthread_once to call: the settings are read
 * by the first caller, for the line that says so, and every caller
 * finds the library off. */
static void init_unserved(const char *program)
{
    static atomic_bool claimed;
    atomic_store(&unserved, true);
    atomic_store(&off, true);
    atomic_store(&quiet, true);
    if (!atomic_exchange(&claimed, true)) {
        /* musl passes a constructor no arguments: the settings are
         * read with getenv, and there the line names the process by
         * its pid alone. */
        const char *values[AFX_VAR_COUNT] = { 0 };
        startup.secure = getauxval(AT_SECURE) != 0;
        for (int v = 0; v < AFX_VAR_COUNT && !startup.secure; v++)
            values[v] = getenv(afx_config_names[v]);
        afx_config_parse(&startup.cfg, values);
        if (startup.cfg.verbose)
            afx_log_setup(program, startup.cfg.log);
        startup.cfg.mode = AFX_MODE_OFF;
    }
    atomic_store_explicit(&initialised, true, memory_order_release);
}

void afx_init(char **envp, const char *program)
{
    if (is_initialised())
        return;
    int saved = errno;
    if (!afx_libc_maybe_served()) {
        init_unserved(program);
        errno = saved;
        return;
    }
    char **no_envp = NULL;
    const char *no_program = NULL;
    atomic_compare_exchange_strong(&init_envp, &no_envp, envp);
    atomic_compare_exchange_strong(&init_program, &no_program, program);
    once(&init_once, init_process);
}

/* Reached before the constructor (another library's constructor
 * started a thread first).  The environment and the name are looked up
 * here, not referenced: a reference is a symbol lookup at load in every
 * process, and this path is rare. */
static void init_late(void)
{
    if (is_initialised())
        return;
    if (!afx_libc_served()) {
        /* No dlsym to call (glibc's before 2.34 is libdl's). */
        afx_init(NULL, NULL);
        return;
    }
    char ***env = dlsym(RTLD_DEFAULT, "environ");
    char **name = dlsym(RTLD_DEFAULT, "program_invocation_name");
    afx_init(env != NULL ? *env : NULL, name != NULL ? *name : NULL);
}

bool afx_off(void)
{
    init_late();
    if (atomic_load_explicit(&off, memory_order_relaxed))
        return true;
    /* glibc 2.32 or 2.33, found out at the first call that would act. */
    if (!afx_libc_served()) {
        atomic_store(&unserved, true);
        atomic_store(&off, true);
        atomic_store(&quiet, true);
        return true;
    }
    return false;
}

bool afx_off_if_known(void)
{
    return is_initialised() && atomic_load_explicit(&off, memory_order_relaxed);
}

/* What only a process that starts a thread needs: who defines malloc,
 * the real functions, the decision.  Kept out of the constructor, which
 * every program on a host with the library in /etc/ld.so.preload runs:
 * these cost eight times what loading any library costs. */
static atomic_bool decided;
static pthread_once_t decide_once = PTHREAD_ONCE_INIT;

/* What the threads that found the process undecided found before its
 * once: each finds the same, the first to find a malloc not glibc's
 * writes its name, and every one says so before it comes to the once. */
static atomic_bool foreign_claimed, foreign_found, foreign_named;

static void decide_process(void)
{
    int saved = errno;
    /* The name, once its writer is done (it may be gone with a fork). */
    if (atomic_load(&foreign_found))
        startup.foreign_malloc = atomic_load_explicit(&foreign_named, memory_order_acquire)
                                     ? foreign_name
                                     : "a library other than glibc";
    char why[8];
    struct afx_decision d = afx_decide(&startup, why, sizeof why);
    atomic_store(&touch, d.touch);
    if (!d.set_arena_max)
        settle(ARMED, STOOD_DOWN);
    atomic_store_explicit(&decided, true, memory_order_release);
    errno = saved;
}

/* The loader's calls (binding, who defines malloc) come before the
 * once, in every thread that finds the process undecided, never under
 * it: a thread in a constructor that dlopen runs holds the loader's lock
 * and may come to the once; had the once's holder waited for that lock
 * inside it, neither would ever go on.  Each finds the same, and the
 * one that runs the once keeps what it found. */
static void decide_late(void)
{
    if (atomic_load_explicit(&decided, memory_order_acquire))
        return;
    int saved = errno;
    (void)afx_real();
    char name[sizeof foreign_name];
    const char *foreign = foreign_malloc(name, sizeof name);
    if (foreign != NULL) {
        if (!atomic_exchange(&foreign_claimed, true)) {
            snprintf(foreign_name, sizeof foreign_name, "%s", foreign);
            atomic_store_explicit(&foreign_named, true, memory_order_release);
        }
        atomic_store(&foreign_found, true);
    }
    errno = saved;
    once(&decide_once, decide_process);
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
    if (afx_mask_wide(&wide, &size) && afx_mask_count(wide, size) > n)
        n = afx_mask_count(wide, size);
    unsigned char main_mask[AFX_MASK_BYTES];
    int saved = errno;
    /* The main thread's id is the process id.  The kernel writes what
     * it returns, and that is all that is counted. */
    long got = afx_syscall(SYS_sched_getaffinity, getpid(), sizeof main_mask, main_mask);
    if (got > 0 && afx_mask_count(main_mask, (size_t)got) > n)
        n = afx_mask_count(main_mask, (size_t)got);
    errno = saved;
    return n;
}

/* The facts now.  Arenas are counted only where that may allocate. */
static struct afx_facts facts_now(bool may_count)
{
    struct afx_facts f = startup;
    f.program_arena_max = atomic_load(&program_arena_max);
    f.program_arena_test = atomic_load(&program_arena_test);
    f.highest_arena_test = atomic_load(&highest_arena_test);
    /* The count read at startup, and no file read now; a CPU brought
     * online since shows in the mask of a thread that was never
     * narrowed (the kernel reports a mask within the active CPUs). */
    f.online = online_at_start;
    f.online_source = online_source_at_start;
    long widest = widest_mask();
    if (f.online < 0) {
        f.online = widest;
        f.online_source = "the widest affinity known (no CPU count could be read)";
    } else if (widest > f.online) {
        f.online = widest;
        f.online_source = "the widest affinity known (CPUs brought online since startup)";
    }
    f.thread_cpus = afx_thread_cpus();
    const cpu_set_t *set;
    size_t size;
    f.narrowing_seen = afx_mask_wide(&set, &size);
    /* Arenas exist beyond the main one only once threads do: a
     * single-threaded process pays nothing for counting them. */
    if (may_count && f.foreign_malloc == NULL)
        f.arenas = afx_single_threaded() ? 1 : afx_count_arenas();
    return f;
}

/* Say what was decided, once per process, from the facts F. */
static void explain(const struct afx_facts *f)
{
    char why[400];
    struct afx_decision d = afx_decide(f, why, sizeof why);
    if (!d.set_arena_max && !d.touch) {
        atomic_store(&touch, false);
        settle(ARMED, STOOD_DOWN);
    }
    if (!f->cfg.verbose)
        return;
    int state = atomic_load(&arena_max_state);
    afx_log("glibc %s, %ld CPUs online, this thread sees %ld: %s%s", gnu_get_libc_version(),
            f->online, f->thread_cpus, why,
            !d.set_arena_max || state == SET || state == SETTING
                ? ""
                : "; set when the process nears arena_test threads, before glibc fixes its "
                  "limit, or at a SIGEV_THREAD timer, getaddrinfo_a or POSIX AIO call from a "
                  "narrowed thread (threads started out of arenafix's sight are counted by their "
                  "arenas, at the next pthread_create: ARENAFIX_EAGER=1 sets it at startup)");
}

static bool first_to_explain(void)
{
    return !atomic_load(&explained) && !atomic_exchange(&explained, true);
}

/* The program's own choices, as they stand now. */
static void program_choices(struct afx_facts *f)
{
    f->program_arena_max = atomic_load(&program_arena_max);
    f->program_arena_test = atomic_load(&program_arena_test);
    f->highest_arena_test = atomic_load(&highest_arena_test);
}

static bool same_choices(const struct afx_facts *a, const struct afx_facts *b)
{
    return a->program_arena_max == b->program_arena_max
           && a->program_arena_test == b->program_arena_test
           && a->highest_arena_test == b->highest_arena_test;
}

/* The program's own M_ARENA_MAX in force again, after a call of
 * arenafix's may have gone over it: its latest value, read after each
 * call until it holds (four times at most, for a program that keeps
 * choosing meanwhile). */
static void put_back_program_max(const struct afx_real *real)
{
    int program = atomic_load(&program_arena_max);
    for (int round = 0; program > 0 && round < 4; round++) {
        real->mallopt.fn(M_ARENA_MAX, program);
        int now = atomic_load(&program_arena_max);
        if (now == program)
            return;
        program = now;
    }
}

/* Set M_ARENA_MAX, or stand down, from the facts F; arena_max_state is
 * SETTING.  The program may call mallopt from another thread at any
 * moment, and glibc keeps the last value: the program's choices are
 * read again right before the real call and once more after it, and a
 * choice that came meanwhile is decided on again (the program's
 * M_ARENA_MAX put back where arenafix's went over it), so that the
 * program's value stands wherever it would on the fixed glibc.  No lock:
 * mallopt is called from signal handlers and forked children too. */
static void set_arena_max(const struct afx_facts *f, bool explained_now)
{
    char why[400];
    struct afx_facts now = *f;
    program_choices(&now);
    const struct afx_real *real = afx_real();
    bool overwrote = false;
    struct afx_decision d;
    for (int round = 0;; round++) {
        d = afx_decide(&now, why, sizeof why);
        if (!d.set_arena_max || real == NULL || real->mallopt.fn == NULL)
            break;
        real->mallopt.fn(M_ARENA_MAX, (int)d.arena_max);
        overwrote = true;
        struct afx_facts after = now;
        program_choices(&after);
        /* A program that keeps changing its mind while arenafix sets
         * its value has its last one taken the fourth time. */
        if (same_choices(&now, &after) || (round >= 3 && after.program_arena_max == 0)) {
            atomic_store(&arena_max_value, d.arena_max);
            /* The count the program's later mallopt is compared with. */
            long arenas = f->arenas >= 0 ? f->arenas : afx_count_arenas();
            atomic_store(&arenas_when_set, arenas > 0 ? arenas : 1);
            settle(SETTING, SET);
            if (f->cfg.verbose && round > 0)
                afx_log("%s", why);
            return;
        }
        now = after;
    }
    /* Where arenafix's value went over the program's, the program's is
     * put back, its latest: read again after each call, as a later
     * choice may have come between the read and glibc's lock. */
    if (overwrote && real != NULL && real->mallopt.fn != NULL)
        put_back_program_max(real);
    settle(SETTING, STOOD_DOWN);
    atomic_store(&touch, d.touch);
    /* A change since the line that said it would be set. */
    if (f->cfg.verbose && (!explained_now || !same_choices(f, &now)))
        afx_log("%s", why);
}

/* Whether M_ARENA_MAX is due now, CREATING threads being started.
 * glibc fixes its limit when a thread needs a new arena while more than
 * arena_test exist, so at least arena_test + 2 threads run then.  Set
 * it a thread earlier, counting the threads that run now: those
 * arenafix created, and, for those it did not see start (a library's
 * own, glibc's helpers), the arenas they made, counted in memory
 * (malloc_info), never from a file.  Threads that
 * came and went hold no arena, so they do not count; but after 8 x
 * arena_test creations it is set anyway, which bounds what a program
 * that keeps starting short-lived threads pays for the count (a
 * malloc_info: some 20,000 instructions with nine arenas).  A creator
 * narrower than the CPUs online sets it at once: early, never late. */
static bool due_now(long creating)
{
    struct afx_facts f = startup;
    f.program_arena_test = atomic_load(&program_arena_test);
    long test = afx_arena_test(&f);
    long created = atomic_fetch_add(&creations, creating) + creating;
    /* An explicit ARENAFIX_ARENA_MAX is the user's limit, like
     * MALLOC_ARENA_MAX: in force from the first thread on. */
    if (startup.cfg.arena_max > 0 || created >= 8 * test)
        return true;
    /* Due once the threads (arenafix's count: the main one, those it
     * created that still run, those that ran before it), or the arenas,
     * pass arena_test: a thread before glibc's latch.  Threads being
     * created by others at this moment count too: each creator counts
     * itself in in_flight before it counts, so of creators that race,
     * the last to count counts them all. */
    long due_past = test;
    long alive = afx_live_threads();
    long flight = atomic_load(&in_flight);
    if (alive < 0 || alive + flight > due_past)
        return true;
    /* The count mallocs in this thread: on a narrowed mask, that malloc
     * could be the one that fixes glibc's limit, unless the thread holds
     * an arena already (the main one's, the constructor's, a touched
     * one). */
    if (afx_thread_cpus() < online_at_start && afx_touch_pending())
        return true;
    long arenas = afx_single_threaded() ? 1 : afx_count_arenas();
    return arenas < 0 || arenas + flight > due_past;
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
    bool due = state == ARMED && due_now(1);
    if (due || state == SETTING || !atomic_load(&explained))
        decide_now(due);
    state = atomic_load(&arena_max_state);
    if ((state == SET || state == STOOD_DOWN) && atomic_load(&explained)
        && !atomic_load(&touch))
        atomic_store_explicit(&quiet, true, memory_order_release);
}

bool afx_creation_quiet(void)
{
    return atomic_load_explicit(&quiet, memory_order_acquire);
}

void afx_before_helpers(void)
{
    if (afx_off())
        return;
    decide_late();
    /* glibc's threads inherit this thread's mask: narrower than the CPUs
     * online, the first of them to need the ninth arena would fix the
     * limit from it, and none is seen starting.  Wide, their arenas are
     * counted at the next creation, as those of any thread not seen. */
    long cpus = afx_thread_cpus();
    bool narrow = cpus > 0 && online_at_start > 0 && cpus < online_at_start;
    int state = atomic_load(&arena_max_state);
    if ((narrow && state == ARMED) || state == SETTING || !atomic_load(&explained))
        decide_now(narrow && state == ARMED);
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
        || !afx_single_threaded() || !first_to_explain())
        return;
    struct afx_facts f = facts_now(false);
    explain(&f);
}

bool afx_touch_enabled(void)
{
    return atomic_load_explicit(&touch, memory_order_relaxed);
}

/* Before the settings are read (another library's constructor narrows
 * a thread before arenafix's runs): whether the mode may be touch, from
 * ARENAFIX_MODE as getenv finds it, which neither locks nor allocates.
 * Off and mallopt, the default, then change no thread's mask: a touch
 * is made only where the mode asks for one (the settings read later
 * decide the rest).  A secure-execution process gets the default. */
static bool touch_named(void)
{
    const char *values[AFX_VAR_COUNT] = { 0 };
    values[AFX_VAR_MODE] = getenv(afx_config_names[AFX_VAR_MODE]);
    if (values[AFX_VAR_MODE] == NULL || getauxval(AT_SECURE) != 0)
        return false;
    struct afx_config cfg;
    afx_config_parse(&cfg, values);
    return cfg.mode == AFX_MODE_TOUCH || cfg.mode == AFX_MODE_BOTH;
}

bool afx_touch_possible(void)
{
    /* getenv and getauxval are bound lazily: a first call saves every
     * register on the stack, more than a handler on a small alternate
     * stack may have left, and the touch is never made there anyway
     * (touch.c). */
    if (!is_initialised())
        return !afx_on_alternate_stack() && afx_libc_served() && touch_named();
    return afx_touch_enabled();
}

/* Set from the constructor, before main: why, for the lines that say a
 * program's later choice came too late (arenafix's own setting, not
 * glibc, fixed the limit then). */
static atomic_bool set_before_main;

static const char *set_before_main_why(void)
{
    return atomic_load(&set_before_main) ? " before main (ARENAFIX_EAGER=1)" : "";
}

void afx_note_program_mallopt(int param, int value)
{
    /* mallopt ignores these values: no choice was made. */
    if (value <= 0 || (param != M_ARENA_MAX && param != M_ARENA_TEST))
        return;
    if (param == M_ARENA_TEST) {
        atomic_store(&program_arena_test, value);
        long highest = atomic_load(&highest_arena_test);
        while (value > highest
               && !atomic_compare_exchange_weak(&highest_arena_test, &highest, value))
            ;
        return;
    }
    /* Stored whatever arenafix did: a later arena_test of the program's
     * must not bring arenafix's own limit back over it. */
    atomic_store(&program_arena_max, value);
    if (atomic_load(&arena_max_state) != SET) {
        if (atomic_load(&explained) && startup.cfg.verbose
            && atomic_load(&arena_max_state) == ARMED)
            afx_log("standing down: the program called mallopt(M_ARENA_MAX, %d)", value);
        return;
    }
    if (!startup.cfg.verbose)
        return;
    /* glibc fixes its limit at the first arena created after
     * M_ARENA_MAX is set: if none was, the program's value applies.  The
     * count mallocs in this thread, before the program's call: in a
     * thread that holds no arena yet, that malloc would make one, and
     * fix arenafix's value as glibc's limit.  It is counted only where
     * the thread holds one (the main thread, the constructor's). */
    if (afx_touch_pending()) {
        afx_log("the program called mallopt(M_ARENA_MAX, %d) after arenafix set M_ARENA_MAX to "
                "%ld%s: the program's value applies unless a thread has needed a new arena since "
                "(then set MALLOC_ARENA_MAX=%d, which arenafix leaves alone)",
                value, atomic_load(&arena_max_value), set_before_main_why(), value);
        return;
    }
    long now = afx_count_arenas(), then = atomic_load(&arenas_when_set);
    if (now >= 0 && now <= then)
        afx_log("the program called mallopt(M_ARENA_MAX, %d) after arenafix set %ld, before "
                "glibc fixed its limit: the program's value applies",
                value, atomic_load(&arena_max_value));
    else
        afx_log("the program called mallopt(M_ARENA_MAX, %d) too late: arenafix had set "
                "M_ARENA_MAX to %ld%s, and glibc made arenafix's value its limit at the first "
                "arena after that (%ld arenas now); the program's value does not apply (set "
                "MALLOC_ARENA_MAX=%d, which arenafix leaves alone, or ARENAFIX_MODE=touch)",
                value, atomic_load(&arena_max_value), set_before_main_why(), now, value);
}

/* After the program's own mallopt(M_ARENA_TEST, VALUE) (afx_enter()
 * held).  glibc reads arena_test only while M_ARENA_MAX is unset, so
 * the program's value takes effect here: lowered below the threads that
 * run, the limit is due now, not at the next creation; with the limit
 * set already and not yet fixed by glibc, it becomes the one the fixed
 * glibc would fix under the program's arena_test. */
void afx_after_program_mallopt(int param, int value)
{
    if (param != M_ARENA_TEST || value <= 0 || afx_off() || atomic_load(&program_arena_max) > 0)
        return;
    decide_late();
    int state = atomic_load(&arena_max_state);
    if (state == ARMED) {
        if (due_now(0))
            decide_now(true);
        return;
    }
    if (state != SET)
        return;
    /* Decided without a count of the arenas: the count mallocs in this
     * thread, which, holding no arena yet, would make one and fix
     * arenafix's present value as glibc's limit.  A new value set after
     * glibc fixed its limit changes nothing, so it is set regardless. */
    struct afx_facts f = facts_now(!afx_touch_pending());
    char why[400];
    struct afx_decision d = afx_decide(&f, why, sizeof why);
    long was = atomic_load(&arena_max_value), then = atomic_load(&arenas_when_set);
    const struct afx_real *real = afx_real();
    if (!d.set_arena_max || d.arena_max == was || real == NULL || real->mallopt.fn == NULL)
        return;
    /* glibc fixes its limit at the first arena created after
     * M_ARENA_MAX is set: if none was, a new value still applies. */
    if (f.arenas <= then) {
        real->mallopt.fn(M_ARENA_MAX, (int)d.arena_max);
        atomic_store(&arena_max_value, d.arena_max);
        /* A program's M_ARENA_MAX from another thread meanwhile stands. */
        put_back_program_max(real);
        if (startup.cfg.verbose)
            afx_log("the program called mallopt(M_ARENA_TEST, %d): %s%s", value, why,
                    f.arenas < 0 ? " (in force unless a thread has needed a new arena since "
                                   "arenafix set its limit)"
                                 : "");
    } else if (startup.cfg.verbose) {
        afx_log("the program called mallopt(M_ARENA_TEST, %d) too late: arenafix had set "
                "M_ARENA_MAX to %ld%s, and glibc made arenafix's value its limit at the first "
                "arena after that (%ld arenas now); the program's value does not apply (set "
                "MALLOC_ARENA_TEST=%d, or ARENAFIX_MODE=touch)",
                value, was, set_before_main_why(), f.arenas, value);
    }
}

/* The process the constructor ran in, where verbose: a forked child's
 * exit says nothing of its own. */
static pid_t verbose_pid;

/* Verbose, a program that never reached a decision (no thread made
 * through pthread_create or thrd_create, no affinity call) would exit
 * without a word: say so at its exit, in the process arenafix started in. */
__attribute__((destructor)) static void afx_dtor(void)
{
    if (!startup.cfg.verbose || atomic_load(&off) || verbose_pid == 0 || getpid() != verbose_pid
        || !first_to_explain())
        return;
    int saved = errno;
    afx_log("glibc %s, %ld CPUs online: no pthread_create or thrd_create was seen, so glibc's "
            "arena limit never came into play: nothing was changed",
            gnu_get_libc_version(), online_at_start);
    errno = saved;
}

/* Bind and read the settings before main, while the process is single
 * threaded; glibc passes the initial environment to constructors. */
__attribute__((constructor)) static void afx_ctor(int argc, char **argv, char **envp)
{
    (void)argc;
    if (!afx_enter())
        return;
    /* musl passes a constructor no arguments (registers left as found). */
    if (!afx_libc_maybe_served()) {
        argv = NULL;
        envp = NULL;
    }
    afx_init(envp, argv != NULL ? argv[0] : NULL);
    afx_touch_constructor_thread();
    if (startup.cfg.verbose)
        verbose_pid = getpid();
    if (atomic_load(&off)) {
        if (startup.cfg.verbose && atomic_load(&unserved))
            afx_log("%s: not affected (glibc's bug 30945 is in 2.34 to 2.38): standing down, "
                    "nothing changed, nothing read", afx_libc_name());
        else if (startup.cfg.verbose)
            afx_log("glibc %s: mode off: nothing changed, nothing read", gnu_get_libc_version());
        afx_leave();
        return;
    }
    /* A process that starts on fewer CPUs than are online (taskset, a
     * cpuset, CPUAffinity=, isolcpus) keeps glibc's window as on the
     * fixed glibc: its threads are seen starting, and the calls behind
     * which glibc starts its own set the limit first (helpers.c). */
    bool now = startup.cfg.eager;
    /* Asked to act now, or to say what it decided: decide now. */
    if (now || startup.cfg.verbose)
        decide_late();
    /* Loaded by dlopen into a process whose threads already run, the
     * interposers may never be called (libc's functions come first in the
     * search order): decide now, so verbose mode says it is too late. */
    if (now || (startup.cfg.verbose && !afx_single_threaded()))
        decide_now(now);
    if (now && atomic_load(&arena_max_state) == SET)
        atomic_store(&set_before_main, true);
    afx_leave();
}
