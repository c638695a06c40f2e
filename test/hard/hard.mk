# make check-hard: sanitizers, fuzzing, concurrency, faults, hostile input
# and neighbouring libraries (docs/hardening.md).  Part of `make
# check-slow`, not of the fast tier: it needs root for some properties
# and takes a few minutes.
#
# make check-fuzz: the fuzz targets only, a short run (CI).
# make fuzz:       a long fuzz campaign (FUZZ_TIME seconds per target).

HARD     := $(B)/hard
HARD_BIN := $(HARD)/bin
FUZZ_DIR := $(B)/fuzz
FUZZ_CC  ?= $(eval FUZZ_CC := $$(shell command -v clang-14 || command -v clang))$(FUZZ_CC)
FUZZ_TIME ?= 600
# libFuzzer's default input length (4096 bytes, or the longest corpus
# file) never reaches what the maps reader must bound: a path of
# PATH_MAX bytes, a line past AFX_MAPS_LINE_MAX (16640) fed in pieces.
# check-fuzz's run and the campaign both use it.
FUZZ_MAPS_MAX_LEN ?= 40000
export FUZZ_MAPS_MAX_LEN

# The sanitizer runtimes a preload needs in front of it.
ASAN_RT = $(eval ASAN_RT := $$(shell $$(CC) -print-file-name=libasan.so))$(ASAN_RT)

HARD_CFLAGS := $(AFX_CFLAGS) -Icommon -O1 -g -pthread -fno-omit-frame-pointer
# The shim's own flags (shim.mk), for the sanitizer builds of it.
HARD_SHIM_CFLAGS := $(AFX_CFLAGS) -Ishim -Icommon -include shim/errnobind.h -include shim/symvers.h -O1 -g -fPIC -fvisibility=hidden -fexceptions \
                    -fno-omit-frame-pointer
SAN_ASAN  := -fsanitize=address,undefined -fno-sanitize-recover=undefined
SAN_UBSAN := -fsanitize=undefined -fno-sanitize-recover=all
SAN_TSAN  := -fsanitize=thread

HARD_PROGS := $(addprefix $(HARD_BIN)/,pinwork churn race faults semantics libwrapcreate.so mapfork nopidfd)
HARD_SAN   := $(HARD)/asan/libarenafix.so $(HARD)/ubsan/libarenafix.so $(HARD)/tsan/libarenafix.so \
              $(addprefix $(HARD)/asan/,pinwork churn race semantics) $(HARD)/tsan/race $(HARD)/tsan/pinwork \
              $(if $(UNIT_SRC),$(HARD)/asan/unit)
FUZZ_TARGETS := cpulist tunables config maps procstatus cgroup text unitfile engines bolt
FUZZ_BINS := $(if $(FUZZ_CC),$(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%))

.PHONY: check-hard check-fuzz fuzz hard-build
# The integration tests and their programs (test.mk) run again against
# the UBSan shim.
hard-build: $(SHIM_LIB) $(CLI_BIN) $(HARD_PROGS) $(HARD_SAN) $(FUZZ_BINS) \
            $(if $(INTEG_SRC),$(B)/test/integration $(TEST_PROGS))

$(HARD) $(HARD_BIN) $(HARD)/asan $(HARD)/ubsan $(HARD)/tsan $(FUZZ_DIR):
	mkdir -p $@

# ---- test programs --------------------------------------------------
$(HARD_BIN)/%: test/hard/progs/%.c test/progs/arenas.h test/progs/denyopen.h | $(HARD_BIN)
	$(CC) $(HARD_CFLAGS) $(CFLAGS) -o $@ $< -ldl

$(HARD_BIN)/semantics: test/hard/progs/semantics.cc | $(HARD_BIN)
	$(CXX) -O1 -g -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -pthread -o $@ $<

# Static: only the files it is given look like a libc in its maps.
$(HARD_BIN)/mapfork: test/hard/progs/mapfork.c | $(HARD_BIN)
	$(CC) $(HARD_CFLAGS) $(CFLAGS) -static -o $@ $<

$(HARD_BIN)/libwrapcreate.so: test/hard/progs/wrapcreate.c | $(HARD_BIN)
	$(CC) $(HARD_CFLAGS) $(CFLAGS) -fPIC -shared -o $@ $< -ldl

