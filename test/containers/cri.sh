#!/bin/sh
# make check-containers: containerd's CRI plugin driven as kubelet
# drives it, by a small CRI client of the project's own
# (test/containers/cri/client.py, runtime v1), its runtime handler
# `arenafix` the runc v2 shim's BinaryName = arenafix-runtime.  A
# containerd of the suite's own (root, state, sockets, configuration in
# the build directory).  See test/containers/README.md.
#
#   cri.sh BUILD_DIR ARENAFIX ARENAFIX_RUNTIME ARENAWAIT MUSLWAIT AFFECTED_GLIBC_DIR [AFFECTED_GLIBCS]
#
# AFFECTED_GLIBCS (ARENAFIX_AFFECTED_GLIBC, colon-separated): upstream
# glibc-2.34 among them is a second affected image.
set -u
work=$1 cli=$2 shim=$3 prog=$4 muslprog=$5 affected=$6 more=${7:-}
# inspect with a CLOCK_MONOTONIC that stands still (check-cli's
# stillclock.so, beside the command's build): its deadlines (a process,
# a user's processes) never pass on a loaded machine, so what it says of
# the pods never depends on the time the host's other processes took.
still=$(dirname "$cli")/../test/stillclock.so
inspect() {
    if [ -f "$still" ]; then LD_PRELOAD=$still "$cli" inspect "$@"; else "$cli" inspect "$@"; fi
}
tag=afxcri-$$
part=cri
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
umask 022

# Debian's python3 (python3-grpcio, python3-grpc-tools): another python3
# may come first in PATH.
py=/usr/bin/python3
needs containerd ctr cc
[ -x "$py" ] && "$py" -c 'import grpc, grpc_tools.protoc' 2>/dev/null \
    || { skip "no python3-grpcio or python3-grpc-tools for $py (test/packages.txt)"; summary; }
[ -e "$affected/libc.so.6" ] || { skip "no affected glibc at $affected"; summary; }
[ -x "$shim" ] || { skip "no arenafix-runtime at $shim"; summary; }
release=
for d in $(echo "$more" | tr ':' ' '); do
    [ -z "$release" ] && [ "$(basename "$(dirname "$d")")" = glibc-2.34 ] && [ -e "$d/libc.so.6" ] && release=$d
done

d=$work/containerd
sock=$d/containerd.sock
cri() { "$py" "$here/cri/client.py" "$sock" "$work/stubs" "$@"; }
ct() { ctr --address "$sock" -n k8s.io "$@"; }
# Where the shims put their sockets whatever they are told, and the
# cgroupfs driver's parents: removed at the end if they were not there.
[ -e /run/containerd ] && had_run_containerd=1 || had_run_containerd=0
had_kubepods=$(ls -d /sys/fs/cgroup/*/kubepods 2>/dev/null)

stop_daemon() {
    p=$(cat "$1" 2>/dev/null) || return 0
    kill "$p" 2>/dev/null || return 0
    for _ in $(seq 1 600); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
}
# Each pod made, its ID a line, and each pod's UID asked for (the
# cgroups /kubepods/[burstable/]podUID): stopped and removed at the end.
pods=$work/pods uids=$work/uids
cleanup() {
    if [ -S "$sock" ] && [ -f "$pods" ]; then
        while read -r p; do
            for c in $(cri ps "$p" 2>/dev/null); do cri stop "$c" >/dev/null 2>&1; cri rm "$c" >/dev/null 2>&1; done
            cri stopp "$p" >/dev/null 2>&1
            cri rmp "$p" >/dev/null 2>&1
        done < "$pods"
        # What the CRI could not stop: its tasks killed through ctr.
        for c in $(ct task ls -q 2>/dev/null); do ct task kill -s KILL "$c" >/dev/null 2>&1; ct task rm -f "$c" >/dev/null 2>&1; done
    fi
    stop_daemon "$d/containerd.pid"
    grep -o " $work/[^ ]*" /proc/self/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
    if [ -f "$uids" ]; then
        while read -r u; do
            find /sys/fs/cgroup/*/kubepods -depth -type d -path "*/pod$u*" -exec rmdir {} + 2>/dev/null
        done < "$uids"
    fi
    [ -n "$had_kubepods" ] || rmdir /sys/fs/cgroup/*/kubepods/burstable /sys/fs/cgroup/*/kubepods 2>/dev/null
    if [ "$had_run_containerd" = 0 ]; then rmdir /run/containerd/s /run/containerd 2>/dev/null; fi
    rm -rf "$d" "$work/logs" "$work"/img-*
    return 0
}
trap cleanup EXIT
trap 'exit 1' INT TERM

