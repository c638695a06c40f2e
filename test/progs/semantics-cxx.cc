// C++ through the trampoline: exceptions inside a thread, and the forced
// unwinding of pthread_exit and pthread_cancel running destructors of
// the thread's objects.  Prints "CHECK: ok" lines; exits 1 on failure.
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <thread>

static std::atomic<int> destructed{0};

struct Guard {
    ~Guard() { destructed++; }
};

static void *throws_and_catches(void *)
{
    try {
        Guard g;
        throw std::runtime_error("inside the thread");
    } catch (const std::exception &) {
        return reinterpret_cast<void *>(1);
    }
    return nullptr;
}

static void *exits_with_guard(void *)
{
    Guard g;
    pthread_exit(reinterpret_cast<void *>(2));
}

static void *cancelled_with_guard(void *)
{
    Guard g;
    for (;;)
        pause();
}

static int failures;

static void report(const char *name, bool ok)
{
    std::printf("%s: %s\n", name, ok ? "ok" : "FAIL");
    if (!ok)
        failures++;
}

int main()
{
    pthread_t t;
    void *ret = nullptr;

    pthread_create(&t, nullptr, throws_and_catches, nullptr);
    pthread_join(t, &ret);
    report("exception", ret == reinterpret_cast<void *>(1) && destructed == 1);

    pthread_create(&t, nullptr, exits_with_guard, nullptr);
    pthread_join(t, &ret);
    report("pthread_exit-unwinds", ret == reinterpret_cast<void *>(2) && destructed == 2);

    pthread_create(&t, nullptr, cancelled_with_guard, nullptr);
    usleep(10000);
    pthread_cancel(t);
    pthread_join(t, &ret);
    report("cancel-unwinds", ret == PTHREAD_CANCELED && destructed == 3);

    int seen = 0;
    std::thread st([&seen] { seen = 5; });
    st.join();
    report("std::thread", seen == 5);
    return failures ? 1 : 0;
}
