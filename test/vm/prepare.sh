#!/bin/sh
# Make sure the emulated host can boot: the host tools (qemu, a static
# busybox, cpio) and a Debian kernel image, extracted into OUTDIR.
#
#   prepare.sh OUTDIR
#
# The kernel is Debian's own, the package and version pinned in
# test/qemu/kernel-version, downloaded once and kept as OUTDIR/vmlinuz with
# its config beside it and OUTDIR/kernel-version naming it, so later runs
# need no network.  When the registry no longer has the pinned version, the
# image linux-image-amd64 depends on now is used instead, and a line says
# so on every run (and run.py says it again beside the result).
# ARENAFIX_VM_KERNEL names a vmlinuz to use instead (a machine with no
# registry).  Fails with the reason, and what to run, when something
# cannot be had.
set -eu
out=${1:?usage: prepare.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

say() { echo "check-vm: $*" >&2; }
fail() { say "$*"; exit 1; }

# ---- host tools -------------------------------------------------------
missing=
command -v qemu-system-x86_64 >/dev/null 2>&1 || missing="$missing qemu-system-x86"
# The guest has no libraries for busybox: it must be the static build.
[ -x /bin/busybox ] && /bin/busybox --list 2>/dev/null | grep -qx poweroff &&
    ! ldd /bin/busybox >/dev/null 2>&1 || missing="$missing busybox-static"
command -v cpio >/dev/null 2>&1 || missing="$missing cpio"
if [ -n "$missing" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        fail "missing packages:$missing; install them with:
  sudo apt-get update && sudo apt-get install -y$missing"
    fi
    say "installing:$missing"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >&2 ||
        fail "could not install$missing (apt-get failed above); the emulated host cannot boot without them"
fi

# ---- kernel -------------------------------------------------------------
if [ -n "${ARENAFIX_VM_KERNEL:-}" ]; then
    [ -r "$ARENAFIX_VM_KERNEL" ] || fail "ARENAFIX_VM_KERNEL=$ARENAFIX_VM_KERNEL is not readable"
    cp "$ARENAFIX_VM_KERNEL" "$out/vmlinuz.tmp" && mv "$out/vmlinuz.tmp" "$out/vmlinuz"
    config=$(dirname "$ARENAFIX_VM_KERNEL")/$(basename "$ARENAFIX_VM_KERNEL" | sed 's/^vmlinuz/config/')
    if [ -r "$config" ]; then cp "$config" "$out/config"; else : >"$out/config"; fi
    echo "$ARENAFIX_VM_KERNEL" >"$out/kernel-version"
    exit 0
fi
have() { [ -s "$out/vmlinuz" ] && [ -f "$out/config" ] && [ "$(cat "$out/kernel-version" 2>/dev/null)" = "$1" ]; }

# "PACKAGE VERSION", the first line that is not a comment.
pin=$(sed -n '/^[[:space:]]*#/d; /[^[:space:]]/{s/^[[:space:]]*//; s/[[:space:]][[:space:]]*/ /g; s/ $//; p; q}' \
      "$here/../qemu/kernel-version")
case $pin in
linux-image-*" "*) ;;
*) fail "test/qemu/kernel-version pins no kernel package (\"$pin\")" ;;
esac
have "$pin" && exit 0

image=${pin%% *}
version=${pin#* }
if ! apt-cache madison "$image" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
        grep -qxF "$version"; then
    # Gone from the registry: the image the metapackage depends on now.
    newer=$(apt-cache depends linux-image-amd64 2>/dev/null |
            sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n 1)
    newer_version=$(apt-cache policy "$newer" 2>/dev/null | sed -n 's/^ *Candidate: //p')
    if [ -z "$newer" ] || [ -z "$newer_version" ] || [ "$newer_version" = "(none)" ]; then
        fail "cannot find Debian's $image $version (pinned in test/qemu/kernel-version) nor
linux-image-amd64 in the package lists; run
  apt-get update
or set ARENAFIX_VM_KERNEL to a vmlinuz"
    fi
    say "kernel: the registry no longer has the pinned $image $version (test/qemu/kernel-version); booting $newer $newer_version instead"
    image=$newer
    version=$newer_version
    have "$image $version" && exit 0
fi

say "downloading $image $version (kept in $out for later runs)"
tmp=$(mktemp -d "$out/download.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q "$image=$version" >&2) ||
    fail "apt-get download $image=$version failed (above); set ARENAFIX_VM_KERNEL to a vmlinuz to boot without the registry"
# Only /boot is needed: the guest runs from an initramfs and loads no modules.
dpkg-deb --fsys-tarfile "$tmp"/*.deb | (cd "$tmp" && tar -x --wildcards './boot/vmlinuz-*' './boot/config-*') ||
    fail "could not unpack $image"
mv "$tmp"/boot/config-* "$out/config"
mv "$tmp"/boot/vmlinuz-* "$out/vmlinuz"
dpkg-deb -W --showformat='${Package} ${Version}\n' "$tmp"/*.deb >"$out/kernel-version"
