#!/bin/sh
# check-docs.sh ARENAFIX: what a reader of the documentation relies on.
#  - README.md shows a "Try it" block in its first 40 lines, and every
#    `arenafix SUB` in it names a subcommand ARENAFIX (the built command)
#    has; the two set-up commands for a new machine follow it.
#  - The runbooks (docs/deploy.md, docs/rollout.md) are instructions: which
#    check proves what lives in docs/verified.md, not in them.
#  - The tiers have one source, test/README.md: its tier table lists
#    exactly the Makefile's CHECK_SUITES, SLOW_SUITES and ALL_SUITES (in
#    the environment: make check-docs passes them), its suite table has a
#    row for every folder of test/ and every suite of a tier, with that
#    tier, and claims no tier the Makefile does not run a suite in; the
#    paragraphs of docs/testing.md that say what each tier runs name each
#    of its suites.
#  - Every `make TARGET` in the tree's Markdown (code blocks and code
#    spans; HACKING.md's too) and every target in test/README.md's tables
#    is one the Makefile has.
#  - Every relative link in the tree's Markdown (HACKING.md's too) names a
#    file that exists, and every link in a document a package ships names
#    a document shipped beside it (debian/*.docs, the spec's %doc lines).
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
for setup in 'make deps-demo demo' 'make deps check-all'; do
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

# ---- The tiers: test/README.md against the Makefile ----------------------
# The Makefile's targets: its database, nothing built (-q).
targets=" $(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -pRrq -f Makefile afx-no-such-target 2>/dev/null |
    awk -F: '/^# Not a target/ { skip = 1; next }
             /^[a-zA-Z0-9][^$#\/\t=]*:([^=]|$)/ && !skip { print $1 }
             { skip = 0 }' | sort -u | tr '\n' ' ') "
[ "$targets" != "  " ] || fail Makefile "make -pq lists no target"
is_target() {
    case $targets in *" $1 "*) return 0 ;; esac
    return 1
}
# tier_of TIER: the suites the Makefile runs in that tier, beyond the one
# below it.
tier_of() {
    case $1 in
    check) printf '%s\n' "${AFX_CHECK_SUITES-}" ;;
    check-slow) printf '%s\n' "${AFX_SLOW_SUITES-}" ;;
    check-all) printf '%s\n' "${AFX_ALL_SUITES-}" ;;
    esac
}
below() {
    case $1 in check-slow) echo check ;; check-all) echo check-slow ;; esac
}
# shellcheck disable=SC2016 # the backticks are Markdown's
ticks() { grep -oE '`[a-z][a-z0-9-]*`' | tr -d '`'; }
# table HEADER: the rows of test/README.md's table whose header line
# starts with HEADER.
table() {
    awk -v h="$1" 'index($0, h) == 1 { on = 1; getline; next }
                   on && /^\|/ { print; next }
                   on { exit }' test/README.md
}
readme=test/README.md
if [ -z "${AFX_CHECK_SUITES-}" ] || [ -z "${AFX_SLOW_SUITES-}" ] || [ -z "${AFX_ALL_SUITES-}" ]; then
    fail "$0" "AFX_CHECK_SUITES, AFX_SLOW_SUITES and AFX_ALL_SUITES are not all set (make check-docs sets them)"
fi
tiers=$(table '| tier | command |')
[ -n "$tiers" ] || fail $readme "no tier table (a header starting '| tier | command |')"
suites=$(table '| folder | make target(s) | tier |')
[ -n "$suites" ] || fail $readme "no suite table (a header starting '| folder | make target(s) | tier |')"
for tier in check check-slow check-all; do
    row=$(printf '%s\n' "$tiers" | awk -F'|' -v t="$tier" '{ c = $2; gsub(/^ +| +$/, "", c) } c == t')
    if [ -z "$row" ]; then
        fail $readme "the tier table has no row for $tier"
        continue
    fi
    cmd=$(printf '%s\n' "$row" | awk -F'|' '{ print $3 }' | tr -d ' ')
    [ "$cmd" = "\`make$tier\`" ] || fail $readme "tier $tier: its command is $cmd, not \`make $tier\`"
    runs=$(printf '%s\n' "$row" | awk -F'|' '{ print $4 }')
    listed=$(printf '%s\n' "$runs" | ticks)
    if [ -n "$(below $tier)" ]; then
        case $runs in
        *"\`$(below $tier)\` + "*) ;;
        *) fail $readme "tier $tier: its suites do not start with \`$(below $tier)\` +" ;;
        esac
        listed=$(printf '%s\n' "$listed" | grep -vx "$(below $tier)")
    fi
    want=$(tier_of $tier | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
    got=$(printf '%s\n' "$listed" | grep . | sort | tr '\n' ' ')
    [ "$want" = "$got" ] || fail $readme "tier $tier lists ${got% }, the Makefile runs ${want% }"
done
# The suite table's claims: "TIER" or "TIER (\`target\`, ...)" parts of
# the tier column, split at ";"; a part without a target covers the
# row's targets (those of its target column outside parentheses, which
# hold the parts of a target) that no other part names.
claims=$(printf '%s\n' "$suites" | awk -F'|' '{
    n = 0; delete t
    s = $3
    gsub(/\([^)]*\)/, "", s)
    while (match(s, /`[a-z][a-z0-9-]*`/)) { t[++n] = substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH) }
    m = split($4, part, ";")
    delete named
    for (i = 1; i <= m; i++) {
        s = part[i]
        while (match(s, /`[a-z][a-z0-9-]*`/)) { named[substr(s, RSTART + 1, RLENGTH - 2)] = 1; s = substr(s, RSTART + RLENGTH) }
    }
    for (i = 1; i <= m; i++) {
        p = part[i]; sub(/^ +/, "", p)
        if (!match(p, /^check(-slow|-all)?([ (]|$)/)) continue
        tier = p; sub(/[ (].*/, "", tier)
        s = p; k = 0
        while (match(s, /`[a-z][a-z0-9-]*`/)) { print substr(s, RSTART + 1, RLENGTH - 2), tier; k++; s = substr(s, RSTART + RLENGTH) }
        if (k == 0) for (j = 1; j <= n; j++) if (!(t[j] in named)) print t[j], tier
    }
}')
for tier in check check-slow check-all; do
    for suite in $(tier_of $tier); do
        printf '%s\n' "$claims" | grep -qx "$suite $tier" ||
            fail $readme "make $tier runs $suite, which no row of the suite table puts in tier $tier"
    done
done
printf '%s\n' "$claims" | while read -r suite tier; do
    case " $(tier_of "$tier") " in
    *" $suite "*) ;;
    *) echo "$readme: the suite table puts $suite in tier $tier, which the Makefile does not run it in" ;;
    esac
