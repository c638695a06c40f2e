# check-deb: the Debian packages, built, linted, installed and tested the
# way an archive would: dpkg-buildpackage in a clean copy of the tree
# (build/deb/src; never in the tree itself), lintian with no errors and no
# warnings, apt-get install of the .debs, then the autopkgtest suite
# (debian/tests) against the installed packages, and purge.
# Needs root and the Build-Depends (sh test/deb/build-deps.sh).

DEB_OUT := $(B)/deb
DEB_SRC := $(DEB_OUT)/src
# What the packaging's own calls must not inherit from this make: its
# flags and command-line variables (WERROR=1 must not reach the package
# build) and the library the upstream tests load.
DEB_ENV := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u ARENAFIX_TESTLIB -u WERROR

.PHONY: deb lint-deb check-deb

# The working tree as git sees it (tracked and new files, ignored ones
# left out), so that uncommitted changes are built too.
deb:
	rm -rf $(DEB_OUT)
	mkdir -p $(DEB_SRC)
	git ls-files -z --cached --others --exclude-standard | \
	    tar --null --ignore-failed-read -T - -cf - | tar -xf - -C $(DEB_SRC)
	test "$$(cd $(DEB_SRC) && dpkg-parsechangelog -S Version)" = "$(VERSION)" || \
	    { echo "debian/changelog does not name version $(VERSION)" >&2; exit 1; }
	cd $(DEB_SRC) && $(DEB_ENV) dpkg-buildpackage -us -uc -b
	# The build's outputs must not stand in for the installed packages.
	cd $(DEB_SRC) && $(DEB_ENV) debian/rules clean

lint-deb: deb
	lintian --fail-on error,warning --display-info $(DEB_OUT)/*.changes

check-deb: lint-deb
	$(DEB_ENV) DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -q --reinstall --allow-downgrades $(abspath $(DEB_OUT))/*.deb
	rm -rf $(DEB_OUT)/autopkgtest
	$(DEB_ENV) autopkgtest --no-built-binaries --output-dir $(DEB_OUT)/autopkgtest \
	    $(if $(ARENAFIX_AFFECTED_GLIBC),--env=ARENAFIX_AFFECTED_GLIBC=$(ARENAFIX_AFFECTED_GLIBC)) \
	    $(DEB_SRC)/ -- null
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q arenafix arenafix-bench libarenafix
