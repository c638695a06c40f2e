// Thread behaviours a program relies on, printed as a transcript that
// must be the same with and without the shim: cancellation, pthread_exit,
// C++ exceptions and forced unwinding, thread-local destructors, fork
// from a multi-threaded process, errno and error returns.  Every case runs
// with a plain attribute and with one that carries a CPU set (the path
// where the shim creates the thread, then pins it).
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdexcept>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

static pthread_attr_t attr;
static pthread_key_t key;
static int key_destroyed;
static int cleanups;
static int tl_destroyed;

struct Local {
    int armed = 0;
    ~Local()
    {
        if (armed)
            __atomic_add_fetch(&tl_destroyed, 1, __ATOMIC_SEQ_CST);
    }
};
static thread_local Local local;

static void key_dtor(void *v)
{
    if (v == &key)
        __atomic_add_fetch(&key_destroyed, 1, __ATOMIC_SEQ_CST);
}

static void cleanup(void *)
{
    __atomic_add_fetch(&cleanups, 1, __ATOMIC_SEQ_CST);
}

static void reset()
{
    key_destroyed = cleanups = tl_destroyed = 0;
}

static void *run_thread(void *(*fn)(void *), void *arg, int *rc_out = nullptr)
{
    pthread_t t;
    void *ret = nullptr;
    errno = 4242;
    int rc = pthread_create(&t, &attr, fn, arg);
    if (errno != 4242)
        printf("  errno changed by pthread_create\n");
    if (rc_out)
        *rc_out = rc;
    if (rc == 0)
        pthread_join(t, &ret);
    return ret;
}

// ---- cancellation ---------------------------------------------------
static void *cancellable(void *)
{
    pthread_setspecific(key, &key);
    local.armed = 1;
    pthread_cleanup_push(cleanup, nullptr);
    for (;;)
        pause();
    pthread_cleanup_pop(0);
    return nullptr;
}

static void test_cancel()
{
    reset();
    pthread_t t;
    pthread_create(&t, &attr, cancellable, nullptr);
    usleep(20000);
    int rc = pthread_cancel(t);
    void *ret;
    pthread_join(t, &ret);
    printf("cancel: rc=%d canceled=%d cleanups=%d key_dtor=%d thread_local_dtor=%d\n", rc,
           ret == PTHREAD_CANCELED, cleanups, key_destroyed, tl_destroyed);
}

// ---- pthread_exit, with a C++ frame that must see the forced unwind --
static int forced_seen;
static int frames_unwound;

struct Frame {
    ~Frame() { frames_unwound++; }
};

static void deep_exit(int depth);
// Called through a pointer so the compiler keeps every frame.
static void (*volatile recurse)(int) = deep_exit;

static void deep_exit(int depth)
{
    Frame f;
    if (depth > 0)
        recurse(depth - 1);
    else
        pthread_exit((void *)0x5eed);
}

static void *exiting(void *)
{
    pthread_setspecific(key, &key);
    local.armed = 1;
    pthread_cleanup_push(cleanup, nullptr);
    // catch (...) rather than abi::__forced_unwind&: the same frames, and
    // UBSan has no complaint about binding a reference to no object.
    try {
        deep_exit(5);
    } catch (...) {
        forced_seen++;
        throw;
    }
    pthread_cleanup_pop(0);
    return nullptr;
}

static void test_exit()
{
    reset();
    forced_seen = frames_unwound = 0;
    void *ret = run_thread(exiting, nullptr);
    printf("pthread_exit: value=%p forced_unwind_seen=%d frames_unwound=%d cleanups=%d "
           "key_dtor=%d thread_local_dtor=%d\n",
           ret, forced_seen, frames_unwound, cleanups, key_destroyed, tl_destroyed);
}

