# make check (the fast tier): the unit tests of the pure code and the
# integration tests that run test programs with the real preload, on
# the system glibc and the first affected one; make check-releases (in
# check-slow) runs the same tests on every affected glibc at hand, the
# signal flood ten times as often and the loader's and placement's
# stress in full.  Other parts add their own suites with
# `CHECK_SUITES += check-PART`.

# Asked once, at their first use (Makefile's MULTIARCH).
CHECK_CFLAGS = $(eval CHECK_CFLAGS := $$(shell $$(PKG_CONFIG) --cflags check))$(CHECK_CFLAGS)
CHECK_LIBS   = $(eval CHECK_LIBS := $$(shell $$(PKG_CONFIG) --libs check))$(CHECK_LIBS)
TEST_CFLAGS  := $(AFX_CFLAGS) -Icommon -O2 -g -pthread -MMD -MP
# The check harnesses' own code (test/integration, test/cli: fork a
# child, wait, compare its output) gains nothing from CFLAGS's -O2, which
# takes a third longer to compile (13 against 10 CPU-s for their 33
# files).  The test programs and the product's code they link stay as
# CFLAGS builds them.  With WERROR=1 (CI) the harnesses too: -Og keeps
# most warnings that need the flow analysed, but not -Warray-bounds
# (-O2's value ranges).  HARNESS_OPT= builds them with CFLAGS alone.
HARNESS_OPT ?= $(if $(filter 1,$(WERROR)),,-Og)

# The library under test: the build's, or an installed one
# (ARENAFIX_TESTLIB=/usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so).
ARENAFIX_TESTLIB ?= $(abspath $(SHIM_LIB))
export ARENAFIX_TESTLIB

.PHONY: check check-unit check-shim check-releases test-progs
CHECK_SUITES += check-unit check-shim

$(B)/test:
	mkdir -p $@

