#!/bin/sh
# make check-containers: real podman containers (runc), on images made
# here with `podman import` of a minimal root file system, judged and
# fixed from the host by arenafix inspect.  See test/containers/README.md.
#
#   check.sh BUILD_DIR ARENAFIX LIBARENAFIX ARENAWAIT AFFECTED_GLIBC_DIR
#
# Its images and containers are named afxcheck-*, in podman's default
# storage (where inspect reads a container's name), and removed at the end.
set -u
work=$1 cli=$2 lib=$3 prog=$4 affected=$5
tag=afxcheck-$$
part=
. "$(dirname "$0")/lib.sh"

needs podman runc python3 strace
[ -e "$affected/libc.so.6" ] || { skip "no affected glibc at $affected"; summary; }


cleanup() {
    pm ps -a --format '{{.Names}}' 2>/dev/null | grep "^$tag-" | while read -r c; do pm rm -f -t 0 "$c" >/dev/null 2>&1; done
    for i in affected fixed hostile; do pm rmi -f "localhost/$tag-$i" >/dev/null 2>&1; done
    [ -n "${nested:-}" ] && rmdir "$nested" 2>/dev/null
    [ -n "${payload:-}" ] && rmdir "$payload" 2>/dev/null
    [ -n "${unit:-}" ] && rmdir "$unit" 2>/dev/null
    if [ -n "${own_unit:-}" ]; then
        po ps -a --format '{{.Names}}' 2>/dev/null | grep "^$tag-" | while read -r c; do po rm -f -t 0 "$c" >/dev/null 2>&1; done
        po rmi -f "localhost/$tag-own" >/dev/null 2>&1
        [ -n "${own_payload:-}" ] && rmdir "$own_payload" 2>/dev/null
        rmdir "$own_unit" 2>/dev/null
    fi
    rm -f "$work/hold"
    return 0
}
trap cleanup EXIT INT TERM

# A root file system: the glibc of DIR at the multiarch path, its cache,
# the pinned program.
image_root() { rootfs "$1" "$2" "arenawait=$prog"; }



# The JSON object inspect --all --json gives for container ID, as
# "engine name verdict glibc_state executed".
scanned() {
    "$cli" inspect --all --json 2>/dev/null | python3 -c '
import json, sys
for p in json.load(sys.stdin)["processes"]:
    if p.get("container_id") == sys.argv[1] and p.get("name") == "arenawait":
        print(p["container_engine"], p["container_name"], p["verdict"].replace(" ", "_"), p["glibc_state"].replace(" ", "_"), p.get("glibc_executed"))
        break
else:
    print("none")' "$1"
}

t0=$(date +%s)
image_root "$work/affected" "$affected" && image_root "$work/fixed" /lib/x86_64-linux-gnu \
    && image_root "$work/hostile" "$affected" && image affected && image fixed || { fail "the images could not be made"; summary; }
# Where the tenant writes its own podman state files.
mkdir -p "$work/hostile/var/lib/containers/storage/overlay-containers" \
    "$work/hostile/run/containers/storage/overlay-containers" && image hostile
host=$("$prog" 30 pinned </dev/null | sed -n 's/^arenas=//p')
echo "the same program on the host's glibc: $host arenas"

# 1. The bug in a container.
if start hit affected; then
    [ "$count" = 9 ] && pass "a pinned container on the affected glibc gets 9 arenas" \
        || fail "a pinned container on the affected glibc got $count arenas, not 9"
else
    fail "the affected container did not start"; summary
fi
hit_id=$id hit_pid=$pid

# 2. The scan names it, by its engine's files and cgroup.
got=$(scanned "$hit_id")
[ "$got" = "podman $tag-hit hit unknown False" ] && pass "inspect --all --json names the container (podman, its ID, its name) and calls it hit" \
    || fail "inspect --all --json said of the container: $got"
text=$("$cli" inspect --all 2>/dev/null)
echo "$text" | grep -E "^ *$hit_pid +hit .* podman:$(echo "$hit_id" | cut -c1-12):$tag-hit " >/dev/null \
    && pass "inspect --all's row names it podman:ID:NAME, hit" || { fail "inspect --all's row: "; echo "$text" | grep " $hit_pid " ; }
