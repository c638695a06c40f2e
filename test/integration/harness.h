/* Runs the test programs in child processes, with or without the real
 * preload, under the system glibc or an affected one. */
#ifndef AFX_TEST_HARNESS_H
#define AFX_TEST_HARNESS_H

#include <check.h>
#include <stdbool.h>

#include "arenarule.h"
#include "ckbound.h"
#include "ckselect.h"

struct child {
    int status;             /* exit status, or 128 + signal */
    char out[16384];
    char err[16384];
};

struct glibc {
    const char *name;       /* "system", or what names an affected one */
    const char *dir;        /* NULL: the system glibc */
    bool affected;          /* shows the bug (proved, not assumed) */
};

/* Filled by main(): the system glibc first, then every affected glibc
 * at hand (ARENAFIX_AFFECTED_GLIBC, a colon-separated list of
 * directories, and Debian's libc6-amd64-cross when installed), each
 * proved affected before it is used. */
enum { AFX_MAX_GLIBCS = 16 };
extern const char *afx_testlib;     /* ARENAFIX_TESTLIB */
extern const char *afx_bin;         /* directory of the test programs */
extern struct glibc afx_glibcs[AFX_MAX_GLIBCS];
extern int afx_nglibcs;
extern long afx_online;             /* CPUs online, read independently */

/* The glibcs a proof runs on: every affected one, or the system glibc
 * alone when none is at hand (there a wrong decision shows less). */
int afx_nproving(void);
const struct glibc *afx_proving(int i);

/* glibc's arenas per CPU (NARENAS_FROM_NCORES), and so its default
 * arena_test: 8 on 64-bit, 2 on 32-bit (common/arenarule.h). */
enum { AFX_PER_CPU = (int)AFX_ARENAS_PER_CPU };

/* Threads the arena tests start; the count the bug gives them (a thread
 * pinned to one CPU fixes the limit at AFX_PER_CPU when arena_test + 1
 * arenas exist already); and the count a fixed glibc gives them. */
enum { AFX_THREADS = 30, AFX_BUG_ARENAS = AFX_PER_CPU + 1 };
long afx_fixed_arenas(int threads);

/* The dynamic loader's name in an affected glibc's directory. */
#include "loader.h"

/* Seconds a child may run before it is killed and counted as hung. */
enum { AFX_RUN_LIMIT_S = 60 };
/* The limit afx_run applies: AFX_RUN_LIMIT_S, unless a test that runs
 * many thousand tries in one child raises it for its own runs. */
extern int afx_run_limit_s;

/* Run bin/PROG ARGS (NULL-terminated) under glibc g with a clean
 * environment plus env (NULL-terminated "NAME=value"); preload names
 * what goes in LD_PRELOAD (NULL: nothing). */
void afx_run(struct child *c, const struct glibc *g, const char *preload,
             const char *const *env, const char *prog, const char *const *args);

/* "arenas=N" from a pinned run, failing the test if absent. */
int afx_arenas(const struct child *c);

/* Lines on stderr that start with "arenafix:". */
int afx_log_lines(const struct child *c);

/* Why C's program could not run under its glibc for want of a library
 * outside glibc that works there (this system's libstdc++ or libgcc_s,
 * built against a later glibc than an old release under test), or NULL
 * when that is not why. */
const char *afx_runtime_missing(const struct child *c);

/* strace's path, or NULL where it is not installed. */
const char *afx_strace(void);

/* Skips are printed where they happen and counted here. */
void afx_skip(const char *what, const char *why);
extern int afx_skipped;

/* afx_emulated(): the test programs run under an emulator. */
#include "emulated.h"

/* How many runs, rounds or tries the environment's NAME asks for (the
 * fast tier's fewer), or fallback where it names no positive number. */
long afx_env_count(const char *name, long fallback);

Suite *arenas_suite(void);
Suite *standdown_suite(void);
Suite *semantics_suite(void);
Suite *cost_suite(void);
Suite *fidelity_suite(void);
Suite *flood_suite(void);
Suite *settings_suite(void);
Suite *touch_suite(void);
Suite *moments_suite(void);
Suite *sandbox_suite(void);
Suite *loader_suite(void);
Suite *libcs_suite(void);

#endif
