#!/bin/sh
# make check-containers, fourth part: docker and containerd run for
# real, each a daemon of the suite's own (its data, state and sockets in
# the build directory), on images made here from lib.sh's rootfs
# (`docker import`; an OCI archive for `ctr image import`), judged and
# fixed from the host by arenafix inspect, and arenafix-runtime named
# as each engine's runtime.  See test/containers/README.md.
#
#   engines.sh BUILD_DIR ARENAFIX LIBARENAFIX ARENAWAIT AFFECTED_GLIBC_DIR [AFFECTED_GLIBCS [ARENAFIX_RUNTIME]]
#
# AFFECTED_GLIBCS (ARENAFIX_AFFECTED_GLIBC, colon-separated): upstream
# 2.35 (else 2.34) among them is a second affected image.
# ARENAFIX_RUNTIME: the built arenafix-runtime, docker's runtime
# `arenafix` (--add-runtime) and ctr's --runc-binary; "" skips those
# cases.
#
# Debian's docker.io: /usr/bin/docker and /usr/sbin/dockerd by their
# paths (another docker client may come first in PATH).
set -u
work=$1 cli=$2 lib=$3 prog=$4 affected=$5 more=${6:-} shim=${7:-}
tag=afxeng-$$
part=engines
. "$(dirname "$0")/lib.sh"
umask 022

docker_bin=/usr/bin/docker dockerd_bin=/usr/sbin/dockerd
needs python3 strace
[ -e "$affected/libc.so.6" ] || { skip "no affected glibc at $affected"; summary; }
release=
for r in glibc-2.35 glibc-2.34; do
    for d in $(echo "$more" | tr ':' ' '); do
        [ -z "$release" ] && [ "$(basename "$(dirname "$d")")" = "$r" ] && [ -e "$d/libc.so.6" ] && release=$d
    done
done

