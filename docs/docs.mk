# The manual: arenafix(1), libarenafix(7), arenafix-bench(1), all three
# written here (none is made by running a built program, which a cross
# build cannot do).  `make check-man` renders them as man(1) and groff do
# and fails on any warning, on a .TH date that is not YYYY-MM-DD or a .TH
# source that is not "arenafix $(VERSION)", and on an option of
# arenafix-bench --help that its page lacks.  `make check-docs`
# checks the README's first screen, the runbooks, the tiers of
# test/README.md against the Makefile's, every `make` command and every
# link (docs/check-docs.sh says what), and cli/'s layout against
# cli/README.md: no include cycle, each folder mapped (test/cli-layout.py);
# and no function of the product (cli/, shim/, common/) over 100 lines
# (test/funclen.py).

MAN_PAGES := docs/arenafix.1 docs/libarenafix.7 docs/arenafix-bench.1

.PHONY: check-man check-docs install-man uninstall-man
CHECK_SUITES += check-man check-docs
check-man: $(MAN_PAGES) $(BENCH_BIN)
	@AFX_VERSION=$(VERSION) sh docs/check-man.sh $(BENCH_BIN) $(MAN_PAGES)
	@echo "man pages: no warnings, dated, version $(VERSION), every option of arenafix-bench listed"

check-docs: $(CLI_BIN)
	@python3 test/cli-layout.py cli
	@python3 test/funclen.py 100 cli shim common
	@AFX_CHECK_SUITES='$(CHECK_SUITES)' AFX_SLOW_SUITES='$(SLOW_SUITES)' AFX_ALL_SUITES='$(ALL_SUITES)' \
	    MAKE='$(MAKE)' sh docs/check-docs.sh $(CLI_BIN)

install: install-man
uninstall: uninstall-man

install-man: $(MAN_PAGES)
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7
	install -m 644 docs/arenafix.1 $(DESTDIR)$(MANDIR)/man1/arenafix.1
	ln -sf arenafix.1 $(DESTDIR)$(MANDIR)/man1/arenafix-runtime.1
	ln -sf arenafix.1 $(DESTDIR)$(MANDIR)/man1/arenafix-containerd-config.1
	install -m 644 docs/arenafix-bench.1 $(DESTDIR)$(MANDIR)/man1/arenafix-bench.1
	install -m 644 docs/libarenafix.7 $(DESTDIR)$(MANDIR)/man7/libarenafix.7

uninstall-man:
	rm -f $(DESTDIR)$(MANDIR)/man1/arenafix.1 $(DESTDIR)$(MANDIR)/man1/arenafix-runtime.1 \
	    $(DESTDIR)$(MANDIR)/man1/arenafix-containerd-config.1 $(DESTDIR)$(MANDIR)/man1/arenafix-bench.1 \
	    $(DESTDIR)$(MANDIR)/man7/libarenafix.7
