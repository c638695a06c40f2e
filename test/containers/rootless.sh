#!/bin/sh
# make check-containers, fourth part: rootless podman (runc), run as an
# ordinary user, judged from the host by root's arenafix inspect, and
# the OCI hook under it.  See test/containers/README.md.
#
#   rootless.sh BUILD_DIR ARENAFIX LIBARENAFIX ARENAWAIT AFFECTED_GLIBC_DIR HOOK_JSON
#
# The user is nobody (65534), with HOME and XDG_* in BUILD_DIR: its
# podman keeps its storage, configuration and run files there, and the
# host is not changed (no /etc/subuid entry: podman maps the one uid).
set -u
work=$1 cli=$2 lib=$3 prog=$4 affected=$5 entry=$6
tag=afxrl-$$
part=rootless
. "$(dirname "$0")/lib.sh"

needs podman runc setpriv python3 strace
[ -e "$affected/libc.so.6" ] || { skip "no affected glibc at $affected"; summary; }
user=nobody uid=65534
[ "$(id -u "$user" 2>/dev/null)" = "$uid" ] || { skip "no user $user with uid $uid"; summary; }

home=$work/home run=$work/run
rm -rf "$work" && mkdir -p "$home" "$run" && chown -R "$uid:$uid" "$work" && chmod 700 "$run" \
    || { fail "cannot make $work for $user"; summary; }
# As the user, with nothing of root's environment.
as_user() {
    setpriv --reuid "$uid" --regid "$uid" --clear-groups env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$home" \
        XDG_RUNTIME_DIR="$run" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" "$@"
}
for f in "$cli" "$lib" "$work"; do
    as_user test -r "$f" || { skip "$user cannot read $f (a directory above it is closed to others)"; summary; }
done
# podman warns, as it should here, that / is not a shared mount and
# that the user has no subordinate IDs.
pm() { as_user podman "$@" 2>>"$work/podman.log"; }
opts="--runtime runc --network none"

cleanup() {
    pm ps -a --format '{{.Names}}' | grep "^$tag-" | while read -r c; do pm rm -f -t 0 "$c" >/dev/null; done
    pm rmi -a -f >/dev/null
    # Its pause process (the user namespace podman keeps): the user's.
    pause=$(cat "$run/libpod/tmp/pause.pid" 2>/dev/null)
    [ -n "$pause" ] && as_user kill "$pause" 2>/dev/null
    return 0
}
trap cleanup EXIT INT TERM

image_root() { rootfs "$1" "$2" "arenawait=$prog"; }

# Start arenawait 30 pinned in a new container NAME of IMAGE as the
# user (more options before the image; HOOKS_DIR first, "" for none);
# its count in $count, its host PID in $pid.
start() {
    name=$1 img=$2 hooks=$3; shift 3
    pm ${hooks:+--hooks-dir "$hooks"} run -d -i $opts --name "$tag-$name" "$@" "localhost/$tag-$img" \
        /bin/arenawait 30 pinned >/dev/null || return 1
    count=
    for _ in $(seq 1 1200); do
        count=$(pm logs "$tag-$name" | sed -n 's/^arenas=//p')
        [ -n "$count" ] && break
        sleep 0.1
    done
    pid=$(pm inspect -f '{{.State.Pid}}' "$tag-$name")
    [ -n "$count" ]
}

# What root's inspect --all --json says of process PID, as
# "verdict glibc_state engine rootless_owner_uid executed".
scanned() {
    "$cli" inspect --all --json 2>/dev/null | python3 -c '
import json, sys
for p in json.load(sys.stdin)["processes"]:
    if p["pid"] == int(sys.argv[1]):
        print(p["verdict"].replace(" ", "_"), p["glibc_state"].replace(" ", "_"), p["container_engine"],
              p.get("rootless_owner_uid", "absent"), p.get("glibc_executed"))
        break
else:
    print("none")' "$1"
}

t0=$(date +%s)
image_root "$work/affected" "$affected" && image_root "$work/fixed" /lib/x86_64-linux-gnu \
    && image affected && image fixed \
    || { cat "$work/podman.log"; fail "the user's podman could not make the images"; summary; }
host=$("$prog" 30 pinned </dev/null | sed -n 's/^arenas=//p')
echo "the same program on the host's glibc: $host arenas"
echo "the user's podman: $(pm info --format 'rootless {{.Host.Security.Rootless}}, cgroups {{.Host.CgroupManager}} {{.Host.CgroupsVersion}}, uid map {{.Host.IDMappings.UIDMap}}')"

# 1. The bug in a rootless container.
start hit affected "" || { cat "$work/podman.log"; fail "the user's rootless container did not start"; summary; }
[ "$count" = 9 ] && pass "a pinned rootless container of $user on the affected glibc gets 9 arenas" \
    || fail "a pinned rootless container on the affected glibc got $count arenas, not 9"
hit_pid=$pid
map=$(tr -s ' ' < "/proc/$hit_pid/uid_map")
echo "its uid map:$map; its cgroups: $(tr '\n' ' ' < "/proc/$hit_pid/cgroup")"
# With no cgroup of its own (cgroup v1: none is delegated to a user),
# it stays in the cgroups the user ran podman from: ours here.
[ "$(cat "/proc/$hit_pid/cgroup")" = "$(cat /proc/self/cgroup)" ] \
    && echo "its cgroups are those its podman was run from (no cgroup of its own)"

# 2. Root's scan: a user's rootless container, no engine named, its
# glibc judged without being run.
got=$(scanned "$hit_pid")
[ "$got" = "hit unknown None $uid False" ] \
    && pass "inspect --all --json: hit, in a rootless container of uid $uid, no engine named, its glibc not run" \
    || fail "inspect --all --json said of the rootless container: $got"
