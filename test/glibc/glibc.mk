# make check-glibc: glibc's own test suites (malloc, nptl, and posix's
# affinity and scheduler tests) run on the affected glibc twice, plain and
# with the library under test preloaded into every test program; a test
# whose result changes fails unless test/glibc/known-differences explains
# it (docs/hardening.md).  Not part of make check: the first run builds
# glibc into build/glibc/ (kept for the next runs), and each run of the
# tests takes a while.  ARENAFIX_TESTLIB names the library, as for make check.

.PHONY: check-glibc
check-glibc: $(if $(filter $(abspath $(SHIM_LIB)),$(ARENAFIX_TESTLIB)),$(SHIM_LIB))
	sh test/glibc/check-glibc.sh
