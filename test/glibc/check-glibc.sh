#!/bin/sh
# make check-glibc: glibc's own test suites judge whether the library is
# transparent.  On the affected glibc (test/glibc/build-affected-glibc.sh,
# built once and kept in build/glibc/), glibc's malloc and nptl test
# directories and posix's affinity and scheduler tests run twice: plain,
# then with the library under test preloaded into every test program
# (glibc's test-wrapper, test/glibc/preload-wrapper).  A test whose result
# differs between the two runs fails, unless test/glibc/known-differences
# explains that very change.
#
# Settings (environment):
#   ARENAFIX_TESTLIB    the library under test (default shim/libarenafix.so)
#   ARENAFIX_GLIBC_WORK the affected glibc's source and build tree
#                       (default build/glibc; rm its build.stamp to rebuild)
#   JOBS                make's parallelism (default: every CPU)
#   TIMEOUTFACTOR       glibc's test timeout multiplier (default 10: glibc's
#                       timeouts suit an idle machine, not a shared 2-CPU one)
#   GLIBC_SUBDIRS       glibc test directories run whole (default malloc nptl)
#   GLIBC_POSIX_TESTS   the posix tests run (default below)
# The ARENAFIX_* variables reach the preloaded run: ARENAFIX_MODE=both
# make check-glibc puts every new thread through the trampoline.
#
# Output: the result counts of both runs, each test whose result differs,
# and last "N passed, N failed".  Logs and every test's output of both runs
# are in build/glibc/results/{plain,arenafix}/.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
lib=${ARENAFIX_TESTLIB:-$root/shim/libarenafix.so}
work=${ARENAFIX_GLIBC_WORK:-build/glibc}
jobs=${JOBS:-$(nproc)}
subdirs=${GLIBC_SUBDIRS:-malloc nptl}
posix_tests=${GLIBC_POSIX_TESTS:-tst-affinity tst-affinity-pid tst-affinity-static \
    tst-sched_getaffinity tst-sched_rr_get_interval tst-cpucount tst-cpuset}
known=$root/test/glibc/known-differences
TIMEOUTFACTOR=${TIMEOUTFACTOR:-10}
export TIMEOUTFACTOR

mkdir -p "$work"
work=$(cd "$work" && pwd)
src=$work/src
obj=$work/build
results=$work/results

elapsed() { # SECONDS -> "12m 34s"
    echo "$(($1 / 60))m $(($1 % 60))s"
}

# ---- the affected glibc's build tree ---------------------------------
if [ -e "$work/build.stamp" ]; then
    echo "check-glibc: reusing the affected glibc built in $work"
else
    echo "check-glibc: building the affected glibc in $work (log: build.log)"
    start=$(date +%s)
    if ! WORK=$work JOBS=$jobs sh test/glibc/build-affected-glibc.sh "$work/lib" \
            > "$work/build.log" 2>&1; then
        tail -n 30 "$work/build.log"
        echo "check-glibc: the affected glibc did not build"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "check-glibc: glibc built in $(elapsed $(($(date +%s) - start)))"
    touch "$work/build.stamp"
fi

# The library is copied, so that a rebuild during the runs changes nothing,
# into the build tree, which glibc's container tests see too.
if [ ! -r "$lib" ]; then
    echo "check-glibc: no library to test at $lib"
    echo "0 passed, 1 failed"
    exit 1
fi
mkdir -p "$results" "$obj/arenafix"
testlib=$obj/arenafix/libarenafix.so
cp "$lib" "$testlib"
echo "check-glibc: library under test: $lib (sha256 $(sha256sum < "$lib" | cut -c1-16))"
wrapper="$root/test/glibc/preload-wrapper $testlib"

# Run make in one of glibc's test directories, as glibc's top-level
# Makefile does for make check.  MAKEINFO=: for trees configured without it
# (Debian's source has no manual).
glibc_make() { # SUBDIR MAKE-ARGS...
    sub=$1
    shift
    make -r -C "$src/$sub" objdir="$obj" subdir="$sub" ..=../ -j"$jobs" MAKEINFO=: "$@"
}

posix_targets() { # SUFFIX
    for t in $posix_tests; do printf '%s ' "$obj/posix/$t$1"; done
}

