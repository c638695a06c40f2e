# bench/: arenafix-bench, the pinned-thread benchmark (docs/benchmarks.md).
#   make bench       the default matrix; results in build/bench/results.*
#   make demo        a short side-by-side table (the README's main job)
#   make check-bench the benchmark's own tests
#   make bench-cost  instructions arenafix adds (valgrind's callgrind)

BENCH_BIN  := $(B)/bench/arenafix-bench
BENCH_LIB  := model options placement pin workloads env runner stats report plot
BENCH_OBJ  := $(BENCH_LIB:%=$(B)/bench/%.o)
BENCH_TESTS := $(B)/bench/tests/bench-tests

# Asked once, at their first use (Makefile's MULTIARCH).
HWLOC_CFLAGS = $(eval HWLOC_CFLAGS := $$(shell $$(PKG_CONFIG) --cflags hwloc))$(HWLOC_CFLAGS)
HWLOC_LIBS   = $(eval HWLOC_LIBS := $$(shell $$(PKG_CONFIG) --libs hwloc 2>/dev/null || echo -lhwloc))$(HWLOC_LIBS)
# common/: the arena counter, the fixed glibc's rule and the JSON writer
# the library, the command and the tests use too.
BENCH_CFLAGS = $(AFX_CFLAGS) -pthread -MMD -MP -Icommon $(HWLOC_CFLAGS) \
               -DAFB_SHIM_PATH='"$(PKGLIBDIR)/libarenafix.so"'
BENCH_LIBS   = $(HWLOC_LIBS) -pthread -lm

# Overridable: make bench BENCH_FLAGS='-t 32 -r 5'
BENCH_FLAGS ?=
BENCH_OUT   ?= $(B)/bench

.PHONY: bench demo check-bench bench-cost install-bench uninstall-bench
all: $(BENCH_BIN)
CHECK_SUITES += check-bench
install: install-bench
uninstall: uninstall-bench

$(B)/bench $(B)/bench/tests:
	mkdir -p $@

$(B)/bench/%.o: bench/%.c | $(B)/bench
	$(CC) $(CPPFLAGS) $(BENCH_CFLAGS) $(CFLAGS) -c $< -o $@

$(BENCH_BIN): $(BENCH_OBJ) $(B)/bench/main.o $(COMMON_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(BENCH_LIBS)

# Five repeats: the churn ratios are percent-sized, medians of three are
# not steady enough on a shared 2-CPU host.
bench: $(BENCH_BIN) $(SHIM_LIB)
	$(BENCH_BIN) -r 5 -o $(BENCH_OUT) $(BENCH_FLAGS)

# Seconds, not minutes: the reproducer's workload, pinned, on the affected
# glibc (when there is one) without the fix, with the shim, and the
# baselines beside them.
demo: $(BENCH_BIN) $(SHIM_LIB)
	$(BENCH_BIN) -w repro -s unpinned,pinned,tunable,shim-mallopt -i 500000 -r 5 $(BENCH_FLAGS)

$(B)/bench/tests/%.o: bench/tests/%.c | $(B)/bench/tests
	$(CC) $(CPPFLAGS) $(BENCH_CFLAGS) -Ibench $(CHECK_CFLAGS) \
	    -DAFB_TEST_DIR='"$(abspath bench/tests)"' $(CFLAGS) -c $< -o $@

BENCH_TEST_OBJ := $(patsubst bench/tests/%.c,$(B)/bench/tests/%.o,$(wildcard bench/tests/*.c))
$(BENCH_TESTS): $(BENCH_TEST_OBJ) $(BENCH_OBJ) $(COMMON_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(BENCH_LIBS)

# The shim too: with it and an affected glibc the tests check the arena
# counts that prove the bug and the fix.
check-bench: $(BENCH_TESTS) $(BENCH_BIN) $(SHIM_LIB)
	AFB_BENCH_BIN=$(abspath $(BENCH_BIN)) $(BENCH_TESTS)

# Counted, not timed: at startup against an empty preload, and per
# thread in each mode against no preload (docs/benchmarks.md).
$(B)/bench/costthreads: bench/costthreads.c | $(B)/bench
	$(CC) $(CPPFLAGS) $(AFX_CFLAGS) -O2 -g -pthread $(CFLAGS) -o $@ $<

bench-cost: $(SHIM_LIB) $(B)/test/libempty.so $(B)/bench/costthreads
	bench/cost.sh $(abspath $(SHIM_LIB)) $(abspath $(B)/test/libempty.so) \
	    $(abspath $(B)/bench/costthreads) $(COST_THREADS)

install-bench: $(BENCH_BIN)
	install -d $(DESTDIR)$(BINDIR)
	install -m 755 $(BENCH_BIN) $(DESTDIR)$(BINDIR)/arenafix-bench

uninstall-bench:
	rm -f $(DESTDIR)$(BINDIR)/arenafix-bench
