#include "livecount.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/* A thread-specific value's destructor runs however a thread ends
 * (return, pthread_exit, thrd_exit, cancellation): that is the end. */
static pthread_key_t key;
static bool have_key;
/* glibc's pthread_once starts again in a child forked while it ran. */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_bool counting;
/* Counted threads created and not ended.  Errors only ever add: a
 * thread counted too long makes arenafix set its limit early, which is
 * safe; one not counted could let glibc fix its limit first. */
static atomic_long live;

struct counted {
    void *(*routine)(void *);
    int (*routine_c11)(void *);
    void *arg;
};

static void ended(void *value)
{
    (void)value;
    atomic_fetch_sub(&live, 1);
}

static void make_key(void)
{
    have_key = pthread_key_create(&key, ended) == 0;
}

bool afx_live_begin(void)
{
    pthread_once(&once, make_key);
    if (have_key)
        atomic_store(&counting, true);
    return have_key;
}

long afx_live_threads(void)
{
    return atomic_load(&counting) ? 1 + atomic_load(&live) : -1;
}

/* Copy the block out, free it, mark the thread so its end is counted. */
static struct counted started(void *p)
{
    struct counted c = *(struct counted *)p;
    free(p);
    /* If it fails the thread stays counted: early, never late. */
    (void)pthread_setspecific(key, &key);
    return c;
}

static void *trampoline(void *p)
{
    struct counted c = started(p);
    return c.routine(c.arg);
}

static int trampoline_c11(void *p)
{
    struct counted c = started(p);
    return c.routine_c11(c.arg);
}

static bool wrap(struct counted c, void **arg)
{
    if (!atomic_load(&counting))
        return false;
    atomic_fetch_add(&live, 1);
    struct counted *block = malloc(sizeof *block);
    if (block == NULL)
        return false;   /* counted for good: early, never late */
    *block = c;
    *arg = block;
    return true;
}

bool afx_live_wrap(void *(**routine)(void *), void **arg)
{
    if (!wrap((struct counted){ .routine = *routine, .arg = *arg }, arg))
        return false;
    *routine = trampoline;
    return true;
}

bool afx_live_wrap_c11(int (**routine)(void *), void **arg)
{
    if (!wrap((struct counted){ .routine_c11 = *routine, .arg = *arg }, arg))
        return false;
    *routine = trampoline_c11;
    return true;
}

void afx_live_unwrap(void *arg)
{
    free(arg);
    atomic_fetch_sub(&live, 1);
}
