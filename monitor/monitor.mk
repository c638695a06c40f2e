# make check-monitor: the monitoring in monitor/ (monitor/README.md):
# the example alert rules under promtool test rules, and the proof that
# Debian's node_exporter serves what arenafix-textfile.service writes
# (test/monitor/textfile.sh: root, an affected glibc).  A few seconds.

.PHONY: check-monitor
CHECK_SUITES += check-monitor
check-monitor: $(CLI_BIN) $(SHIM_LIB) $(B)/test/arenawait
	@if command -v promtool > /dev/null; then \
	    cd monitor && promtool check rules arenafix-alerts.yml && promtool test rules arenafix-alerts.test.yml; \
	else echo "check-monitor: SKIP alert rules: no promtool (Debian's package prometheus)"; fi
	sh test/monitor/textfile.sh $(CLI_BIN) $(SHIM_LIB) $(B)/test/arenawait monitor/arenafix-textfile.service
