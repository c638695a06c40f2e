#!/bin/sh
# check-synopsis.sh ARENAFIX DOCDIR: each subcommand states its options
# in four places written by hand, the "Usage:" lines of its --help, its
# Options block, the usage line of the error a bad option gets, and the
# SYNOPSIS of its manual page (DOCDIR/arenafix-SUB.1, or the page whose
# NAME lists arenafix-SUB; help's is arenafix.1).  They must agree:
#   - the long options named in the three synopses (--help, the error,
#     the page) are the same, and are those of the Options block;
#   - every option of the Options block (-a and --all) is on the page,
#     and every option the page's OPTIONS section gives a paragraph of is
#     in the Options block;
#   - --help ends "See arenafix-SUB(1)." (help's: arenafix(1)), and
#     arenafix(1)'s SEE ALSO names that page.
# The subcommands are those arenafix --help lists.  One line per
# failure; the exit status says whether any.
set -u
cli=$1
docs=$2
failed=0
fail() {
    echo "$1: $2"
    failed=1
}

# The long options in standard input, one a line, sorted, --help left out.
longs() {
    grep -oE -- '--[a-z][a-z-]*' | grep -vx -- '--help' | sort -u
}

# The options (-a, --all) in standard input, one a line, sorted.
options() {
    grep -oE -- '(^|[^A-Za-z0-9-])--?[A-Za-z][A-Za-z-]*' | sed 's/^[^-]*//' | sort -u
}

# Roff as text: \- as -, no font changes, no macro names or quotes.
text() {
    sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\(dq//g; s/^\.[A-Za-z][A-Za-z]* *//; s/"//g'
}

# Section $2 of page $1, the .SH line left out.
section() {
    sed -n "/^\.SH $2\$/,/^\.SH /p" "$1" | sed '1d; $d'
}

# The lines of page $1's SYNOPSIS that give "arenafix $2", each synopsis
# (the lines between two .br) joined on one line.
synopsis() {
    section "$1" SYNOPSIS | awk '/^\.br/ { print line; line = ""; next } { line = line " " $0 } END { print line }' |
        text | sed 's/\\-/-/g; s/\.[A-Z][A-Z]* //g; s/  */ /g; s/^ //' |
        grep -E "^arenafix $2( |\$)"
}

# The page that documents subcommand $1.
page_of() {
    if [ "$1" = help ]; then
        echo "$docs/arenafix.1"
    elif [ -f "$docs/arenafix-$1.1" ]; then
        echo "$docs/arenafix-$1.1"
    else
        grep -l -A 1 '^\.SH NAME' "$docs"/arenafix-*.1 2>/dev/null |
            while read -r p; do
                sed -n '/^\.SH NAME/{n;p;}' "$p" | sed 's/\\-/-/g' | grep -qE "(^|[ ,])arenafix-$1([ ,]|\$)" && echo "$p"
            done | head -n 1
    fi
}

top=$("$cli" --help) || fail "$cli" "--help failed"
subs=$(printf '%s\n' "$top" | sed -n '/^Subcommands:/,/^$/p' | sed -n 's/^  arenafix \([a-z-]*\).*/\1/p' | uniq)
[ -n "$subs" ] || fail "$cli" "--help lists no subcommand"
seealso=$(section "$docs/arenafix.1" 'SEE ALSO' | sed 's/\\-/-/g')
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

for sub in $subs; do
    page=$(page_of "$sub")
    if [ -z "$page" ]; then
        fail "$sub" "no page in $docs documents it (arenafix-$sub.1, or one whose NAME lists arenafix-$sub)"
        continue
    fi
    help=$("$cli" "$sub" --help) || fail "$sub" "--help failed"
    # The Usage: line and the lines under it that go on with "arenafix SUB".
    help_syn=$(printf '%s\n' "$help" | awk -v cmd="$sub" '
        NR == 1 && /^Usage: / { print; next }
        NR > 1 && $1 == "arenafix" && $2 == cmd { print; next }
        { exit }')
    [ -n "$help_syn" ] || fail "$sub" "'$sub --help' does not start with Usage: arenafix $sub"
    block=$(printf '%s\n' "$help" | sed -n '/^Options:/,/^$/p' | sed '1d' | cut -c 1-22)
    # The error a bad option gets (help takes any word as a subcommand's
    # name: two words are its usage error).
    if [ "$sub" = help ]; then
        err=$("$cli" help probe inspect 2>&1 >/dev/null)
    else
        err=$("$cli" "$sub" --no-such-option-at-all 2>&1 >/dev/null)
    fi
    err_syn=$(printf '%s\n' "$err" | sed -n 's/.*; usage: \(arenafix .*\)/\1/p' | sed 's/ (see .*//')
    [ -n "$err_syn" ] || fail "$sub" "its usage error gives no usage: $err"
    page_syn=$(synopsis "$page" "$sub")
    [ -n "$page_syn" ] || fail "$page" "SYNOPSIS has no line arenafix $sub"

    printf '%s\n' "$help_syn" | longs > "$tmp/help"
    printf '%s\n' "$err_syn" | longs > "$tmp/error"
    printf '%s\n' "$page_syn" | longs > "$tmp/page"
    printf '%s\n' "$block" | longs > "$tmp/options"
    sort -u "$tmp/help" "$tmp/error" "$tmp/page" "$tmp/options" > "$tmp/all"
    for where in help error page options; do
        case $where in
        help) what="its --help's Usage" ;;
        error) what="its usage error" ;;
        page) what="the SYNOPSIS of $(basename "$page")" ;;
        options) what="its --help's Options" ;;
        esac
        for opt in $(comm -23 "$tmp/all" "$tmp/$where"); do
            fail "$sub" "$opt is not in $what"
        done
    done

    # The Options block against the page, both ways.
    printf '%s\n' "$block" | options > "$tmp/block"
    sed '1,/^\.SH DESCRIPTION/d' "$page" | text | options > "$tmp/body"
    for opt in $(comm -23 "$tmp/block" "$tmp/body"); do
        fail "$page" "$opt, which '$sub --help' lists, is not on the page"
    done
    # (A page of two subcommands, enable's, is checked against the one it
    # is named for, whose options include the other's.)
    if [ "$page" = "$docs/arenafix-$sub.1" ]; then
        section "$page" OPTIONS | sed -n '/^\.TP/{n;p;}' | text | options > "$tmp/tags"
        for opt in $(comm -23 "$tmp/tags" "$tmp/block"); do
            fail "$page" "OPTIONS gives $opt, which '$sub --help' does not list"
        done
    fi

    # --help names the page (disable's is enable's, which its NAME lists
    # and make install links), which arenafix(1) names.
    want="arenafix-$sub"
    [ "$sub" != help ] || want=arenafix
    see=$(printf '%s\n' "$help" | tail -n 1)
    [ "$see" = "See $want(1)." ] || fail "$sub" "'$sub --help' ends \"$see\", not \"See $want(1).\""
    [ "$sub" = help ] || printf '%s\n' "$seealso" | grep -qF "$want (1)" ||
        fail "$docs/arenafix.1" "SEE ALSO does not name $want(1)"
done
exit $failed
