# make check-containers: real podman containers (runc) on images made
# here, judged and fixed from the host by arenafix inspect
# (test/containers/README.md).  Root; skipped with the reason where
# podman or runc cannot run.

.PHONY: check-containers
check-containers: $(CLI_BIN) $(SHIM_LIB) $(B)/test/arenawait
	@mkdir -p $(B)/containers
	@sh test/containers/check.sh $(abspath $(B)/containers) $(abspath $(CLI_BIN)) $(abspath $(SHIM_LIB)) \
	    $(abspath $(B)/test/arenawait) $(abspath $(firstword $(subst :, ,$(ARENAFIX_AFFECTED_GLIBC))))
