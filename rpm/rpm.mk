# The RPM packages (rpm/arenafix.spec), for Fedora and the RHEL 9 family.
#   make rpm        the source and binary packages, built with rpmbuild
#                   (its %check runs the unit and integration tests);
#                   everything under build/rpm
#   make check-rpm  make rpm, rpmlint on the spec and the packages, then
#                   the binary packages' payload unpacked into a scratch
#                   root and tested there (rpm/check.sh)
# Neither needs root nor installs anything.  On a Debian host this is as
# far as the packages can be tested: they are never installed on an RPM
# system here.

RPM_OUT  := $(B)/rpm
RPM_NAME := arenafix-$(VERSION)
# What rpmbuild must not inherit from this make: its flags and
# command-line variables (WERROR=1 must not reach the package build) and
# the library the upstream tests load.  ARENAFIX_AFFECTED_GLIBC passes,
# as in make deb: the %check then proves the fix there too (a
# distribution's build root has none, and those tests say they skipped).
RPM_ENV  := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u ARENAFIX_TESTLIB -u WERROR
# rpmbuild on Debian:
# --nodeps   the BuildRequires name RHEL packages, which Debian's empty rpm
#            database never holds; their Debian equivalents are in
#            test/packages.txt.
# _topdir, _tmppath  the tree rpmbuild works in and its scripts, here.
# _docdir_fmt  documentation and licenses in /usr/share/doc/NAME and
#            /usr/share/licenses/NAME, without the version, as on RHEL.
# __brp_compress  Debian's brp-compress is a bash script under #!/bin/sh
#            ("read: Illegal option -d" from dash): it would leave the
#            manual pages uncompressed, where RHEL gzips them.
# Debian's rpm has the upstream macros the spec uses (%set_build_flags,
# %make_build, %autosetup), and %{_libdir} is /usr/lib64 on x86_64 as on
# RHEL.  It makes no -debuginfo packages (RHEL's redhat-rpm-config adds
# them, and strips the binaries into them): the binary packages are the
# spec's three, with their symbols.
RPMBUILD_FLAGS := --nodeps --define "_topdir $(abspath $(RPM_OUT))" \
                  --define "_tmppath $(abspath $(RPM_OUT))/tmp" \
                  --define "_docdir_fmt %%{NAME}" \
                  --define "__brp_compress bash %{_rpmconfigdir}/brp-compress %{?_prefix}"
# More rpmbuild options from the caller: check-fleet's two releases
# (--nocheck, a dist tag of their own).
RPMBUILD_EXTRA ?=

.PHONY: rpm check-rpm

# Built from the working tree as git sees it (tracked and new files,
# ignored ones left out), so that uncommitted changes are built too, and
# the spec taken from that tree, as a packager takes it from the tarball.
rpm:
	rm -rf $(RPM_OUT)
	mkdir -p $(RPM_OUT)/$(RPM_NAME) $(RPM_OUT)/SOURCES $(RPM_OUT)/SPECS $(RPM_OUT)/tmp
	git ls-files -z --cached --others --exclude-standard | \
	    tar --null --ignore-failed-read -T - -cf - | tar -xf - -C $(RPM_OUT)/$(RPM_NAME)
	grep -Eq '^Version: +$(VERSION)$$' $(RPM_OUT)/$(RPM_NAME)/rpm/arenafix.spec || \
	    { echo "rpm/arenafix.spec does not name version $(VERSION)" >&2; exit 1; }
	cp $(RPM_OUT)/$(RPM_NAME)/rpm/arenafix.spec $(RPM_OUT)/SPECS/
	tar -C $(RPM_OUT) --sort=name --owner=0 --group=0 --numeric-owner \
	    -czf $(RPM_OUT)/SOURCES/$(RPM_NAME).tar.gz $(RPM_NAME)
	rm -rf $(RPM_OUT)/$(RPM_NAME)
	$(RPM_ENV) rpmbuild -ba $(RPMBUILD_FLAGS) $(RPMBUILD_EXTRA) $(RPM_OUT)/SPECS/arenafix.spec

# The script runs make rpm itself, so that a host without rpmbuild gets
# skips with the reason, and a failed build is counted and reported.
check-rpm:
	MAKE="$(MAKE)" sh rpm/check.sh $(RPM_OUT) $(VERSION)
