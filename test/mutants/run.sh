#!/bin/bash
# make mutants: mutation testing.  Each mutant of test/mutants/list (a
# small, plausible bug in shim/) and test/mutants/list-cli (in the
# command, cli/) is applied to a copy of the tree, what it changes is
# rebuilt there, and the suites of that part run against it in this
# order until one fails:
#   shim/  the library: check-exports, check-unit, check-shim, check-real,
#          then check-attack (the root attacker properties of check-hard,
#          test/hard/attack-*.sh: a planted log file, among others)
#   cli/   the command: check-cli, then check-attack
# A mutant is
#   killed     some suite failed, twice in a row (a test that fails now
#              and then kills nothing), or ran past the time limit; or it
#              did not compile ("killed by the build", listed apart)
#   survived   every suite passed: a test is missing, or the mutant is
#              equivalent (then the list says so, and it is not run)
#   stale      its snippet is no longer in the file, or not only once
# The last line is "mutants: N killed, N survived, N stale"; the exit
# status is 1 when a mutant survived (0 with MUTANTS_ALLOW_SURVIVORS=1),
# 2 when the list is malformed or the unmutated tree fails a suite.
#
# Environment:
#   MUTANTS_LIST      the lists, separated by spaces (default
#                     "test/mutants/list test/mutants/list-cli")
#   MUTANTS_ONLY      a regex: run only the mutants whose id matches
#   MUTANTS_TIMEOUT   seconds one mutant may take over all its suites
#                     (default: four times the unmutated tree's time for
#                     that part's suites, at least 120)
#   MUTANTS_ALL_SUITES=1  run every suite on every mutant, not only up to
#                     the first that fails (slower; a fuller table)
#   MUTANTS_CONFIRM=0 count a suite's first failure as a kill (by default
#                     the suite runs again and must fail again: a flaky
#                     test, or a loaded machine, kills nothing)
#   MUTANTS_ALLOW_SURVIVORS=1  exit 0 even when a mutant survived
#   MUTANTS_CHECK_LIST=1  only check the list against the code (each
#                     snippet found once; status 1 if one is stale), build
#                     and run nothing
#   MUTANTS_MAKE, MUTANTS_CFLAGS  the make to run and the CFLAGS for the
#                     copy's build (make mutants passes its own)
#   ARENAFIX_AFFECTED_GLIBC  as for make check (the Makefile's default
#                     when unset)
#
# Everything is written under build/mutants/: tree/ (the copy, with its
# own build/), logs/ID.log (each suite's output for that mutant),
# report.txt (the table).
set -u
shopt -u patsub_replacement 2>/dev/null   # "&" in a replacement is text

src=$(pwd -P)
read -r -a lists <<<"${MUTANTS_LIST:-test/mutants/list test/mutants/list-cli}"
only=${MUTANTS_ONLY:-}
all_suites=${MUTANTS_ALL_SUITES:-0}
confirm=${MUTANTS_CONFIRM:-1}
allow=${MUTANTS_ALLOW_SURVIVORS:-0}
make_cmd=${MUTANTS_MAKE:-make}
work=$src/build/mutants
tree=$work/tree
logs=$work/logs
# The parts a mutant may change, by the folder of its file: the suites
# that test that part, in order, and what to rebuild first.
# common/ is built into both, so both parts' suites test it.
declare -A part_suites=([shim]="check-exports check-unit check-shim check-real check-attack"
                        [cli]="check-cli check-attack"
                        [common]="check-exports check-unit check-shim check-real check-cli check-attack")
declare -A part_build=([shim]=shim/libarenafix.so [cli]=build/cli/arenafix [common]=mutants-build-common)

# The outer make's flags and command-line variables (an installed
# ARENAFIX_TESTLIB, say) must not reach the make that runs in the copy.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
if [ -z "${ARENAFIX_AFFECTED_GLIBC+set}" ] && [ -f "$src/../shared/glibc-bz30945/lib/libc.so.6" ]; then
    ARENAFIX_AFFECTED_GLIBC=$(cd "$src/../shared/glibc-bz30945/lib" && pwd -P)
fi
export ARENAFIX_AFFECTED_GLIBC=${ARENAFIX_AFFECTED_GLIBC:-}

