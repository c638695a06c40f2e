#!/bin/sh
# make check-containers, second part: the OCI hook (arenafix oci-hook)
# run by rootful podman (runc) from a hooks.d of the build, on images
# made here with `podman import`.  See test/containers/README.md.
#
#   hook.sh BUILD_DIR ARENAFIX LIBARENAFIX ARENAWAIT AFFECTED_GLIBC_DIR EXITWITH_SOURCE HOOK_JSON [AFFECTED_GLIBCS]
#
# AFFECTED_GLIBCS (ARENAFIX_AFFECTED_GLIBC, a colon-separated list): more
# affected glibcs (upstream 2.34 ...), each an image of its own too.
#
# HOOK_JSON is the hooks.d entry the package installs; the suite runs it
# with the build's command for the installed one.
#
# Its images and containers are named afxhook-PID-*, removed at the end.
set -u
work=$1 cli=$2 lib=$3 prog=$4 affected=$5 exitwith=$6 entry=$7 more=${8:-}
tag=afxhook-$$
part=hook
. "$(dirname "$0")/lib.sh"

needs podman runc strace busybox
[ -e "$affected/libc.so.6" ] || { skip "no affected glibc at $affected"; summary; }
busybox=$(command -v busybox)
file "$busybox" 2>/dev/null | grep -q 'statically linked' || { skip "busybox is not static (busybox-static)"; summary; }

images="affected preloaded fixed static musl foreign foreign-multiarch multiabi hostile-preload hostile-libc hostile-dir"
releases=
for d in $(echo "$more" | tr ':' ' '); do
    r=$(basename "$(dirname "$d")")
    [ -e "$d/libc.so.6" ] && [ "$d" != "$affected" ] && case $r in glibc-2.3[4-8]) releases="$releases $r" ;; esac
done
cleanup() {
    pm ps -a --format '{{.Names}}' 2>/dev/null | grep "^$tag-" | while read -r c; do pm rm -f -t 0 "$c" >/dev/null 2>&1; done
    for i in $images $releases; do pm rmi -f "localhost/$tag-$i" >/dev/null 2>&1; done
    return 0
}
trap cleanup EXIT INT TERM

# The hooks.d entry the package installs (its "when" and "stages" as
# they are), for the build's command, saying what it does in hook.log.
# A second one traces what the hook opens and mounts.  (Not named *.d:
# the build includes the *.d files it finds in its folders.)
hooks=$work/hooks traced=$work/hooks-traced
rm -rf "$hooks" "$traced" && mkdir -p "$hooks" "$traced" || { fail "no hooks directory"; summary; }
args='"oci-hook", "--log", "'"$work"'/hook.log"]'
sed -e 's|"path": "[^"]*/arenafix"|"path": "'"$cli"'"|' -e 's|"args": \["arenafix", "oci-hook"[^]]*\]|"args": ["arenafix", '"$args"'|' \
    "$entry" > "$hooks/arenafix.json"
strace=$(command -v strace)
sed -e 's|"path": "[^"]*/arenafix"|"path": "'"$strace"'"|' \
    -e 's|"args": \["arenafix", "oci-hook"[^]]*\]|"args": ["strace", "-f", "-qq", "-o", "'"$work"'/strace.log", "-e", "trace=%file,open_tree,move_mount,mount,mount_setattr", "'"$cli"'", '"$args"'|' \
    "$entry" > "$traced/arenafix.json"
grep -qF "\"$cli\"" "$hooks/arenafix.json" && grep -qF "\"$cli\"" "$traced/arenafix.json" \
    || { fail "the hooks.d entry $entry has no path and args to replace"; summary; }
