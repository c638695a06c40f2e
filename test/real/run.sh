#!/bin/bash
# make check-real: real programs on the system glibc and on every affected
# glibc, without and with the preload.  The arena counts come from the
# counting preload (countarenas.so), never from the program's output.
#
# For each case the expectations are:
#   system glibc, without arenafix    the fixed glibc's count, measured here
#   system glibc, default and touch   unchanged
#   affected glibc, without arenafix  the bug's count (main arena + 8)
#   affected glibc, default mode      the fixed glibc's count
#   affected glibc, touch mode        the fixed glibc's count; the bug's
#                                     count where the README says touch mode
#                                     cannot help (threads that inherit a mask
#                                     narrowed before the program started, as
#                                     under taskset)
#
# Environment: AFX_REAL_BIN (the programs real.mk builds), ARENAFIX_TESTLIB
# (the library under test), ARENAFIX_AFFECTED_GLIBC (affected glibc
# directories, colon-separated; optional).  Debian's libc6-amd64-cross is
# used too when it is installed and shows the bug.  AFX_PROOF_GLIBCS=first
# (make check-real, the fast tier) keeps the first affected glibc named,
# and the cross one only when none is; make check-releases runs them all.
set -u

bin=${AFX_REAL_BIN:?set AFX_REAL_BIN to the directory real.mk builds (make check-real does)}
lib=${ARENAFIX_TESTLIB:?set ARENAFIX_TESTLIB to the library under test (make check-real does)}
affected_setting=${ARENAFIX_AFFECTED_GLIBC:-}
proof_glibcs=${AFX_PROOF_GLIBCS:-all}
cross_glibc=/usr/x86_64-linux-gnu/lib

# glibc's limit latches when the ninth arena exists; a thread that sees
# one CPU sets it to 8, so the ninth is the last (64-bit).
bug_arenas=9

# Settings from the caller's environment would change what is measured.
unset LD_PRELOAD GLIBC_TUNABLES MALLOC_ARENA_MAX MEMCACHED_PORT_FILENAME
for var in $(compgen -e); do
    case $var in ARENAFIX_* | AFX_* | OMP_* | GOMP_*) unset "$var" ;; esac
done

work=$bin/run
rm -rf "$work"
mkdir -p "$work" || exit 1
server=
trap '[ -n "$server" ] && kill -KILL "$server" 2>/dev/null' EXIT

passed=0 failed=0

# ---- the glibcs ----------------------------------------------------------

loader_of() {
    local ld
    for ld in "$1"/ld-linux*.so.[0-9]*; do
        [ -x "$ld" ] && { echo "$ld"; return 0; }
    done
    return 1
}

label_of() {
    if [ "$1" = "$cross_glibc" ]; then
        echo libc6-amd64-cross
    elif [ "${1##*/}" = lib ]; then
        local parent=${1%/lib}
        echo "${parent##*/}"
    else
        echo "${1##*/}"
    fi
}

echo "library under test: $lib"
affected=()
IFS=: read -r -a listed <<<"$affected_setting"
for dir in "${listed[@]}"; do
    [ -n "$dir" ] || continue
    if ! loader_of "$dir" >/dev/null; then
        echo "FAIL: ARENAFIX_AFFECTED_GLIBC names $dir, which holds no ld.so"
        failed=$((failed + 1))
        continue
    fi
    dir=$(cd "$dir" && pwd)
    [[ " ${affected[*]} " == *" $dir "* ]] || affected+=("$dir")
done
named=${#affected[@]}
if [ "$proof_glibcs" = first ] && [ "$named" -gt 1 ]; then
    echo "fast tier: real programs on the first affected glibc named of $named; make check-releases runs them on all"
    affected=("${affected[0]}")
fi

# ---- one run -------------------------------------------------------------

# launch: what a case puts before its program: env with the preloads and
# the mode, then the affected glibc's ld.so when there is one.
launch=()

# measure CASE DIR MODE: run CASE once under the glibc in DIR (empty: the
# system's) with MODE off, default or touch.  Sets got to the arena count
# or to why there is none; ARENAFIX_VERBOSE=1 in extra_env shows why.
#
# The counter comes after libarenafix.so in LD_PRELOAD: arenafix stays
# first, where users put it, and the counter, which defines no symbol,
# changes no binding.  A later preload is initialised first and finalised
# last, so the counter's constructor (which only copies a variable) runs
# before arenafix's, and its count after every other destructor.
extra_env=()
measure() {
    local name=$1 dir=$2 mode=$3 report=$work/arenas status lines
    rm -f "$report"
    launch=(env AFX_ARENAS_FILE="$report" "${extra_env[@]}")
    case $mode in
    off) launch+=(LD_PRELOAD="$bin/countarenas.so") ;;
    default) launch+=(LD_PRELOAD="$lib:$bin/countarenas.so") ;;
    touch) launch+=(LD_PRELOAD="$lib:$bin/countarenas.so" ARENAFIX_MODE=touch) ;;
    esac
    [ -n "$dir" ] && launch+=("$(loader_of "$dir")" --library-path "$dir")
    "run_$name" >"$work/out" 2>"$work/err"
    status=$?
    lines=$(cat "$report" 2>/dev/null)
    if [ $status -ne 0 ]; then
        got="failed (status $status): $(grep -v '^arenafix:' "$work/err" | tail -n 2 | tr '\n' ' ')"
    elif [[ ! $lines =~ ^arenas=[0-9]+$ ]]; then
        got="no single arenas= line from the counting preload: \"${lines//$'\n'/ }\""
    else
        got=${lines#arenas=}
    fi
}