dk() { "$docker_bin" -H "unix://$work/docker/docker.sock" "$@"; }
# Its own namespace: its containers' cgroups are /NAMESPACE/ID.
ct() { ctr --address "$work/containerd/containerd.sock" -n "$tag" "$@"; }
cgparent=/$tag-parent
# Made by dockerd whatever it is told (its plugins' sockets, hard-coded):
# removed at the end if it was not there before.
[ -e /run/docker ] && had_run_docker=1 || had_run_docker=0
# Where containerd's shims put their sockets, whatever it is told.
[ -e /run/containerd ] && had_run_containerd=1 || had_run_containerd=0
# The cgroup docker makes for its containers (cgroupfs driver), likewise.
had_docker_cgroups=$(ls -d /sys/fs/cgroup/*/docker 2>/dev/null)

# A daemon started here, by its pidfile: stopped, waited for.
stop_daemon() {
    p=$(cat "$1" 2>/dev/null) || return 0
    kill "$p" 2>/dev/null || return 0
    for _ in $(seq 1 600); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
}
cleanup() {
    exec 3>&- 4>&- 5>&- 2>/dev/null
    if [ -S "$work/docker/docker.sock" ]; then
        dk ps -aq 2>/dev/null | while read -r c; do dk rm -f "$c" >/dev/null 2>&1; done
    fi
    stop_daemon "$work/docker/dockerd.pid"
    if [ -S "$work/containerd/containerd.sock" ]; then
        for c in $(ct task ls -q 2>/dev/null); do ct task kill -s KILL "$c" >/dev/null 2>&1; done
        sleep 0.5
        for c in $(ct containers ls -q 2>/dev/null); do ct task rm -f "$c" >/dev/null 2>&1; ct containers rm "$c" >/dev/null 2>&1; done
    fi
    stop_daemon "$work/containerd/containerd.pid"
    # What the daemons left mounted under the build directory.
    grep -o " $work/[^ ]*" /proc/self/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
    for d in $(find /sys/fs/cgroup -maxdepth 3 -type d -path "*$tag*" 2>/dev/null | sort -r); do rmdir "$d" 2>/dev/null; done
    if [ "$had_run_docker" = 0 ]; then rmdir /run/docker/plugins /run/docker 2>/dev/null; fi
    [ -n "$had_docker_cgroups" ] || rmdir /sys/fs/cgroup/*/docker 2>/dev/null
    if [ "$had_run_containerd" = 0 ]; then rmdir /run/containerd/s /run/containerd 2>/dev/null; fi
    rm -rf "$work/docker" "$work/containerd" "$work"/hold-*
    return 0
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# An image's root: the glibc of DIR, the pinned program, libm (an
# image's own preload names it).
image_root() { rootfs "$1" "$2" "arenawait=$prog" && cp "$2/libm.so.6" "$1/usr/lib/x86_64-linux-gnu/" && ldconfig -r "$1"; }

# The JSON object inspect --all --json gives for container ID, as
# "engine id name verdict glibc_state executed" (name "-" if none).
scanned() {
    "$cli" inspect --all --json 2>/dev/null | python3 -c '
import json, sys
for p in json.load(sys.stdin)["processes"]:
    if p.get("container_id") == sys.argv[1] and p.get("name") == "arenawait":
        print(p["container_engine"], p["container_id"][:12], p["container_name"] or "-", p["verdict"].replace(" ", "_"),
              p["glibc_state"].replace(" ", "_"), p.get("glibc_executed"))
        break
else:
    print("none")' "$1"
}
# What inspect PID runs beside itself and its probe of the host's glibc.
foreign_execs() {
    grep -E 'execve(at)?\(' "$1" | grep -v -E "execve\(\"$cli\"|\[\"arenafix\", \"__probe-child\"" | grep -c .
}
# The options of the fix inspect prints for process PID (the line after
# the container's), one per line, as a shell would split them.
printed_fix() {
    "$cli" inspect "$1" | sed -n 's/^        \(-v .*\|--mount .*\)$/\1/p'
}

host=$("$prog" 30 pinned </dev/null | sed -n 's/^arenas=//p')
echo "the same program on the host's glibc: $host arenas"
mkdir -p "$work" && chmod 755 "$work"

# arenafix-runtime's configuration, given to both daemons (their
# shims and runtimes inherit it): the real runc, the build's command as
# the hook, one log for the shim and the hook.
runtime_conf=$work/runtime.conf runtime_log=$work/runtime.log
printf 'runtime = %s\nhook = %s\nlog = %s\n' "$(command -v runc)" "$cli" "$runtime_log" > "$runtime_conf"
add_runtime=
[ -n "$shim" ] && add_runtime="--add-runtime=arenafix=$shim"

# ---- docker -------------------------------------------------------
# Its daemon in the build directory: data, exec root (and the containerd
# it starts there), socket, pidfile, its key; no network of its own, no
# rule in the host's firewall.
# up PID LOG CMD...: wait until CMD answers while the daemon PID lives;
# LOG's tail shown if it does not.
up() {
    up_pid=$1 up_log=$2
    shift 2
    for _ in $(seq 1 1200); do
        "$@" >/dev/null 2>&1 && return 0
        kill -0 "$up_pid" 2>/dev/null || break
        sleep 0.1
    done
    tail -5 "$up_log"
    return 1
}

# docker_start [JSON [CONF]]: JSON's members added to daemon.json,
# arenafix-runtime's configuration CONF (runtime.conf by default).
docker_start() {
    rm -rf "$work/docker" && mkdir -p "$work/docker" || return 1
    printf '{"deprecated-key-path": "%s"%s}\n' "$work/docker/key.json" "${1:+, $1}" > "$work/docker/daemon.json"
    # shellcheck disable=SC2086
    ARENAFIX_RUNTIME_CONFIG=${2:-$runtime_conf} "$dockerd_bin" --config-file "$work/docker/daemon.json" --data-root "$work/docker/data" \
        --exec-root "$work/docker/exec" --pidfile "$work/docker/dockerd.pid" -H "unix://$work/docker/docker.sock" \
        --bridge=none --iptables=false --ip6tables=false --ip-masq=false --userland-proxy=false $add_runtime \
        >"$work/docker/dockerd.log" 2>&1 &
    up $! "$work/docker/dockerd.log" dk version
}

# Start arenawait 30 pinned in a new docker container NAME of IMAGE
# (options before the image); its count in $count, ID in $id, PID $pid.
dstart() {
    name=$1 img=$2; shift 2
    dk run -d -i --network none --name "$tag-$name" "$@" "$tag-$img" /bin/arenawait 30 pinned >/dev/null || return 1
    counted dk "$tag-$name"
}

docker_part() {
    image_root "$work/affected" "$affected" || { fail "the affected image's root could not be made"; return; }
    tar -C "$work/affected" -c . | dk import - "$tag-affected" >/dev/null \
        && tar -C "$work/affected" -c . | dk import -c 'ENV LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libm.so.6' - "$tag-preloaded" >/dev/null \
        || { fail "docker import refused the images"; return; }
    images=affected
    if [ -n "$release" ]; then
        image_root "$work/release" "$release" && tar -C "$work/release" -c . | dk import - "$tag-release" >/dev/null \
            && images="affected release" || fail "no image with $(basename "$(dirname "$release")")"
    fi

    # 1. The bug: --cpuset-cpus, and threads that pin themselves.
    for img in $images; do
        what=$img
        [ "$img" = release ] && what=$(basename "$(dirname "$release")")
        if dstart "cpuset-$img" "$img" --cpuset-cpus 0; then
            [ "$count" = 9 ] && pass "docker: a container on $what with --cpuset-cpus 0 gets 9 arenas" \
                || fail "docker: a container on $what with --cpuset-cpus 0 got $count arenas, not 9"
        else
            fail "docker: the container on $what did not start"
        fi
    done
    dstart hit affected || { fail "docker: the affected container did not start"; return; }
    [ "$count" = 9 ] && pass "docker: a pinned container on the affected glibc gets 9 arenas" \
        || fail "docker: a pinned container on the affected glibc got $count, not 9"
    hit_id=$id hit_pid=$pid
    echo "its cgroup: $(sed -n 's/^0:://p' "/proc/$hit_pid/cgroup")"

    # 2. The scan names it: docker, its ID (its cgroup /docker/ID), its
    # name (config.v2.json under the data root of the dockerd running).
    got=$(scanned "$hit_id")
    [ "$got" = "docker $(echo "$hit_id" | cut -c1-12) $tag-hit hit unknown False" ] \
        && pass "inspect --all --json names the docker container (engine, ID, name) and calls it hit" \
        || fail "inspect --all --json said of the docker container: $got"
    text=$("$cli" inspect --all 2>/dev/null)
    echo "$text" | grep -E "^ *$hit_pid +hit .* docker:$(echo "$hit_id" | cut -c1-12):$tag-hit " >/dev/null \
        && echo "$text" | grep -E "^    docker container $tag-hit, id $(echo "$hit_id" | cut -c1-12): process $hit_pid arenawait" >/dev/null \
        && pass "inspect --all's row and its fix name it docker:ID:NAME" \
        || { fail "inspect --all's row and fix for the docker container:"; echo "$text" | grep -E " $hit_pid |docker"; }
    echo "what inspect --all printed for it:"
    echo "$text" | grep -E "^ *$hit_pid |^fix the containers"
    echo "$text" | sed -n "/^    docker container $tag-hit,/{p;n;p}"

    "$cli" inspect --all --prometheus 2>/dev/null | grep -E 'arenafix_process_verdict\{unit="\(docker container\)",container="[^"]+",comm="arenawait",verdict="hit"\}' >/dev/null \
        && pass "the metrics count it under unit=\"(docker container)\"" || fail "the metrics do not count it under (docker container)"

    # 3. inspect PID: hit, named, nothing of it executed.
    strace -f -qq -e trace=execve,execveat -o "$work/strace.log" "$cli" inspect --json "$hit_pid" >"$work/pid.json" 2>/dev/null
    rc=$?
    execs=$(foreign_execs "$work/strace.log")
    [ "$rc" = 3 ] && [ "$execs" = 0 ] && python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
sys.exit(not (p["container_engine"] == "docker" and p["container_id"] == sys.argv[2]
              and p["container_name"] == sys.argv[3] and p["glibc_executed"] is False))' "$work/pid.json" "$hit_id" "$tag-hit" \
        && pass "inspect PID of the docker container: hit (exit 3), named, executes nothing of it" \
        || { fail "inspect PID of the docker container: exit $rc, $execs programs not its own"; cat "$work/pid.json"; }

    # 4. The printed fix, to the letter, on a new docker run.
    for img in $images; do
        dstart "probe-$img" "$img" && p=$pid || continue
        opts=$(printed_fix "$p")
        eval "set -- $opts"
        # It mounts the library of this build (the one inspect finds).
        case $opts in *"'$lib:"*) ;; *) opts= ;; esac
        if [ -n "$opts" ] && dstart "fixed-$img" "$img" "$@"; then
            [ "$count" = "$host" ] && pass "docker: the printed fix ($opts) gives $count arenas on $img, the host glibc's count" \
                || fail "docker: the printed fix ($opts) gave $count arenas on $img, not $host"
        else
            fail "docker: no fix printed for $img, or docker run refused it: $opts"
        fi
        if [ "$img" = affected ] && dstart "fixed-cpuset" affected --cpuset-cpus 0 "$@"; then
            [ "$count" = "$host" ] && pass "docker: with --cpuset-cpus 0 too, the printed fix gives $count" \
                || fail "docker: with --cpuset-cpus 0, the printed fix gave $count, not $host"
        fi
    done

    # 5. An image's own LD_PRELOAD (its ENV) is kept, after the library.
    if dstart preloaded preloaded; then
        opts=$(printed_fix "$pid")
        case $opts in
        *"LD_PRELOAD=/usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so:/usr/lib/x86_64-linux-gnu/libm.so.6'"*)
            eval "set -- $opts"
            if dstart preloaded-fixed preloaded "$@"; then
                maps=$(cat "/proc/$pid/maps")
                [ "$count" = "$host" ] && echo "$maps" | grep -q '/libarenafix.so$' && echo "$maps" | grep -q '/libm.so.6$' \
                    && pass "docker: an image's own LD_PRELOAD is kept in the fix: both loaded, $count arenas" \
                    || fail "docker: with the image's LD_PRELOAD and the fix: $count arenas, maps: $(echo "$maps" | grep -c -e libarenafix -e libm)"
            else
                fail "docker: the preloaded image with the fix did not start"
            fi ;;
        *) fail "docker: the fix for an image with its own LD_PRELOAD does not keep it: $opts" ;;
        esac
    fi

    # 6. A cgroup docker was told to use (--cgroup-parent): no /docker/ID
    # there, the shim it runs under names it.
    if dstart parented affected --cgroup-parent "$cgparent"; then
        echo "its cgroup: $(sed -n 's/^0:://p' "/proc/$pid/cgroup")"
        got=$(scanned "$id")
        [ "$got" = "docker $(echo "$id" | cut -c1-12) $tag-parented hit unknown False" ] \
            && pass "a docker container under --cgroup-parent is named by its shim (docker, ID, name)" \
            || fail "inspect --all --json said of the container under --cgroup-parent: $got"
        parented_id=$id parented_pid=$pid
    else
        fail "docker: the container under --cgroup-parent did not start"
    fi

    # A tenant's own shim: its pinned program runs under a process of
    # its container, uid 0, running /usr/bin/containerd-shim-runc-v2 (the
    # host's shim's path, root's alone there too), whose command line
    # claims another container; its cgroup names none (--cgroup-parent).
    shimfake=fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210
    if mkdir -p "$work/affected/usr/bin" && cc -static -O2 -o "$work/affected/usr/bin/containerd-shim-runc-v2" "$(dirname "$0")/fakeshim.c" \
        && tar -C "$work/affected" -c . | dk import - "$tag-forger" >/dev/null \
        && dk run -d -i --network none --name "$tag-forger" --cgroup-parent "$cgparent" "$tag-forger" \
            /usr/bin/containerd-shim-runc-v2 -namespace moby -id "$shimfake" /bin/arenawait 30 pinned >/dev/null; then
        fid=$(dk inspect -f '{{.Id}}' "$tag-forger")
        for _ in $(seq 1 1200); do dk logs "$tag-forger" 2>/dev/null | grep -q '^arenas=' && break; sleep 0.1; done
        got=$(scanned "$fid")
        [ "$got" = "docker $(echo "$fid" | cut -c1-12) $tag-forger hit unknown False" ] \
            && ! "$cli" inspect --all --json 2>/dev/null | grep -q "$shimfake" \
            && pass "a shim the tenant runs in its container is not taken for its container's: the real one names it" \
            || fail "inspect --all --json said of the container with a forged shim: $got"
    else
        fail "docker: the container with a forged shim did not start"
    fi

    # 7. A hostile tenant: a cgroup of its own below its container's,
    # named as another docker container, and docker's files forged in
    # its root; a container under --cgroup-parent moves below its own
    # cgroup into one named /docker/FAKE.
    fake=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
    root=/proc/$hit_pid/root
    mkdir -p "$root/var/lib/docker/containers/$hit_id" "$root/etc/docker" \
        && printf '{"ID":"%s","Name":"/evil"}' "$hit_id" > "$root/var/lib/docker/containers/$hit_id/config.v2.json" \
        && printf '{"data-root":"/proc/%s/root/var/lib/docker"}' "$hit_pid" > "$root/etc/docker/daemon.json"
    # Where it may make cgroups (in the hierarchies inspect reads), once
    # delegated: below its container's.
    moved=
    for p in $hit_pid ${parented_pid:-}; do
        for h in systemd unified; do
            at=$(sed -n "s/^[0-9]*:$( [ $h = systemd ] && echo name=systemd ):\\(.*\\)/\\1/p" "/proc/$p/cgroup")
            [ -n "$at" ] && [ -d "/sys/fs/cgroup/$h$at" ] && mkdir -p "/sys/fs/cgroup/$h$at/docker/$fake" \
                && echo "$p" > "/sys/fs/cgroup/$h$at/docker/$fake/cgroup.procs" && moved="$moved /sys/fs/cgroup/$h$at"
        done
    done
    echo "the tenant's cgroup: $(sed -n 's/^0:://p' "/proc/$hit_pid/cgroup")"
    got="$(scanned "$hit_id") / $(scanned "${parented_id:-none}")"
    [ "$got" = "docker $(echo "$hit_id" | cut -c1-12) $tag-hit hit unknown False / docker $(echo "${parented_id:-none}" | cut -c1-12) $tag-parented hit unknown False" ] \
        && pass "a hostile tenant's nested cgroups and forged docker files change neither ID nor name" \
        || fail "inspect --all --json said of the hostile docker containers: $got"
    # docker's own file, once others may write its directory, is not read.
    cdir=$work/docker/data/containers/$hit_id
    chmod o+w "$cdir" && got=$(scanned "$hit_id") && chmod o-w "$cdir"
    [ "$got" = "docker $(echo "$hit_id" | cut -c1-12) - hit unknown False" ] \
        && pass "a config.v2.json in a directory others may write is not read" \
        || fail "inspect --all --json, with the container's directory writable by others: $got"
    "$cli" inspect --all --json 2>/dev/null | grep -q "$fake\|\"evil\"" && fail "the tenant's fake ID or name was shown" \
        || pass "the tenant's fake ID and name are shown nowhere"
    strace -f -qq -e trace=execve,execveat,openat -o "$work/strace-hostile.log" "$cli" inspect "$hit_pid" >/dev/null 2>&1
    [ "$(foreign_execs "$work/strace-hostile.log")" = 0 ] \
        && ! grep -E "openat\(.*(/proc/$hit_pid/root/|\"/proc/[0-9]+/root/)(var|etc)" "$work/strace-hostile.log" >/dev/null \
        && pass "inspect PID executes nothing of the hostile container and reads no file through its root" \
        || fail "inspect PID executed or read something of the hostile container"
    # Back where docker put them, so that it can remove its cgroups.
    for at in $moved; do
        while read -r p; do echo "$p" > "$at/cgroup.procs"; done < "$at/docker/$fake/cgroup.procs"
        rmdir "$at/docker/$fake" "$at/docker"
    done
}