# The package's entry has the hook say what it did in a file: runc shows a
# hook's standard error only when the hook fails, and a working hook would
# leave no trace.
if grep -qE '"args": \["arenafix", "oci-hook", "--log", "/[^"]+"\]' "$entry"; then
    pass "the packaged hooks.d entry logs to a file ($(sed -n 's/.*"--log", "\([^"]*\)".*/\1/p' "$entry"))"
else
    fail "the packaged hooks.d entry $entry logs nowhere: $(grep '"args"' "$entry")"
fi

# A root file system with the glibc of DIR (or none) at the multiarch
# path, its cache, the pinned program and a static busybox.
image_root() { rootfs "$1" "$2" "busybox=$busybox" ${2:+"arenawait=$prog"}; }

# hstart NAME IMAGE HOOKS_DIR [OPTION]...: start's container, podman
# reading the entries of HOOKS_DIR; once's and untouched's read $hooks,
# asked by the annotation.
on="--annotation io.arenafix.enable=true"
pm_pre="--hooks-dir $hooks" asked=$on asked_by="with the annotation"
hstart() {
    hs_name=$1 hs_img=$2 pm_pre="--hooks-dir $3"
    shift 3
    start "$hs_name" "$hs_img" "$@"
    hs_rc=$? pm_pre="--hooks-dir $hooks"
    return $hs_rc
}

t0=$(date +%s)
# Images: the affected glibc; the same with its own ld.so.preload
# (the glibc's libm, which arenawait does not need); the host's fixed
# glibc; a static program alone; a musl program; another
# architecture's glibc; three hostile ones.
image_root "$work/affected" "$affected" && image_root "$work/preloaded" "$affected" && image_root "$work/fixed" /lib/x86_64-linux-gnu \
    && image_root "$work/static" "" && image_root "$work/musl" "" && image_root "$work/foreign" "" || { fail "the root file systems could not be made"; summary; }
cp "$affected/libm.so.6" "$work/preloaded/usr/lib/x86_64-linux-gnu/" && echo /usr/lib/x86_64-linux-gnu/libm.so.6 > "$work/preloaded/etc/ld.so.preload"
musl_program "$work/musl" "$exitwith"
# An arm64 glibc where RHEL keeps libc.so.6, beside a static program.
foreign=
for f in /usr/aarch64-linux-gnu/lib/libc.so.6; do
    [ -e "$f" ] && mkdir -p "$work/foreign/usr/lib64" && cp "$f" "$work/foreign/usr/lib64/libc.so.6" && foreign=$f
done
# The same arm64 glibc in Debian's multiarch path, where the hook looks
# for none of its own architecture.
[ -n "$foreign" ] && image_root "$work/foreign-multiarch" "" && mkdir -p "$work/foreign-multiarch/usr/lib/aarch64-linux-gnu" \
    && cp "$foreign" "$work/foreign-multiarch/usr/lib/aarch64-linux-gnu/"
# Two ABIs (a multilib, wine or Steam runtime image): the affected
# x86-64 glibc, an i386 one (Debian's libc6-i386-cross, or libc6:i386)
# at Debian's multiarch path with its loader at /lib/ld-linux.so.2, and
# a 32-bit program.  Where the kernel runs no i386 program (no
# IA32_EMULATION) the container runs it under a static qemu-i386 of its
# own, whose emulated ld.so reads the container's /etc/ld.so.preload as
# the native one does.
multiabi= run32= i386=
for d in /usr/i686-linux-gnu/lib /lib/i386-linux-gnu; do
    [ -z "$i386" ] && [ -e "$d/ld-linux.so.2" ] && [ -e "$d/libc.so.6" ] && i386=$d
done
cc32=$(command -v i686-linux-gnu-gcc)
if [ -n "$i386" ] && [ -n "$cc32" ] && image_root "$work/multiabi" "$affected" \
    && mkdir -p "$work/multiabi/lib/i386-linux-gnu" && cp "$i386/libc.so.6" "$i386/ld-linux.so.2" "$work/multiabi/lib/i386-linux-gnu/" \
    && ln -s i386-linux-gnu/ld-linux.so.2 "$work/multiabi/lib/ld-linux.so.2" \
    && "$cc32" -O2 -o "$work/multiabi/bin/exitwith32" "$exitwith" && "$cc32" -O2 -static -o "$work/i386-static" "$exitwith"; then
    multiabi=yes
    if ! "$work/i386-static" >/dev/null 2>&1; then
        qemu=$(command -v qemu-i386-static)
        if [ -n "$qemu" ] && cp "$qemu" "$work/multiabi/bin/qemu-i386"; then
            run32=/bin/qemu-i386
        else
            multiabi= why32="the kernel runs no i386 program and there is no qemu-i386-static (qemu-user-static)"
        fi
    fi
else
    why32="no i386 glibc (libc6-i386-cross) or no i686-linux-gnu-gcc (gcc-i686-linux-gnu)"
fi
# Hostile: its ld.so.preload a link to the host's /etc/shadow (its own
# /etc/shadow is another file); its libc.so.6 a link to where the
# host keeps an affected glibc, with none in the image; the library's
# directory a link to a directory of the host.
image_root "$work/hostile-preload" "$affected" && echo tenant > "$work/hostile-preload/etc/shadow" \
    && ln -s /etc/shadow "$work/hostile-preload/etc/ld.so.preload" \
    && image_root "$work/hostile-libc" "" && ln -s "$affected/libc.so.6" "$work/hostile-libc/usr/lib/x86_64-linux-gnu/libc.so.6" \
    && image_root "$work/hostile-dir" "$affected" && rm -rf "$work/escape" && mkdir "$work/escape" \
    && ln -s "$work/escape" "$work/hostile-dir/usr/lib/x86_64-linux-gnu/arenafix" || { fail "the hostile root file systems could not be made"; summary; }
for i in $images; do
    { [ "$i" != musl ] || [ -n "$musl" ]; } && { [ "${i%-multiarch}" != foreign ] || [ -n "$foreign" ]; } \
        && { [ "$i" != multiabi ] || [ -n "$multiabi" ]; } || continue
    image "$i" || { fail "image $i could not be made"; summary; }
done
host=$("$prog" 30 pinned </dev/null | sed -n 's/^arenas=//p')
echo "the same program on the host's glibc: $host arenas"

# 1. The affected glibc: 9 without the annotation, the fixed count with.
plain=
hstart plain affected "$hooks" && [ "$(mapped "$pid" libarenafix)" = 0 ] && [ -z "$said" ] && plain=$count
if hstart hooked affected "$hooks" $on; then
    [ "$plain" = 9 ] && [ "$count" = "$host" ] && [ "$(mapped "$pid" /usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so)" -gt 0 ] \
        && pass "a pinned container on the affected glibc: 9 arenas without the annotation, $count (the host glibc's count) with io.arenafix.enable=true, the library loaded from the image's multiarch path" \
        || { fail "the affected glibc: $plain arenas without the annotation (hook: none expected), $count with (the host $host)"; echo "$said"; }
    echo "$said" | grep -F "given the library: /usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so mounted read-only" >/dev/null \
        && pass "the hook says it gave the container the library" || fail "the hook said: $said"
    env=$(tr '\0' '\n' < "/proc/$pid/environ" | grep -c '^LD_PRELOAD=')
    [ "$env" = 0 ] && pass "the container's environment is left alone (no LD_PRELOAD)" || fail "the hook set LD_PRELOAD"
    out=$(pm exec "$tag-hooked" /bin/busybox sh -c 'echo x >> /etc/ld.so.preload; echo x >> /usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so' 2>&1)
    [ "$(echo "$out" | grep -c 'Read-only file system')" = 2 ] \
        && pass "the library and the ld.so.preload are read-only in the container" || fail "written in the container: $out"
    # Started again, in a new mount namespace: the hook runs again, on
    # the empty files it left in the container's layer.
    : > "$work/hook.log"
    again=
    if pm --hooks-dir "$hooks" restart -t 0 "$tag-hooked" >/dev/null; then
        for _ in $(seq 1 1200); do
            again=$(pm logs "$tag-hooked" 2>/dev/null | sed -n 's/^arenas=//p' | sed -n 2p)
            [ -n "$again" ] && break
            sleep 0.1
        done
    fi
    [ "$again" = "$host" ] && grep -F "given the library" "$work/hook.log" >/dev/null \
        && pass "restarted, the container is given the library again: $again arenas" \
        || { fail "restarted, the container got $again arenas"; cat "$work/hook.log"; }
else
    fail "the affected container with the annotation did not start: $(cat "$work/hook.log")"
fi

# 1b. The entry's "when" made "always" (every container, or CRI-O's
# match on a pod's annotations, which the container's own configuration
# does not carry): with --always in its args the hook takes the
# engine's choice as the request; without, it waits for the container's
# own annotation, as the package's entry does.
always=$work/hooks-always always_bare=$work/hooks-always-bare
rm -rf "$always" "$always_bare" && mkdir -p "$always" "$always_bare"
sed -e 's|"args": \["arenafix", "oci-hook", |"args": ["arenafix", "oci-hook", "--always", |' \
    -e '/"when"/,/^    },$/c\    "when": { "always": true },' "$hooks/arenafix.json" > "$always/arenafix.json"
sed -e '/"when"/,/^    },$/c\    "when": { "always": true },' "$hooks/arenafix.json" > "$always_bare/arenafix.json"
if grep -qF '"--always"' "$always/arenafix.json" && grep -qF '"always": true' "$always/arenafix.json" \
    && hstart always affected "$always" && with_flag=$count && hstart always-bare affected "$always_bare"; then
    [ "$with_flag" = "$host" ] && [ "$count" = 9 ] && echo "$said" | grep -F "left alone: no annotation" >/dev/null \
        && pass "an entry made \"always\": with --always a container without the annotation gets $with_flag arenas; without it the hook waits for the annotation (9)" \
        || { fail "an entry made \"always\": $with_flag arenas with --always, $count without (the host $host)"; echo "$said"; cat "$always/arenafix.json"; }
else
    fail "the \"always\" entries could not be made or their containers did not start: $(cat "$work/hook.log")"
fi

# The other affected glibcs (upstream releases): the library loads in
# each (it needs nothing newer than GLIBC_2.34) and gives the fixed count.
for r in $releases; do
    for d in $(echo "$more" | tr ':' ' '); do [ "$(basename "$(dirname "$d")")" = "$r" ] && from_dir=$d; done
    if image_root "$work/$r" "$from_dir" && image "$r" && hstart "$r-plain" "$r" "$hooks" && plain=$count \
        && hstart "$r-hooked" "$r" "$hooks" $on; then
        [ "$plain" = 9 ] && [ "$count" = "$host" ] && [ "$(mapped "$pid" arenafix/libarenafix.so)" -gt 0 ] \
            && pass "$r: a pinned container gets 9 arenas without the annotation, $count with the hook" \
            || { fail "$r: $plain arenas without the annotation, $count with the hook (the host $host)"; echo "$said"; }
    else
        fail "$r: its containers did not start: $(cat "$work/hook.log")"
    fi
done

# 2. The image's own ld.so.preload kept, its library still loaded.
if hstart preloaded preloaded "$hooks" $on; then
    [ "$count" = "$host" ] && [ "$(mapped "$pid" /usr/lib/x86_64-linux-gnu/libm.so.6)" -gt 0 ] \
        && [ "$(mapped "$pid" arenafix/libarenafix.so)" -gt 0 ] \
        && echo "$said" | grep -F "(1 of the image's entries kept)" >/dev/null \
        && pass "an image's own /etc/ld.so.preload is kept: its libm.so.6 and the library both loaded, $count arenas" \
        || { fail "the image's own ld.so.preload: $count arenas"; echo "$said"; grep -E 'libm|arenafix' "/proc/$pid/maps"; }
    got=$(pm exec "$tag-preloaded" /bin/busybox cat /etc/ld.so.preload | tr '\n' ' ')
    [ "$got" = "/usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so /usr/lib/x86_64-linux-gnu/libm.so.6 " ] \
        && pass "its ld.so.preload in the container: the library, then the image's entry" || fail "its ld.so.preload in the container: $got"
else
    fail "the container with its own ld.so.preload did not start: $(cat "$work/hook.log")"
fi

# 3. The host's fixed glibc: left alone, and why.
if hstart fixed fixed "$hooks" $on; then
    [ "$count" = "$host" ] && [ "$(mapped "$pid" libarenafix)" = 0 ] \
        && echo "$said" | grep -F "left alone: glibc" | grep -F "the host's own libc.so.6 byte for byte, which the host's probe found fixed" >/dev/null \
        && pass "a fixed glibc (the host's) is left alone, $count arenas, and the hook says why" \
        || { fail "the fixed-glibc container: $count arenas"; echo "$said"; }
else
    fail "the fixed-glibc container did not start: $(cat "$work/hook.log")"
fi

# 4. Images the library cannot serve: each program runs and exits as
# it does without the hook, and the hook says why.
untouched "a static program's image" static "no glibc in the image" /bin/busybox sh -c 'echo ran; exit 7'
if [ -n "$musl" ]; then
    untouched "a musl image" musl "a musl image" /bin/exitwith 7
else
    skip "no musl-gcc or musl loader (musl-tools)"
fi
if [ -n "$foreign" ]; then
    untouched "an arm64 glibc image" foreign "its /usr/lib64/libc.so.6 is for another architecture: the image's glibc is for aarch64, not x86_64" /bin/busybox sh -c 'echo ran; exit 7'
    untouched "an arm64 glibc in Debian's multiarch path" foreign-multiarch "its /usr/lib/aarch64-linux-gnu/libc.so.6 is for another architecture: the image's glibc is for aarch64, not x86_64" /bin/busybox sh -c 'echo ran; exit 7'
else
    skip "no arm64 glibc (libc6-arm64-cross)"
fi

# 4b. Two ABIs: the library is built for one, and listed in
# /etc/ld.so.preload it would make every 32-bit program print ld.so's
# "wrong ELF class" error: the image is left alone, the reason logged;
# its 32-bit program prints only what it prints, the pinned 64-bit one
# keeps the affected glibc's count.
if [ -n "$multiabi" ]; then
    reason="but the image runs i386 programs too (/lib/ld-linux.so.2)"
    # shellcheck disable=SC2086
    once multiabi on $run32 /bin/exitwith32 7
    [ "$out" = "ran status=7" ] && grep -F "left alone: " "$work/hook.log" | grep -F "$reason" >/dev/null \
        && pass "an image with an i386 glibc beside its affected x86-64 one: its 32-bit program${run32:+ (under qemu-i386)} prints nothing new with the annotation ($out), the hook says why" \
        || { fail "an image with two ABIs: its 32-bit program said \"$out\""; cat "$work/hook.log"; }
    if hstart multiabi multiabi "$hooks" $on; then
        [ "$count" = 9 ] && [ "$(mapped "$pid" libarenafix)" = 0 ] && echo "$said" | grep -F "$reason" >/dev/null \
            && pass "its pinned 64-bit program: left alone, $count arenas (the affected glibc's), the reason logged" \
            || { fail "an image with two ABIs: its pinned 64-bit program got $count arenas"; echo "$said"; }
    else
        fail "the two-ABI container did not start: $(cat "$work/hook.log")"
    fi
else
    skip "two ABIs: $why32"
fi

# 5. Hostile images: nothing outside the root file system is read,
# written or mounted.
: > "$work/strace.log"
if hstart hostile-preload hostile-preload "$traced" $on; then
    got=$(pm exec "$tag-hostile-preload" /bin/busybox sh -c 'readlink /etc/ld.so.preload; cat /etc/ld.so.preload; grep -c arenafix /proc/self/mountinfo')
    [ "$count" = 9 ] && [ "$got" = "/etc/shadow
tenant
0" ] && echo "$said" | grep -F "left alone: its /etc/ld.so.preload is a symbolic link" >/dev/null \
        && ! grep -E '"/etc/shadow"|open_tree|move_mount|mount\(' "$work/strace.log" >/dev/null \
        && pass "an ld.so.preload linked to the host's /etc/shadow: not followed, nothing mounted, the image's link as it was" \
        || { fail "an ld.so.preload linked to /etc/shadow: $count arenas, in the container: $got"; echo "$said"; grep -E 'shadow|mount' "$work/strace.log"; }
else
    fail "the hostile-preload container did not start: $(cat "$work/hook.log")"
fi
: > "$work/strace.log"
: > "$work/hook.log"
out=$(pm --hooks-dir "$traced" run --rm $run_opts $on "localhost/$tag-hostile-libc" /bin/busybox sh -c 'grep -c arenafix /proc/self/mountinfo; echo ran' 2>&1)
[ "$out" = "0
ran" ] && grep -F "left alone: no glibc in the image" "$work/hook.log" >/dev/null \
    && ! grep -F "\"$affected" "$work/strace.log" >/dev/null \
    && pass "a libc.so.6 linked to the host's affected glibc: resolved inside the image (none there), left alone" \
    || { fail "a libc.so.6 linked to the host's glibc: $out"; cat "$work/hook.log"; grep -F "$affected" "$work/strace.log"; }
: > "$work/strace.log"
if hstart hostile-dir hostile-dir "$traced" $on; then
    [ "$count" = 9 ] && [ -z "$(ls -A "$work/escape")" ] \
        && echo "$said" | grep -F "left alone: arenafix is a symbolic link" >/dev/null \
        && ! grep -E 'move_mount|"'"$work"'/escape' "$work/strace.log" >/dev/null \
        && pass "the library's directory linked to the host's: nothing made or mounted there, left alone" \
        || { fail "the library's directory a link: $count arenas, host dir: $(ls -A "$work/escape")"; echo "$said"; }
else
    fail "the hostile-dir container did not start: $(cat "$work/hook.log")"
fi
echo "check-containers (hook): $(($(date +%s) - t0)) s"
summary
