# make # The OCI hook's part runs whether the first passed or not.
check-containers: $(CLI_BIN) $(CLI_HOOK_JSON) $(SHIM_LIB) $(B)/test/arenawait
	@mkdir -p $(B)/containers $(B)/containers-hook
	@sh test/containers/check.sh $(abspath $(B)/containers) $(abspath $(CLI_BIN)) $(abspath $(SHIM_LIB)) \
	    $(abspath $(B)/test/arenawait) $(abspath $(firstword $(subst :, ,$(ARENAFIX_AFFECTED_GLIBC)))); first=$$?; \
	sh test/containers/hook.sh $(abspath $(B)/containers-hook) $(abspath $(CLI_BIN)) $(abspath $(SHIM_LIB)) \
	    $(abspath $(B)/test/arenawait) $(abspath $(firstword $(subst :, ,$(ARENAFIX_AFFECTED_GLIBC)))) \
	    $(abspath test/containers/exitwith.c) $(abspath $(CLI_HOOK_JSON)) '$(ARENAFIX_AFFECTED_GLIBC)' && [ $$first -eq 0 ]
