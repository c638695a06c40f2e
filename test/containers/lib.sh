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

# rootfs DIR GLIBC_DIR [NAME=FILE]...: a root file system in DIR with
# each FILE as bin/NAME and, unless GLIBC_DIR is "", that glibc's libc
# and loader at the multiarch path with its cache.
rootfs() {
    dir=$1 from=$2
    shift 2
    rm -rf "$dir" && mkdir -p "$dir/usr/lib/x86_64-linux-gnu" "$dir/lib64" "$dir/bin" "$dir/etc" \
        "$dir/proc" "$dir/sys" "$dir/dev" "$dir/tmp" "$dir/run" || return 1
    for spec in "$@"; do
        cp "${spec#*=}" "$dir/bin/${spec%%=*}" || return 1
    done
    [ -n "$from" ] || return 0
    cp "$from/libc.so.6" "$from/ld-linux-x86-64.so.2" "$dir/usr/lib/x86_64-linux-gnu/" || return 1
    ln -s ../usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$dir/lib64/ld-linux-x86-64.so.2"
    echo /usr/lib/x86_64-linux-gnu > "$dir/etc/ld.so.conf"
    ldconfig -r "$dir"
}
