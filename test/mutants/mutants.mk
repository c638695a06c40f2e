# make mutants: mutation testing of the shim.  Each mutant in
# test/mutants/list is applied to a copy of the tree in build/mutants/tree
# (never to this one), the library is rebuilt there, and the suites run
# against it until one fails (check-exports, check-unit, check-shim, then
# check-real); test/mutants/run.sh says what it reports.  Not part of
# `make check`: it runs every suite once per mutant.
#
#   make mutants                              # every mutant
#   make mutants MUTANTS_ONLY='^interpose-'   # the mutants whose id matches
#   make mutants MUTANTS_ALLOW_SURVIVORS=1    # report survivors, exit 0

.PHONY: mutants
mutants:
	MUTANTS_MAKE='$(MAKE)' CC='$(CC)' MUTANTS_CFLAGS='$(CFLAGS)' bash test/mutants/run.sh