# ---- sanitizer builds of the shim (never the normal build's objects) ----
$(HARD)/%/libarenafix.so: $(SHIM_SRC) $(SHIM_MAP) | $(HARD)/asan $(HARD)/ubsan $(HARD)/tsan
	$(CC) $(HARD_SHIM_CFLAGS) $(SAN_$(call hard_san,$*)) -shared \
	    -Wl,--version-script=$(SHIM_MAP) -o $@ $(SHIM_SRC) -ldl -lpthread
hard_san = $(if $(filter asan,$1),ASAN,$(if $(filter ubsan,$1),UBSAN,TSAN))

$(HARD)/asan/%: test/hard/progs/%.c test/progs/arenas.h | $(HARD)/asan
	$(CC) $(HARD_CFLAGS) $(SAN_ASAN) -o $@ $< -ldl

$(HARD)/asan/semantics: test/hard/progs/semantics.cc | $(HARD)/asan
	$(CXX) -O1 -g -Wall -Wextra -pthread $(SAN_ASAN) -o $@ $<

$(HARD)/tsan/%: test/hard/progs/%.c test/progs/arenas.h | $(HARD)/tsan
	$(CC) $(HARD_CFLAGS) $(SAN_TSAN) -o $@ $< -ldl

$(HARD)/asan/unit: $(UNIT_SRC) $(SHIM_PURE) | $(HARD)/asan
	$(CC) $(HARD_CFLAGS) $(SAN_ASAN) $(CHECK_CFLAGS) -Ishim -Icommon -o $@ $(UNIT_SRC) $(SHIM_PURE) $(CHECK_LIBS)

# ---- fuzz targets (clang's libFuzzer) ---------------------------------
FUZZ_CFLAGS := $(AFX_CFLAGS) -g -O1 -fsanitize=fuzzer,address,undefined \
               -fno-sanitize-recover=undefined -Ishim -Icommon
# The unit-file reader is the command's: built with its sources.
$(FUZZ_DIR)/fuzz_unitfile: test/fuzz/fuzz_unitfile.c cli/enable/unitfile.c cli/preload.c cli/textbuf.c \
                           cli/enable/unitfile.h cli/preload.h cli/textbuf.h | $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Icli -Icli/enable -o $@ test/fuzz/fuzz_unitfile.c cli/enable/unitfile.c cli/preload.c \
	    cli/textbuf.c

$(FUZZ_DIR)/fuzz_%: test/fuzz/fuzz_%.c $(SHIM_PURE) common/sysparse.h common/usersettings.h \
                    common/config.h shim/policy.h | $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(SHIM_PURE)

# ---- running ------------------------------------------------------------
HARD_ENV = CC='$(CC)' HARD=$(abspath $(HARD)) HARD_SRC=$(abspath test/hard) FUZZ_BIN=$(abspath $(FUZZ_DIR)) \
           ASAN_RT=$(ASAN_RT) INTEG_BIN=$(abspath $(B)/test/integration) \
           TEST_BIN=$(abspath $(B)/test)

check-hard: hard-build
	$(HARD_ENV) bash test/hard/run.sh

check-fuzz: $(FUZZ_BINS)
	$(HARD_ENV) HARD_ONLY='^fuzz' bash test/hard/run.sh

# Long campaign: every target for FUZZ_TIME seconds on all CPUs; new
# inputs land in build/fuzz/corpus-TARGET (merge the useful ones into
# test/fuzz/corpus with -merge=1, see docs/hardening.md).  Run from
# build/fuzz: the workers write their fuzz-N.log into the current folder.
FUZZ_ABS := $(abspath $(FUZZ_DIR))
fuzz: $(FUZZ_BINS)
	@for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(FUZZ_ABS)/corpus-$$t $(FUZZ_ABS)/artifacts $(FUZZ_ABS)/logs-$$t; \
	    echo "fuzz_$$t: $(FUZZ_TIME)s"; \
	    (cd $(FUZZ_ABS)/logs-$$t && $(FUZZ_ABS)/fuzz_$$t -max_total_time=$(FUZZ_TIME) \
	        $$([ $$t = maps ] && echo -max_len=$(FUZZ_MAPS_MAX_LEN)) \
	        -print_final_stats=1 -jobs=$$(nproc) -workers=$$(nproc) \
	        -artifact_prefix=$(FUZZ_ABS)/artifacts/$$t- \
	        $(FUZZ_ABS)/corpus-$$t $(abspath test/fuzz/corpus)/$$t) || exit 1; \
	    tail -n 3 $(FUZZ_ABS)/logs-$$t/fuzz-0.log; \
	done
