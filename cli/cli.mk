# build/cli/arenafix: the command (cli/README.md maps its parts).  Its
# tests are in test/cli/.
#
# Every object but main's goes into one static library, which the
# command and its tests link: a file added, split or moved is in both.

CLI_SRC  := $(wildcard cli/*.c cli/*/*.c)
CLI_MAIN := cli/arenafix.c cli/arenafix-runtime.c
CLI_OBJ  := $(CLI_SRC:cli/%.c=$(B)/cli/%.o)
CLI_AR   := $(B)/cli/libarenafix-cli.a
CLI_BIN  := $(B)/cli/arenafix
# The OCI runtime shim (cli/runtime/): a program of its own, in front of runc.
RUNTIME_BIN := $(B)/cli/arenafix-runtime

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
              -DAFX_BUILD_LIBRARY='"$(CLI_BUILD_LIB)"' -DAFX_BINDIR='"$(BINDIR)"' -DAFX_SYSCONFDIR='"$(SYSCONFDIR)"'

CLI_HOOK_JSON := $(B)/cli/arenafix-oci-hook.json

all: $(CLI_BIN) $(RUNTIME_BIN) $(CLI_HOOK_JSON)

# The hooks.d entry for podman and CRI-O: the installed command, run
# where a container has the annotation (docs/deploy.md).
$(CLI_HOOK_JSON): cli/hook/oci-hook.json.in $(B)/cli/paths.stamp | $(B)/cli
	sed -e 's|@BINDIR@|$(BINDIR)|' -e 's|@HOOKLOG@|$(HOOKLOG)|' $< > $@

$(B)/cli:
	mkdir -p $@

# The install directories and the build's library are compiled in:
# rebuild when they change.
$(B)/cli/paths.stamp: FORCE | $(B)/cli
	@echo '$(PKGLIBDIR) $(CLI_LIB_ENTRY) $(CLI_BUILD_LIB) $(BINDIR) $(SYSCONFDIR) $(HOOKLOG)' | cmp -s - $@ || \
	    echo '$(PKGLIBDIR) $(CLI_LIB_ENTRY) $(CLI_BUILD_LIB) $(BINDIR) $(SYSCONFDIR) $(HOOKLOG)' > $@
.PHONY: FORCE
FORCE:

$(B)/cli/library.o $(B)/cli/runtime/runtimeconf.o $(B)/cli/runtime/runtimecmd.o: $(B)/cli/paths.stamp

$(B)/cli/%.o: cli/%.c | $(B)/cli
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CLI_CFLAGS) $(CFLAGS) -c $< -o $@

$(CLI_AR): $(filter-out $(CLI_MAIN:cli/%.c=$(B)/cli/%.o),$(CLI_OBJ))
	rm -f $@
	$(AR) rcs $@ $^

$(CLI_BIN): $(B)/cli/arenafix.o $(CLI_AR) $(COMMON_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -pthread -o $@ $^

$(RUNTIME_BIN): $(B)/cli/arenafix-runtime.o $(CLI_AR) $(COMMON_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

-include $(wildcard $(B)/cli/*.d $(B)/cli/*/*.d)

.PHONY: install-cli uninstall-cli
install: install-cli
uninstall: uninstall-cli

install-cli: $(CLI_BIN) $(RUNTIME_BIN) $(CLI_HOOK_JSON)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(HOOKSDIR)
	install -m 755 $(CLI_BIN) $(DESTDIR)$(BINDIR)/arenafix
	install -m 755 $(RUNTIME_BIN) $(DESTDIR)$(BINDIR)/arenafix-runtime
	install -m 755 deploy/containerd/arenafix-containerd-config $(DESTDIR)$(BINDIR)/arenafix-containerd-config
	install -m 644 $(CLI_HOOK_JSON) $(DESTDIR)$(HOOKSDIR)/arenafix.json

uninstall-cli:
	rm -f $(DESTDIR)$(BINDIR)/arenafix $(DESTDIR)$(BINDIR)/arenafix-runtime \
	    $(DESTDIR)$(BINDIR)/arenafix-containerd-config $(DESTDIR)$(HOOKSDIR)/arenafix.json
