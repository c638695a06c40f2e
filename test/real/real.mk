# make check-real: real programs (CPython with an OpenMP extension, pigz,
# xz, memcached, a libgomp program) on the system glibc and on the first
# affected one (the fast tier), without and with the preload;
# test/real/run.sh says what each case expects.  make check-releases
# runs them on every affected glibc at hand (check-real-releases).  A
# case whose program is not installed is skipped.

REAL := $(B)/real
REAL_CFLAGS := $(AFX_CFLAGS) -O2 -g -MMD -MP
# The extension module is built for Debian's /usr/bin/python3 (the
# program under test, not whichever python3 comes first in PATH) with its
# headers (python3-dev); without them the runner skips the CPython case.
REAL_PY_INCLUDE := $(shell /usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
REAL_PY_HEADER := $(if $(REAL_PY_INCLUDE),$(wildcard $(REAL_PY_INCLUDE)/Python.h))
REAL_PROGS := $(REAL)/countarenas.so $(REAL)/gomp $(REAL)/mcload \
              $(if $(REAL_PY_HEADER),$(REAL)/ompext.so)
ARENAFIX_TESTLIB ?= $(abspath $(SHIM_LIB))

.PHONY: check-real
CHECK_SUITES += check-real

$(REAL):
	mkdir -p $@

$(REAL)/countarenas.so: test/real/countarenas.c | $(REAL)
	$(CC) $(REAL_CFLAGS) -Itest/progs -fPIC -shared $(CFLAGS) -o $@ $<

$(REAL)/gomp: test/real/gomp.c | $(REAL)
	$(CC) $(REAL_CFLAGS) -fopenmp $(CFLAGS) -o $@ $<

$(REAL)/mcload: test/real/mcload.c | $(REAL)
	$(CC) $(REAL_CFLAGS) $(CFLAGS) -o $@ $<

# Imported as "ompext" from $(REAL): Python accepts a plain .so suffix.
$(REAL)/ompext.so: test/real/ompext.c | $(REAL)
	$(CC) $(REAL_CFLAGS) -I$(REAL_PY_INCLUDE) -fPIC -shared -fopenmp $(CFLAGS) -o $@ $<

# The build's library is built only when it is the one under test.
REAL_NEEDS := $(if $(filter $(abspath $(SHIM_LIB)),$(ARENAFIX_TESTLIB)),$(SHIM_LIB)) $(REAL_PROGS)
check-real: $(REAL_NEEDS)
	ARENAFIX_TESTLIB=$(ARENAFIX_TESTLIB) AFX_REAL_BIN=$(abspath $(REAL)) AFX_PROOF_GLIBCS=first bash test/real/run.sh

# Every affected glibc at hand: part of make check-releases.
.PHONY: check-real-releases
check-releases: check-real-releases
check-real-releases: $(REAL_NEEDS)
	ARENAFIX_TESTLIB=$(ARENAFIX_TESTLIB) AFX_REAL_BIN=$(abspath $(REAL)) bash test/real/run.sh