host=$("$prog" 30 pinned </dev/null | sed -n 's/^arenas=//p')
echo "the same program on the host's glibc: $host arenas"
rm -rf "$work" && mkdir -p "$work/stubs" "$work/logs" && chmod 755 "$work" || { fail "no work directory"; summary; }

# The stubs of the API's subset, made here, never kept in git.
"$py" -m grpc_tools.protoc -I "$here/cri" --python_out="$work/stubs" --grpc_python_out="$work/stubs" "$here/cri/api.proto" \
    || { fail "grpc_tools.protoc refused test/containers/cri/api.proto"; summary; }

# arenafix-runtime's configuration, given to containerd (its shims and
# their runtimes inherit it): the real runc, the build's command as the
# hook, one log.
runtime_conf=$work/runtime.conf runtime_log=$work/runtime.log
printf 'runtime = %s\nhook = %s\nlog = %s\n' "$(command -v runc)" "$cli" "$runtime_log" > "$runtime_conf"

# The images: lib.sh's rootfs, an OCI archive each (ociarchive.py) for
# `ctr images import` into the CRI's namespace, k8s.io.
cc -static -O2 -o "$work/pause" "$here/cri/pause.c" && rootfs "$work/img-pause" "" "pause=$work/pause" \
    && "$py" "$here/ociarchive.py" "$work/img-pause" "localhost/$tag-pause:latest" "$work/pause.tar" /bin/pause \
    || { fail "the pause image could not be made"; summary; }
images="affected"
rootfs "$work/img-affected" "$affected" "arenawait=$prog" \
    && "$py" "$here/ociarchive.py" "$work/img-affected" "localhost/$tag-affected:latest" "$work/affected.tar" \
    || { fail "the affected image could not be made"; summary; }
if [ -n "$release" ] && rootfs "$work/img-release" "$release" "arenawait=$prog" \
    && "$py" "$here/ociarchive.py" "$work/img-release" "localhost/$tag-release:latest" "$work/release.tar"; then
    images="affected release"
else
    skip "no upstream glibc-2.34 in ARENAFIX_AFFECTED_GLIBC ($more): its image left out"
fi
musl=
if [ -e /usr/lib/x86_64-linux-musl/libc.so ] && rootfs "$work/img-musl" "" "muslwait=$muslprog" && mkdir -p "$work/img-musl/lib" \
    && cp /usr/lib/x86_64-linux-musl/libc.so "$work/img-musl/lib/ld-musl-x86_64.so.1" \
    && "$py" "$here/ociarchive.py" "$work/img-musl" "localhost/$tag-musl:latest" "$work/musl.tar"; then
    musl=yes
else
    skip "no musl (musl-tools): the musl image left out"
fi