# ---- unit tests: the pure parsers and the decision ------------------
UNIT_SRC := $(wildcard test/unit/*.c)
$(B)/test/unit: $(UNIT_SRC) $(SHIM_PURE) | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CHECK_CFLAGS) -Ishim -Itest/unit $(CFLAGS) -o $@ $(UNIT_SRC) $(SHIM_PURE) $(CHECK_LIBS)

check-unit: $(B)/test/unit
	$(B)/test/unit

# ---- test programs, run with the preload in child processes ----------
# pinned and its library are bound at load (-z now, which holds for the
# object linked with it alone): on glibc 2.35 as released a lazy binding
# of malloc that several pinned threads run at once can leave the
# resolver's saved registers where the ninth one's arena_get2 counts CPUs
# (its bug 28850; test/cli/arenawait.c), and both count the bug's 9.
$(B)/test/libctorthreads.so: test/progs/ctorthreads.c test/progs/arenas.h | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -Wl,-z,now -o $@ $<

$(B)/test/pinned: test/progs/pinned.c test/progs/arenas.h $(B)/test/libctorthreads.so
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -o $@ $< -L$(B)/test -lctorthreads -Wl,-rpath,'$$ORIGIN' -Wl,-z,now

$(B)/test/semantics: test/progs/semantics.c test/progs/arenas.h | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -o $@ $<

$(B)/test/semantics-cxx: test/progs/semantics-cxx.cc | $(B)/test
	$(CXX) -O2 -g -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -pthread -o $@ $<

$(B)/test/single: test/progs/single.c | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -o $@ $<

$(B)/test/libcountaff.so: test/progs/countaff.c | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $<

$(B)/test/libctorpin.so: test/progs/ctorpin.c | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $<

$(B)/test/libmanykeys.so: test/progs/manykeys.c | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $<

$(B)/test/libempty.so: test/progs/empty.c | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $<

$(B)/test/steps $(B)/test/attrthreads $(B)/test/sigflood $(B)/test/oldcreate $(B)/test/touchprobe $(B)/test/sandboxed \
$(B)/test/fixedarenas: \
$(B)/test/%: test/progs/%.c test/progs/arenas.h test/progs/denyopen.h | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -o $@ $<

# Its malloc_info and read are the library's too (the hooks that hold a
# creation at the moment under test).
$(B)/test/moments: test/progs/moments.c test/progs/arenas.h test/progs/denyopen.h test/progs/glibccreate.h | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -Wl,--export-dynamic-symbol=malloc_info \
	    -Wl,--export-dynamic-symbol=read -Wl,--export-dynamic-symbol=afx_ctor_go -o $@ $<

$(B)/test/libctorcreate.so: test/progs/ctorcreate.c | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $<

$(B)/test/libforkinit.so: test/progs/forkinit.c test/progs/arenas.h test/progs/denyopen.h | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $<

$(B)/test/movecpu: test/progs/movecpu.c test/progs/arenas.h | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -o $@ $<

$(B)/test/nprocs: test/progs/nprocs.c test/progs/arenas.h | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -o $@ $<

$(B)/test/libifuncmalloc.so: test/progs/ifuncmalloc.c | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $<

# The same steps from an executable built without PIE that takes malloc's
# address, as CPython and node are on Debian.
$(B)/test/steps-nopie: test/progs/steps.c test/progs/arenas.h | $(B)/test
	$(CC) $(TEST_CFLAGS) -fno-pie -no-pie -DAFX_TAKE_MALLOC_ADDRESS $(CFLAGS) -o $@ $<

# References without a symbol version: linked against stand-ins, run
# with a library of the same name that has none of them.
$(B)/test/nover-link/libafxnover.so: test/progs/nover-stub.c | $(B)/test
	mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -fPIC -shared -Wl,-soname,libafxnover.so $(CFLAGS) -o $@ $<

$(B)/test/libafxnover.so: test/progs/empty.c | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared -Wl,-soname,libafxnover.so $(CFLAGS) -o $@ $<

$(B)/test/nover: test/progs/nover.c test/progs/arenas.h $(B)/test/nover-link/libafxnover.so \
                 $(B)/test/libafxnover.so
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -o $@ $< $(B)/test/nover-link/libafxnover.so \
	    -Wl,-rpath,'$$ORIGIN'

# The loader's lock against the library's waits: the plugin's
# constructor reads the program's flags (exported for it).
$(B)/test/libloaderplugin.so: test/progs/loaderplugin.c | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $<

$(B)/test/loaderrace: test/progs/loaderrace.c test/progs/glibccreate.h $(B)/test/libloaderplugin.so | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -Wl,--export-dynamic-symbol=afx_race_ctor_started \
	    -Wl,--export-dynamic-symbol=afx_race_wait_for_main -o $@ $< -ldl -lrt

TEST_PROGS := $(B)/test/loaderrace $(B)/test/steps $(B)/test/steps-nopie $(B)/test/moments $(B)/test/libctorcreate.so $(B)/test/attrthreads $(B)/test/sigflood \
              $(B)/test/oldcreate $(B)/test/nover $(B)/test/touchprobe $(B)/test/libforkinit.so \
              $(B)/test/pinned $(B)/test/semantics $(B)/test/semantics-cxx $(B)/test/single \
              $(B)/test/libempty.so $(B)/test/libcountaff.so $(B)/test/libctorpin.so $(B)/test/libmanykeys.so \
              $(B)/test/movecpu $(B)/test/nprocs $(B)/test/libifuncmalloc.so $(B)/test/fixedarenas \
              $(B)/test/sandboxed

# Programs of the libcs the library loads on and stands down on
# (test/integration/test_libcs.c): musl's, built with musl-gcc where
# musl-tools is installed, and Debian 11's glibc 2.31's, linked against
# it as in such an image, where make deps fetched it
# (test/glibc/fetch-old.sh).  Without either, the test says it skipped.
MUSL_GCC := $(shell command -v musl-gcc 2>/dev/null)
OLD_GLIBC := $(B)/glibc-2.31/root
OLD_GLIBC_LIB := $(OLD_GLIBC)/usr/lib/$(MULTIARCH)
ifneq ($(and $(MUSL_GCC),$(filter $(SHIM_ARCH),$(shell $(MUSL_GCC) -dumpmachine 2>/dev/null))),)
TEST_PROGS += $(B)/test/otherlibc-musl $(B)/test/libcompat-musl.so
endif
ifneq ($(wildcard $(OLD_GLIBC_LIB)/crt1.o),)
TEST_PROGS += $(B)/test/otherlibc-2.31 $(B)/test/otherlibc-dlopen-2.31 $(B)/test/libotherlibc-plugin-2.31.so
endif
$(B)/test/otherlibc-musl: test/progs/otherlibc.c | $(B)/test
	$(MUSL_GCC) -O2 -o $@ $<
$(B)/test/libcompat-musl.so: test/progs/libcompat-musl.c | $(B)/test
	$(MUSL_GCC) -O2 -shared -fPIC -o $@ $<
$(B)/test/otherlibc-2.31: test/progs/otherlibc.c | $(B)/test
	$(CC) -O2 -fno-pie -c -o $@.o $<
	$(CC) -nostdlib -no-pie -o $@ $(OLD_GLIBC_LIB)/crt1.o $(OLD_GLIBC_LIB)/crti.o \
	    $$($(CC) -print-file-name=crtbegin.o) $@.o $(OLD_GLIBC)/lib/$(MULTIARCH)/libpthread.so.0 \
	    $(OLD_GLIBC)/lib/$(MULTIARCH)/libc.so.6 $(OLD_GLIBC_LIB)/libc_nonshared.a \
	    $(firstword $(wildcard $(OLD_GLIBC)/lib/$(MULTIARCH)/ld-linux*.so.[12])) $$($(CC) -print-libgcc-file-name) \
	    $$($(CC) -print-file-name=crtend.o) $(OLD_GLIBC_LIB)/crtn.o
	rm -f $@.o
# Linked with libdl only; its plugin brings libpthread.
$(B)/test/otherlibc-dlopen-2.31: test/progs/otherlibc-dlopen.c | $(B)/test
	$(CC) -O2 -fno-pie -c -o $@.o $<
	$(CC) -nostdlib -no-pie -o $@ $(OLD_GLIBC_LIB)/crt1.o $(OLD_GLIBC_LIB)/crti.o \
	    $$($(CC) -print-file-name=crtbegin.o) $@.o $(OLD_GLIBC)/lib/$(MULTIARCH)/libdl.so.2 \
	    $(OLD_GLIBC)/lib/$(MULTIARCH)/libc.so.6 $(OLD_GLIBC_LIB)/libc_nonshared.a \
	    $(firstword $(wildcard $(OLD_GLIBC)/lib/$(MULTIARCH)/ld-linux*.so.[12])) $$($(CC) -print-libgcc-file-name) \
	    $$($(CC) -print-file-name=crtend.o) $(OLD_GLIBC_LIB)/crtn.o
	rm -f $@.o
$(B)/test/libotherlibc-plugin-2.31.so: test/progs/otherlibc-plugin.c | $(B)/test
	$(CC) -O2 -fPIC -c -o $@.o $<
	$(CC) -nostdlib -shared -o $@ $$($(CC) -print-file-name=crtbeginS.o) $@.o \
	    $(OLD_GLIBC)/lib/$(MULTIARCH)/libpthread.so.0 $(OLD_GLIBC)/lib/$(MULTIARCH)/libc.so.6 \
	    $$($(CC) -print-file-name=crtendS.o)
	rm -f $@.o
test-progs: $(TEST_PROGS)

# ---- integration tests: the real preload, every glibc at hand ----------
INTEG_SRC := $(wildcard test/integration/*.c)
INTEG_OBJ := $(INTEG_SRC:test/integration/%.c=$(B)/test/integration-obj/%.o)
# One object a file (make -j compiles them side by side; each object's
# headers: its .d).
$(B)/test/integration-obj/%.o: test/integration/%.c test/integration/harness.h | $(B)/test
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(CHECK_CFLAGS) -Itest/progs -DAFX_MULTIARCH='"$(MULTIARCH)"' $(CFLAGS) $(HARNESS_OPT) -c -o $@ $<

$(B)/test/integration: $(INTEG_OBJ) | $(B)/test
	$(CC) $(CFLAGS) -pthread -o $@ $(INTEG_OBJ) $(CHECK_LIBS)

-include $(wildcard $(B)/test/integration-obj/*.d)

# The build's library is built only when it is the one under test.
# Suites run AFX_TEST_JOBS at a time (test/progs/suiterun.h): much of
# their time is spent waiting for children.  Two: make check runs three
# suites' harnesses at once already, and on 2 CPUs four suites each (the
# threads of most pinned to CPU 0) took longer and a sixth more CPU
# (check-shim and check-cli side by side: 40 s and 73 CPU-s at four,
# 36 s and 63 at two).
AFX_TEST_JOBS ?= 2
INTEG_NEEDS := $(if $(filter $(abspath $(SHIM_LIB)),$(ARENAFIX_TESTLIB)),$(SHIM_LIB)) $(TEST_PROGS) \
               $(B)/test/integration
# What check-shim runs, and nothing else.  A recipe of its own, so
# that make -j, which reconsiders a target only on its next walk of the
# goals, sees check-shim ready before the suites that wait for this.
.PHONY: check-shim-needs
check-shim-needs: $(INTEG_NEEDS)
	@:

# The fast tier: the first affected glibc, a tenth of the signal flood, a
# tenth of the loader's rounds, 300 of the 10000-20000 placement tries
# a way (each try waits for a CPU that the other suites' pinned programs
# share; a creator that does not wait for the hand-off loses 5-7 in 300;
# a loss once in 300 tries shows in 63% of runs of one way, 99.7% of the
# six), a quarter of sigpin's threads (a handler that mallocs hangs in
# the first).
check-shim: check-shim-needs
	$(CK_SELECT) $(CK_NO_COST) AFX_TEST_JOBS=$(AFX_TEST_JOBS) AFX_PROOF_GLIBCS=first AFX_FLOOD_RUNS=12 AFX_LOADER_ROUNDS=20 AFX_PLACEMENT_TRIES=300 AFX_SIGPIN_THREADS=5 \
	    AFX_TEST_BIN=$(abspath $(B)/test) AFX_COST_ENV=$(abspath test/cost/login.env) $(B)/test/integration

# Every affected glibc at hand, the whole flood, every round and try; and
# the real programs on every affected glibc (check-real-releases,
# test/real/real.mk).
check-releases: check-shim-needs
	$(CK_SELECT) $(CK_NO_COST) AFX_TEST_JOBS=$(AFX_TEST_JOBS) AFX_TEST_BIN=$(abspath $(B)/test) AFX_COST_ENV=$(abspath test/cost/login.env) $(B)/test/integration

# What callgrind counts (the tests tagged "cost"): the library's
# instructions per creation and at startup, the command's per process of
# a scan and per line of maps.  Minutes of emulated CPU, so the slow
# tier's, never the fast one's; each is asserted on counts alone.
.PHONY: check-cost check-cost-shim
check-cost: check-cost-shim
check-cost-shim: $(INTEG_NEEDS)
	$(CK_SELECT) CK_INCLUDE_TAGS=cost AFX_TEST_JOBS=$(AFX_TEST_JOBS) AFX_TEST_BIN=$(abspath $(B)/test) \
	    AFX_COST_ENV=$(abspath test/cost/login.env) $(B)/test/integration

# ---- what the library exports and needs --------------------------------
# Only the interposers, under the versions they stand in for; no library
# beyond libc (no libdl or libpthread stubs on glibc >= 2.34).  Local
# section symbols (aarch64's linker keeps .text's in .dynsym for a
# library without start files) are not exports.
.PHONY: check-exports
CHECK_SUITES += check-exports
check-exports: $(SHIM_LIB)
	@mkdir -p $(B)/test; expected=test/exports-$(firstword $(subst -, ,$(SHIM_ARCH))).txt; \
	if [ ! -f $$expected ]; then echo "SKIP: export list: no $$expected for this architecture"; exit 0; fi; \
	objdump -T $(SHIM_LIB) | awk '$$2 != "l" && $$4 == ".text" { print $$6, $$7 }' | sort > $(B)/test/exports.txt; \
	diff -u $$expected $(B)/test/exports.txt && echo "exports: ok (only the interposers)"
	@needed=$$(objdump -p $(SHIM_LIB) | awk '$$1 == "NEEDED" { print $$2 }' | tr '\n' ' '); \
	if [ "$$needed" != "libc.so.6 " ] && [ -z "$(SHIM_LIBS)" ]; then \
	    echo "needed: FAIL: the library needs $$needed(only libc.so.6 expected)"; exit 1; fi; \
	echo "needed: ok ($$needed)"
	@# No fortified call (__snprintf_chk ...): musl has none (shim/errnobind.h).
	@chk=$$(objdump -T $(SHIM_LIB) | awk '$$4 == "*UND*" && $$NF ~ /_chk$$/ { print $$NF }' | tr '\n' ' '); \
	if [ -n "$$chk" ]; then echo "fortify: FAIL: the library calls $$chk(musl has none: it would not load there)"; exit 1; fi; \
	echo "fortify: ok (no _chk function needed)"
	@# Loaded wherever it lands (docs/libarenafix.7, LIBCS): on glibc 2.17 too.
	@versions=$$(objdump -p $(SHIM_LIB) | awk '/^Version References/ { r = 1 } r && $$NF ~ /^GLIBC_[0-9]/ { print $$NF }' | sort -u); \
	newer=$$(echo "$$versions" | awk -F'[_.]' '$$2 > 2 || ($$2 == 2 && $$3 > 17)' | tr '\n' ' '); \
	if [ -n "$$newer" ]; then echo "versions: FAIL: the library needs $$newer(newer than glibc 2.17:" \
	    "an older glibc would refuse it; see shim/symvers.h)"; exit 1; fi; \
	echo "versions: ok (every one glibc 2.17 defines: $$(echo $$versions))"