// ---- exceptions thrown and caught inside a thread ----------------------
static void *throwing(void *)
{
    long caught = 0;
    for (int i = 0; i < 100; i++) {
        try {
            throw std::runtime_error("boom");
        } catch (const std::exception &e) {
            caught += strcmp(e.what(), "boom") == 0;
        }
    }
    return (void *)caught;
}

static void test_exceptions()
{
    void *ret = run_thread(throwing, nullptr);
    long via_std = 0;
    std::thread t([&] { via_std = (long)throwing(nullptr); });
    t.join();
    printf("exceptions: caught=%ld std_thread_caught=%ld\n", (long)ret, via_std);
}

// ---- thread-local destructors on a normal return -----------------------
static void *returning(void *)
{
    pthread_setspecific(key, &key);
    local.armed = 1;
    return (void *)7;
}

static void test_tls()
{
    reset();
    void *ret = run_thread(returning, nullptr);
    printf("tls: value=%ld key_dtor=%d thread_local_dtor=%d\n", (long)ret, key_destroyed,
           tl_destroyed);
}

// ---- fork while other threads run ------------------------------------
static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t ready;

// Each has its arena and waits; fork comes once none is inside malloc
// (a fork during another thread's malloc can hang a sanitizer's
// allocator in the child, with or without the shim).
static void *blocked(void *)
{
    void *volatile p = malloc(100);
    pthread_barrier_wait(&ready);
    pthread_mutex_lock(&hold);
    pthread_mutex_unlock(&hold);
    free(p);
    return nullptr;
}

static int child_work()
{
    // malloc and thread creation must work in the child of a threaded parent
    void *volatile p = malloc(1000);
    free(p);
    int rc;
    void *ret = run_thread(returning, nullptr, &rc);
    return rc == 0 && ret == (void *)7 ? 0 : 1;
}

static void *forking(void *)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(child_work());
    int status = -1;
    waitpid(pid, &status, 0);
    return (void *)(long)status;
}

static void test_fork()
{
    pthread_mutex_lock(&hold);
    pthread_t others[4];
    pthread_barrier_init(&ready, nullptr, 5);
    for (auto &t : others)
        pthread_create(&t, &attr, blocked, nullptr);
    pthread_barrier_wait(&ready);
    pid_t pid = fork();
    if (pid == 0)
        _exit(child_work());
    int status = -1;
    waitpid(pid, &status, 0);
    long from_thread = (long)run_thread(forking, nullptr);
    pthread_mutex_unlock(&hold);
    for (auto &t : others)
        pthread_join(t, nullptr);
    pthread_barrier_destroy(&ready);
    printf("fork: from_main_status=%d from_thread_status=%ld\n", status, from_thread);
}

// ---- errors are returned, not set in errno -----------------------------
static void test_errors()
{
    pthread_attr_t bad;
    pthread_attr_init(&bad);
    // A stack no mapping can hold: pthread_create returns EAGAIN.
    int rc_set = pthread_attr_setstacksize(&bad, (size_t)1 << 46);
    pthread_t t;
    // (errno after a failed pthread_create is unspecified: not compared.)
    int rc = rc_set == 0 ? pthread_create(&t, &bad, returning, nullptr) : -1;
    printf("errors: setstack=%d create=%d\n", rc_set, rc);
    pthread_attr_destroy(&bad);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, nullptr, _IOLBF, 0);
    pthread_key_create(&key, key_dtor);
    for (int pinned = 0; pinned < 2; pinned++) {
        pthread_attr_init(&attr);
        if (pinned) {
            cpu_set_t all;
            sched_getaffinity(0, sizeof all, &all);
            pthread_attr_setaffinity_np(&attr, sizeof all, &all);
        }
        printf("== attribute %s\n", pinned ? "with a CPU set" : "plain");
        test_cancel();
        test_exit();
        test_exceptions();
        test_tls();
        test_fork();
        test_errors();
        pthread_attr_destroy(&attr);
    }
    (void)argc;
    (void)argv;
    return 0;
}