[ ${#lists[@]} -gt 0 ] || { echo "mutants: MUTANTS_LIST names no list" >&2; exit 2; }
for list in "${lists[@]}"; do
    [ -f "$list" ] || { echo "mutants: no list at $list" >&2; exit 2; }
done

# ---- the list ----------------------------------------------------------
# Entries are separated by blank lines; '#' starts a comment line.
#   id:          a unique name
#   file:        the file to change, from the top of the tree: under
#                shim/ or cli/, which chooses the suites
#   find:        the original text, found exactly once in the file
#   replace:     what it becomes (may be empty)
#   bug:         the plausible bug, in one line
#   equivalent:  (optional) why no test can tell it from the original;
#                such a mutant is listed but not run
# In find and replace, \n is a newline, \t a tab and \\ a backslash.

ids=() files=() parts=() finds=() replaces=() bugs=() equivs=()

# Sets REPLY (no command substitution: it would drop a final newline).
unescape() {
    local s=$1
    s=${s//\\\\/$'\001'}
    s=${s//\\n/$'\n'}
    s=${s//\\t/$'\t'}
    REPLY=${s//$'\001'/\\}
}

list_error() {
    echo "mutants: $list:$1: $2" >&2
    exit 2
}

entry_line=0
declare -A entry=()
finish_entry() {
    [ ${#entry[@]} -eq 0 ] && return
    local key
    for key in id file find bug; do
        [ -n "${entry[$key]:-}" ] || list_error "$entry_line" "entry without $key"
    done
    [ -n "${entry[replace]+set}" ] || list_error "$entry_line" "entry without replace"
    local id
    for id in "${ids[@]}"; do
        [ "$id" = "${entry[id]}" ] && list_error "$entry_line" "id ${entry[id]} used twice"
    done
    local part=${entry[file]%%/*}
    if [ "$part" = "${entry[file]}" ] || [ -z "${part_suites[$part]:-}" ]; then
        list_error "$entry_line" "file ${entry[file]} is not under shim/, cli/ or common/"
    fi
    ids+=("${entry[id]}")
    files+=("${entry[file]}")
    parts+=("$part")
    unescape "${entry[find]}"
    finds+=("$REPLY")
    unescape "${entry[replace]}"
    replaces+=("$REPLY")
    bugs+=("${entry[bug]}")
    equivs+=("${entry[equivalent]:-}")
    entry=()
}

for list in "${lists[@]}"; do
    lineno=0
    while IFS= read -r line || [ -n "$line" ]; do
        lineno=$((lineno + 1))
        if [[ $line =~ ^[[:space:]]*$ ]]; then
            finish_entry
            continue
        fi
        [[ $line == \#* ]] && continue
        [[ $line =~ ^([a-z]+):[[:space:]]*(.*[^[:space:]])?[[:space:]]*$ ]] \
            || list_error "$lineno" "not KEY: VALUE"
        key=${BASH_REMATCH[1]}
        case $key in
        id | file | find | replace | bug | equivalent) ;;
        *) list_error "$lineno" "unknown key $key" ;;
        esac
        [ ${#entry[@]} -eq 0 ] && entry_line=$lineno
        [ -n "${entry[$key]+set}" ] && list_error "$lineno" "$key given twice in one entry"
        entry[$key]=${BASH_REMATCH[2]}
    done <"$list"
    finish_entry
done
list=${lists[*]}
[ ${#ids[@]} -gt 0 ] || list_error 1 "no mutants"

# Occurrences of $2 in $1 (0, 1 or 2 meaning "more than one").
occurrences() {
    local text=$1 pat=$2 rest
    rest=${text#*"$pat"}
    [ "$rest" = "$text" ] && { echo 0; return; }
    [ "${rest#*"$pat"}" = "$rest" ] && { echo 1; return; }
    echo 2
}

# Why mutant $1 cannot be applied to the tree under $2, or nothing.
stale_reason() {
    local i=$1 path=$2/${files[$1]} text
    if [ ! -f "$path" ]; then
        echo "no file ${files[i]}"
        return
    fi
    IFS= read -r -d '' text <"$path"
    case $(occurrences "$text" "${finds[i]}") in
    0) echo "snippet not found in ${files[i]}" ;;
    2) echo "snippet found more than once in ${files[i]}" ;;
    esac
}

# Each snippet against the code, in one pass (make check runs this: the
# shell's own matching took seconds a file); exit status 1 if any is stale.
# Debian's python3 where it is installed: one earlier in PATH may be a
# version manager's shim, slow to start.
if [ "${MUTANTS_CHECK_LIST:-0}" = 1 ]; then
    py=/usr/bin/python3
    [ -x "$py" ] || py=python3
    for ((i = 0; i < ${#ids[@]}; i++)); do
        printf '%s\0%s\0%s\0' "${ids[i]}" "${files[i]}" "${finds[i]}"
    done | "$py" -c '
import os, sys
fields = sys.stdin.buffer.read().split(b"\0")[:-1]
stale = 0
for i in range(0, len(fields), 3):
    mid, name, find = (f.decode("utf-8", "replace") for f in fields[i:i + 3])
    why = None
    if not os.path.isfile(name):
        why = "no file " + name
    else:
        n = open(name, encoding="utf-8", errors="replace").read().count(find)
        why = {0: "snippet not found in " + name, 1: None}.get(n, "snippet found more than once in " + name)
    if why:
        print("stale: %s: %s" % (mid, why))
        stale += 1
print("mutants: %d listed, %d stale" % (len(fields) // 3, stale))
sys.exit(1 if stale else 0)
'
    exit
fi

# ---- the copy ------------------------------------------------------------

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Tracked and untracked files that git does not ignore, as they are in
# the working tree now; outside git, everything but build/.
copy_tree() {
    rm -rf "$tree"
    mkdir -p "$tree" || exit 2
    if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$src" ls-files -z --cached --others --exclude-standard \
            | while IFS= read -r -d '' f; do
                  [ -f "$src/$f" ] || [ -L "$src/$f" ] && printf '%s\0' "$f"
              done \
            | tar -C "$src" --null -T - -cf - | tar -C "$tree" -xf -
    else
        tar -C "$src" --exclude=./build -cf - . | tar -C "$tree" -xf -
    fi
    [ -f "$tree/Makefile" ] || { echo "mutants: could not copy the tree" >&2; exit 2; }
    tree=$(cd "$tree" && pwd -P)
    lib=$tree/shim/libarenafix.so
}

# inner LIMIT LOG TARGET: make TARGET in the copy, against its library,
# without -Werror (a warning is no test).  Sets rc (124: over LIMIT).
flags=(WERROR=)
[ -n "${MUTANTS_CFLAGS+set}" ] && flags+=("CFLAGS=$MUTANTS_CFLAGS")
inner() {
    local limit=$1 log=$2 target=$3
    timeout -k 10 "$limit" "$make_cmd" -C "$tree" --no-print-directory "${flags[@]}" \
        ARENAFIX_TESTLIB="$lib" "$target" >>"$log" 2>&1 </dev/null
    rc=$?
}

# The failing tests a suite's output names (check's "FILE:LINE:F:CASE:TEST:I:"
# lines, check-real's "FAIL NAME:", check-exports' FAIL or diff,
# check-attack's "FAIL  NAME"), at most three.
failed_tests() {
    {
        sed -n 's/^[^:]*:[0-9]*:[FE]:[^:]*:\([^:]*\):[0-9]*:.*/\1/p' "$1"
        case $2 in
        check-real) sed -n 's/^FAIL \([^: ]*\).*/real:\1/p' "$1" ;;
        check-attack) sed -n 's/^FAIL  *\([^ ]*\) .*/\1/p' "$1" ;;
        esac
        [ "$2" = check-exports ] && grep -q '^[-+][^-+]' "$1" && echo "export list"
        sed -n 's/^needed: FAIL.*/needed libraries/p' "$1"
    } | awk '!seen[$0]++' | head -n 3 | paste -sd, -
}

# The parts (shim, cli) the mutants to run change, in the order of the
# table.
parts_run=()
for ((i = 0; i < ${#ids[@]}; i++)); do
    [ -n "$only" ] && ! [[ ${ids[i]} =~ $only ]] && continue
    [ -n "${equivs[i]}" ] && continue
    [[ " ${parts_run[*]} " == *" ${parts[i]} "* ]] || parts_run+=("${parts[i]}")
done

mkdir -p "$logs"
rm -f "$logs"/*.log
start_all=$(now)
copy_tree
echo "mutants: ${#ids[@]} in $list; the tree is copied to build/mutants/tree"
echo "mutants: parts to test: ${parts_run[*]:-none}"
echo "mutants: affected glibc: ${ARENAFIX_AFFECTED_GLIBC:-none}"

# ---- the unmutated tree must pass, and says how long a run takes -------------

declare -A base_time=() limits=()
base_log=$logs/unmutated.log
: >"$base_log"
# check-exports writes into build/test without making it.
mkdir -p "$tree/build/test"
suites=()
for part in "${parts_run[@]}"; do
    inner 1800 "$base_log" "${part_build[$part]}"
    if [ $rc -ne 0 ]; then
        tail -n 30 "$base_log"
        echo "mutants: the unmutated tree does not build (see build/mutants/logs/unmutated.log)"
        exit 2
    fi
    read -r -a more <<<"${part_suites[$part]}"
    suites+=("${more[@]}")
done
for suite in "${suites[@]}"; do
    t0=$(now)
    echo "==== $suite" >>"$base_log"
    : >"$base_log.part"
    inner 1800 "$base_log.part" "$suite"
    cat "$base_log.part" >>"$base_log"
    base_time[$suite]=$(since "$t0")
    if [ $rc -ne 0 ]; then
        # Once more: a test that fails only sometimes is worth knowing
        # about, and makes that suite's kills less certain.
        flaky=$(failed_tests "$base_log.part" "$suite")
        echo "==== $suite (again)" >>"$base_log"
        t0=$(now)
        inner 1800 "$base_log" "$suite"
        base_time[$suite]=$(since "$t0")
        if [ $rc -ne 0 ]; then
            tail -n 30 "$base_log"
            echo "mutants: the unmutated tree fails $suite: no mutant can be judged" \
                 "(see build/mutants/logs/unmutated.log)"
            exit 2
        fi
        echo "mutants: WARNING: the unmutated tree failed $suite once (${flaky:-?}) and passed" \
             "on a second run: a flaky test; a kill it alone makes is not certain"
    fi
    rm -f "$base_log.part"
done
for part in "${parts_run[@]}"; do
    base_total=0
    for suite in ${part_suites[$part]}; do
        base_total=$(awk -v a="$base_total" -v b="${base_time[$suite]}" 'BEGIN { print a + b }')
    done
    limits[$part]=${MUTANTS_TIMEOUT:-$(awk -v t="$base_total" 'BEGIN { l = int(4 * t + 1); print l < 120 ? 120 : l }')}
done
echo "mutants: unmutated tree passes every suite:" \
     "$(for s in "${suites[@]}"; do printf '%s %ss  ' "$s" "${base_time[$s]}"; done)"
echo "mutants: time limit per mutant:" \
     "$(for p in "${parts_run[@]}"; do printf '%s/ %ss  ' "$p" "${limits[$p]}"; done)"

# ---- each mutant -----------------------------------------------------------

results=() killers=() notes=() times=()
current_file='' current_text=''

restore() {
    [ -n "$current_file" ] && printf '%s' "$current_text" >"$current_file"
    current_file=''
}
trap restore EXIT
trap 'restore; exit 130' INT TERM

total=${#ids[@]}
for ((i = 0; i < total; i++)); do
    id=${ids[i]}
    results[i]='' killers[i]='' notes[i]='' times[i]=''
    if [ -n "$only" ] && ! [[ $id =~ $only ]]; then
        results[i]=skipped
        continue
    fi
    if [ -n "${equivs[i]}" ]; then
        results[i]=equivalent
        notes[i]=${equivs[i]}
        printf '[%2d/%d] %-36s equivalent (not run)\n' $((i + 1)) "$total" "$id"
        continue
    fi
    path=$tree/${files[i]}
    log=$logs/$id.log
    notes[i]=$(stale_reason "$i" "$tree")
    if [ -n "${notes[i]}" ]; then
        results[i]=stale
        printf '[%2d/%d] %-36s stale: %s\n' $((i + 1)) "$total" "$id" "${notes[i]}"
        continue
    fi
    IFS= read -r -d '' text <"$path"
    part=${parts[i]} limit=${limits[${parts[i]}]}
    read -r -a suites <<<"${part_suites[$part]}"

    t0=$(now)
    current_file=$path current_text=$text
    printf '%s' "${text/"${finds[i]}"/"${replaces[i]}"}" >"$path"
    {
        echo "mutant $id: ${bugs[i]}"
        echo "file ${files[i]}"
        echo "---- find"; printf '%s\n' "${finds[i]}"
        echo "---- replace"; printf '%s\n' "${replaces[i]}"
        echo "==== build"
    } >"$log"
    inner "$limit" "$log" "${part_build[$part]}"
    if [ $rc -ne 0 ]; then
        results[i]=killed killers[i]=build
        [ $rc -eq 124 ] && notes[i]="time limit"
    else
        for suite in "${suites[@]}"; do
            left=$(awk -v l="$limit" -v s="$(since "$t0")" 'BEGIN { print int(l - s) }')
            if [ "$left" -le 0 ]; then
                results[i]=killed killers[i]+="${killers[i]:+,}$suite" notes[i]="time limit"
                break
            fi
            echo "==== $suite" >>"$log"
            : >"$log.part"
            inner "$left" "$log.part" "$suite"
            cat "$log.part" >>"$log"
            if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$confirm" = 1 ]; then
                # A kill must happen twice: a test that fails now and
                # then, or a loaded machine, kills no mutant.
                first=$(failed_tests "$log.part" "$suite")
                echo "==== $suite (again, to confirm)" >>"$log"
                left=$(awk -v l="$limit" -v s="$(since "$t0")" 'BEGIN { print int(l - s) }')
                : >"$log.part"
                [ "$left" -gt 0 ] && inner "$left" "$log.part" "$suite"
                cat "$log.part" >>"$log"
                if [ $rc -eq 0 ]; then
                    notes[i]+="${notes[i]:+; }$suite failed once (${first:-?}), then passed: ignored"
                    continue
                fi
            fi
            if [ $rc -ne 0 ]; then
                results[i]=killed killers[i]+="${killers[i]:+,}$suite"
                if [ $rc -eq 124 ]; then
                    notes[i]+="${notes[i]:+; }time limit in $suite"
                else
                    notes[i]+="${notes[i]:+; }$(failed_tests "$log.part" "$suite")"
                fi
                [ "$all_suites" = 1 ] || break
            fi
        done
        [ -n "${results[i]}" ] || results[i]=survived
    fi
    restore
    rm -f "$log.part"
    times[i]=$(since "$t0")
    printf '[%2d/%d] %-36s %-8s %-22s %6ss  %s\n' $((i + 1)) "$total" "$id" "${results[i]}" \
           "${killers[i]:--}" "${times[i]}" "${notes[i]}"
done

# ---- the report ------------------------------------------------------------

nkilled=0 nsurvived=0 nstale=0 nequiv=0 build_kills=() survivors=()
report=$work/report.txt
{
    printf '%-36s %-10s %-24s %7s  %s\n' mutant result killed-by seconds bug
    for ((i = 0; i < total; i++)); do
        case ${results[i]} in
        skipped) continue ;;
        killed) nkilled=$((nkilled + 1))
                [ "${killers[i]}" = build ] && build_kills+=("${ids[i]}") ;;
        survived) nsurvived=$((nsurvived + 1)) survivors+=("${ids[i]}") ;;
        stale) nstale=$((nstale + 1)) ;;
        equivalent) nequiv=$((nequiv + 1)) ;;
        esac
        printf '%-36s %-10s %-24s %7s  %s%s\n' "${ids[i]}" "${results[i]}" "${killers[i]:--}" \
               "${times[i]:--}" "${bugs[i]}" "${notes[i]:+ [${notes[i]}]}"
    done
} >"$report"
echo
cat "$report"
echo
echo "mutants: run time $(since "$start_all")s; table in build/mutants/report.txt, logs in build/mutants/logs/"
[ ${#build_kills[@]} -gt 0 ] && echo "mutants: killed by the build (did not compile): ${build_kills[*]}"
[ $nequiv -gt 0 ] && echo "mutants: $nequiv marked equivalent in the list (not run)"
[ $nsurvived -gt 0 ] && echo "mutants: SURVIVED: ${survivors[*]}"
echo "mutants: $nkilled killed, $nsurvived survived, $nstale stale"
[ $nsurvived -eq 0 ] || [ "$allow" = 1 ] || exit 1
exit 0