# ---- arenafix-runtime as docker's runtime ---------------------------
# shim_said ID: what the shim and the hook logged of container ID: the
# hook added (the shim's line), the library given or the reason not.
shim_said() {
    grep -F "arenafix-runtime: container $1: " "$runtime_log" | grep -q -F "hooks.createRuntime given" \
        && grep -F "container $(echo "$1" | cut -c1-12): " "$runtime_log" | grep -F "oci-hook" | tail -n 1
}
# A program's lines as one, spaces between.
oneline() { tr '\n' ' ' | sed 's/ $//'; }
# musl_root: a musl program's root (exitwith, musl's loader) in
# $work/musl; musl=yes, or "" without musl-tools.
musl_root() {
    rootfs "$work/musl" "" && musl_program "$work/musl" "$(dirname "$0")/exitwith.c"
}

# dockerd was started with --add-runtime arenafix=SHIM: docker run
# --runtime arenafix gives the pinned containers the library, leaves a
# musl image alone.
docker_runtime_part() {
    images=affected
    dk image inspect "$tag-release" >/dev/null 2>&1 && images="affected release"
    for img in $images; do
        what=$img
        [ "$img" = release ] && what=$(basename "$(dirname "$release")")
        for how in cpuset self; do
            opts=
            [ "$how" = cpuset ] && opts="--cpuset-cpus 0"
            : > "$runtime_log"
            # shellcheck disable=SC2086
            if dstart "plain-$how-$img" "$img" $opts; then plain=$count; else plain=none; fi
            # shellcheck disable=SC2086
            if dstart "shim-$how-$img" "$img" --runtime arenafix $opts; then
                said=$(shim_said "$id")
                [ "$plain" = 9 ] && [ "$count" = "$host" ] && [ "$(mapped "$pid" '/libarenafix.so$')" -gt 0 ] \
                    && echo "$said" | grep -q -F "given the library: /usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so mounted read-only" \
                    && pass "docker: pinned ($how${opts:+: $opts}) on $what: $plain arenas with the default runtime, $count with --runtime arenafix (the shim adds the hook: $said)" \
                    || { fail "docker: pinned ($how) on $what: $plain arenas with the default runtime, $count with --runtime arenafix (the host $host): $said"; cat "$runtime_log"; }
            else
                fail "docker: the container on $what with --runtime arenafix did not start"; cat "$runtime_log"
            fi
        done
    done
    # An image's own LD_PRELOAD (its ENV): kept, both loaded.
    if dstart shim-preloaded preloaded --runtime arenafix; then
        [ "$count" = "$host" ] && [ "$(mapped "$pid" '/libarenafix.so$')" -gt 0 ] && [ "$(mapped "$pid" '/libm.so.6$')" -gt 0 ] \
            && pass "docker: --runtime arenafix on an image with its own LD_PRELOAD: both loaded, $count arenas" \
            || fail "docker: --runtime arenafix on the preloaded image: $count arenas, maps: $(grep -c -e libarenafix -e libm "/proc/$pid/maps")"
    else
        fail "docker: the preloaded image with --runtime arenafix did not start"
    fi
    # musl: left alone, its output and status as with the default runtime.
    musl_root
    if [ -z "$musl" ]; then
        skip "docker: musl: no musl-gcc or musl's loader"
    elif ! tar -C "$work/musl" -c . | dk import - "$tag-musl" >/dev/null; then
        fail "docker import refused the musl image"
    else
        plain=$( (dk run --rm --network none "$tag-musl" /bin/exitwith 7 2>&1; echo "status=$?") | oneline)
        : > "$runtime_log"
        out=$( (dk run --rm --network none --runtime arenafix "$tag-musl" /bin/exitwith 7 2>&1; echo "status=$?") | oneline)
        [ "$out" = "ran status=7" ] && [ "$plain" = "$out" ] && grep -F "oci-hook" "$runtime_log" | grep -q -F "left alone: " \
            && ! grep -q -F "given the library" "$runtime_log" \
            && pass "docker: a musl image with --runtime arenafix runs as with the default runtime ($out), the hook's reason logged: $(grep -F 'oci-hook' "$runtime_log" | tail -n 1)" \
            || { fail "docker: musl with --runtime arenafix: '$out', with the default runtime '$plain'"; cat "$runtime_log"; }
    fi
}

