# make check-monitor: the monitoring in monitor/ (monitor/README.md):
# the example alert rules under promtool test rules, each alert's
# runbook a section of docs/rollout.md (test/monitor/runbooks.sh), and
# the service's sandbox: systemd-analyze security (offline, systemd 250
# or later) must score it at most TEXTFILE_EXPOSURE_MAX (check-host
# scores the installed unit under a booted systemd against the same
# bound).  A few seconds.
#
# make check-node-exporter (check-slow): the proof against the service
# itself, that Debian's node_exporter serves what
# arenafix-textfile.service writes as the rules read it
# (test/monitor/textfile.sh: root, an affected glibc; in a PID namespace
# of its own, as its scan judges the whole host).

.PHONY: check-monitor check-node-exporter
# systemd-analyze's exposure, 0 to 10 (the unit without its sandbox:
# 9.6, "UNSAFE"); its --threshold counts in tenths.
TEXTFILE_EXPOSURE_MAX := 2.0
CHECK_SUITES += check-monitor
check-monitor: $(CLI_BIN)
	@if command -v promtool > /dev/null; then \
	    cd monitor && promtool check rules arenafix-alerts.yml && promtool test rules arenafix-alerts.test.yml; \
	else echo "check-monitor: SKIP alert rules: no promtool (Debian's package prometheus)"; fi
	@if systemd-analyze security --help 2>/dev/null | grep -q -- '--offline'; then \
	    systemd-analyze security --offline=true --threshold=$(subst .,,$(TEXTFILE_EXPOSURE_MAX)) monitor/arenafix-textfile.service \
	        >$(B)/textfile-security.txt 2>&1 || { cat $(B)/textfile-security.txt; \
	        echo "check-monitor: FAIL arenafix-textfile.service: exposure above $(TEXTFILE_EXPOSURE_MAX)"; exit 1; }; \
	    echo "check-monitor: arenafix-textfile.service's exposure $$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]* [A-Z]*\).*/\1/p' $(B)/textfile-security.txt) (at most $(TEXTFILE_EXPOSURE_MAX))"; \
	else echo "check-monitor: SKIP sandbox score: no systemd-analyze security --offline (systemd 250 or later)"; fi
	sh test/monitor/runbooks.sh monitor/arenafix-alerts.yml docs/rollout.md

check-node-exporter: $(CLI_BIN) $(SHIM_LIB) $(B)/test/arenawait
	sh test/monitor/textfile.sh $(CLI_BIN) $(SHIM_LIB) $(B)/test/arenawait monitor/arenafix-textfile.service monitor/arenafix-alerts.yml
