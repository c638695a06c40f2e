# The manual: arenafix(1), the wrapper and the overview, one page per
# subcommand (arenafix-inspect(1), ...; disable is enable's page, as a
# link), arenafix-runtime(1), arenafix-containerd-config(1),
# libarenafix(7) and arenafix-bench(1), all written here (none is made by
# running a built program, which a cross build cannot do).  `make
# check-man` renders them as man(1) and groff do and fails on any warning,
# on a .TH date that is not YYYY-MM-DD or a .TH source that is not
# "arenafix $(VERSION)", on an option of arenafix-bench --help that its
# page lacks, and on a subcommand whose --help, usage error and page do
# not name the same options (docs/check-synopsis.py says how).  `make
# check-docs` checks the README's first screen, the runbooks, the tiers of
# test/README.md against the Makefile's, every `make` command and every
# link (docs/check-docs.py says what: one Python program, where a shell
# script's hundreds of sed, grep and awk starts cost seconds of CPU), and
# cli/'s layout against cli/README.md: no include cycle, each folder
# mapped (test/cli-layout.py); and no function of the product (cli/,
# shim/, common/) over 100 lines (test/funclen.py).

AFX_SUBCOMMAND_PAGES := probe inspect enable status path oci-hook cdi
MAN1_PAGES := arenafix $(AFX_SUBCOMMAND_PAGES:%=arenafix-%) arenafix-runtime arenafix-containerd-config
MAN_PAGES := $(MAN1_PAGES:%=docs/%.1) docs/libarenafix.7 docs/arenafix-bench.1

.PHONY: check-man check-docs install-man uninstall-man
CHECK_SUITES += check-man check-docs
check-man: $(MAN_PAGES) $(BENCH_BIN) $(CLI_BIN)
	@AFX_VERSION=$(VERSION) sh docs/check-man.sh $(BENCH_BIN) $(MAN_PAGES)
	@$(PYTHON) docs/check-synopsis.py $(CLI_BIN) docs
	@echo "man pages: no warnings, dated, version $(VERSION), every option of arenafix-bench listed, each subcommand's options the same in its --help, usage error and page"

check-docs: $(CLI_BIN)
	@$(PYTHON) test/cli-layout.py cli
	@$(PYTHON) test/funclen.py 100 cli shim common
	@AFX_CHECK_SUITES='$(CHECK_SUITES)' AFX_SLOW_SUITES='$(SLOW_SUITES)' AFX_ALL_SUITES='$(ALL_SUITES)' \
	    MAKE='$(MAKE)' $(PYTHON) docs/check-docs.py $(CLI_BIN)

install: install-man
uninstall: uninstall-man

install-man: $(MAN_PAGES)
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7
	install -m 644 $(MAN1_PAGES:%=docs/%.1) docs/arenafix-bench.1 $(DESTDIR)$(MANDIR)/man1/
	ln -sf arenafix-enable.1 $(DESTDIR)$(MANDIR)/man1/arenafix-disable.1
	install -m 644 docs/libarenafix.7 $(DESTDIR)$(MANDIR)/man7/libarenafix.7

uninstall-man:
	rm -f $(MAN1_PAGES:%=$(DESTDIR)$(MANDIR)/man1/%.1) $(DESTDIR)$(MANDIR)/man1/arenafix-disable.1 \
	    $(DESTDIR)$(MANDIR)/man1/arenafix-bench.1 \
	    $(DESTDIR)$(MANDIR)/man7/libarenafix.7