# ---- arenafix-runtime from docker's daemon.json -----------------------
# dockerd restarted on a daemon.json naming the runtime (docs/deploy.md's
# entries), the images imported again: docker run --runtime arenafix;
# then default-runtime arenafix, every container through the shim
# (annotated-only = false) or only those asking (annotated-only = true).
# djson JSON [CONF]: dockerd on that daemon.json, the affected image in it.
djson() {
    dk ps -aq 2>/dev/null | while read -r c; do dk rm -f "$c" >/dev/null 2>&1; done
    stop_daemon "$work/docker/dockerd.pid"
    grep -o " $work/docker/[^ ]*" /proc/self/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
    add_runtime=
    docker_start "$1" "${2:-}" && tar -C "$work/affected" -c . | dk import - "$tag-affected" >/dev/null
}
docker_daemonjson_part() {
    runtimes="\"runtimes\": {\"arenafix\": {\"path\": \"$shim\"}}"
    if djson "$runtimes"; then
        : > "$runtime_log"
        if dstart json-plain affected; then plain=$count; else plain=none; fi
        if dstart json-shim affected --runtime arenafix; then
            said=$(shim_said "$id")
            [ "$plain" = 9 ] && [ "$count" = "$host" ] && [ "$(mapped "$pid" '/libarenafix.so$')" -gt 0 ] && [ -n "$said" ] \
                && pass "docker: daemon.json's runtimes entry (no --add-runtime): $plain arenas with the default runtime, $count with --runtime arenafix" \
                || { fail "docker: daemon.json's runtimes: $plain arenas plain, $count with --runtime arenafix (want 9, $host): $said"; cat "$runtime_log"; }
        else
            fail "docker: daemon.json's runtimes: --runtime arenafix did not start"; cat "$runtime_log"
        fi
    else
        fail "docker: dockerd did not start on daemon.json's runtimes entry: $(tail -n 3 "$work/docker/dockerd.log")"; return
    fi
    # default-runtime: every container, no option given.
    if djson "$runtimes, \"default-runtime\": \"arenafix\""; then
        : > "$runtime_log"
        if dstart default-all affected; then
            [ "$count" = "$host" ] && [ "$(mapped "$pid" '/libarenafix.so$')" -gt 0 ] && [ -n "$(shim_said "$id")" ] \
                && pass "docker: default-runtime arenafix: a plain docker run (no --runtime) gets $count arenas, the library given" \
                || { fail "docker: default-runtime arenafix: a plain docker run got $count arenas (want $host)"; cat "$runtime_log"; }
        else
            fail "docker: default-runtime arenafix: the container did not start"; cat "$runtime_log"
        fi
    else
        fail "docker: dockerd did not start with default-runtime arenafix: $(tail -n 3 "$work/docker/dockerd.log")"; return
    fi
    # default-runtime with annotated-only: the OCI annotation
    # io.arenafix.enable=true is the request.  Docker 20.10 copies no
    # label into config.json's annotations and has no --annotation (24.0
    # added it): what reaches the runtime is said.
    cp "$runtime_conf" "$work/runtime-annotated.conf" && echo 'annotated-only = true' >> "$work/runtime-annotated.conf"
    if djson "$runtimes, \"default-runtime\": \"arenafix\"" "$work/runtime-annotated.conf"; then
        : > "$runtime_log"
        if dstart annot-plain affected; then
            [ "$count" = 9 ] && grep -F "container $id: " "$runtime_log" | grep -q -F "left alone: no annotation io.arenafix.enable=true (annotated-only)" \
                && pass "docker: default-runtime arenafix, annotated-only: a container that does not ask is left alone ($count arenas), the shim says why" \
                || { fail "docker: annotated-only: a plain container got $count arenas (want 9)"; cat "$runtime_log"; }
        else
            fail "docker: annotated-only: the plain container did not start"; cat "$runtime_log"
        fi
        : > "$runtime_log"
        if dstart annot-label affected --label io.arenafix.enable=true; then
            bundle=$(find "$work/docker/exec" -path "*/$id/config.json" 2>/dev/null | head -n 1)
            ann=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("annotations", {}))' "$bundle" 2>/dev/null)
            echo "docker $(dk version -f '{{.Server.Version}}'): --label io.arenafix.enable=true: $count arenas; config.json's annotations: ${ann:-none}"
            # The shim serves it exactly when the annotation reached it.
            if echo "$ann" | grep -q "'io.arenafix.enable': 'true'"; then want=$host; else want=9; fi
            [ -n "$ann" ] && [ "$count" = "$want" ] \
                && pass "docker $(dk version -f '{{.Server.Version}}'): --label io.arenafix.enable=true under annotated-only: $count arenas, as config.json's annotations ($ann) ask" \
                || { fail "docker: --label io.arenafix.enable=true: $count arenas, annotations '$ann' (want $want)"; cat "$runtime_log"; }
        else
            fail "docker: annotated-only: the labelled container did not start"
        fi
        if dk run --help 2>/dev/null | grep -q -- '--annotation'; then
            : > "$runtime_log"
            if dstart annot-ann affected --annotation io.arenafix.enable=true; then
                [ "$count" = "$host" ] && pass "docker: annotated-only: --annotation io.arenafix.enable=true gets $count arenas" \
                    || { fail "docker: annotated-only: --annotation io.arenafix.enable=true got $count arenas (want $host)"; cat "$runtime_log"; }
            else
                fail "docker: --annotation io.arenafix.enable=true did not start"
            fi
        else
            skip "docker $(dk version -f '{{.Server.Version}}') has no docker run --annotation (docker 24.0 and later): annotated-only with docker not run"
        fi
    else
        fail "docker: dockerd did not start with annotated-only: $(tail -n 3 "$work/docker/dockerd.log")"
    fi
}

