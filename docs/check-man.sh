#!/bin/sh
# check-man.sh BENCH PAGE...: each manual page renders with groff and man
# without a warning, carries a full date (YYYY-MM-DD) in .TH and, as its
# source, "arenafix $AFX_VERSION" (the Makefile's VERSION), and
# arenafix-bench(1) lists, under OPTIONS, every option that BENCH --help
# prints.  One line per failure; the exit status says whether any.
set -u
version=${AFX_VERSION:?AFX_VERSION: the VERSION of the Makefile (make check-man sets it)}
bench=$1
shift
failed=0
fail() {
    echo "$1: $2"
    failed=1
}

for page in "$@"; do
    out=$(groff -man -ww -z "$page" 2>&1) && [ -z "$out" ] || fail "$page" "groff: $out"
    out=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$page" 2>&1 >/dev/null) && [ -z "$out" ] \
        || fail "$page" "man: $out"
    # man(7): the third argument of .TH is the date of the last change,
    # which readers and distributions compare: a whole, real date.
    date=$(sed -n 's/^\.TH  *[^ ]*  *[^ ]*  *"\{0,1\}\([^" ]*\).*/\1/p' "$page" | head -n 1)
    case $date in
    [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9])
        [ "$(date -d "$date" +%F 2>/dev/null)" = "$date" ] || fail "$page" ".TH date '$date' is not a real date"
        ;;
    *) fail "$page" ".TH date '$date' is not YYYY-MM-DD (man(7): the date of the last change)" ;;
    esac
    # Its fourth argument, the source: the release it documents.
    grep -q "^\.TH .* \"arenafix $version\" " "$page" ||
        fail "$page" ".TH does not name \"arenafix $version\", the Makefile's VERSION: $(grep -m 1 '^\.TH' "$page")"
done

# The benchmark's page is written by hand, not made from --help: a new
# option must reach it.  Its OPTIONS section, with roff's \- as -.
page=""
for p in "$@"; do
    case $p in */arenafix-bench.1) page=$p ;; esac
done
if [ -z "$page" ]; then
    fail "check-man.sh" "no arenafix-bench.1 among the pages"
else
    help=$("$bench" --help) || fail "$bench" "--help failed"
    options=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$page" | sed 's/\\-/-/g; s/\\f[BIRP]//g')
    opts=$(printf '%s\n' "$help" | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z-]*' | sed 's/^[ ,]*//' | sort -u)
    [ -n "$opts" ] || fail "$bench" "--help lists no option"
    for opt in $opts; do
        printf '%s\n' "$options" | grep -qE -- "(^|[^A-Za-z0-9-])$opt([^A-Za-z0-9-]|\$)" \
            || fail "$page" "OPTIONS does not list $opt, which '$(basename "$bench") --help' prints"
    done
fi
exit $failed
