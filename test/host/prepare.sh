#!/bin/sh
# Make sure the emulated Debian host can boot: the emulated host's own
# preparation (qemu, busybox, Debian's kernel: test/vm/prepare.sh), the
# tools that build its root file system (debootstrap, mke2fs), and a small
# initramfs holding the modules that mount it.
#
#   prepare.sh OUTDIR VMDIR
#
# The modules come from the same linux-image package and version as
# VMDIR/vmlinuz (VMDIR/kernel-version names both), downloaded once.
set -eu
out=${1:?usage: prepare.sh OUTDIR VMDIR}
vm=${2:?usage: prepare.sh OUTDIR VMDIR}
here=$(cd "$(dirname "$0")" && pwd)

say() { echo "check-host: $*" >&2; }
fail() { say "$*"; exit 1; }

sh "$here/../vm/prepare.sh" "$vm"

missing=
command -v debootstrap >/dev/null 2>&1 || missing="$missing debootstrap"
command -v mke2fs >/dev/null 2>&1 || missing="$missing e2fsprogs"
if [ -n "$missing" ]; then
    [ "$(id -u)" -eq 0 ] || fail "missing packages:$missing; install them with:
  sudo apt-get update && sudo apt-get install -y$missing"
    say "installing:$missing"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >&2 ||
        fail "could not install$missing"
fi

mkdir -p "$out"
# "PACKAGE VERSION": the pinned one (test/qemu/kernel-version) or what
# test/vm/prepare.sh booted instead, and said so.
kernel=$(cat "$vm/kernel-version")
image=${kernel%% *}
version=${kernel#* }
case $kernel in
linux-image-*" "*) ;;
*) fail "the kernel in $vm is not a Debian package ($kernel): the host needs its modules" ;;
esac

# What the root file system needs; each goes in after the modules its
# "depends=" names (read from the module itself: the package has no
# modules.dep, depmod makes that at install time).
modules="virtio_pci virtio_blk crc32c_generic ext4"
if [ ! -s "$out/initrd.gz" ] || [ "$(cat "$out/initrd.kernel" 2>/dev/null)" != "$kernel" ]; then
    say "downloading $image $version for its modules (kept in $out)"
    tmp=$(mktemp -d "$out/download.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && apt-get download -q "$image=$version" >&2) || fail "apt-get download $image=$version failed"
    dpkg-deb --fsys-tarfile "$tmp"/*.deb | (cd "$tmp" && tar -x --wildcards './lib/modules/*') ||
        fail "could not unpack $image"
    root=$tmp/initrd
    mkdir -p "$root/bin" "$root/modules"
    cp /bin/busybox "$root/bin/busybox"
    ln -s busybox "$root/bin/sh"
    cp "$here/initrd-init" "$root/init"
    chmod 755 "$root/init"
    moddir=$(echo "$tmp"/lib/modules/*/kernel)
    # Depth first: a module's dependencies before itself, each once.
    add_module() {
        grep -qx "$1.ko" "$root/modules/order" 2>/dev/null && return 0
        f=$(find "$moddir" -name "$1.ko" | head -n 1)
        [ -n "$f" ] || fail "$image has no module $1"
        for dep in $(strings "$f" | sed -n 's/^depends=//p' | tr ',' ' '); do
            add_module "$dep"
        done
        # (sh has no local variables: the recursion above reused f)
        cp "$(find "$moddir" -name "$1.ko" | head -n 1)" "$root/modules/"
        echo "$1.ko" >>"$root/modules/order"
    }
    for m in $modules; do add_module "$m"; done
    (cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.gz.tmp"
    mv "$out/initrd.gz.tmp" "$out/initrd.gz"
    echo "$kernel" >"$out/initrd.kernel"
fi
