#!/bin/sh
# make check-containers, the scan from inside a container: arenafix run
# in a container that sees the host's PIDs (a DaemonSet's, --pid=host)
# judges the host's processes by their own glibc and names the host's
# glibc (PID 1's), not its image's; probe --root answers for a running
# container's image.  See test/containers/README.md.
#
#   scan.sh BUILD_DIR ARENAFIX ARENAWAIT AFFECTED_GLIBC_DIR [MUSLWAIT]
#
# Its images and containers are named afxscan-PID-*, removed at the end.
set -u
work=$1 cli=$2 prog=$3 affected=$4 musl_prog=${5:-}
tag=afxscan-$$
part=scan
. "$(dirname "$0")/lib.sh"

needs podman runc python3
[ -e "$affected/libc.so.6" ] || { skip "no affected glibc at $affected"; summary; }
# Debian's 2.36-8 as shipped (libc6-amd64-cross): an image whose own
# glibc is affected, though the host's is fixed.
shipped=/usr/x86_64-linux-gnu/lib


cleanup() {
    pm ps -a --format '{{.Names}}' 2>/dev/null | grep "^$tag-" | while read -r c; do pm rm -f -t 0 "$c" >/dev/null 2>&1; done
    for i in fixed shipped musl; do pm rmi -f "localhost/$tag-$i" >/dev/null 2>&1; done
    [ -n "${held:-}" ] && kill "$held" 2>/dev/null
    [ -n "${fine:-}" ] && kill "$fine" 2>/dev/null
    exec 3>&- 4>&- 2>/dev/null
    rm -f "$work/hold" "$work/hold2"
    return 0
}
trap cleanup EXIT INT TERM

# A root file system with the glibc of DIR at the multiarch path, its
# cache, and the built arenafix.
image_root() { rootfs "$1" "$2" "arenafix=$cli" "arenawait=$prog"; }


t0=$(date +%s)
mkdir -p "$work"
image_root "$work/fixed" /lib/x86_64-linux-gnu && image fixed || { fail "the scanner's image could not be made"; summary; }
have_shipped=false
[ -e "$shipped/libc.so.6" ] && image_root "$work/shipped" "$shipped" && image shipped && have_shipped=true

# A pinned process on the host, on the affected glibc: hit.
rm -f "$work/hold" && mkfifo "$work/hold"
"$affected/ld-linux-x86-64.so.2" --library-path "$affected" "$prog" 30 pinned <"$work/hold" >"$work/held.out" &
held=$!
exec 3>"$work/hold"
for _ in $(seq 1 600); do grep -q '^arenas=' "$work/held.out" 2>/dev/null && break; sleep 0.1; done
[ "$(sed -n 's/^arenas=//p' "$work/held.out")" = 9 ] && pass "a pinned process on the host's affected glibc gets 9 arenas" \
    || fail "the host's pinned process on the affected glibc got $(cat "$work/held.out")"
# And one on the host's own fixed glibc: fine, by the host's probe.
rm -f "$work/hold2" && mkfifo "$work/hold2"
"$prog" 30 pinned <"$work/hold2" >"$work/fine.out" &
fine=$!
exec 4>"$work/hold2"
for _ in $(seq 1 600); do grep -q '^arenas=' "$work/fine.out" 2>/dev/null && break; sleep 0.1; done
host_version=$(ldd --version | sed -n '1s/.* //p')

