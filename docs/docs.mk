# The manual: arenafix(1), libarenafix(7).  `make check-man` renders
# them as man(1) and groff do, and fails on any warning.

MAN_PAGES := docs/arenafix.1 docs/libarenafix.7

.PHONY: check-man install-man uninstall-man
CHECK_SUITES += check-man
check-man: $(MAN_PAGES)
	@for page in $(MAN_PAGES); do \
	    out=$$(groff -man -ww -z $$page 2>&1) && [ -z "$$out" ] || { echo "$$page: $$out"; exit 1; }; \
	    out=$$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l $$page 2>&1 >/dev/null) && [ -z "$$out" ] \
	        || { echo "$$page: $$out"; exit 1; }; \
	done
	@echo "man pages: no warnings"

install: install-man
uninstall: uninstall-man

install-man: $(MAN_PAGES)
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7
	install -m 644 docs/arenafix.1 $(DESTDIR)$(MANDIR)/man1/arenafix.1
	install -m 644 docs/libarenafix.7 $(DESTDIR)$(MANDIR)/man7/libarenafix.7

uninstall-man:
	rm -f $(DESTDIR)$(MANDIR)/man1/arenafix.1 $(DESTDIR)$(MANDIR)/man7/libarenafix.7