# The last thing arenafix said, for a count that is not the expected one.
why() {
    local measured=$got
    extra_env=(ARENAFIX_VERBOSE=1)
    measure "$@"
    extra_env=()
    got=$measured
    grep '^arenafix:' "$work/err" | tail -n 1
}

# ---- the cases -------------------------------------------------------------
# Each run_CASE runs its program with "${launch[@]}" in front and fails
# if the program does; each about_CASE sets what the line says, what is
# missing (empty: nothing) and, for touch mode, whether the README's limit
# applies.

need() {
    [ -x "$1" ] || missing="${missing:+$missing, }$2"
}

# For a case run under taskset -c 0, pinned before it starts.
under_taskset() {
    need /usr/bin/taskset util-linux
    touch_limit="taskset narrows the mask before the program starts"
}

# Debian's interpreter (non-PIE, and it takes malloc's address), not
# whichever python3 comes first in PATH; real.mk builds the module for it.
about_python() {
    title="python3 + OpenMP extension (24 threads, OMP_PROC_BIND=close)"
    need /usr/bin/python3 python3
    [ -f "$bin/ompext.so" ] || missing="${missing:+$missing, }python3-dev (the extension was not built)"
}
run_python() {
    timeout -k 5 30 env OMP_PROC_BIND=close OMP_PLACES=threads "${launch[@]}" \
        /usr/bin/python3 -I -S -c 'import sys
sys.path.insert(0, sys.argv[1])
import ompext
sys.exit(0 if ompext.run(24) == 24 else "ompext.run: not every thread ran")' "$bin"
}

about_pigz() {
    title="taskset -c 0 pigz -p 16 ($((input_size / 1000)) kB)"
    need /usr/bin/pigz pigz
    under_taskset
}
run_pigz() {
    timeout -k 5 30 taskset -c 0 "${launch[@]}" /usr/bin/pigz -p 16 -c "$work/input" >/dev/null
}

about_xz() {
    title="taskset -c 0 xz -T16 ($((input_size / 1000)) kB, 128 KiB blocks)"
    need /usr/bin/xz xz-utils
    under_taskset
}
run_xz() {
    timeout -k 5 30 taskset -c 0 "${launch[@]}" /usr/bin/xz -T16 -1 --block-size=128KiB \
        -c "$work/input" >/dev/null
}

# memcached cannot pin its threads itself, so the whole server runs under
# taskset.  It stops on SIGTERM through exit(), so the counting preload's
# destructor runs.
about_memcached() {
    title="taskset -c 0 memcached -t 16, 32 connections on 127.0.0.1"
    need /usr/bin/memcached memcached
    under_taskset
}
run_memcached() {
    local ports=$work/ports port load=1 status user=()
    [ "$(id -u)" -eq 0 ] && user=(-u root)
    rm -f "$ports"
    # -p -1: a free port, written to MEMCACHED_PORT_FILENAME (as memcached's
    # own tests do).  The load and its end are bounded: mcload stops after
    # 60 s, the server is killed 60 s after SIGTERM (generous: a loaded
    # host is no hang; a killed server has no count).
    taskset -c 0 env MEMCACHED_PORT_FILENAME="$ports" "${launch[@]}" /usr/bin/memcached \
        "${user[@]}" -l 127.0.0.1 -p -1 -U 0 -t 16 -m 64 &
    server=$!
    for _ in $(seq 1200); do
        [ -s "$ports" ] && break
        sleep 0.05
    done
    port=$(sed -n 's/^TCP INET: //p' "$ports" 2>/dev/null)
    if [ -n "$port" ]; then
        timeout -k 5 90 "$bin/mcload" "$port" 32 20 60
        load=$?
    else
        echo "memcached: no listening port after 60 s" >&2
    fi
    kill -TERM "$server"
    # A connection wakes the main loop, which otherwise sees the signal
    # at its next once-a-second tick.
    [ -n "$port" ] && : 2>/dev/null <>"/dev/tcp/127.0.0.1/$port"
    for _ in $(seq 1200); do
        kill -0 "$server" 2>/dev/null || break
        sleep 0.05
    done
    kill -KILL "$server" 2>/dev/null
    wait "$server"
    status=$?
    server=
    [ $load -eq 0 ] && return $status
    return $load
}

about_gomp() {
    title="libgomp program (30 threads, OMP_PROC_BIND=close)"
}
run_gomp() {
    timeout -k 5 30 env OMP_NUM_THREADS=30 OMP_PROC_BIND=close OMP_PLACES=threads \
        "${launch[@]}" "$bin/gomp"
}

# ---- checking one case ---------------------------------------------------