# ---- containerd ---------------------------------------------------
# Its own daemon: root, state, sockets in the build directory, no CRI.
containerd_start() {
    d=$work/containerd
    rm -rf "$d" && mkdir -p "$d" || return 1
    cat > "$d/config.toml" <<EOF
version = 2
root = "$d/root"
state = "$d/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$d/containerd.sock"
[ttrpc]
  address = "$d/containerd.sock.ttrpc"
[debug]
  address = "$d/debug.sock"
EOF
    ARENAFIX_RUNTIME_CONFIG=$runtime_conf containerd --config "$d/config.toml" >"$d/containerd.log" 2>&1 &
    echo $! > "$d/containerd.pid"
    up $! "$d/containerd.log" ct version
}

# Run arenawait 30 pinned in a new ctr container NAME (options before
# the image), its stdin held open by fd FD (3 or 4); count, PID.
cstart() {
    name=$1 fd=$2; shift 2
    hold=$work/hold-$name
    rm -f "$hold" && mkfifo "$hold" || return 1
    ct run --fifo-dir "$work/containerd/fifo" --runc-root "$work/containerd/runc" "$@" "localhost/$tag-affected:latest" "$tag-$name" /bin/arenawait 30 pinned <"$hold" >"$work/ctr-$name.out" 2>&1 &
    eval "exec $fd>\"\$hold\""
    count=
    for _ in $(seq 1 1200); do
        count=$(sed -n 's/^arenas=//p' "$work/ctr-$name.out")
        [ -n "$count" ] && break
        sleep 0.1
    done
    pid=$(ct task ls 2>/dev/null | awk -v n="$tag-$name" '$1 == n { print $2 }')
    [ -n "$count" ] && [ -n "$pid" ]
}

