# make check-cli: the arenafix command run for real (test/cli/), with
# the test programs it inspects.  Included after cli/cli.mk.

CLI_TEST_SRC := $(wildcard test/cli/test_*.c) test/cli/harness.c test/cli/fstree.c test/cli/main.c
CLI_TEST_OBJ := $(CLI_TEST_SRC:test/cli/%.c=$(B)/test/cli/%.o)

# The tests call the command's own functions from its library (the
# linker takes the objects they need) and run the built command.  One
# object a file: make -j compiles them side by side, and a change
# recompiles its file alone (each object's headers: its .d).
$(B)/test/cli/%.o: test/cli/%.c test/cli/harness.h | $(B)/test
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(CHECK_CFLAGS) -Icli -Icommon -Itest/progs $(CFLAGS) $(HARNESS_OPT) -c -o $@ $<

$(B)/test/cli-tests: $(CLI_TEST_OBJ) $(CLI_AR) $(COMMON_LIB) | $(B)/test
	$(CC) $(CFLAGS) -pthread -o $@ $(CLI_TEST_OBJ) $(CLI_AR) $(COMMON_LIB) $(CHECK_LIBS)

-include $(wildcard $(B)/test/cli/*.d)

# No preload reaches a static program: the wrapper must warn about it.
$(B)/test/cli-static: test/cli/static.c | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -static -o $@ $<

# A musl program (musl-tools), and arenawait linked statically against
# the host's own libc.a (libc6-dev's, in the multiarch directory) and
# against Debian's 2.36-8 as shipped (libc6-dev-amd64-cross), for
# arenafix CMD and inspect.  Without the tool or the library the tests
# that need them skip, naming it.  The host's libc.a is named with -B
# and -L: gcc searches /usr/x86_64-linux-gnu/lib first, so where
# libc6-dev-amd64-cross is installed a plain -static links its 2.36-8.
$(B)/test/muslwait: test/cli/muslwait.c | $(B)/test
	@rm -f $@
	-command -v musl-gcc >/dev/null && musl-gcc -O2 -o $@ $<
HOST_STATIC_LIBC := /usr/lib/$(shell $(CC) -print-multiarch 2>/dev/null)
$(B)/test/arenawait-static: test/cli/arenawait.c test/progs/arenas.h test/cli/cli.mk | $(B)/test
	@rm -f $@
	-[ -e $(HOST_STATIC_LIBC)/libc.a ] && \
	    $(CC) $(TEST_CFLAGS) -Itest/progs $(CFLAGS) -static -B$(HOST_STATIC_LIBC)/ -L$(HOST_STATIC_LIBC) -o $@ $<
STATIC_AFFECTED_LIBC := /usr/x86_64-linux-gnu/lib
$(B)/test/arenawait-static-affected: test/cli/arenawait.c test/progs/arenas.h | $(B)/test
	@rm -f $@
	-[ "$$(uname -m)" = x86_64 ] && [ -e $(STATIC_AFFECTED_LIBC)/libc.a ] && \
	    $(CC) $(TEST_CFLAGS) -Itest/progs $(CFLAGS) -static -B$(STATIC_AFFECTED_LIBC)/ -L$(STATIC_AFFECTED_LIBC) -o $@ $<

# A process with a known number of arenas, for inspect and the
# containers; bound at load (see its comment).
$(B)/test/arenawait: test/cli/arenawait.c test/progs/arenas.h | $(B)/test
	$(CC) $(TEST_CFLAGS) -Itest/progs $(CFLAGS) -Wl,-z,now -o $@ $<

# A process a local attacker would make (static: only the files it maps
# look like its libc and ld.so), for inspect; also its attacker's ld.so.
$(B)/test/hostile: test/cli/hostile.c | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -static -o $@ $<

# A user's FUSE file system that never answers a scan (test_hostile.c).
$(B)/test/fuseserve: test/cli/fuseserve.c | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -o $@ $<

# A process whose environment pages are a user's FUSE file or a
# userfaultfd's (test_hostile.c).
$(B)/test/fusecover: test/cli/fusecover.c | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -o $@ $<

# A command run where O_TMPFILE is not supported, or a write fails, for
# --output.
$(B)/test/sysfail: test/cli/sysfail.c | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -o $@ $<

# getrandom(3) giving zeros: --output's fallback name known in advance.
$(B)/test/fixedrandom.so: test/cli/fixedrandom.c | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $<

# A CLOCK_MONOTONIC that stands still: no deadline of the command's
# passes while callgrind counts its instructions.
$(B)/test/stillclock.so: test/cli/stillclock.c | $(B)/test
	$(CC) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $<

# The hardening suite plays the attacker against the command
# (test/hard/attack-*.sh).
hard-build: $(CLI_BIN) $(B)/test/hostile

# The fuzz targets of the command's readers of what a process controls
# (test/hard/hard.mk builds them) include the files they test.
$(B)/fuzz/fuzz_maps: cli/proc/procmaps.c cli/proc/procmaps.h
$(B)/fuzz/fuzz_procstatus: cli/proc/procstatus.c cli/proc/procstatus.h cli/proc/procenv.c cli/proc/procenv.h
$(B)/fuzz/fuzz_text: cli/escape.c cli/escape.h common/json.c common/json.h
$(B)/fuzz/fuzz_cgroup: cli/proc/proccgroup.c cli/proc/proccgroup.h
$(B)/fuzz/fuzz_engines: cli/proc/enginestate.c cli/proc/enginestate.h
$(B)/fuzz/fuzz_bolt: cli/proc/boltdb.c cli/proc/boltdb.h cli/proc/podmancmd.c cli/proc/podmancmd.h cli/proc/ocijson.c cli/proc/ocijson.h

.PHONY: check-cli
CHECK_SUITES += check-cli
CLI_CHECK_NEEDS = $(CLI_BIN) $(RUNTIME_BIN) $(SHIM_LIB) $(B)/test/pinned $(B)/test/cli-static $(B)/test/arenawait $(B)/test/hostile $(B)/test/fuseserve $(B)/test/fusecover \
           $(B)/test/sysfail $(B)/test/fixedrandom.so $(B)/test/stillclock.so $(B)/real/countarenas.so $(B)/test/cli-tests \
           $(B)/test/muslwait $(B)/test/arenawait-static $(B)/test/arenawait-static-affected
# What check-cli runs, and nothing else: make check builds it first.
.PHONY: check-cli-needs
check-cli-needs: $(CLI_CHECK_NEEDS)
	@:

# The files themselves, not check-cli-needs: make check has built them
# already, so check-cli starts on make's first walk of the goals.  Behind
# that phony's recipe (which orders check-shim, whose needs are built in
# the same make, test/test.mk) it waited for the next walk, until every
# object check-shim runs was started (some 2 s).
check-cli: $(CLI_CHECK_NEEDS)
	$(CK_SELECT) $(CK_NO_COST) AFX_TEST_JOBS=$(AFX_TEST_JOBS) AFX_CLI=$(abspath $(CLI_BIN)) AFX_TEST_BIN=$(abspath $(B)/test) \
	    $(B)/test/cli-tests

# The command's costs, callgrind's counts (part of make check-cost).
.PHONY: check-cost-cli
check-cost: check-cost-cli
check-cost-cli: $(CLI_CHECK_NEEDS)
	$(CK_SELECT) CK_INCLUDE_TAGS=cost AFX_TEST_JOBS=$(AFX_TEST_JOBS) AFX_CLI=$(abspath $(CLI_BIN)) \
	    AFX_TEST_BIN=$(abspath $(B)/test) $(B)/test/cli-tests