text=$("$cli" inspect --all 2>/dev/null)
echo "$text" > "$work/inspect-all.txt"
echo "$text" | grep -E "^ *$hit_pid +hit .* rootless:uid=$uid " >/dev/null \
    && pass "inspect --all's row names it rootless:uid=$uid" || { fail "inspect --all's row:"; echo "$text" | grep " $hit_pid "; }
echo "$text" | grep -A2 '^fix the rootless containers:' | grep -E "^    user $user \\(uid $uid\\), .*: process $hit_pid arenawait" >/dev/null \
    && pass "inspect --all tells the user to run the container again, as $user" \
    || fail "inspect --all printed no fix for $user's container"
echo "$text" | grep -E "^    $hit_pid " >/dev/null \
    && fail "inspect --all lists the rootless container's process for arenafix CMD" \
    || pass "no arenafix CMD or systemctl advice for the rootless container"
"$cli" inspect --all --prometheus 2>/dev/null | grep -F 'arenafix_process_verdict{unit="(rootless container)",comm="arenawait",verdict="hit"}' >/dev/null \
    && pass "the metrics count it under unit=\"(rootless container)\"" || fail "the metrics do not count it under (rootless container)"

# 3. inspect PID: nothing of the user's executed, nor its storage read
# (its containers.json names the container: the user wrote it).
strace -f -qq -e trace=execve,execveat,open,openat,openat2 -o "$work/strace.log" "$cli" inspect --json "$hit_pid" >"$work/pid.json" 2>/dev/null
rc=$?
execs=$(grep -E 'execve(at)?\(' "$work/strace.log" | grep -v -E "execve\(\"$cli\"|\[\"arenafix\", \"__probe-child\"" | grep -c .)
reads=$(grep -F "\"$home/" "$work/strace.log" | grep -c .)
[ "$rc" = 3 ] && [ "$execs" = 0 ] && [ "$reads" = 0 ] && python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
sys.exit(not (p["container_engine"] is None and p["container_name"] is None and p.get("rootless_owner_uid") == int(sys.argv[2])
              and p["glibc_executed"] is False))' "$work/pid.json" "$uid" \
    && pass "inspect PID: hit (exit 3), a rootless container of uid $uid, nothing of it run, nothing of the user's storage read" \
    || { fail "inspect PID of the rootless container: exit $rc, $execs programs not its own run, $reads opens in the user's storage"; cat "$work/pid.json"; }

# 4. The printed fix, to the letter, by the user.
opts_fix=$("$cli" inspect "$hit_pid" | sed -n 's/^        \(-v .*\)$/\1/p')
eval "set -- $opts_fix"
if [ -n "$opts_fix" ] && start fixed-by-options affected "" "$@"; then
    [ "$count" = "$host" ] && pass "its printed options ($opts_fix), run by $user, give $count arenas, the host glibc's count" \
        || fail "its printed options ($opts_fix) gave $count arenas, the host glibc's $host"
    "$cli" inspect "$pid" >/dev/null 2>&1 && pass "inspect PID: the container run with them is fine" \
        || fail "inspect PID of the container run with the options: $("$cli" inspect "$pid" | tail -2)"
else
    fail "no options printed, or the container did not start with them ($opts_fix)"
fi

# 5. The host's fixed glibc, copied by the user into its image: the
# same bytes as the host's, so the host's probe holds for it.
if start fixed-glibc fixed ""; then
    got=$(scanned "$pid")
    [ "$count" = "$host" ] && [ "$got" = "fine not_affected None $uid False" ] \
        && pass "a rootless container on a copy of the host's fixed glibc: $count arenas, fine, glibc not affected" \
        || fail "the rootless container on the host's fixed glibc: $count arenas, inspect said: $got"
    said=$("$cli" inspect "$pid")
    rc=$?
    [ "$rc" = 0 ] && echo "$said" | grep -E "^  glibc: +2\.36, not affected \(its libc.so.6 is the host's byte for byte" >/dev/null \
        && pass "inspect PID: fine, its glibc not affected, the host's byte for byte (not run)" \
        || { fail "inspect PID of the rootless container on the host's fixed glibc: exit $rc"; echo "$said"; }
else
    fail "the rootless container on the host's fixed glibc did not start"
fi

# 6. The OCI hook under rootless podman: in the user's namespace no
# file can be known to be root's, so it leaves the container alone,
# which still starts and runs, and says why.
hooks=$work/hooks
mkdir -p "$hooks" && sed -e 's|"path": "[^"]*/arenafix"|"path": "'"$cli"'"|' \
    -e 's|"args": \["arenafix", "oci-hook"[^]]*\]|"args": ["arenafix", "oci-hook", "--log", "'"$work"'/hook.log"]|' \
    "$entry" > "$hooks/arenafix.json" && : > "$work/hook.log" && chown -R "$uid:$uid" "$hooks" "$work/hook.log"
if start hooked affected "$hooks" --annotation io.arenafix.enable=true; then
    said=$(cat "$work/hook.log")
    [ "$count" = 9 ] && echo "$said" | grep -F "left alone: the hook runs in a user namespace" >/dev/null \
        && pass "the hook under rootless podman leaves the container alone (it starts, 9 arenas) and says why" \
        || fail "the hook under rootless podman: $count arenas, it said: $said"
else
    fail "the annotated rootless container did not start: $(tail -3 "$work/podman.log")"
fi

echo "check-containers (rootless): $(($(date +%s) - t0)) s"
summary
