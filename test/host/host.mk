# make check-host: an affected Debian 12 host, emulated (qemu TCG, 16 vCPUs
# in 2 sockets and 2 NUMA nodes), booted with systemd from a debootstrap
# root file system whose glibc is the affected one, where the project's
# .debs are installed with dpkg and rolled out as docs/rollout.md and
# docs/deploy.md say.  See test/host/README.md.  Needs root (debootstrap,
# chroot, dpkg-divert) and the mirror apt uses (the root file system is
# cached in build/host/ between runs).

HOST := $(B)/host
HOST_V2 := $(VERSION)+check1

-include test/host/progs.mk

.PHONY: check-host host-debs
# The project's packages twice: as `make deb` builds them (check-deb's
# rules), and the same tree with a higher version in debian/changelog,
# for the upgrade.  The upstream tests are not run again inside these
# builds (nocheck): check-deb runs them on the same tree.
host-debs:
	rm -rf $(HOST)/deb-v1 $(HOST)/deb-v2
	DEB_BUILD_OPTIONS=nocheck $(MAKE) --no-print-directory deb DEB_OUT=$(abspath $(HOST)/deb-v1) >$(HOST)/deb-v1.log 2>&1 || \
	    { tail -n 30 $(HOST)/deb-v1.log; exit 1; }
	mkdir -p $(HOST)/deb-v2
	cp -a $(HOST)/deb-v1/src $(HOST)/deb-v2/src
	cd $(HOST)/deb-v2/src && \
	    { printf 'arenafix (%s) unstable; urgency=medium\n\n  * Test build for the upgrade path of make check-host.\n\n -- %s  %s\n\n' \
	        '$(HOST_V2)' "$$(dpkg-parsechangelog -S Maintainer)" "$$(date -R)"; cat debian/changelog; } >debian/changelog.new && \
	    mv debian/changelog.new debian/changelog && \
	    $(DEB_ENV) DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b >../build.log 2>&1 || \
	    { tail -n 30 ../build.log; exit 1; }

check-host: $(SHIM_LIB) $(CLI_BIN) $(HOST_PROGS) $(B)/test/fixedarenas
	@if [ -z "$(ARENAFIX_AFFECTED_GLIBC)" ]; then \
	    echo "check-host: 0 passed, 0 failed, 1 skipped (no affected glibc: set ARENAFIX_AFFECTED_GLIBC)"; exit 0; fi; \
	if [ "$$(id -u)" -ne 0 ]; then \
	    echo "check-host: 0 passed, 0 failed, 1 skipped (needs root: debootstrap, chroot, dpkg-divert)"; exit 0; fi; \
	set -e; \
	mkdir -p $(HOST); \
	t0=$$(date +%s); \
	sh test/host/prepare.sh $(HOST) $(VM); \
	sh test/host/mkrootfs.sh $(HOST) test/host/rootfs-packages.txt; \
	t1=$$(date +%s); echo "check-host: root file system ready in $$((t1 - t0)) s"; \
	$(MAKE) --no-print-directory host-debs; \
	t2=$$(date +%s); echo "check-host: packages built in $$((t2 - t1)) s"; \
	rm -rf $(HOST)/progs-payload; mkdir -p $(HOST)/progs-payload; \
	cp $(HOST_PROGS) test/host/progs/dpdk-autotests.txt $(HOST)/progs-payload/; \
	sh test/host/mkimage.sh $(HOST) $(HOST)/rootfs.tar $(firstword $(subst :, ,$(ARENAFIX_AFFECTED_GLIBC))) \
	    $(HOST)/deb-v1 $(HOST)/deb-v2/ $(HOST)/progs-payload; \
	t3=$$(date +%s); echo "check-host: disk image made in $$((t3 - t2)) s"; \
	AFX_FIXEDARENAS=$(abspath $(B)/test/fixedarenas) AFX_TEXTFILE_EXPOSURE_MAX=$(TEXTFILE_EXPOSURE_MAX) python3 test/host/run.py --kernel $(VM)/vmlinuz --initrd $(HOST)/initrd.gz \
	    --disk $(HOST)/disk.img --logdir $(HOST)