done | grep . && failed=1
for target in $(printf '%s\n' "$tiers" "$suites" | awk -F'|' '{ print $3, $4 }' | ticks | sort -u); do
    is_target "$target" || fail $readme "names \`$target\`, which is no target of the Makefile"
done
printf '%s\n' "$suites" | awk -F'|' '$3 !~ /`[a-z][a-z0-9-]*`/ { print $2 }' | while read -r row; do
    echo "$readme: the suite table's row $row names no make target"
done | grep . && failed=1
for dir in test/*/; do
    dir=${dir%/}
    printf '%s\n' "$suites" | awk -F'|' -v d="$dir" '{ c = $2; gsub(/^ +| +$/, "", c) } c == d { found = 1 } END { exit !found }' ||
        fail $readme "the suite table has no row for $dir"
done
# docs/testing.md: what each tier runs, in prose; each suite named.
for tier in check check-slow check-all; do
    verb=adds
    [ $tier = check ] && verb=runs
    para=$(awk -v s="\`make $tier\` $verb" 'index($0, s) == 1 { on = 1 } on && /^$/ { exit } on' docs/testing.md)
    if [ -z "$para" ]; then
        fail docs/testing.md "no paragraph starting \`make $tier\` $verb"
        continue
    fi
    for suite in $(tier_of $tier); do
        printf '%s\n' "$para" | tr '\n' ' ' | grep -q -e "\`$suite\`" -e "\`make $suite\`" ||
            fail docs/testing.md "the paragraph on \`make $tier\` does not name \`$suite\`, which it runs"
    done
done

# ---- make commands in the Markdown ----------------------------------------
# The code of each file (fenced and indented blocks, code spans), then
# each `make` in it and the targets after it: words until one that is not
# an option, a VAR=value or a target's name.
for md in $(find . -name '*.md' -not -path './build/*' -not -path './.git/*' | sort); do
    awk '/^ *```/ { fence = !fence; next }
         fence || /^    / { print; next }
         { s = $0; while (match(s, /`[^`]+`/)) { print substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH) } }' "$md" |
        sed 's/#.*//' | awk '{
            for (i = 1; i <= NF; i++) {
                if ($i != "make") continue
                for (j = i + 1; j <= NF; j++) {
                    if ($j ~ /^-/ || $j ~ /=/) continue
                    if ($j !~ /^[a-z][a-z0-9-]*$/) break
                    print $j
                }
            }
        }' | sort -u | while read -r target; do
            is_target "$target" || echo "${md#./}: runs make $target, which is no target of the Makefile"
        done
done | grep . && failed=1

# ---- Links --------------------------------------------------------------
# links FILE: the relative targets of FILE's Markdown links, one a line,
# without their #anchor.
links() {
    grep -oE '\]\([^)[:space:]]+\)' "$1" | sed 's/^](//; s/)$//; s/#.*//' |
        grep -vE '^(|[a-z]+:.*)$' || true
}
# anchors FILE: the anchors of FILE's headings, as GitHub makes them.
anchors() {
    sed -n 's/^#\{1,6\} \{1,\}//p' "$1" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}
for md in $(find . -name '*.md' -not -path './build/*' -not -path './.git/*' | sort); do
    dir=$(dirname "$md")
    for target in $(links "$md"); do
        [ -e "$dir/$target" ] || fail "${md#./}" "links to $target, which is not in the tree"
    done
    # A link to a heading of another Markdown file: that heading exists.
    grep -oE '\]\([^)#[:space:]]+\.md#[^)[:space:]]+\)' "$md" | sed 's/^](//; s/)$//' | grep -vE '^[a-z]+:' |
        while read -r link; do
            target=${link%%#*} anchor=${link#*#}
            [ -f "$dir/$target" ] && ! anchors "$dir/$target" | grep -qxF "$anchor" &&
                echo "${md#./}: links to $link: $target has no heading $anchor"
        done | grep . && failed=1
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

[ $failed -eq 0 ] && echo "docs: the README's first screen, the runbooks, the tiers, every make command and every link hold"
exit $failed
