#!/bin/sh
# Make sure the emulated host can boot: the host tools (qemu, a static
# busybox, cpio) and a Debian kernel image, extracted into OUTDIR.
#
#   prepare.sh OUTDIR
#
# The kernel is Debian's own linux-image-amd64 (whatever version the
# registry has now), downloaded once and kept as OUTDIR/vmlinuz with its
# config beside it, so later runs need no network.  ARENAFIX_VM_KERNEL names
# a vmlinuz to use instead (a machine with no registry).  Fails with the
# reason, and what to run, when something cannot be had.
set -eu
out=${1:?usage: prepare.sh OUTDIR}
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
[ -s "$out/vmlinuz" ] && [ -f "$out/config" ] && exit 0

# The metapackage depends on the versioned image that holds the kernel.
image=$(apt-cache depends linux-image-amd64 2>/dev/null |
        sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n 1)
if [ -z "$image" ]; then
    fail "cannot find Debian's linux-image-amd64 in the package lists; run
  apt-get update
or set ARENAFIX_VM_KERNEL to a vmlinuz"
fi
say "downloading $image (kept in $out for later runs)"
tmp=$(mktemp -d "$out/download.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q "$image" >&2) ||
    fail "apt-get download $image failed (above); set ARENAFIX_VM_KERNEL to a vmlinuz to boot without the registry"
# Only /boot is needed: the guest runs from an initramfs and loads no modules.
dpkg-deb --fsys-tarfile "$tmp"/*.deb | (cd "$tmp" && tar -x --wildcards './boot/vmlinuz-*' './boot/config-*') ||
    fail "could not unpack $image"
mv "$tmp"/boot/config-* "$out/config"
mv "$tmp"/boot/vmlinuz-* "$out/vmlinuz"
dpkg-deb -W --showformat='${Package} ${Version}\n' "$tmp"/*.deb >"$out/kernel-version"