# ---- containerd with its CRI plugin --------------------------------
# Its root, state, sockets, CNI folders (none needed: the pods use the
# host's network) and runc's state in the build directory; the runtime
# handlers: runc (the default) and arenafix, the runc v2 shim running
# arenafix-runtime (BinaryName) with runc's options, added by
# deploy/containerd/arenafix-containerd-config's drop-in; the cgroupfs
# driver.
containerd_start() {
    rm -rf "$d" && mkdir -p "$d/cni/bin" "$d/cni/conf" || return 1
    cat > "$d/config.toml" <<EOF
version = 2
root = "$d/root"
state = "$d/state"
[grpc]
  address = "$sock"
[ttrpc]
  address = "$sock.ttrpc"
[debug]
  address = "$d/debug.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/$tag-pause:latest"
  disable_cgroup = false
  disable_apparmor = true
  # Not below containerd's own: a root without CAP_SYS_RESOURCE may not
  # lower it (the pause container's -998).
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$d/cni/bin"
    conf_dir = "$d/cni/conf"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = "$d/runc"
        SystemdCgroup = false
EOF
    # The handler arenafix as a node gets it: the drop-in
    # arenafix-containerd-config writes from this containerd's own dump.
    sh "$here/../../deploy/containerd/arenafix-containerd-config" install --config "$d/config.toml" \
        --drop-in-dir "$d/conf.d" --runtime "$shim" >"$d/install.log" 2>&1 \
        || { cat "$d/install.log"; return 1; }
    ARENAFIX_RUNTIME_CONFIG=$runtime_conf containerd --config "$d/config.toml" >"$d/containerd.log" 2>&1 &
    echo $! > "$d/containerd.pid"
    cpid=$!
    # Waited for (a generous bound against a hang, not on its speed).
    for _ in $(seq 1 1200); do
        v=$(cri version 2>/dev/null) && return 0
        kill -0 "$cpid" 2>/dev/null || break
        sleep 0.1
    done
    tail -5 "$d/containerd.log"
    return 1
}