echo "$text" | grep -E "^    podman container $tag-hit, id $(echo "$hit_id" | cut -c1-12): process $hit_pid arenawait" >/dev/null \
    && pass "inspect --all prints a fix for the container" || fail "inspect --all printed no fix for the container"
# The other sections list a process as "    PID NAME (EXE)", a service
# by its unit; the container has none.
echo "$text" | grep -E "^    $hit_pid " >/dev/null \
    && fail "inspect --all lists the container's process for arenafix CMD" || pass "no arenafix CMD or systemctl advice for the container"

"$cli" inspect --all --prometheus 2>/dev/null | grep -E 'arenafix_process_verdict\{unit="\(podman container\)",container="[^"]+",comm="arenawait",verdict="hit"\}' >/dev/null \
    && pass "the metrics count it under unit=\"(podman container)\"" || fail "the metrics do not count it under (podman container)"

# 3. inspect PID: judged by its image's glibc, nothing of it executed.
strace -f -qq -e trace=execve,execveat -o "$work/strace.log" "$cli" inspect --json "$hit_pid" >"$work/pid.json" 2>/dev/null
rc=$?
# What may run: the command itself, and its probe of the host's glibc
# (its own program, "arenafix __probe-child", on the host's loader).
foreign_execs() {
    grep -E 'execve(at)?\(' "$1" | grep -v -E "execve\(\"$cli\"|\[\"arenafix\", \"__probe-child\"" | grep -c .
}
execs=$(foreign_execs "$work/strace.log")
[ "$rc" = 3 ] && [ "$execs" = 0 ] && python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
sys.exit(not (p["container_engine"] == "podman" and p["container_id"] == sys.argv[2] and p["glibc_executed"] is False))' "$work/pid.json" "$hit_id" \
    && pass "inspect PID: hit (exit 3), names the container, executes nothing of it" \
    || { fail "inspect PID of the container: exit $rc, $execs programs not its own executed"; grep exec "$work/strace.log"; cat "$work/pid.json"; }

# 4. The printed fix, to the letter: a new container with those options.
opts=$("$cli" inspect "$hit_pid" | sed -n 's/^        \(-v .*\)$/\1/p')
eval "set -- $opts"
if [ -n "$opts" ] && start fixed-by-options affected "$@"; then
    [ "$count" = "$host" ] && pass "its printed options ($opts) give $count arenas, the host glibc's count" \
        || fail "its printed options ($opts) gave $count arenas, the host glibc's $host"
else
    fail "no options printed, or the container with them did not start: $opts"
fi
# An LD_PRELOAD the container has is kept (named after the library).
if start preloaded affected -e LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libc.so.6; then
    "$cli" inspect "$pid" | grep -F "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so:/usr/lib/x86_64-linux-gnu/libc.so.6'" >/dev/null \
        && pass "the printed options keep the container's own LD_PRELOAD" || fail "the printed options drop the container's LD_PRELOAD"
fi
# 4b. The whole command, as podman recorded it (its CreateCommand, in
# its database): the options after "run", --replace since it names the
# container; in inspect --json as fix_command.  Run as printed, it
# replaces the container with one that maps the library.
if start recorded affected; then
    old=$id
    "$cli" inspect --json "$pid" >"$work/recorded.json" 2>/dev/null
    opts=$("$cli" inspect "$pid" | sed -n 's/^        \(-v .*\)$/\1/p')
    eval "set -- $opts"
    # shellcheck disable=SC2086
    python3 -c 'import json, sys
sys.exit(json.load(open(sys.argv[1]))["fix_command"] != sys.argv[2:])' "$work/recorded.json" \
        podman run --replace "$@" -d -i $run_opts --name "$tag-recorded" "localhost/$tag-affected" /bin/arenawait 30 pinned \
        && pass "inspect --json: fix_command is podman's recorded command, the options after run, --replace" \
        || fail "inspect --json: fix_command: $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("fix_command"))' "$work/recorded.json")"
    line=$("$cli" inspect "$pid" | sed -n 's/^      the whole command, as podman recorded it, with these options: //p')
    if [ -n "$line" ] && eval "$line" >/dev/null && counted pm "$tag-recorded" && [ "$id" != "$old" ]; then
        [ "$count" = "$host" ] && [ "$(mapped "$pid" /arenafix/libarenafix.so)" -gt 0 ] \
            && pass "the printed whole command, run as it is, replaces the container: the library mapped, $count arenas" \
            || fail "the printed whole command gave $count arenas (the host glibc's $host), library mapped $(mapped "$pid" /arenafix/libarenafix.so) times: $line"
    else
        fail "no whole command printed, or it did not replace the container: $line"
    fi