# The scanner as a DaemonSet runs it: the host's PIDs, privileged (it
# reads other processes' memory and enters PID 1's namespaces to probe
# the host's glibc as PID 1).  $1 the image, $2 its glibc in words.
judge() {
    img=$1 own=$2
    out=$(pm run --rm $run_opts --privileged --pid=host --name "$tag-scan-$img" "localhost/$tag-$img" /bin/arenafix inspect --all 2>"$work/scan-$img.err")
    echo "$out" | grep -E "^ *$held +hit " >/dev/null \
        && pass "from a container on $own: the host's pinned process is hit" \
        || { fail "from a container on $own: the host's process: $(echo "$out" | grep -E "^ *$held ")"; cat "$work/scan-$img.err"; }
    line=$(echo "$out" | grep '^host glibc: ')
    echo "$line" | grep -E "^host glibc: not affected, the host's glibc \(PID [0-9]+'s(, above this container)?; this command runs in a container, on its image's glibc [0-9.]+\), probed once as that process: " >/dev/null \
        && pass "from a container on $own: the host glibc line is the host's (PID 1's, or above the container), probed, not affected, and says so" \
        || fail "from a container on $own: $line"
    json=$(pm run --rm $run_opts --privileged --pid=host --name "$tag-scanj-$img" "localhost/$tag-$img" /bin/arenafix inspect --all --json 2>/dev/null)
    echo "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = [p for p in d["processes"] if p["pid"] == int(sys.argv[1])]
s = d["summary"]
sys.exit(not (p and p[0]["verdict"] == "hit" and s["host_glibc_state"] == "not affected" and "this command runs in a container" in s["host_glibc_note"]))' "$held" \
        && pass "from a container on $own: the JSON calls it hit, the host glibc the host's" || fail "from a container on $own: the JSON: $(echo "$json" | tail -c 600)"
    echo "$json" | python3 -c '
import json, sys
p = [p for p in json.load(sys.stdin)["processes"] if p["pid"] == int(sys.argv[1])]
sys.exit(not (p and p[0]["verdict"] == "fine" and p[0]["glibc_state"] == "not affected" and "the host" in p[0]["glibc_note"]))' "$fine" \
        && pass "from a container on $own: a pinned process of the host on the host's fixed glibc is fine, by the host's probe" \
        || fail "from a container on $own: the host's fixed-glibc process: $(echo "$json" | grep -o "{[^{]*\"pid\":$fine,[^}]*}")"
    prom=$(pm run --rm $run_opts --privileged --pid=host --name "$tag-scanp-$img" "localhost/$tag-$img" /bin/arenafix inspect --all --prometheus 2>/dev/null)
    echo "$prom" | grep -E "^arenafix_info\{.*glibc_version=\"$host_version\"" >/dev/null \
        && pass "from a container on $own: the metrics give the host's glibc version ($host_version)" \
        || fail "from a container on $own: the metrics' glibc: $(echo "$prom" | grep glibc | head -3)"
}
judge fixed "the host's fixed glibc"
if $have_shipped; then
    judge shipped "Debian's affected 2.36-8"
else
    skip "no $shipped/libc.so.6 (libc6-amd64-cross): no scanner image on an affected glibc"
fi

# probe --root of a running container's root: its image's libc, read
# through /proc/PID/root, nothing of it run.
# $1 container, $2 image, $3 the libc probe --root must find, $4 its
# exit status, then the program to keep running.
probe_root() {
    name=$1 img=$2 want=$3 want_rc=$4; shift 4
    pm run -d -i $run_opts --name "$tag-$name" "localhost/$tag-$img" "$@" >/dev/null || { fail "the $img container did not start"; return; }
    pid=$(pm inspect -f '{{.State.Pid}}' "$tag-$name")
    got=$("$cli" probe --root "/proc/$pid/root" --json 2>&1)
    rc=$?
    echo "$got" | python3 -c '
import json, sys
p = json.load(sys.stdin)
print(p["libc"], p["glibc"], p["architecture"], p["library_loads"], p["executed"])' > "$work/root.txt" 2>&1
    [ "$rc" = "$want_rc" ] && [ "$(cat "$work/root.txt")" = "$want" ] \
        && pass "probe --root /proc/PID/root of the $img container: $want, exit $rc" \
        || fail "probe --root of the $img container: exit $rc, $(cat "$work/root.txt"): $got"
    pm rm -f -t 0 "$tag-$name" >/dev/null 2>&1
}
probe_root root-fixed fixed "glibc 2.36 x86_64 yes False" 5 /bin/arenawait 2
if [ -n "$musl_prog" ] && [ -x "$musl_prog" ] && [ -e /usr/lib/x86_64-linux-musl/libc.so ]; then
    rm -rf "$work/musl" && mkdir -p "$work/musl/lib" "$work/musl/bin" "$work/musl/proc" "$work/musl/sys" "$work/musl/dev" \
        && cp /usr/lib/x86_64-linux-musl/libc.so "$work/musl/lib/ld-musl-x86_64.so.1" && cp "$musl_prog" "$work/musl/bin/muslwait" \
        && image musl && probe_root root-musl musl "musl None x86_64 stands down False" 0 /bin/muslwait 2
else
    skip "no musl program built (musl-tools): no musl container for probe --root"
fi
exec 3>&- 4>&-
wait "$held" "$fine" 2>/dev/null
held= fine=
echo "check-containers (scan): $(($(date +%s) - t0)) s"
summary
