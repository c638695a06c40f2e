#!/bin/sh
# make check-containers, fourth part: the Container Device Interface
# spec `arenafix cdi` writes, read by rootful podman (runc) from a CDI
# directory, on images made here with `podman import`.  See
# test/containers/README.md.
#
#   cdi.sh BUILD_DIR ARENAFIX LIBARENAFIX ARENAWAIT AFFECTED_GLIBC_DIR EXITWITH_SOURCE HOOK_JSON [AFFECTED_GLIBCS]
#
# HOOK_JSON is the package's hooks.d entry, for a container given both
# the annotation and the device.
# AFFECTED_GLIBCS (ARENAFIX_AFFECTED_GLIBC, a colon-separated list): the
# upstream releases among them get an image each.
#
# Podman 4.3 reads specs from /etc/cdi and /var/run/cdi only: the spec
# goes to /var/run/cdi/arenafix-check-PID.json, the device
# arenafix.dev/fix=check-PID (no other spec's device), and is removed
# when the part ends, with /var/run/cdi if the part made it.  Its images
# and containers are named afxcdi-PID-*, removed at the end.
set -u
work=$1 cli=$2 lib=$3 prog=$4 affected=$5 exitwith=$6 entry=$7 more=${8:-}
tag=afxcdi-$$
part=cdi
. "$(dirname "$0")/lib.sh"

needs podman runc busybox
[ -e "$affected/libc.so.6" ] || { skip "no affected glibc at $affected"; summary; }
busybox=$(command -v busybox)
file "$busybox" 2>/dev/null | grep -q 'statically linked' || { skip "busybox is not static (busybox-static)"; summary; }

images="affected preloaded fixed static musl"
releases=
for d in $(echo "$more" | tr ':' ' '); do
    r=$(basename "$(dirname "$d")")
    [ -e "$d/libc.so.6" ] && [ "$d" != "$affected" ] && case $r in glibc-2.3[4-8]) releases="$releases $r" ;; esac
done
# By its real path (Debian's /var/run is a link to /run): --output
# follows no link.
cdidir=$(realpath -m /var/run/cdi)
cdispec=$cdidir/arenafix-check-$$.json device=arenafix.dev/fix=check-$$
made_dir=
[ -d "$cdidir" ] || { mkdir -p "$cdidir" && made_dir=yes; } || { fail "cannot make $cdidir"; summary; }
cleanup() {
    pm ps -a --format '{{.Names}}' 2>/dev/null | grep "^$tag-" | while read -r c; do pm rm -f -t 0 "$c" >/dev/null 2>&1; done
    for i in $images $releases; do pm rmi -f "localhost/$tag-$i" >/dev/null 2>&1; done
    rm -f "$cdispec"
    [ -z "$made_dir" ] || rmdir "$cdidir" 2>/dev/null
    return 0
}
trap cleanup EXIT
trap 'exit 1' INT TERM
rm -rf "$work" && mkdir -p "$work" || { fail "cannot make $work"; summary; }

t0=$(date +%s)
# 1. The spec, as the command writes it: its own real path as the hook,
# whole, mode 0644 whatever the umask; the same text on standard output.
umask 077
"$cli" cdi --output "$cdispec" --name "check-$$" --log "$work/hook.log" > "$work/cdi.out" 2> "$work/cdi.err"
status=$?
umask 022
"$cli" cdi --name "check-$$" --log "$work/hook.log" > "$work/cdi.stdout" 2>> "$work/cdi.err"
real=$(realpath "$cli")
if [ "$status" = 0 ] && [ -f "$cdispec" ] && [ "$(stat -c %a "$cdispec")" = 644 ] && [ ! -s "$work/cdi.out" ] \
    && cmp -s "$cdispec" "$work/cdi.stdout" && grep -F "\"path\": \"$real\"," "$cdispec" >/dev/null \
    && grep -F '"args": ["arenafix", "oci-hook", "--cdi", "--log", "'"$work/hook.log"'"]' "$cdispec" >/dev/null; then
    pass "arenafix cdi --output writes the spec (mode 0644, the same as on standard output), its hook this command's real path"
else
    fail "arenafix cdi --output $cdispec: status $status, mode $(stat -c %a "$cdispec" 2>/dev/null): $(cat "$work/cdi.err")"
    cat "$cdispec" 2>/dev/null
fi

# A root file system with the glibc of DIR (or none) at the multiarch
# path, its cache, the pinned program and a static busybox.
image_root() { rootfs "$1" "$2" "busybox=$busybox" ${2:+"arenawait=$prog"}; }

# Asked for the library by the device; podman's options otherwise as
# they are.
asked="--device $device" asked_by="with the device"

image_root "$work/affected" "$affected" && image_root "$work/preloaded" "$affected" && image_root "$work/fixed" /lib/x86_64-linux-gnu \
    && image_root "$work/static" "" && image_root "$work/musl" "" || { fail "the root file systems could not be made"; summary; }
cp "$affected/libm.so.6" "$work/preloaded/usr/lib/x86_64-linux-gnu/" && echo /usr/lib/x86_64-linux-gnu/libm.so.6 > "$work/preloaded/etc/ld.so.preload"
musl_program "$work/musl" "$exitwith"
for i in $images; do
    [ "$i" != musl ] || [ -n "$musl" ] || continue
    image "$i" || { fail "image $i could not be made"; summary; }
done
host=$("$prog" 30 pinned </dev/null | sed -n 's/^arenas=//p')
echo "the same program on the host's glibc: $host arenas"

