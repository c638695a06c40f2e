# make check-fleet: the Ansible role (ansible/) rolled out to three Debian
# 12 hosts, an emulated RHEL 9 host (the RPMs, installed with rpm) and
# one of a family the role does not know, each with systemd as PID 1 and
# sshd (systemd-nspawn containers booted from check-host's kind of root
# file system), reached over SSH in a network namespace of the suite's
# own, and rolled back.  See
# test/fleet/README.md.  Needs root (debootstrap, overlays, nspawn, a
# network namespace) and the mirror apt uses (the root file system is
# cached in build/fleet/ between runs).

FLEET := $(B)/fleet

.PHONY: check-fleet
check-fleet: $(HOST_PROGS_DIR)/pinnedd
	@if [ -z "$(ARENAFIX_AFFECTED_GLIBC)" ]; then \
	    echo "check-fleet: 0 passed, 0 failed, 1 skipped (no affected glibc: set ARENAFIX_AFFECTED_GLIBC)"; exit 0; fi; \
	if [ "$$(id -u)" -ne 0 ]; then \
	    echo "check-fleet: 0 passed, 0 failed, 1 skipped (needs root: debootstrap, overlays, systemd-nspawn, ip netns)"; exit 0; fi; \
	set -e; \
	mkdir -p $(FLEET); \
	t0=$$(date +%s); \
	sh test/fleet/prepare.sh; \
	sh test/host/mkrootfs.sh $(FLEET) test/fleet/rootfs-packages.txt; \
	t1=$$(date +%s); echo "check-fleet: root file system ready in $$((t1 - t0)) s"; \
	DEB_BUILD_OPTIONS=nocheck $(MAKE) --no-print-directory deb DEB_OUT=$(abspath $(FLEET)/deb) >$(FLEET)/deb.log 2>&1 || \
	    { tail -n 30 $(FLEET)/deb.log; exit 1; }; \
	for rel in old:.fleet9 new:.fleet10; do \
	    $(MAKE) --no-print-directory rpm RPM_OUT=$(FLEET)/rpm-$${rel%%:*} \
	        RPMBUILD_EXTRA="--nocheck --define 'dist $${rel#*:}'" >$(FLEET)/rpm-$${rel%%:*}.log 2>&1 || \
	        { tail -n 30 $(FLEET)/rpm-$${rel%%:*}.log; exit 1; }; \
	done; \
	sh test/fleet/releases.sh $(FLEET)/packages $(FLEET)/deb $(FLEET)/rpm-old $(FLEET)/rpm-new >/dev/null; \
	t2=$$(date +%s); echo "check-fleet: packages built in $$((t2 - t1)) s (two releases of each, .deb and .rpm)"; \
	rm -rf $(FLEET)/progs; mkdir -p $(FLEET)/progs; cp $(HOST_PROGS_DIR)/pinnedd $(FLEET)/progs/; \
	python3 test/fleet/run.py --rootfs $(FLEET)/rootfs.tar --rootfs-key $(FLEET)/rootfs.key \
	    --affected $(firstword $(subst :, ,$(ARENAFIX_AFFECTED_GLIBC))) --progs $(FLEET)/progs \
	    --debs $(FLEET)/packages --version $(VERSION) --outdir $(FLEET)

# make check-role: the role's scan of a host whose scan holds each verdict,
# by ansible-playbook on this machine (connection local), nothing
# installed or run but the playbook; without ansible-playbook, skipped.
# In the slow tier (the Makefile's SLOW_SUITES): ansible-playbook alone
# takes more CPU than any suite of the fast tier but the two harnesses.
.PHONY: check-role
check-role:
	python3 test/fleet/role-scan.py $(B)/role