# Every test's output and result file goes before a run, so that each
# run runs every test.  (These directories hold no other .out files.)
clear_results() {
    for sub in $subdirs; do
        rm -f "$obj/$sub"/*.out "$obj/$sub"/*.test-result "$obj/$sub/subdir-tests.sum"
    done
    for t in $posix_tests; do
        rm -f "$obj/posix/$t.out" "$obj/posix/$t.test-result"
    done
}

# ---- the test programs, built once -----------------------------------
# The container tests' root (a make install into testroot.pristine), as
# glibc's top-level make check makes it.  Then everything the runs need:
# make check with test-wrapper=true builds every test program, module and
# variant but runs none of them (each "runs" true).
start=$(date +%s)
if ! make -r -C "$src" objdir="$obj" -j"$jobs" MAKEINFO=: \
        "$obj/testroot.pristine/install.stamp" > "$results/build-tests.log" 2>&1; then
    echo "check-glibc: the container tests' root did not build (see $results/build-tests.log)"
fi
for sub in $subdirs; do
    glibc_make "$sub" -k test-wrapper=true check >> "$results/build-tests.log" 2>&1 ||
        echo "check-glibc: some $sub tests did not build (see $results/build-tests.log)"
done
# shellcheck disable=SC2046
glibc_make posix -k test-wrapper=true $(posix_targets .out) >> "$results/build-tests.log" 2>&1 ||
    echo "check-glibc: some posix tests did not build (see $results/build-tests.log)"
echo "check-glibc: test programs built in $(elapsed $(($(date +%s) - start)))"

# The preload must reach the test programs: ld.so lists what it loads.
probe=$($wrapper env LD_TRACE_LOADED_OBJECTS=1 "$obj/elf/ld.so" --library-path "$obj" \
        "$obj/malloc/tst-malloc" 2>&1 || true)
case $probe in
*"$testlib"*) ;;
*)
    echo "$probe"
    echo "check-glibc: the library is not loaded into glibc's test programs"
    echo "0 passed, 1 failed"
    exit 1
    ;;
esac

# ---- the two runs ----------------------------------------------------
run_tests() { # NAME [MAKE-VARIABLES]
    name=$1
    shift
    out=$results/$name
    rm -rf "$out"
    mkdir -p "$out"
    clear_results
    start=$(date +%s)
    for sub in $subdirs; do
        glibc_make "$sub" -k "$@" check >> "$out/make.log" 2>&1 || true
    done
    # shellcheck disable=SC2046
    glibc_make posix -k "$@" $(posix_targets .out) >> "$out/make.log" 2>&1 || true
    echo $(($(date +%s) - start)) > "$out/seconds"
    for sub in $subdirs; do
        if [ -s "$obj/$sub/subdir-tests.sum" ]; then
            cat "$obj/$sub/subdir-tests.sum"
        else
            echo "UNRESOLVED: $sub (no results: see $out/make.log)"
        fi
        mkdir -p "$out/$sub"
        cp "$obj/$sub"/*.out "$out/$sub/" 2>/dev/null || true
    done > "$out/results"
    mkdir -p "$out/posix"
    for t in $posix_tests; do
        if [ -s "$obj/posix/$t.test-result" ]; then
            head -n 1 "$obj/posix/$t.test-result"
            cp "$obj/posix/$t.out" "$out/posix/"
        else
            echo "UNRESOLVED: posix/$t"
        fi
    done >> "$out/results"
}

echo "check-glibc: run 1 of 2: plain"
run_tests plain
echo "check-glibc: run 2 of 2: with $(basename "$lib") preloaded"
run_tests arenafix test-wrapper="$wrapper"

# A program the library did not reach proves nothing: ld.so says so on its
# standard error, which goes to make's log.
unloaded=$(grep -c "libarenafix.so.*cannot be preloaded" "$results/arenafix/make.log" || true)

# ---- compare ---------------------------------------------------------
echo
gawk -v known="$known" -v unloaded="$unloaded" -v makelog="$results/arenafix/make.log" \
    -v tplain="$(elapsed "$(cat "$results/plain/seconds")")" \
    -v tarena="$(elapsed "$(cat "$results/arenafix/seconds")")" '
function count(run, time,   r, line) {
    line = sprintf("%-9s %4d tests", run, total[run])
    for (r = 1; r <= nkinds; r++)
        line = line sprintf(", %d %s", n[run, kinds[r]], kinds[r])
    return line " (" time ")"
}
BEGIN {
    nkinds = split("PASS FAIL UNSUPPORTED XFAIL XPASS UNRESOLVED", kinds)
    while ((getline line < known) > 0) {
        if (line ~ /^[ \t]*(#|$)/)
            continue
        split(line, f)
        reason = line
        sub(/^[ \t]*[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]*/, "", reason)
        explained[f[1], f[2], f[3]] = reason
    }
}
{
    run = ARGIND == 1 ? "plain" : "arenafix"
    result = $1
    sub(/:$/, "", result)
    test = $2
    if (!((run, test) in res)) {
        res[run, test] = result
        total[run]++
        n[run, result]++
    }
    tests[test] = 1
}
END {
    print count("plain", tplain)
    print count("arenafix", tarena)
    passed = failed = 0
    for (t in tests) {
        a = ((("plain", t) in res) ? res["plain", t] : "MISSING")
        b = ((("arenafix", t) in res) ? res["arenafix", t] : "MISSING")
        if (a == b) {
            passed++
        } else if ((t, a, b) in explained) {
            passed++
            diff[t] = sprintf("differs:  %s: %s -> %s (known: %s)", t, a, b, explained[t, a, b])
        } else {
            failed++
            diff[t] = sprintf("FAIL:     %s: %s -> %s", t, a, b)
        }
    }
    ndiff = asorti(diff, order)
    for (i = 1; i <= ndiff; i++)
        print diff[order[i]]
    if (unloaded > 0) {
        printf "FAIL:     the library could not be preloaded %d times (%s)\n", unloaded, makelog
        failed++
    }
    printf "%d passed, %d failed\n", passed, failed
    exit failed > 0
}' "$results/plain/results" "$results/arenafix/results"