containerd_part() {
    python3 "$(dirname "$0")/ociarchive.py" "$work/affected" "localhost/$tag-affected:latest" "$work/affected.tar" \
        && ct image import "$work/affected.tar" >/dev/null || { fail "ctr image import refused the image"; return; }
    if cstart hit 3; then
        [ "$count" = 9 ] && pass "containerd: a pinned container (ctr run) on the affected glibc gets 9 arenas" \
            || fail "containerd: a pinned container got $count arenas, not 9"
    else
        fail "containerd: the container did not start: $(cat "$work/ctr-hit.out")"; return
    fi
    echo "its cgroup: $(sed -n 's/^0:://p' "/proc/$pid/cgroup")"
    got=$(scanned "$tag-hit")
    [ "$got" = "containerd $(echo "$tag-hit" | cut -c1-12) - hit unknown False" ] \
        && pass "inspect --all --json names the containerd container (engine, its ID) by its shim, hit" \
        || fail "inspect --all --json said of the containerd container: $got"
    "$cli" inspect --all --prometheus 2>/dev/null | grep -E 'arenafix_process_verdict\{unit="\(containerd container\)",container="[^"]+",comm="arenawait",verdict="hit"\}' >/dev/null \
        && pass "the metrics count it under unit=\"(containerd container)\"" || fail "the metrics do not count it under (containerd container)"
    strace -f -qq -e trace=execve,execveat -o "$work/strace-ctr.log" "$cli" inspect --json "$pid" >"$work/ctr.json" 2>/dev/null
    rc=$?
    execs=$(foreign_execs "$work/strace-ctr.log")
    [ "$rc" = 3 ] && [ "$execs" = 0 ] && grep -q '"container_engine":"containerd"' "$work/ctr.json" \
        && pass "inspect PID of the containerd container: hit (exit 3), named, executes nothing of it" \
        || { fail "inspect PID of the containerd container: exit $rc, $execs programs not its own executed"; cat "$work/ctr.json"; }
    echo "what inspect PID printed for it:"
    "$cli" inspect "$pid" | grep -E "^  container:|^verdict|^    containerd|^        --mount"
    opts=$(printed_fix "$pid")
    eval "set -- $opts"
    case $opts in --mount*) ;; *) opts= ;; esac
    if [ -n "$opts" ] && cstart fixed 4 "$@"; then
        [ "$count" = "$host" ] && pass "containerd: the printed fix ($opts) on a new ctr run gives $count arenas" \
            || fail "containerd: the printed fix ($opts) gave $count arenas, not $host"
    else
        fail "containerd: no ctr run fix printed, or ctr run refused it: $("$cli" inspect "$pid" | tail -2)"
    fi
    exec 3>&- 4>&-
    if [ -n "$shim" ]; then
        containerd_runtime_part
    else
        skip "containerd: no arenafix-runtime given"
    fi
}