# 2. The affected glibc: 9 without the device, the fixed count with it,
# through the spec's hook alone (no annotation).
plain= given=
start plain affected && [ "$(mapped "$pid" libarenafix)" = 0 ] && [ -z "$said" ] && plain=$count
if start fixed-by-device affected --device "$device"; then
    [ "$plain" = 9 ] && [ "$count" = "$host" ] && [ "$(mapped "$pid" /usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so)" -gt 0 ] \
        && echo "$said" | grep -F "given the library: /usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so mounted read-only" >/dev/null \
        && given=yes && pass "a pinned container on the affected glibc: 9 arenas without the device, $count (the host glibc's) with --device $device, the library mounted by the spec's hook" \
        || { fail "the affected glibc: $plain arenas without the device, $count with it (the host $host)"; echo "$said"; }
    env=$(tr '\0' '\n' < "/proc/$pid/environ" | grep -c '^LD_PRELOAD=')
    [ "$env" = 0 ] && pass "the container's environment is left alone (no LD_PRELOAD)" || fail "the spec set LD_PRELOAD"
else
    fail "the affected container with the device did not start: $(cat "$work/hook.log")"
fi

# The upstream releases: the library loads in each and gives the
# fixed count.
for r in $releases; do
    for d in $(echo "$more" | tr ':' ' '); do [ "$(basename "$(dirname "$d")")" = "$r" ] && from_dir=$d; done
    if image_root "$work/$r" "$from_dir" && image "$r" && start "$r-plain" "$r" && plain=$count \
        && start "$r-device" "$r" --device "$device"; then
        [ "$plain" = 9 ] && [ "$count" = "$host" ] && [ "$(mapped "$pid" arenafix/libarenafix.so)" -gt 0 ] \
            && pass "$r: a pinned container gets 9 arenas without the device, $count with it" \
            || { fail "$r: $plain arenas without the device, $count with it (the host $host)"; echo "$said"; }
    else
        fail "$r: its containers did not start: $(cat "$work/hook.log")"
    fi
done

# 3. The image's own ld.so.preload kept, its library still loaded.
if start preloaded preloaded --device "$device"; then
    got=$(pm exec "$tag-preloaded" /bin/busybox cat /etc/ld.so.preload | tr '\n' ' ')
    [ "$count" = "$host" ] && [ "$(mapped "$pid" /usr/lib/x86_64-linux-gnu/libm.so.6)" -gt 0 ] \
        && [ "$(mapped "$pid" arenafix/libarenafix.so)" -gt 0 ] \
        && [ "$got" = "/usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so /usr/lib/x86_64-linux-gnu/libm.so.6 " ] \
        && pass "an image's own /etc/ld.so.preload is kept: the library, then its libm.so.6, both loaded, $count arenas" \
        || { fail "the image's own ld.so.preload: $count arenas, in the container: $got"; echo "$said"; }
else
    fail "the container with its own ld.so.preload did not start: $(cat "$work/hook.log")"
fi

# 4. The host's fixed glibc: left alone, and why.
if start fixed fixed --device "$device"; then
    [ "$count" = "$host" ] && [ "$(mapped "$pid" libarenafix)" = 0 ] \
        && echo "$said" | grep -F "left alone: glibc" | grep -F "the host's own libc.so.6 byte for byte" >/dev/null \
        && pass "a fixed glibc (the host's) is left alone with the device, $count arenas, and the hook says why" \
        || { fail "the fixed-glibc container: $count arenas"; echo "$said"; }
else
    fail "the fixed-glibc container did not start: $(cat "$work/hook.log")"
fi

# 5. Images the library cannot serve: each program runs and exits as
# it does without the device, and the hook says why.
untouched "a static program's image" static "no glibc in the image" /bin/busybox sh -c 'echo ran; exit 7'
if [ -n "$musl" ]; then
    untouched "a musl image" musl "a musl image" /bin/exitwith 7
else
    skip "no musl-gcc or musl loader (musl-tools)"
fi

# 6. The annotation's hook (the hooks.d entry) and the device both: the
# second run of the hook finds the library listed and adds nothing.
hooks=$work/hooks
mkdir -p "$hooks" && sed -e 's|"path": "[^"]*/arenafix"|"path": "'"$cli"'"|' \
    -e 's|"args": \["arenafix", "oci-hook"[^]]*\]|"args": ["arenafix", "oci-hook", "--log", "'"$work"'/hook.log"]|' "$entry" > "$hooks/arenafix.json"
: > "$work/hook.log"
out=$(pm --hooks-dir "$hooks" run --rm $run_opts --annotation io.arenafix.enable=true --device "$device" "localhost/$tag-affected" \
    /bin/busybox sh -c '/bin/arenawait 30 pinned; grep -c " /usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so " /proc/self/mountinfo; cat /etc/ld.so.preload' 2>&1)
[ "$out" = "arenas=$host
1
/usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so" ] && [ "$(grep -c 'given the library' "$work/hook.log")" = 1 ] \
    && grep -F "left alone: its /etc/ld.so.preload lists /usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so already" "$work/hook.log" >/dev/null \
    && pass "the annotation and the device both: the library mounted once, listed once, $host arenas" \
    || { fail "the annotation and the device both: $out"; cat "$work/hook.log"; }

# 7. The device is the spec's: it gave the library above; with the file
# removed podman knows no such device, and runs nothing.
rm -f "$cdispec"
: > "$work/hook.log"
out=$(pm run --rm $run_opts --device "$device" "localhost/$tag-affected" /bin/busybox true 2>&1)
status=$?
[ -n "$given" ] && [ "$status" != 0 ] && echo "$out" | grep -F "$device" >/dev/null && [ ! -s "$work/hook.log" ] \
    && pass "the device was the spec's: without the file podman refuses it ($out)" \
    || fail "the device with the spec file: ${given:-no library given}; without it: status $status: $out"
echo "check-containers (cdi): $(($(date +%s) - t0)) s"
summary
