#!/bin/sh
# make check-monitor: the alerts point an operator at the runbook.
#
#   runbooks.sh RULES RUNBOOK
#
# Every alert of RULES (monitor/arenafix-alerts.yml) has a runbook
# annotation "NAME#ANCHOR ..." where NAME is RUNBOOK's file name
# (rollout.md, shipped in the package's documentation) and ANCHOR the
# anchor (as GitHub makes it, as check-docs reads them) of a heading of
# RUNBOOK named after the alert; and no annotation names a file of the
# source tree (docs/..., monitor/...), which an operator with the
# package does not have.  One line per failure; the exit status says
# whether any.
set -u
rules=$1 book=$2
me=check-monitor
name=$(basename "$book")
failed=0
fail() {
    echo "$me: FAIL $rules: $1"
    failed=1
}
anchors=$(sed -n 's/^#\{1,6\} \{1,\}//p' "$book" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9 _-]//g; s/ /-/g')
# "ALERT<tab>KEY<tab>VALUE" for each annotation of each alert.
annotations=$(awk '
    /^ *- alert: / { alert = $3; inside = 0; print alert "\t\t"; next }
    /^ *annotations: *$/ { inside = 1; indent = index($0, "a"); next }
    inside {
        lead = match($0, /[^ ]/)
        if (lead <= indent) { inside = 0; next }
        key = $1; sub(/:$/, "", key)
        value = $0; sub(/^ *[a-z_]+: */, "", value); gsub(/^"|"$/, "", value)
        print alert "\t" key "\t" value
    }' "$rules")
alerts=$(printf '%s\n' "$annotations" | awk -F'\t' '$2 == "" { print $1 }')
[ -n "$alerts" ] || fail "no alert found"
for alert in $alerts; do
    runbook=$(printf '%s\n' "$annotations" | awk -F'\t' -v a="$alert" '$1 == a && $2 == "runbook" { print $3 }')
    case $runbook in
    "$name#"*) ;;
    *) fail "$alert: its runbook annotation does not name a section of $name: \"$runbook\""; continue ;;
    esac
    anchor=${runbook#"$name#"}
    anchor=${anchor%% *}
    want=$(printf '%s' "$alert" | tr '[:upper:]' '[:lower:]')
    [ "$anchor" = "$want" ] || fail "$alert: its runbook is #$anchor, not its own section #$want"
    printf '%s\n' "$anchors" | grep -qxF "$anchor" || fail "$alert: $book has no heading #$anchor"
done
printf '%s\n' "$annotations" | awk -F'\t' '$2 != "" && $3 ~ /(^|[ (])(docs|monitor|cli|shim|test|ansible)\// { print $1 ": " $2 ": " $3 }' |
    while IFS= read -r hit; do
        echo "$me: FAIL $rules: $hit: a path of the source tree, not the runbook"
    done | grep . && failed=1
[ $failed -eq 0 ] && echo "$me: every alert's runbook is a section of $book, and no annotation names a source path"
exit $failed
