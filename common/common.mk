# common/: what the library, the command, the benchmark and the tests
# share, each written once:
#   config.c, usersettings.c, sysparse.c  the pure parsers of ARENAFIX_*,
#                       GLIBC_TUNABLES and sysfs cpulists (the library
#                       decides with them, the command reports with them)
#   json.c              the JSON writer of the command's and the
#                       benchmark's reports
#   arenacount.h        counting a process's arenas (malloc_info)
#   arenarule.h         the fixed glibc's arena limit
# The two headers are complete in themselves (static inline): the test
# programs, built one file each for several glibcs and architectures,
# include them with nothing more to link.
#
# Built once, position-independent and with hidden visibility, so the
# library links the parsers' objects and the command and the benchmark
# link the same objects from $(COMMON_LIB).

COMMON_PARSERS := common/sysparse.c common/usersettings.c common/config.c
COMMON_SRC     := $(COMMON_PARSERS) common/json.c
COMMON_OBJ     := $(COMMON_SRC:common/%.c=$(B)/common/%.o)
COMMON_LIB     := $(B)/common/libafxcommon.a
COMMON_CFLAGS  := $(AFX_CFLAGS) -fPIC -fvisibility=hidden -fexceptions -MMD -MP

$(B)/common:
	mkdir -p $@

$(B)/common/%.o: common/%.c | $(B)/common
	$(CC) $(CPPFLAGS) $(COMMON_CFLAGS) $(CFLAGS) -c $< -o $@

$(COMMON_LIB): $(COMMON_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

-include $(wildcard $(B)/common/*.d)
