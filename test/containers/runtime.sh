#!/bin/sh
# make check-containers, last part: arenafix-runtime in front of the
# real runc, which runs bundles made here (runc spec, a minimal root
# file system), no engine between.  See test/containers/README.md.
#
#   runtime.sh BUILD_DIR ARENAFIX ARENAFIX_RUNTIME ARENAWAIT AFFECTED_GLIBC_DIR EXITWITH_SOURCE
set -u
work=$1 cli=$2 shim=$3 prog=$4 affected=$5 exitwith=$6
tag=afxruntime-$$
part=runtime
. "$(dirname "$0")/lib.sh"

needs runc python3 busybox
[ -e "$affected/libc.so.6" ] || { skip "no affected glibc at $affected"; summary; }
busybox=$(command -v busybox)
state=$work/runc
cleanup() {
    for c in $(runc --root "$state" list -q 2>/dev/null); do runc --root "$state" delete -f "$c" >/dev/null 2>&1; done
    return 0
}
trap cleanup EXIT INT TERM
rm -rf "$work" && mkdir -p "$work" && chmod 700 "$work" || { fail "no work directory"; summary; }

# The shim's configuration: the real runc, the build's command as the
# hook, one log for both.
printf 'runtime = %s\nhook = %s\nlog = %s\n' "$(command -v runc)" "$cli" "$work/log" > "$work/runtime.conf"
export ARENAFIX_RUNTIME_CONFIG="$work/runtime.conf"

# bundle NAME GLIBC_DIR ARGS...: a bundle in $work/NAME running ARGS
# (a JSON list), its root file system writable (the hook makes empty
# files there), no terminal.
bundle() {
    b=$work/$1 from=$2 args=$3
    mkdir -p "$b" && chmod 700 "$b" && rootfs "$b/rootfs" "$from" "busybox=$busybox" "arenawait=$prog" \
        && (cd "$b" && runc spec) && python3 - "$b/config.json" "$args" <<'PY'
import json, sys
path, args = sys.argv[1], json.loads(sys.argv[2])
c = json.load(open(path))
c["process"]["args"] = args
c["process"]["terminal"] = False
c["root"]["readonly"] = False
json.dump(c, open(path, "w"), indent=1)
PY
}

# runs RUNTIME NAME: run bundle NAME to its end with RUNTIME (runc or
# the shim), its output in $out, its status in $rc.
runs() {
    : > "$work/log"
    out=$("$1" --root "$state" run --bundle "$work/$2" "$tag-$2-$(basename "$1")" </dev/null 2>&1)
    rc=$?
}

host=$("$prog" 30 pinned </dev/null | sed -n 's/^arenas=//p')
echo "the same program on the host's glibc: $host arenas"

bundle affected "$affected" '["/bin/arenawait", "30", "pinned"]' || { fail "the affected bundle could not be made"; summary; }
cp "$work/affected/config.json" "$work/affected.json"
runs runc affected
plain=$(echo "$out" | sed -n 's/^arenas=//p')
runs "$shim" affected
count=$(echo "$out" | sed -n 's/^arenas=//p')
[ "$plain" = 9 ] && [ "$count" = "$host" ] \
    && pass "runc runs the pinned program on the affected glibc with 9 arenas; arenafix-runtime in front of it, $count (the host glibc's count)" \
    || { fail "the affected glibc: $plain arenas with runc, $count with arenafix-runtime (the host $host): $out"; cat "$work/log"; }
grep -F "arenafix-runtime: container $tag-affected-arenafix-runtime: bundle $work/affected: hooks.createRuntime given" "$work/log" >/dev/null \
    && grep -F "given the library: /usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so mounted read-only" "$work/log" >/dev/null \
    && pass "the shim says it added the hook, the hook that it gave the library" \
    || { fail "the log: $(cat "$work/log")"; }
n=$(grep -c '"oci-hook"' "$work/affected/config.json")
runs "$shim" affected
again=$(echo "$out" | sed -n 's/^arenas=//p')
[ "$n" = 1 ] && [ "$(grep -c '"oci-hook"' "$work/affected/config.json")" = 1 ] && [ "$again" = "$host" ] \
    && pass "run again on the same bundle: the hook there once, $again arenas" \
    || fail "run again: $(grep -c '"oci-hook"' "$work/affected/config.json") hooks, $again arenas"

# musl: the hook added, the image left alone, the program as without.
bundle musl "" '["/bin/exitwith", "7"]' && musl_program "$work/musl/rootfs" "$exitwith"
if [ -z "$musl" ]; then
    skip "musl: no musl-gcc or musl's loader"
else
    runs runc musl
    plain_rc=$rc plain_out=$out
    runs "$shim" musl
    [ "$rc" = 7 ] && [ "$plain_rc" = 7 ] && [ "$out" = ran ] && [ "$plain_out" = ran ] && grep -F "left alone: " "$work/log" | grep -F "oci-hook" >/dev/null \
        && ! grep -F "given the library" "$work/log" >/dev/null \
        && pass "a musl image: exit $rc and its output as with runc alone, the hook's reason logged: $(grep -F 'oci-hook' "$work/log" | tail -n 1)" \
        || { fail "musl: exit $rc ($plain_rc with runc), output '$out' ('$plain_out')"; cat "$work/log"; }
fi

# A runtime error is runc's own: a bundle with no root file system.
mkdir -p "$work/broken" && chmod 700 "$work/broken" && cp "$work/affected.json" "$work/broken/config.json"
runs runc broken
plain_rc=$rc
runs "$shim" broken
[ "$rc" = "$plain_rc" ] && [ "$rc" != 0 ] && echo "$out" | grep -q . \
    && pass "runc's failure passes through: exit $rc, its message on standard error" \
    || fail "a broken bundle: exit $rc with the shim, $plain_rc with runc: $out"
summary
