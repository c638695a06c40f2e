# shim/libarenafix.so: the preload library.

# The pure code the unit tests and fuzzers take: the shared parsers
# (common/) and the decision.
SHIM_PURE := $(COMMON_PARSERS) shim/policy.c
SHIM_OWN  := shim/policy.c shim/libc.c shim/log.c shim/sysread.c shim/marks.c shim/real.c shim/elfsym.c \
             shim/mask.c shim/livecount.c shim/activate.c shim/interpose.c shim/helpers.c shim/touch.c
SHIM_SRC  := $(COMMON_PARSERS) $(SHIM_OWN)
SHIM_OBJ  := $(COMMON_PARSERS:common/%.c=$(B)/common/%.o) $(SHIM_OWN:shim/%.c=$(B)/shim/%.o)
SHIM_LIB  := shim/libarenafix.so

SHIM_ARCH := $(shell $(CC) -dumpmachine 2>/dev/null)
ifneq ($(filter x86_64-%,$(SHIM_ARCH)),)
SHIM_MAP := shim/libarenafix-x86_64.map
else ifneq ($(filter i386-% i486-% i586-% i686-%,$(SHIM_ARCH)),)
SHIM_MAP := shim/libarenafix-i386.map
else
SHIM_MAP := shim/libarenafix.map
endif

# -fexceptions: C++ exceptions and forced unwinding (pthread_cancel,
# pthread_exit) pass through the trampoline's frame.
SHIM_CFLAGS := $(AFX_CFLAGS) -Icommon -include shim/errnobind.h -include shim/symvers.h -fPIC -fvisibility=hidden -fexceptions -MMD -MP
# glibc >= 2.34 has dlsym and pthread_* in libc itself; older ones need
# the stub libraries.
# Asked at its first use (a link), not by every make that reads this file.
SHIM_LIBS = $(eval SHIM_LIBS := $$(shell printf '\043include <dlfcn.h>\nint main(void){return dlsym(0,"x")!=0;}' | \
               $$(CC) -x c - -o /dev/null 2>/dev/null || echo -ldl -lpthread))$(SHIM_LIBS)

all: $(SHIM_LIB)

$(B)/shim/%.o: shim/%.c | $(B)/shim
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) $(CFLAGS) -c $< -o $@

$(B)/shim:
	mkdir -p $@

# Bound lazily whatever a distribution's flags ask (-z now: Debian's
# hardening=+all, Fedora's): every process on a host with the library in
# /etc/ld.so.preload would resolve all of its imports at load, 1.35 times
# an empty preload's instructions for /bin/true where 1.14 is the floor
# (docs/benchmarks.md).  What must not bind lazily (the affinity
# interposers, in signal handlers) goes through pointers filled at load.
#
# Without the start files but crtendS.o (the end mark of .eh_frame, which
# unwinding through the trampoline reads): crtbeginS.o's transactional
# memory and gmon hooks and its __cxa_finalize are four symbol lookups
# at load in every process (three of them failing through every object),
# for C++ and profiling this library has none of.  Constructors run from
# .init_array, which needs no start file.
#
# Then the references to __libc_single_threaded (glibc 2.32's) and
# pthread_getattr_default_np (2.18's) are made unversioned
# (shim/unversion.c says why), by a tool built for the build host, so
# that the library loads on an older glibc and stands down there.
SHIM_CRTEND := $(shell $(CC) -print-file-name=crtendS.o)
BUILD_CC ?= cc
SHIM_UNVERSION := $(B)/shim/unversion
$(SHIM_UNVERSION): shim/unversion.c | $(B)/shim
	$(BUILD_CC) -std=gnu11 $(WARNINGS) -O2 -o $@ $<
$(SHIM_LIB): $(SHIM_OBJ) $(SHIM_MAP) $(SHIM_UNVERSION)
	$(CC) -shared -nostartfiles $(CFLAGS) $(LDFLAGS) -Wl,--version-script=$(SHIM_MAP) \
	    -Wl,-z,defs -Wl,--as-needed -Wl,-z,lazy -o $@.tmp $(SHIM_OBJ) $(SHIM_LIBS) $(SHIM_CRTEND)
	$(SHIM_UNVERSION) $@.tmp __libc_single_threaded pthread_getattr_default_np
	mv $@.tmp $@

.PHONY: install-shim uninstall-shim
install: install-shim
uninstall: uninstall-shim

install-shim: $(SHIM_LIB)
	install -d $(DESTDIR)$(PKGLIBDIR)
	install -m 644 $(SHIM_LIB) $(DESTDIR)$(PKGLIBDIR)/libarenafix.so

uninstall-shim:
	rm -f $(DESTDIR)$(PKGLIBDIR)/libarenafix.so
	-rmdir $(DESTDIR)$(PKGLIBDIR)
