# make check-containers: real podman containers (runc) on images made
# here, judged and fixed from the host by arenafix inspect, a scanner in
# a container, the OCI hook, the CDI spec, and docker and containerd
# run for real (arenafix-runtime their runtime too; containerd's drop-in
# by arenafix-containerd-config), arenafix-runtime in front of runc, and
# containerd's CRI plugin driven as kubelet does
# (test/containers/README.md).  Root;
# skipped with the reason where podman or runc cannot run.  Each part
# runs whether the one before passed or not.

.PHONY: check-containers
check-containers: $(CLI_BIN) $(RUNTIME_BIN) $(CLI_HOOK_JSON) $(SHIM_LIB) $(B)/test/arenawait $(B)/test/muslwait $(B)/test/stillclock.so
	@mkdir -p $(B)/containers $(B)/containers-hook $(B)/containers-engines
	@glibc=$(abspath $(firstword $(subst :, ,$(ARENAFIX_AFFECTED_GLIBC)))); failed=0; \
	sh test/containers/check.sh $(abspath $(B)/containers) $(abspath $(CLI_BIN)) $(abspath $(SHIM_LIB)) \
	    $(abspath $(B)/test/arenawait) $$glibc || failed=1; \
	sh test/containers/scan.sh $(abspath $(B)/containers/scan) $(abspath $(CLI_BIN)) $(abspath $(B)/test/arenawait) \
	    $$glibc $(abspath $(B)/test/muslwait) || failed=1; \
	sh test/containers/hook.sh $(abspath $(B)/containers-hook) $(abspath $(CLI_BIN)) $(abspath $(SHIM_LIB)) \
	    $(abspath $(B)/test/arenawait) $$glibc \
	    $(abspath test/containers/exitwith.c) $(abspath $(CLI_HOOK_JSON)) '$(ARENAFIX_AFFECTED_GLIBC)' || failed=1; \
	sh test/containers/cdi.sh $(abspath $(B)/containers-cdi) $(abspath $(CLI_BIN)) $(abspath $(SHIM_LIB)) \
	    $(abspath $(B)/test/arenawait) $$glibc $(abspath test/containers/exitwith.c) $(abspath $(CLI_HOOK_JSON)) \
	    '$(ARENAFIX_AFFECTED_GLIBC)' || failed=1; \
	sh test/containers/engines.sh $(abspath $(B)/containers-engines) $(abspath $(CLI_BIN)) $(abspath $(SHIM_LIB)) \
	    $(abspath $(B)/test/arenawait) $$glibc '$(ARENAFIX_AFFECTED_GLIBC)' $(abspath $(RUNTIME_BIN)) || failed=1; \
	sh test/containers/containerdconf.sh $(abspath $(B)/containers-containerd-config/run) || failed=1; \
	sh test/containers/rootless.sh $(abspath $(B)/containers-rootless) $(abspath $(CLI_BIN)) $(abspath $(SHIM_LIB)) \
	    $(abspath $(B)/test/arenawait) $$glibc $(abspath $(CLI_HOOK_JSON)) || failed=1; \
	sh test/containers/runtime.sh $(abspath $(B)/containers-runtime) $(abspath $(CLI_BIN)) $(abspath $(RUNTIME_BIN)) \
	    $(abspath $(B)/test/arenawait) $$glibc $(abspath test/containers/exitwith.c) || failed=1; \
	sh test/containers/cri.sh $(abspath $(B)/containers-cri) $(abspath $(CLI_BIN)) $(abspath $(RUNTIME_BIN)) \
	    $(abspath $(B)/test/arenawait) $(abspath $(B)/test/muslwait) $$glibc '$(ARENAFIX_AFFECTED_GLIBC)' || failed=1; \
	[ $$failed -eq 0 ]