# expect WHAT GOT WANT WHY [CASE DIR MODE]: note a mismatch (with what
# arenafix said, when the run had it).
expect() {
    [ "$2" = "$3" ] && return 0
    local said=
    [ $# -ge 7 ] && [ "$7" != off ] && said=$(why "$5" "$6" "$7")
    problems+=("$1: $2, expected $3 ($4)${said:+; $said}")
}

# glibc 2.35 as released also counts as CPUs the stack bytes the kernel did
# not write (its bug 28850): a thread whose first malloc runs on a reused
# stack can get more than the bug's count, by chance (xz: 9 or 17 without
# arenafix).  There only the count arenafix restores is exact.
expect_bug() {
    local what=$1 got=$2 why=$3 dir=$4; shift 4
    if [[ $(label_of "$dir") == glibc-2.35 ]] && [[ $got =~ ^[0-9]+$ ]] && [ "$got" -ge $bug_arenas ]; then
        return
    fi
    expect "$what" "$got" $bug_arenas "$why" "$@"
}

run_case() {
    local name=$1 start=$EPOCHREALTIME dir label fixed counts
    title='' missing='' touch_limit=''
    "about_$name"
    if [ -n "$missing" ]; then
        echo "SKIP $name: $missing not installed"
        return
    fi
    problems=()
    measure "$name" "" off
    fixed=$got
    if [[ ! $fixed =~ ^[0-9]+$ ]]; then
        echo "FAIL $name: $title: system glibc: $fixed"
        failed=$((failed + 1))
        return
    fi
    if [ "$fixed" -le $bug_arenas ]; then
        echo "SKIP $name: the system glibc gives $fixed arenas, no more than the bug's" \
             "$bug_arenas, so there is nothing to restore (is the system glibc affected?)"
        return
    fi
    counts="system $fixed"
    measure "$name" "" default
    expect "system glibc, arenafix" "$got" "$fixed" "unchanged" "$name" "" default
    counts+=" (arenafix $got"
    measure "$name" "" touch
    expect "system glibc, touch" "$got" "$fixed" "unchanged" "$name" "" touch
    counts+=", touch $got)"
    for dir in "${affected[@]}"; do
        label=$(label_of "$dir")
        measure "$name" "$dir" off
        # An older release than the system's libraries were built for
        # (2.34 and 2.35 under Debian 12's python3, libexpat, libevent):
        # the program cannot start there, with or without arenafix.
        local needs
        needs=$(sed -n "s/.*version \`\(GLIBC_[0-9.]*\)' not found (required by \([^)]*\)).*/\2 needs \1/p" \
                "$work/err" | head -n 1)
        if [[ $got == failed* ]] && [ -n "$needs" ]; then
            echo "SKIP $name on $label: $needs, which this glibc predates"
            counts+="; $label skipped"
            continue
        fi
        expect_bug "$label, without arenafix" "$got" "the bug's count" "$dir"
        counts+="; $label $got"
        measure "$name" "$dir" default
        expect "$label, arenafix" "$got" "$fixed" "the fixed glibc's" "$name" "$dir" default
        counts+=" (arenafix $got"
        measure "$name" "$dir" touch
        if [ -n "$touch_limit" ]; then
            expect_bug "$label, touch" "$got" "touch mode's documented limit: $touch_limit" \
                       "$dir" "$name" "$dir" touch
            counts+=", touch $got as documented"
        else
            expect "$label, touch" "$got" "$fixed" "the fixed glibc's" "$name" "$dir" touch
            counts+=", touch $got"
        fi
        counts+=")"
    done
    local seconds
    seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    if [ ${#problems[@]} -eq 0 ]; then
        echo "PASS $name: $title: $counts [$seconds s]"
        passed=$((passed + 1))
    else
        echo "FAIL $name: $title: $counts [$seconds s]"
        printf '    %s\n' "${problems[@]}"
        failed=$((failed + 1))
    fi
}

# ---- main ----------------------------------------------------------------

# A few MB that compress into many blocks.
seq 1 700000 >"$work/input"
input_size=$(stat -c %s "$work/input")

# Debian's cross glibc joins the list when it is installed and shows the
# bug (a later upload may carry the fix); a named one must show it.
if [ "$(uname -m)" = x86_64 ] && loader_of "$cross_glibc" >/dev/null \
    && [[ " ${affected[*]} " != *" $cross_glibc "* ]] && { [ "$proof_glibcs" != first ] || [ "$named" -eq 0 ]; }; then
    measure gomp "$cross_glibc" off
    if [ "$got" = $bug_arenas ]; then
        affected+=("$cross_glibc")
    else
        echo "note: libc6-amd64-cross's glibc gives $got arenas, not the bug's $bug_arenas: not used"
    fi
fi

if [ ${#affected[@]} -eq 0 ]; then
    echo "SKIP the proof on an affected glibc: ARENAFIX_AFFECTED_GLIBC is unset and" \
         "libc6-amd64-cross is not installed (or fixed); only the system glibc's counts" \
         "are checked"
fi
for dir in "${affected[@]}"; do
    echo "affected glibc $(label_of "$dir"): $dir"
done

for name in python pigz xz memcached gomp; do
    run_case "$name"
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
