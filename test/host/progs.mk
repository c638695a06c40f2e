# The workload programs of the emulated host (make check-host): built
# here, copied into the guest, whose runtime packages match this Debian.
#
#   HOST_PROGS          the programs built, under $(B)/host/progs
#   HOST_PROGS_MISSING  NAME=REASON words for those this machine cannot
#                       build (their -dev package is missing); the host
#                       suite says it skipped them and why
#
# pinnedd        a pinned long-running service (systemd)
# ealloop        a DPDK EAL program (libdpdk-dev)
# ompalloc-gomp  an OpenMP program on GCC's libgomp ($(CC) -fopenmp)
# ompalloc-llvm  the same on LLVM's libomp (clang, libomp-dev)
# DPDK's own autotests (dpdk-test, package dpdk-dev) are run as shipped:
# test/host/progs/dpdk-autotests.txt lists those the suite runs.

HOST_PROGS_DIR := $(B)/host/progs
HOST_PROGS_CFLAGS := $(AFX_CFLAGS) -O2 -g -MMD -MP -Itest/progs
HOST_CLANG ?= clang

HOST_PROGS := $(HOST_PROGS_DIR)/pinnedd $(HOST_PROGS_DIR)/ompalloc-gomp
HOST_PROGS_MISSING :=

HOST_DPDK := $(shell pkg-config --exists libdpdk 2>/dev/null && echo yes)
ifeq ($(HOST_DPDK),yes)
HOST_PROGS += $(HOST_PROGS_DIR)/ealloop
else
HOST_PROGS_MISSING += ealloop=needs-libdpdk-dev-(pkg-config-libdpdk)
endif

# libomp-dev puts omp.h among clang's own headers, libomp.so beside them.
HOST_CLANG_RESOURCES := $(shell $(HOST_CLANG) -print-resource-dir 2>/dev/null)
ifneq ($(and $(HOST_CLANG_RESOURCES),$(wildcard $(HOST_CLANG_RESOURCES)/include/omp.h)),)
HOST_PROGS += $(HOST_PROGS_DIR)/ompalloc-llvm
else
HOST_PROGS_MISSING += ompalloc-llvm=needs-$(HOST_CLANG)-and-libomp-dev
endif

.PHONY: host-progs
host-progs: $(HOST_PROGS)
	@for missing in $(HOST_PROGS_MISSING); do \
	    echo "SKIP: $${missing%%=*} not built: $${missing#*=}"; done

$(HOST_PROGS_DIR):
	mkdir -p $@

$(HOST_PROGS_DIR)/pinnedd: test/host/progs/pinnedd.c | $(HOST_PROGS_DIR)
	$(CC) $(HOST_PROGS_CFLAGS) -pthread $(CFLAGS) -o $@ $<

# DPDK's flags carry -march=corei7 (Debian's baseline for DPDK): the
# guest's CPU model must have SSE4.2.
$(HOST_PROGS_DIR)/ealloop: test/host/progs/ealloop.c | $(HOST_PROGS_DIR)
	$(CC) $(HOST_PROGS_CFLAGS) $(shell pkg-config --cflags libdpdk) $(CFLAGS) -o $@ $< \
	    $(shell pkg-config --libs libdpdk)

$(HOST_PROGS_DIR)/ompalloc-gomp: test/host/progs/ompalloc.c | $(HOST_PROGS_DIR)
	$(CC) $(HOST_PROGS_CFLAGS) -fopenmp $(CFLAGS) -o $@ $<

$(HOST_PROGS_DIR)/ompalloc-llvm: test/host/progs/ompalloc.c | $(HOST_PROGS_DIR)
	$(HOST_CLANG) $(HOST_PROGS_CFLAGS) -fopenmp $(CFLAGS) -o $@ $<

-include $(wildcard $(HOST_PROGS_DIR)/*.d)
