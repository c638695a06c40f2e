/* glibc's arena limit, as the fixed glibc (2.39, and the distributions'
 * backports of bug 30945's fix) applies it: the one statement of the
 * rule for the library's policy, the probe's verdict, the benchmark's
 * checks and the tests' expected counts.
 *
 * malloc/arena.c: main's arena and arena_test (NARENAS_FROM_NCORES (1))
 * more are made before any limit; the ninth thread's arena_get2 then
 * sets the limit to NARENAS_FROM_NCORES (CPUs), 8 per CPU on 64-bit and
 * 2 on 32-bit, from the online CPUs (the affected glibc: from the
 * calling thread's affinity).  A header: the library and every test
 * program have it without an object of their own to link. */
#ifndef AFX_ARENARULE_H
#define AFX_ARENARULE_H

/* NARENAS_FROM_NCORES (1), which is also arena_test's default. */
#define AFX_ARENAS_PER_CPU (sizeof(long) == 4 ? 2L : 8L)

/* How many arenas glibc allows once it takes its limit from `cpus`:
 * never fewer than main's and arena_test's, made before it looked. */
static inline long afx_arena_limit(long cpus)
{
    long limit = AFX_ARENAS_PER_CPU * cpus;
    return limit < AFX_ARENAS_PER_CPU + 1 ? AFX_ARENAS_PER_CPU + 1 : limit;
}

/* What the fixed glibc gives `threads` threads that each malloc while
 * all are alive, plus main's arena, with `online` CPUs online. */
static inline long afx_fixed_glibc_arenas(long threads, long online)
{
    long limit = afx_arena_limit(online);
    return threads + 1 < limit ? threads + 1 : limit;
}

#endif
