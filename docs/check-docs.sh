#!/bin/sh
# check-docs.sh ARENAFIX: what a reader of the documentation relies on.
#  - README.md shows a "Try it" block in its first 40 lines, and every
#    `arenafix SUB` in it names a subcommand ARENAFIX (the built command)
#    has; the two set-up commands for a new machine follow it.
#  - The runbooks (docs/deploy.md, docs/rollout.md) are instructions: which
#    check proves what lives in docs/verified.md, not in them.
#  - Every relative link in the tree's Markdown names a file that exists,
#    and every link in a document a package ships names a document shipped
#    beside it (debian/*.docs, the spec's %doc lines).
# Run from the top of the tree.  One line per failure; the exit status
# says whether any.
set -u
cmd=$1
failed=0
fail() {
    echo "$1: $2"
    failed=1
}

# ---- README.md: the first screen ---------------------------------------
# The block is the first fenced block after a "Try it" heading.
try=$(awk '
    /^#+ +Try it/ && !head { head = NR; next }
    head && !open && /^```/ { open = NR; next }
    open && /^```/ { print open "-" NR; exit }
' README.md)
if [ -z "$try" ]; then
    fail README.md "no \"Try it\" heading followed by a fenced block"
else
    first=${try%-*} last=${try#*-}
    [ "$last" -le 40 ] || fail README.md "the Try it block (lines $first-$last) does not end within the first 40 lines"
    # Every word `arenafix` (a path ending in it too) followed by a word
    # that is not an option or a path: a subcommand.
    subs=$(sed -n "$((first + 1)),$((last - 1))p" README.md | sed 's/  *#.*//' | awk '{
        for (i = 1; i < NF; i++)
            if ($i ~ /(^|\/)arenafix$/ && $(i + 1) ~ /^[a-z][a-z0-9-]*$/)
                print $(i + 1)
    }' | sort -u)
    [ -n "$subs" ] || fail README.md "the Try it block runs no arenafix subcommand"
    top=$("$cmd" --help 2>/dev/null)
    for sub in $subs; do
        "$cmd" "$sub" --help >/dev/null 2>&1 && continue
        printf '%s\n' "$top" | grep -qE "arenafix $sub( |\$)" && continue
        fail README.md "Try it runs 'arenafix $sub', which $cmd neither documents in --help nor accepts with --help"
    done
    tries=$(sed -n "$((first + 1)),$((last - 1))p" README.md | grep -c 'arenafix')
    [ "$tries" -ge 4 ] || fail README.md "the Try it block has $tries arenafix lines: show probe, inspect --all, a program and a service"
fi
for setup in 'make deps demo' 'make deps check-all'; do
    at=$(grep -nx "$setup" README.md | head -n 1 | cut -d: -f1)
    if [ -z "$at" ]; then
        fail README.md "the set-up command '$setup' is not on a line of its own"
    elif [ "$at" -gt 60 ]; then
        fail README.md "the set-up command '$setup' is on line $at, after the first screen (60 lines)"
    fi
done

# ---- The runbooks are instructions -------------------------------------
for book in docs/deploy.md docs/rollout.md; do
    grep -niE 'check-host|proved by|tested in|tested that way|item [0-9]' "$book" | while IFS= read -r hit; do
        echo "$book:$hit: which check proves a step belongs in docs/verified.md"
    done | grep . && failed=1
    grep -q '](verified.md)' "$book" || fail "$book" "no link to verified.md"
done

# ---- Links --------------------------------------------------------------
# links FILE: the relative targets of FILE's Markdown links, one a line,
# without their #anchor.
links() {
    grep -oE '\]\([^)[:space:]]+\)' "$1" | sed 's/^](//; s/)$//; s/#.*//' |
        grep -vE '^(|[a-z]+:.*)$' || true
}
for md in $(find . -name '*.md' -not -path './build/*' -not -path './.git/*' | sort); do
    dir=$(dirname "$md")
    for target in $(links "$md"); do
        [ -e "$dir/$target" ] || fail "${md#./}" "links to $target, which is not in the tree"
    done
done

# A package installs its documents side by side in /usr/share/doc/PACKAGE.
# README.md is the repository's front page: its links are to the tree.
shipped() {
    for docs in debian/*.docs; do
        echo "debian/$(basename "$docs" .docs): $(tr '\n' ' ' < "$docs")"
    done
    awk '/^%files/ { pkg = $0 } /^%doc / { $1 = ""; print "rpm " pkg ":" $0 }' rpm/arenafix.spec
}
shipped | while IFS=: read -r pkg list; do
    for doc in $list; do
        case $doc in README.md|*.svg) continue ;; esac
        for target in $(links "$doc"); do
            case " $list " in
            *" docs/$target "*|*" $target "*) ;;
            *) echo "$doc: links to $target, which $pkg does not ship beside it" ;;
            esac
        done
    done
done | grep . && failed=1

[ $failed -eq 0 ] && echo "docs: the README's first screen, the runbooks and every link hold"
exit $failed
