# make mutants: mutation testing of the library and the command.  Each
# mutant in test/mutants/list (shim/, common/) and test/mutants/list-cli (cli/) is
# applied to a copy of the tree in build/mutants/tree (never to this
# one), what it changes is rebuilt there, and the suites of that part run
# against it until one fails (shim/: check-exports, check-unit,
# check-shim, check-real, then check-attack; cli/: check-cli, then check-attack);
# test/mutants/run.sh says what it reports.  Not part of `make check`: it
# runs every suite once per mutant (check-mutants-list, which is, only
# checks the lists against the code).
#
#   make mutants                              # every mutant
#   make mutants MUTANTS_ONLY='^interpose-'   # the mutants whose id matches
#   make mutants MUTANTS_ALLOW_SURVIVORS=1    # report survivors, exit 0

.PHONY: mutants check-attack check-mutants-list mutants-build-common
mutants:
	MUTANTS_MAKE='$(MAKE)' CC='$(CC)' MUTANTS_CFLAGS='$(CFLAGS)' bash test/mutants/run.sh

# The lists against the code, in the fast tier: a file moved or a line
# changed under a mutant fails make check at once, naming the entry,
# instead of leaving a stale mutant for the next full run to find.
CHECK_SUITES += check-mutants-list
check-mutants-list:
	MUTANTS_CHECK_LIST=1 bash test/mutants/run.sh

# What a mutant of common/ rebuilds: the library and the command.
mutants-build-common: $(SHIM_LIB) $(CLI_BIN)

# The root attacker properties of check-hard (test/hard/attack-*.sh)
# alone, with only what they need built: not hard-build's sanitizer and
# fuzz builds, which no attacker property runs.  Each property skips
# when not run as root.
check-attack: $(SHIM_LIB) $(CLI_BIN) $(B)/test/hostile $(B)/test/arenawait $(B)/test/fixedarenas $(HARD_PROGS)
	$(HARD_ENV) HARD_ONLY='^attack' bash test/hard/run.sh