else
    fail "the container with a recorded command did not start"
fi

# 5. The host's fixed glibc in a container is not at risk.
if start fixed-glibc fixed; then
    [ "$count" = "$host" ] && pass "a pinned container on the host's fixed glibc gets $count arenas, as on the host" \
        || fail "the fixed-glibc container got $count arenas, the host $host"
    got=$("$cli" inspect --all --json 2>/dev/null | python3 -c '
import json, sys
print([p["verdict"] for p in json.load(sys.stdin)["processes"] if p["pid"] == int(sys.argv[1])])' "$pid")
    [ "$got" = "['fine']" ] && pass "inspect --all: its pinned process is fine, not at risk by version" \
        || fail "inspect --all's verdict on the fixed-glibc container's pinned process: $got"
    got=$(scanned "$id")
    [ "$got" = "podman $tag-fixed-glibc fine not_affected False" ] && pass "inspect --all names the container on the host's fixed glibc, its glibc not affected" \
        || fail "inspect --all said of the fixed-glibc container: $got"
    "$cli" inspect --json "$pid" | grep -q '"verdict":"fine".*"glibc_state":"not affected"' \
        && pass "inspect PID: the container on the host's fixed glibc is fine" || fail "inspect PID of the fixed-glibc container: $("$cli" inspect "$pid" | tail -3)"
else
    fail "the fixed-glibc container did not start"
fi

# 6. A hostile tenant: its own files claim another name, it moves into
# a cgroup of its own below its container's, named as another.
if start hostile hostile; then
    # What the tenant can write (its root's files are its own).
    root=/proc/$pid/root
    for d in var/lib run; do
        printf '[{"id":"%s","names":["evil"],"image":""}]' "$id" > "$root/$d/containers/storage/overlay-containers/containers.json"
    done
    fake=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
    nested=/sys/fs/cgroup/systemd/libpod_parent/libpod-$id/libpod-$fake
    # Where a delegated tenant makes its own cgroups: below its container's.
    mkdir -p "$nested" && echo "$pid" > "$nested/cgroup.procs"
    got=$(scanned "$id")
    [ "$got" = "podman $tag-hostile hit unknown False" ] && pass "a hostile tenant's nested cgroup and state files change neither its container's ID nor its name" \
        || fail "inspect --all said of the hostile container: $got"
    "$cli" inspect --all --json 2>/dev/null | grep -q "$fake\|\"evil\"" && fail "the tenant's fake ID or name was shown" || pass "the tenant's fake ID and name are shown nowhere"
    strace -f -qq -e trace=execve,execveat,openat -o "$work/strace-hostile.log" "$cli" inspect "$pid" >/dev/null 2>&1
    [ "$(foreign_execs "$work/strace-hostile.log")" != 0 ] \
        && fail "inspect PID executed something of the hostile container" || pass "inspect PID executes nothing of the hostile container"
    grep -E "openat\(.*/proc/$pid/root/(var|run)" "$work/strace-hostile.log" >/dev/null \
        && fail "inspect read the tenant's state file" || pass "inspect reads no state file through the container's root"
else
    fail "the hostile container did not start"
fi
# An LD_PRELOAD of the tenant's that would forge a line of the fix.
nl='
'
if start forger affected -e "LD_PRELOAD=x${nl}        -v /:/host"; then
    "$cli" inspect "$pid" | grep -E '^ +-v /:/host' >/dev/null \
        && fail "the tenant's LD_PRELOAD forged a line of the printed fix" || pass "a tenant's LD_PRELOAD cannot forge a line of the printed fix"
fi
# 7. A container a service's podman runs in the service's own cgroup
# (--cgroups=split, as quadlet units do): the container's fix, not
# arenafix enable of the service, which would reach podman alone.
unit=/sys/fs/cgroup/systemd/$tag-app.service
if [ -d /sys/fs/cgroup/systemd ] && start quadlet affected; then
    quadlet_id=$id
    payload=$unit/libpod-payload-$id
    mkdir -p "$payload" && echo "$pid" > "$payload/cgroup.procs"
    out=$("$cli" inspect "$pid")
    echo "$out" | grep -F "container:          podman $tag-quadlet, id $id" >/dev/null \
        && ! echo "$out" | grep -E "arenafix enable|systemctl restart" >/dev/null \
        && echo "$out" | grep -E '^        -v ' >/dev/null \
        && pass "a container in its service's cgroup (a quadlet's): named, fixed by its options, not by arenafix enable" \
        || { fail "a container in its service's cgroup:"; echo "$out"; }
    # A process of the service's own that claims the container's ID.
    mkfifo "$work/hold" && { "$prog" 30 pinned <"$work/hold" >/dev/null & claimer=$!; exec 3>"$work/hold"; }
    echo "$claimer" > "$payload/cgroup.procs"
    "$cli" inspect --json "$claimer" | grep -q '"unit":"'"$tag"'-app.service".*"container_engine":null' \
        && pass "a service's process in a cgroup named for a container is not taken for it" \
        || fail "a service's process claimed a container: $("$cli" inspect --json "$claimer")"
    exec 3>&-
    wait "$claimer" 2>/dev/null
    pm rm -f -t 0 "$tag-quadlet" >/dev/null 2>&1
else
    skip "no name=systemd cgroup hierarchy to place a container below a service"
fi
# 8. The same with a podman of its own storage (--root, --runroot: in
# this suite's directory), as a unit may run it: its pidfile is not
# where podman's default storage keeps it, so nothing confirms the ID
# its cgroup names.  Still a process in a root of its own under the
# service: never told to arenafix enable it (its LD_PRELOAD reaches that
# podman alone), given podman's options instead, which, added to its
# podman run, give the host glibc's count.
po() { podman --root "$work/own-storage" --runroot "$work/own-run" --storage-driver vfs "$@"; }
own_unit=/sys/fs/cgroup/systemd/$tag-own.service
if [ -d /sys/fs/cgroup/systemd ] && tar -C "$work/affected" -c . | po import - "localhost/$tag-own" >/dev/null 2>&1 \
    && po run -d -i $run_opts --name "$tag-own" "localhost/$tag-own" /bin/arenawait 30 pinned >/dev/null \
    && counted po "$tag-own"; then
    [ "$count" = 9 ] && pass "a pinned container of a podman with its own --root gets 9 arenas" \
        || fail "a pinned container of a podman with its own --root got $count arenas, not 9"
    own_payload=$own_unit/libpod-payload-$id
    mkdir -p "$own_payload" && echo "$pid" > "$own_payload/cgroup.procs"
    out=$("$cli" inspect "$pid")
    echo "$out" | grep -F "container:          in a root of its own under $tag-own.service " >/dev/null \
        && echo "$out" | grep -F "its cgroup names podman container $(echo "$id" | cut -c1-12), which podman's default storage does not hold" >/dev/null \
        && ! echo "$out" | grep -E "^    (arenafix enable|systemctl restart) " >/dev/null \
        && pass "its process under the service, in a root of its own: not told to arenafix enable the service, given podman's options" \
        || { fail "a podman of its own storage under a service:"; echo "$out"; }
    "$cli" inspect --json "$pid" | grep -q '"unit":"'"$tag"'-own.service".*"container_engine":null.*"own_root":true' \
        && pass "inspect --json: own_root, its unit the service's" || fail "inspect --json: $("$cli" inspect --json "$pid")"
    opts=$(echo "$out" | sed -n 's/^        \(-v .*\)$/\1/p')
    eval "set -- $opts"
    if [ -n "$opts" ] && po run -d -i $run_opts --name "$tag-own-fixed" "$@" "localhost/$tag-own" /bin/arenawait 30 pinned >/dev/null \
        && counted po "$tag-own-fixed"; then
        [ "$count" = "$host" ] && pass "its printed options, added to that podman's run, give $count arenas" \
            || fail "its printed options ($opts) gave $count arenas, the host glibc's $host"
    else
        fail "no options printed, or the container with them did not start: $opts"
    fi
    echo "$pid" > /sys/fs/cgroup/systemd/cgroup.procs 2>/dev/null
else
    skip "no name=systemd cgroup hierarchy, or no podman of its own storage, to place a container below a service"
fi
echo "check-containers: $(($(date +%s) - t0)) s"
summary
