# arenafix: top-level build.  Each part of the project keeps its rules in
# its own folder (shim/shim.mk, test/test.mk, ...); this file holds what they
# share: tool choices, flags, install directories.

VERSION := 0.1.0

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
# A $(shell) in a recursive variable runs at each use (each object's
# flags, each recipe): these run once, at their first use.  (A variable
# so made takes no target-specific +=: that first use would refer to
# itself.)
MULTIARCH  ?= $(eval MULTIARCH := $$(shell $$(CC) -print-multiarch 2>/dev/null))$(MULTIARCH)
LIBDIR     ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
PKGLIBDIR  ?= $(LIBDIR)/arenafix
MANDIR     ?= $(PREFIX)/share/man
# arenafix-runtime reads SYSCONFDIR/arenafix/runtime.conf.
SYSCONFDIR ?= /etc
# Where the packaged hooks.d entry has the OCI hook say what it did (runc
# shows a hook's standard error only when the hook fails).
HOOKLOG    ?= /var/log/arenafix-oci-hook.log
# Where podman and CRI-O look for OCI hooks (containers-common).
HOOKSDIR   ?= $(PREFIX)/share/containers/oci/hooks.d
DESTDIR    ?=

CC      ?= cc
# A cross build names its own (debhelper passes PKG_CONFIG=TRIPLET-pkg-config).
PKG_CONFIG ?= pkg-config
CFLAGS  ?= -O2 -g
# The checks' Python: the distribution's (python3, which make deps
# installs), not whichever a version manager's shim puts first in PATH
# (a pyenv shim alone costs ten times Python's own start, at each run).
# Not taken from the environment, which such managers set; make PYTHON=
# names another.
PYTHON  = $(firstword $(wildcard /usr/bin/python3) python3)
# Warnings are errors in CI (WERROR=1), never in a distribution's build.
WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wformat=2 -Wundef
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif
AFX_CFLAGS := -std=gnu11 $(WARNINGS) -D_GNU_SOURCE -DAFX_VERSION='"$(VERSION)"'

# Everything built except the library lands in build/.
B := build

# The affected glibcs (each the directory holding its ld.so and libc.so.6,
# colon-separated) for the tests that prove the fix.  This repository's CI
# has them beside the checkout: Debian's 2.36 with the fix reverted, and
# the upstream releases 2.34 to 2.38 as tagged; elsewhere name some, or
# those tests say they were skipped.
AFX_AFFECTED_DIRS := $(patsubst %/libc.so.6,%,$(wildcard ../shared/glibc-bz30945/lib/libc.so.6 \
                       ../shared/glibc-releases/glibc-*/lib/libc.so.6))
AFX_NOTHING :=
ARENAFIX_AFFECTED_GLIBC ?= $(subst $(AFX_NOTHING) $(AFX_NOTHING),:,$(abspath $(AFX_AFFECTED_DIRS)))
export ARENAFIX_AFFECTED_GLIBC

.PHONY: all deps deps-demo deps-check deps-slow demo check check-slow check-all bench install uninstall clean
all:

# Install the Debian packages the build and tests need (or say how): every
# tier's (make deps), or one tier's and those before it (test/packages.txt);
# and fetch Debian 11's glibc into the build directory for the test that
# the library stands down on it (test/glibc/fetch-old.sh; skipped without).
deps:
	sh test/deps.sh all
	sh test/deb/build-deps.sh
	sh test/glibc/fetch-old.sh $(B)/glibc-2.31 || true
deps-demo deps-check deps-slow:
	sh test/deps.sh $(patsubst deps-%,%,$@)
	$(if $(filter deps-demo,$@),,sh test/glibc/fetch-old.sh $(B)/glibc-2.31 || true)

# The fast tier's suites: each part adds its own (CHECK_SUITES += ...).
CHECK_SUITES :=
CHECK_JOBS ?= 3

