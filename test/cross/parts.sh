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

# finish TARGET: the closing lines; fails when a part failed.
finish() {
    echo "$1: took $(($(date +%s) - began)) s"
    echo "$1: $passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
}
