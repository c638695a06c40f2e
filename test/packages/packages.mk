# make check-packages: test/deps.sh (make deps and its tiers) against
# stand-ins for dpkg and apt-get, and the tiers of test/packages.txt.
.PHONY: check-packages
CHECK_SUITES += check-packages
check-packages:
	sh test/packages/check.sh
