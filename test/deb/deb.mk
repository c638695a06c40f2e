# check-deb: the Debian packages, built, linted, installed and tested the
# way an archive would: dpkg-buildpackage in a clean copy of the tree
# (build/deb/src; never in the tree itself), lintian with no errors and no
# warnings, apt-get install of the .debs, then the autopkgtest suite
# (debian/tests) against the installed packages, and purge.
# Needs the Build-Depends (sh test/deb/build-deps.sh); check-deb needs
# root to install and purge, `make deb` and `make lint-deb` do not.

DEB_OUT := $(B)/deb
DEB_SRC := $(DEB_OUT)/src
# What the packaging's own calls must not inherit from this make: its
# flags and command-line variables (WERROR=1 must not reach the package
# build) and the library the upstream tests load.
DEB_ENV := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u ARENAFIX_TESTLIB -u WERROR

.PHONY: deb lint-deb check-deb

# Built from the working tree as git sees it (tracked and new files,
# ignored ones left out), so that uncommitted changes are built too; then
# cleaned, so that autopkgtest sees a tree without the build's outputs.
deb:
	rm -rf $(DEB_OUT)
	mkdir -p $(DEB_SRC)
	git ls-files -z --cached --others --exclude-standard | \
	    tar --null --ignore-failed-read -T - -cf - | tar -xf - -C $(DEB_SRC)
	test "$$(cd $(DEB_SRC) && dpkg-parsechangelog -S Version)" = "$(VERSION)" || \
	    { echo "debian/changelog does not name version $(VERSION)" >&2; exit 1; }
	cd $(DEB_SRC) && $(DEB_ENV) dpkg-buildpackage -us -uc -b
	cd $(DEB_SRC) && $(DEB_ENV) debian/rules clean

# lintian, and the promise of debian/README.Debian: no maintainer script
# writes /etc/ld.so.preload.  Only libarenafix's prerm reads it, to warn
# before the library goes; test/deb/prerm-check.sh runs that script as
# built and checks its warnings, its silence on upgrade, and that it
# changes no file.
lint-deb: deb
	lintian --fail-on error,warning --display-info $(DEB_OUT)/*.changes
	for deb in $(DEB_OUT)/*.deb; do \
	    rm -rf $(DEB_OUT)/control && dpkg-deb --control $$deb $(DEB_OUT)/control && \
	    if [ "$$(dpkg-deb --field $$deb Package)" = libarenafix ]; then \
	        sh test/deb/prerm-check.sh $(DEB_OUT)/control/prerm $(DEB_OUT)/prerm-root || exit 1; \
	        rm $(DEB_OUT)/control/prerm; fi && \
	    if grep -l ld.so.preload $(DEB_OUT)/control/*; then \
	        echo "$$deb: a maintainer script names /etc/ld.so.preload" >&2; exit 1; fi; \
	done
	rm -rf $(DEB_OUT)/control

check-deb: lint-deb
	$(DEB_ENV) DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -q --reinstall --allow-downgrades $(abspath $(DEB_OUT))/*.deb
	rm -rf $(DEB_OUT)/autopkgtest
	$(DEB_ENV) autopkgtest --no-built-binaries --output-dir $(DEB_OUT)/autopkgtest \
	    $(if $(ARENAFIX_AFFECTED_GLIBC),--env=ARENAFIX_AFFECTED_GLIBC=$(ARENAFIX_AFFECTED_GLIBC)) \
	    $(DEB_SRC)/ -- null
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q \
	    $$(for deb in $(DEB_OUT)/*.deb; do dpkg-deb --field $$deb Package; done)
