# Sourced by arm64.sh and i386.sh: the build directory, the log folder and
# the counting every part of check-cross-ARCH goes through.  Sets build
# (absolute), log, began; defines pass, fail, skip, part, suite_skips and
# finish.
build=${1:?usage: $0 BUILDDIR}
mkdir -p "$build"
build=$(cd "$build" && pwd)
log=$build/logs
mkdir -p "$log"
began=$(date +%s)

passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP: $*"; }

# part NAME CMD...: run CMD with its output in $log/NAME.log (its last
# lines shown on failure), timed; pass or fail by its status.
part() {
    name=$1
    shift
    start=$(date +%s)
    if "$@" > "$log/$name.log" 2>&1; then
        pass "$name ($(($(date +%s) - start)) s)"
    else
        tail -n 40 "$log/$name.log"
        fail "$name ($(($(date +%s) - start)) s; the whole output: $log/$name.log)"
    fi
}

# The proof's counts.  count GLIBC PATH MODE EXPECTED: GLIBC fixed (the
# system's) or affected (run through $loader), PATH none or self
# (test/progs/pinned), MODE - (without arenafix) or an ARENAFIX_MODE; one
# line of the table, and bad=1 if the count is not EXPECTED.  Uses
# $prog, $threads, $lib, $loader, $fixed_name, $affected_name.  The
# library is preloaded for the program alone, not for the counting sed.
arenas() {
    "$@" 2> /dev/null | sed -n 's/^arenas=//p'
}
count() {
    case $1 in fixed) run=;; *) run=$loader;; esac
    case $3 in -) n=$(arenas $run "$prog" "$2" $threads);;
               *) n=$(arenas sh -c 'm=$1 p=$2; shift 2; ARENAFIX_MODE=$m LD_PRELOAD=$p exec "$@"' \
                          sh "$3" "$lib" $run "$prog" "$2" $threads);;
    esac
    [ "$n" = "$4" ] && verdict=ok || { verdict="FAIL (expected $4)"; bad=1; }
    printf '%-22s %-9s %-16s arenas=%-3s %s\n' \
        "$(case $1 in fixed) echo "$fixed_name";; *) echo "$affected_name";; esac)" \
        "$(case $2 in none) echo unpinned;; *) echo pinned;; esac)" \
        "$(case $3 in -) echo without;; *) echo "arenafix $3";; esac)" "$n" "$verdict"
}

# finish TARGET: the closing lines; fails when a part failed.
finish() {
    echo "$1: took $(($(date +%s) - began)) s"
    echo "$1: $passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
}
