# make check-vm: boot an emulated 16-CPU, 2-socket, 2-node host (qemu, TCG)
# with Debian's kernel (the version pinned in test/qemu/kernel-version) and
# run the project's proofs inside it, through the qemu driver it shares
# with check-host (test/qemu/guest.py).  See test/vm/README.md.  Part of
# `make check-slow`: it needs qemu and a kernel image (installed or
# downloaded on first use) and takes about a minute.

VM := $(B)/vm

# The command and the benchmark are built first when their parts are in
# the tree; a program that is missing all the same goes in as optional and
# the guest reports the items that need it as skipped.
VM_OPTIONAL := arenafix?=$(or $(CLI_BIN),$(B)/cli/arenafix) \
               arenafix-bench?=$(or $(BENCH_BIN),$(B)/bench/arenafix-bench) \
               hwloc-calc?=/usr/bin/hwloc-calc

.PHONY: check-vm
$(VM):
	mkdir -p $@

$(VM)/spread: test/vm/spread.c test/progs/arenas.h | $(VM)
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -o $@ $<

check-vm: $(SHIM_LIB) $(VM)/spread $(CLI_BIN) $(BENCH_BIN) $(B)/test/fixedarenas
	@if [ -z "$(ARENAFIX_AFFECTED_GLIBC)" ]; then \
	    echo "check-vm: skipped: no affected glibc (set ARENAFIX_AFFECTED_GLIBC)"; exit 0; fi; \
	set -e; \
	sh test/vm/prepare.sh $(VM); \
	sh test/vm/mkinitramfs.sh $(VM)/initrd.gz test/vm/init \
	    spread=$(VM)/spread libarenafix.so=$(SHIM_LIB) $(VM_OPTIONAL); \
	AFX_FIXEDARENAS=$(abspath $(B)/test/fixedarenas) python3 test/vm/run.py --kernel $(VM)/vmlinuz --config $(VM)/config \
	    --initrd $(VM)/initrd.gz --logdir $(VM)