# cmusl NAME [OPTION]...: the musl image's exitwith 7 run to its end by
# ctr run; its output, then its status.
cmusl() {
    name=$1; shift
    ct run --rm --fifo-dir "$work/containerd/fifo" --runc-root "$work/containerd/runc" "$@" \
        "localhost/$tag-musl:latest" "$tag-musl-$name" /bin/exitwith 7 </dev/null 2>&1
    echo "status=$?"
}

# ctr run --runc-binary SHIM (the runc v2 shim's BinaryName): the
# library given to the pinned container, a musl image left alone.
containerd_runtime_part() {
    : > "$runtime_log"
    if cstart shim 5 --runc-binary "$shim"; then
        said=$(shim_said "$tag-shim")
        [ "$count" = "$host" ] && [ "$(mapped "$pid" '/libarenafix.so$')" -gt 0 ] \
            && echo "$said" | grep -q -F "given the library: /usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so mounted read-only" \
            && pass "containerd: ctr run --runc-binary arenafix-runtime gives the pinned container $count arenas (9 with runc above; the shim adds the hook: $said)" \
            || { fail "containerd: with --runc-binary arenafix-runtime, $count arenas (the host $host): $said"; cat "$runtime_log"; }
    else
        fail "containerd: the container with --runc-binary arenafix-runtime did not start: $(cat "$work/ctr-shim.out")"; cat "$runtime_log"
    fi
    exec 5>&-
    [ -d "$work/musl" ] || musl_root
    if [ -z "$musl" ]; then
        skip "containerd: musl: no musl-gcc or musl's loader"
    elif ! python3 "$(dirname "$0")/ociarchive.py" "$work/musl" "localhost/$tag-musl:latest" "$work/musl.tar" \
        || ! ct image import "$work/musl.tar" >/dev/null; then
        fail "ctr image import refused the musl image"
    else
        plain=$(cmusl plain | oneline)
        : > "$runtime_log"
        out=$(cmusl shim --runc-binary "$shim" | oneline)
        [ "$out" = "ran status=7" ] && [ "$plain" = "$out" ] && grep -F "oci-hook" "$runtime_log" | grep -q -F "left alone: " \
            && ! grep -q -F "given the library" "$runtime_log" \
            && pass "containerd: a musl image with --runc-binary arenafix-runtime runs as with runc ($out), the hook's reason logged" \
            || { fail "containerd: musl with --runc-binary arenafix-runtime: '$out', with runc '$plain'"; cat "$runtime_log"; }
    fi
    # The CRI plugin's entry (deploy/containerd/), added to a
    # configuration: containerd reads it, runc's entry kept.  Parsed
    # only: the CRI plugin is not run here.
    drop=$(dirname "$0")/../../deploy/containerd/arenafix-runtime.toml
    printf 'version = 2\nroot = "%s"\nstate = "%s"\n' "$work/cri/root" "$work/cri/state" | cat - "$drop" > "$work/cri.toml"
    dump=$(containerd --config "$work/cri.toml" config dump 2>&1)
    echo "$dump" | grep -q -F '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.arenafix.options]' \
        && echo "$dump" | grep -q -F 'BinaryName = "/usr/bin/arenafix-runtime"' \
        && echo "$dump" | grep -q -F '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]' \
        && pass "containerd reads deploy/containerd/arenafix-runtime.toml (config dump): the handler arenafix, BinaryName arenafix-runtime, runc's entry kept (parsed, not run: no CRI here)" \
        || { fail "containerd's config dump of deploy/containerd/arenafix-runtime.toml:"; echo "$dump" | grep -n 'runtimes\.\|BinaryName\|level=' ; }
}

t0=$(date +%s)
if [ ! -x "$docker_bin" ] || [ ! -x "$dockerd_bin" ]; then
    skip "docker: Debian's docker.io is not installed (test/packages.txt)"
elif docker_start; then
    docker_part
    if [ -n "$shim" ]; then
        docker_runtime_part
        docker_daemonjson_part
    else
        skip "docker: no arenafix-runtime given"
    fi
else
    skip "docker: dockerd did not start here (its log above)"
fi
if ! command -v containerd >/dev/null 2>&1 || ! command -v ctr >/dev/null 2>&1; then
    skip "containerd: containerd and ctr are not installed (docker.io's containerd package)"
elif [ ! -d "$work/affected" ] && ! image_root "$work/affected" "$affected"; then
    fail "containerd: the image's root could not be made"
elif containerd_start; then
    containerd_part
else
    skip "containerd: it did not start here (its log above)"
fi
echo "check-containers (engines): $(($(date +%s) - t0)) s"
summary
