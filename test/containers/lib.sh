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

# counted CLIENT NAME: wait for arenawait's count in the log of
# container NAME (CLIENT pm or dk: podman's and docker's logs and
# inspect take the same words); the count in $count, its ID and PID in
# $id and $pid.
counted() {
    count=
    for _ in $(seq 1 1200); do
        count=$("$1" logs "$2" 2>/dev/null | sed -n 's/^arenas=//p')
        [ -n "$count" ] && break
        sleep 0.1
    done
    id=$("$1" inspect -f '{{.Id}}' "$2") && pid=$("$1" inspect -f '{{.State.Pid}}' "$2")
    [ -n "$count" ]
}

# start NAME IMAGE [OPTION]...: a new podman container NAME of IMAGE
# running arenawait 30 pinned (OPTIONs after run, $pm_pre's before
# it); its count, once printed, in $count, its ID and PID in $id and
# $pid, what the hook said of it in $work/hook.log in $said.
pm_pre=
start() {
    name=$1 img=$2; shift 2
    : > "$work/hook.log"
    # shellcheck disable=SC2086
    pm $pm_pre run -d -i $run_opts --name "$tag-$name" "$@" "localhost/$tag-$img" /bin/arenawait 30 pinned >/dev/null || return 1
    counted pm "$tag-$name"
    started=$?
    said=$(grep -F "container $(echo "$id" | cut -c1-12):" "$work/hook.log")
    return $started
}
mapped() { grep -c "$2" "/proc/$1/maps"; }

# once IMAGE on|off ARGS...: a container of IMAGE running ARGS to its
# end, asked for the library ($asked: the options that ask) or not;
# its output and status in $out.
once() {
    img=$1 with=$2; shift 2
    : > "$work/hook.log"
    if [ "$with" = on ]; then
        # shellcheck disable=SC2086
        out=$(pm $pm_pre run --rm $run_opts $asked "localhost/$tag-$img" "$@" 2>&1)
    else
        # shellcheck disable=SC2086
        out=$(pm $pm_pre run --rm $run_opts "localhost/$tag-$img" "$@" 2>&1)
    fi
    out="$out status=$?"
}
# untouched WHAT IMAGE REASON ARGS...: an image the library cannot
# serve: its program runs and exits as it does when not asked for
# ($asked_by says how it is asked), and the hook says why.
untouched() {
    what=$1 img=$2 reason=$3; shift 3
    once "$img" off "$@"; plain_out=$out
    once "$img" on "$@"; asked_out=$out
    [ "$plain_out" = "$asked_out" ] && grep -F "left alone: $reason" "$work/hook.log" >/dev/null \
        && pass "$what: left alone $asked_by, the program runs as before ($asked_out), the reason in the log" \
        || { fail "$what: without \"$plain_out\", $asked_by \"$asked_out\""; cat "$work/hook.log"; }
}

# musl_program DIR SOURCE: SOURCE built by musl-gcc as DIR/bin/exitwith,
# musl's loader beside it; musl=yes, or "" without musl-tools.
musl_program() {
    musl=yes
    if command -v musl-gcc >/dev/null 2>&1 && musl-gcc -O2 -o "$1/bin/exitwith" "$2" 2>/dev/null \
        && [ -e /lib/ld-musl-x86_64.so.1 ]; then
        mkdir -p "$1/lib" && cp /lib/ld-musl-x86_64.so.1 "$1/lib/"
    else
        musl=
    fi
}
