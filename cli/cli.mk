# build/cli/arenafix: the command (cli/README.md maps its parts).  Its
# tests are in test/cli/.
#
# Every object but main's goes into one static library, which the
# command and its tests link: a file added, split or moved is in both.

CLI_SRC  := $(wildcard cli/*.c cli/*/*.c)
CLI_MAIN := cli/arenafix.c
CLI_OBJ  := $(CLI_SRC:cli/%.c=$(B)/cli/%.o)
CLI_AR   := $(B)/cli/libarenafix-cli.a
CLI_BIN  := $(B)/cli/arenafix

# Where the installed command finds the installed library.  When that is
# the multiarch directory, LD_PRELOAD gets a literal $LIB (ld.so expands
# it to lib/<multiarch> for each program), so 32- and 64-bit programs
# each load their own build, as with faketime.
CLI_LIB_ENTRY := $(if $(and $(MULTIARCH),$(filter $(PREFIX)/lib/$(MULTIARCH)/arenafix,$(PKGLIBDIR))),$(PREFIX)/$$LIB/arenafix/libarenafix.so,$(PKGLIBDIR)/libarenafix.so)
# Where the command run from the build tree finds the build's library:
# SHIM_LIB relative to $(B)/cli (a cross build puts both in its B).
CLI_BUILD_LIB := $(shell realpath -m --relative-to=$(B)/cli $(SHIM_LIB))
CLI_CFLAGS := $(AFX_CFLAGS) -Icli -Icommon -MMD -MP -pthread \
              -DAFX_PKGLIBDIR='"$(PKGLIBDIR)"' -DAFX_PRELOAD_ENTRY='"$(CLI_LIB_ENTRY)"' \
              -DAFX_BUILD_LIBRARY='"$(CLI_BUILD_LIB)"'

all: $(CLI_BIN)

$(B)/cli:
	mkdir -p $@

# The install directories and the build's library are compiled in:
# rebuild when they change.
$(B)/cli/paths.stamp: FORCE | $(B)/cli
	@echo '$(PKGLIBDIR) $(CLI_LIB_ENTRY) $(CLI_BUILD_LIB)' | cmp -s - $@ || \
	    echo '$(PKGLIBDIR) $(CLI_LIB_ENTRY) $(CLI_BUILD_LIB)' > $@
.PHONY: FORCE
FORCE:

$(B)/cli/library.o: $(B)/cli/paths.stamp

$(B)/cli/%.o: cli/%.c | $(B)/cli
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CLI_CFLAGS) $(CFLAGS) -c $< -o $@

$(CLI_AR): $(filter-out $(B)/cli/arenafix.o,$(CLI_OBJ))
	rm -f $@
	$(AR) rcs $@ $^

$(CLI_BIN): $(B)/cli/arenafix.o $(CLI_AR) $(COMMON_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -pthread -o $@ $^

-include $(wildcard $(B)/cli/*.d $(B)/cli/*/*.d)

.PHONY: install-cli uninstall-cli
install: install-cli
uninstall: uninstall-cli

install-cli: $(CLI_BIN)
	install -d $(DESTDIR)$(BINDIR)
	install -m 755 $(CLI_BIN) $(DESTDIR)$(BINDIR)/arenafix

uninstall-cli:
	rm -f $(DESTDIR)$(BINDIR)/arenafix

# ---- make check-cli: the command run for real (test/cli/) ------------
CLI_TEST_SRC := $(wildcard test/cli/test_*.c) test/cli/harness.c test/cli/main.c

# The tests call the command's own functions from its library (the
# linker takes the objects they need) and run the built command.
$(B)/test/cli-tests: $(CLI_TEST_SRC) test/cli/harness.h common/loader.h test/progs/emulated.h test/progs/suiterun.h \
                     $(CLI_AR) $(COMMON_LIB) | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CHECK_CFLAGS) -Icli -Icommon -Itest/progs $(CFLAGS) -o $@ $(CLI_TEST_SRC) \
	    $(CLI_AR) $(COMMON_LIB) $(CHECK_LIBS)

# No preload reaches a static program: the wrapper must warn about it.
$(B)/test/cli-static: test/cli/static.c | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -static -o $@ $<

# A process with a known number of arenas, for inspect.
$(B)/test/arenawait: test/cli/arenawait.c test/progs/arenas.h | $(B)/test
	$(CC) $(TEST_CFLAGS) -Itest/progs $(CFLAGS) -o $@ $<

# A process a local attacker would make (static: only the files it maps
# look like its libc and ld.so), for inspect; also its attacker's ld.so.
$(B)/test/hostile: test/cli/hostile.c | $(B)/test
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -static -o $@ $<

# The hardening suite plays the attacker against the command
# (test/hard/attack-*.sh).
hard-build: $(CLI_BIN) $(B)/test/hostile

# The fuzz targets of the command's readers of what a process controls
# (test/hard/hard.mk builds them) include the files they test.
$(B)/fuzz/fuzz_maps: cli/proc/procmaps.c cli/proc/procmaps.h
$(B)/fuzz/fuzz_procstatus: cli/proc/procstatus.c cli/proc/procstatus.h cli/proc/procenv.c cli/proc/procenv.h
$(B)/fuzz/fuzz_text: cli/escape.c cli/escape.h common/json.c common/json.h

.PHONY: check-cli
check: check-cli
check-cli: $(CLI_BIN) $(SHIM_LIB) $(B)/test/pinned $(B)/test/cli-static $(B)/test/arenawait $(B)/test/hostile \
           $(B)/real/countarenas.so $(B)/test/cli-tests
	AFX_TEST_JOBS=$(AFX_TEST_JOBS) AFX_CLI=$(abspath $(CLI_BIN)) AFX_TEST_BIN=$(abspath $(B)/test) $(B)/test/cli-tests
