# Sourced by each part of check-containers (check.sh, scan.sh, hook.sh)
# after it sets `part` (its label in the summary, empty for the first)
# and `tag` (the prefix of its images and containers): the counts and
# the summary line, podman's options here, an image from a folder.
# shellcheck shell=sh
passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP: $*"; }
summary() {
    echo "check-containers${part:+ ($part)}: $passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
    exit $?
}

# needs CMD...: root and these commands, or the part is skipped.
needs() {
    if [ "$(id -u)" -ne 0 ]; then skip "needs root (rootful podman)"; summary; fi
    for p in "$@"; do
        command -v "$p" >/dev/null 2>&1 || { skip "$p is not installed (test/packages.txt)"; summary; }
    done
}

# runc rather than crun (crun refuses a hybrid cgroup layout); limits no
# higher than ours (podman's defaults exceed what a root without
# CAP_SYS_RESOURCE may set); no network.
run_opts="--runtime runc --network none --ulimit nofile=1024:4096 --ulimit nproc=4096:8192"
pm() { podman "$@"; }

# image NAME: $work/NAME imported as localhost/$tag-NAME (podman's
# complaint shown when it refuses).
image() {
    tar -C "$work/$1" -c . | pm import - "localhost/$tag-$1" >/dev/null 2>"$work/import.log" ||
        { cat "$work/import.log"; return 1; }
}