# One suite, or one test, of the check harnesses (check-shim,
# check-releases, check-cli): make check-cli SUITE=inspect, make
# check-cli SUITE=inspect TEST=maps_read_in_bounded_time_and_memory.
# SUITE is libcheck's CK_RUN_SUITE; TEST, AFX_RUN_TEST
# (test/progs/ckselect.h).
SUITE ?=
TEST ?=
CK_SELECT = $(if $(SUITE),CK_RUN_SUITE='$(SUITE)') $(if $(TEST),AFX_RUN_TEST='$(TEST)')
# The tests tagged "cost" (callgrind's counts) run in make check-cost
# alone, unless a SUITE or TEST names them.
CK_NO_COST = $(if $(SUITE)$(TEST),,CK_EXCLUDE_TAGS=cost)

include common/common.mk
include shim/shim.mk
-include test/test.mk
-include test/cost/cost.mk
-include cli/cli.mk
-include test/cli/cli.mk
-include bench/bench.mk
-include docs/docs.mk
-include test/vm/vm.mk
-include test/hard/hard.mk
-include test/deb/deb.mk
-include test/real/real.mk
-include test/packages/packages.mk
-include test/glibc/glibc.mk
-include test/mutants/mutants.mk
-include test/host/host.mk
-include test/fleet/fleet.mk
-include test/containers/containers.mk
-include test/kube/kube.mk
-include test/cross/cross.mk
-include rpm/rpm.mk
-include monitor/monitor.mk

# Three tiers: make check (the fast tier, CHECK_SUITES, after every
# change), make check-slow (adds SLOW_SUITES) and make check-all (adds
# ALL_SUITES; what CI runs).  test/README.md lists every suite, its tier,
# what it needs and how long it takes; make check-docs fails when that
# list and these variables disagree.
# The fast tier's suites run CHECK_JOBS at a time: most of their time is
# spent waiting for the children they start, and each one's output is
# shown whole when it ends (-Otarget), as a serial run would show it.
# The two harnesses take most of the time: started first, the others
# fill the third slot beside them.  The product is built before them, so
# that the suites' make need not remake the command's paths stamp (a
# recipe run every time, cli/cli.mk): queued ahead of check-cli, it let
# make -j start the short suites first and check-cli some 10 s late.
# The harnesses' work decides how long the tier takes, check-cli's the
# most, so they start as soon as they can: what check-cli runs is built
# alone first, then check-cli runs while what check-shim runs is built
# (in one make with the rest, make -j left each harness's link until
# every object of every suite was compiled, and both started some 18 s
# in), and the other suites wait until what the two harnesses run is
# built (started while it was, they held two of the three slots).  Only
# inside make check: a suite run alone builds what it needs and no more.
CHECK_FIRST = $(filter check-cli,$(CHECK_SUITES)) $(filter check-shim,$(CHECK_SUITES))
check:
	@echo "make check: $(words $(CHECK_SUITES)) suites, $(CHECK_JOBS) at a time; each prints its output when it ends"
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) all
	@$(if $(filter check-cli,$(CHECK_SUITES)),-$(MAKE) --no-print-directory -j$(CHECK_JOBS) -o $(B)/cli/paths.stamp check-cli-needs)
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) -Otarget -o $(B)/cli/paths.stamp AFX_HARNESSES_FIRST=1 \
	    $(CHECK_FIRST) $(filter-out $(CHECK_FIRST),$(CHECK_SUITES))

# A failed build of what check-cli runs is said again, and fails
# check-cli, in the make after it; under make -k the other suites run
# whether the harnesses' builds failed or not, as they did before.
ifeq ($(AFX_HARNESSES_FIRST)$(findstring k,$(firstword -$(MAKEFLAGS))),1)
$(filter-out $(CHECK_FIRST),$(CHECK_SUITES)): | $(CHECK_FIRST:=-needs)
endif

SLOW_SUITES := check-releases check-cost check-role check-hard check-vm check-node-exporter
ALL_SUITES := check-deb check-rpm check-cross check-host check-fleet check-containers check-kube
check-slow: check $(SLOW_SUITES)
check-all: check-slow $(ALL_SUITES)

$(B):
	mkdir -p $@

clean:
	rm -rf $(B) shim/libarenafix.so

-include $(wildcard $(B)/*.d $(B)/*/*.d $(B)/*/*/*.d)