# pod NAME IMAGE HANDLER STDIN ARG...: a pod (host network, its
# sandbox run by HANDLER, "" for the default) with one container of
# IMAGE running ARG..., its CPU set "0" as the static CPU manager gives
# it, stdin held open (true) or not (false): started, and waited for
# until it prints (or ends).  Its QoS class $qos: burstable (the
# cgroupfs driver's parent /kubepods/burstable/podUID, CPU shares
# alone) or guaranteed (/kubepods/podUID, its CPU and memory limited:
# the pods the static CPU manager gives CPUs of their own).  Its pod's ID in $pod, its ID in $cid, its
# PID in $pid (0 once ended), its output in $out.
pod() {
    name=$1 img=$2 handler=$3 stdin=$4; shift 4
    uid=$(cat /proc/sys/kernel/random/uuid)
    if [ "$qos" = guaranteed ]; then
        parent=/kubepods/pod$uid
        limits='"cpuPeriod": 100000, "cpuQuota": 100000, "memoryLimitInBytes": 268435456, '
    else
        parent=/kubepods/burstable/pod$uid limits=
    fi
    mkdir -p "$work/logs/$name" || return 1
    cat > "$work/$name-pod.json" <<EOF
{"metadata": {"name": "$tag-$name", "uid": "$uid", "namespace": "afxcri", "attempt": 0},
 "logDirectory": "$work/logs/$name",
 "labels": {"io.kubernetes.pod.name": "$tag-$name", "io.kubernetes.pod.namespace": "afxcri", "io.kubernetes.pod.uid": "$uid"},
 "linux": {"cgroupParent": "$parent",
           "securityContext": {"namespaceOptions": {"network": "NODE", "pid": "CONTAINER", "ipc": "POD"}}}}
EOF
    args=$(printf '"%s",' "$@")
    cat > "$work/$name-ctr.json" <<EOF
{"metadata": {"name": "$img", "attempt": 0}, "image": {"image": "localhost/$tag-$img:latest"},
 "command": [${args%,}], "logPath": "$img.log", "stdin": $stdin,
 "labels": {"io.kubernetes.container.name": "$img", "io.kubernetes.pod.name": "$tag-$name",
            "io.kubernetes.pod.namespace": "afxcri", "io.kubernetes.pod.uid": "$uid"},
 "linux": {"resources": {${limits}"cpuShares": 1024, "cpusetCpus": "0"}}}
EOF
    echo "$uid" >> "$uids"
    pod=$(cri runp "$work/$name-pod.json" "$handler") || return 1
    echo "$pod" >> "$pods"
    cid=$(cri create "$pod" "$work/$name-ctr.json" "$work/$name-pod.json") && cri start "$cid" || return 1
    log=$work/logs/$name/$img.log
    st=$(cri wait "$cid" "$log") || return 1
    # The CRI's log format: TIME STREAM TAG TEXT.
    out=$(sed 's/^[^ ]* [a-z]* [FP] //' "$log" 2>/dev/null)
    pid=${st##* }
}
# unpod: the pod of the last pod (its container too) stopped, removed.
unpod() {
    cri stop "$cid" && cri rm "$cid" && cri stopp "$pod" && cri rmp "$pod"
}
# shim_said ID: what the shim and the hook logged of container ID.
shim_said() {
    grep -F "arenafix-runtime: container $1: " "$runtime_log" | grep -q -F "hooks.createRuntime given" \
        && grep -F "container $(echo "$1" | cut -c1-12): " "$runtime_log" | grep -F "oci-hook" | tail -n 1
}
oneline() { tr '\n' ' ' | sed 's/ $//'; }

# ---- the pods ------------------------------------------------------
# The pinned container on each affected image: without the handler
# (runc), then with runtime_handler arenafix; a burstable pod on the
# affected glibc, a guaranteed one on upstream 2.34.
pinned_part() {
    for img in $images; do
        what=$img qos=burstable where=/kubepods/burstable/podUID
        [ "$img" = release ] && what=$(basename "$(dirname "$release")") qos=guaranteed where=/kubepods/podUID
        : > "$runtime_log"
        if pod "plain-$img" "$img" "" true /bin/arenawait 30 pinned; then
            plain=$(echo "$out" | sed -n 's/^arenas=//p')
            plain_maps=$(mapped "$pid" '/libarenafix.so$')
            hit_pid=$pid hit_cid=$cid hit_pod=$pod
            inspect_part
            unpod || fail "the pod on $what could not be stopped and removed"
        else
            plain=none plain_maps=none
            fail "CRI: the pod on $what without the handler did not start: $(tail -3 "$d/containerd.log")"
        fi
        [ "$plain" = 9 ] && [ "$plain_maps" = 0 ] && ! grep -q . "$runtime_log" \
            && pass "CRI: a pinned container (cpuset 0, $where) on $what gets 9 arenas without the handler (runc)" \
            || fail "CRI: the pinned container on $what without the handler: $plain arenas, library mapped $plain_maps times, not 9 and 0"
        : > "$runtime_log"
        if pod "arenafix-$img" "$img" arenafix true /bin/arenawait 30 pinned; then
            count=$(echo "$out" | sed -n 's/^arenas=//p')
            maps=$(mapped "$pid" '/libarenafix.so$')
            said=$(shim_said "$cid")
            cg=$(sed -n 's/^[0-9]*:cpuset:\(.*\)/\1/p' "/proc/$pid/cgroup")
            cpus=$(cat "/sys/fs/cgroup/cpuset$cg/cpuset.cpus" 2>/dev/null)
            echo "its cgroup (cpuset): $cg, cpuset.cpus $cpus"
            [ "$count" = "$host" ] && [ "$maps" -gt 0 ] && [ "$cpus" = 0 ] \
                && echo "$said" | grep -q -F "given the library: /usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so mounted read-only" \
                && pass "CRI: with runtime_handler arenafix the pinned container ($where) on $what gets $count arenas, the host glibc's count (the shim adds the hook: $said)" \
                || { fail "CRI: with runtime_handler arenafix, the pinned container on $what: $count arenas (the host $host), library mapped $maps times, cpuset.cpus '$cpus': $said"; cat "$runtime_log"; }
            unpod || fail "the pod on $what with the handler could not be stopped and removed"
        else
            fail "CRI: the pod on $what with the handler did not start: $(tail -3 "$d/containerd.log")"; cat "$runtime_log"
        fi
    done
}

# inspect from the host, of the running pinned container of a pod
# without the handler: containerd, an ID of its pod, hit.
inspect_part() {
    echo "the pod's sandbox: $hit_pod; its container: $hit_cid, PID $hit_pid"
    echo "its cgroups: $(grep -E ':(cpuset|name=systemd):|^0::' "/proc/$hit_pid/cgroup" | oneline)"
    json=$(inspect --all --json 2>/dev/null)
    got=$(echo "$json" | "$py" -c '
import json, sys
for p in json.load(sys.stdin)["processes"]:
    if p["pid"] == int(sys.argv[1]):
        print(p["container_engine"], p["container_id"], "%s/%s/%s" % (p["pod_namespace"], p["pod_name"], p["pod_container"]),
              p["verdict"].replace(" ", "_"))
        break
else:
    print("none")' "$hit_pid")
    echo "inspect --all --json said of it: $got"
    echo "$json" | "$py" -c '
import json, sys
for p in json.load(sys.stdin)["processes"]:
    if p["pid"] == int(sys.argv[1]):
        print(json.dumps(p, indent=1))' "$hit_pid"
    # Its own ID (the cgroup's last segment, not the shim's, which is
    # its pod sandbox's), its pod by the CRI's annotations in its bundle.
    [ "$got" = "containerd $hit_cid afxcri/$tag-plain-$img/$img hit" ] \
        && pass "inspect --all --json calls the CRI container ($where) hit, engine containerd, by its own ID and its pod (afxcri/$tag-plain-$img/$img)" \
        || fail "inspect --all --json said of the CRI container $hit_cid (pod sandbox $hit_pod): $got"
    text=$(inspect "$hit_pid" 2>/dev/null)
    echo "$text" | grep -q "runtimeClassName: arenafix" \
        && pass "inspect PID gives the pod's container the pod spec's fix (runtimeClassName: arenafix)" \
        || { fail "inspect PID gave the pod's container no runtimeClassName fix:"; echo "$text"; }
    echo "what inspect --all printed for it:"
    inspect --all 2>/dev/null | sed -n -e "/^ *$hit_pid /p" -e '/^fix the containers/p' \
        -e "/^    containerd container .*, id $(echo "$hit_cid" | cut -c1-12)/{p;n;p}" \
        | sed 's/^/  | /'
}

# The musl image with the handler: left alone, as without it.
musl_part() {
    if [ -z "$musl" ]; then return; fi
    for h in plain arenafix; do
        handler=
        [ "$h" = arenafix ] && handler=arenafix
        : > "$runtime_log"
        if pod "musl-$h" musl "$handler" false /bin/muslwait 2; then
            st=$(cri wait "$cid")
            eval "musl_$h=\"\$(echo \"\$out\" | oneline) \${st% *}\""
            unpod >/dev/null 2>&1
        else
            eval "musl_$h=none"
        fi
    done
    # shellcheck disable=SC2154
    echo "musl without the handler: $musl_plain; with it: $musl_arenafix"
    # shellcheck disable=SC2154
    reason=$(grep -F "oci-hook" "$runtime_log" | grep -F "left alone: " | grep -v -F "static" | tail -n 1)
    [ "$musl_plain" = "ready CONTAINER_EXITED 0" ] && [ "$musl_arenafix" = "$musl_plain" ] && [ -n "$reason" ] \
        && ! grep -q -F "given the library" "$runtime_log" \
        && pass "CRI: a musl image with runtime_handler arenafix runs as without it ($musl_arenafix), left alone: $reason" \
        || { fail "CRI: musl with the handler '$musl_arenafix', without '$musl_plain'"; cat "$runtime_log"; }
    # Running, the library is nowhere in its maps.
    : > "$runtime_log"
    if pod musl-held musl arenafix true /bin/muslwait 2; then
        maps=$(mapped "$pid" 'arenafix')
        said=$(shim_said "$cid")
        [ "$out" = ready ] && [ "$maps" = 0 ] && echo "$said" | grep -q -F "left alone: " \
            && pass "CRI: the running musl container with the handler (the shim ran: $said) has no library mapped" \
            || fail "CRI: the running musl container with the handler: '$out', arenafix mapped $maps times; the log: $said"
        unpod >/dev/null 2>&1
    else
        fail "CRI: the held musl pod with the handler did not start"
    fi
}

t0=$(date +%s)
if ! containerd_start; then
    skip "containerd's CRI plugin did not start or answer here (its log above)"
    summary
fi
echo "containerd's CRI answers: $v"
for i in pause $images ${musl:+musl}; do
    ct images import "$work/$i.tar" >/dev/null || { fail "ctr images import (k8s.io) refused $i"; summary; }
done
pinned_part
musl_part
echo "check-containers (cri): $(($(date +%s) - t0)) s"
summary
