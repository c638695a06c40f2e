#!/bin/sh
# Assemble the emulated host's disk from the cached root file system:
#
#   mkimage.sh OUTDIR ROOTFS.TAR AFFECTED-GLIBC DEBS-V1 DEBS-V2 PROGS-DIR
#
# - the affected libc.so.6 (../shared/glibc-bz30945/lib: built from
#   Debian's source of the very libc6 version debootstrap installed, its
#   patches applied, with the fix for glibc bug 30945 reverted) put in
#   place of the system's with dpkg-divert, as a packager would.  Only
#   libc.so.6: the bug and its fix live there (malloc/arena.c).  That
#   build's loader is configured upstream's way ($LIB is lib64, the
#   system directories /lib64 and /usr/lib64), which no Debian host has;
#   Debian's loader of the same version stays, with Debian's paths.  The
#   system's own libc.so.6, moved aside by the diversion, is kept in
#   /srv/afx-check/fixed-glibc: the oracle every count is compared with;
# - /srv/afx-check: the project's two builds of its .debs (dpkg -i'd by
#   the guest, never unpacked here), the workload programs and check.sh;
# - the services an operator would already have (test/host/guest/*.service);
# - /srv/ctr: a second copy of the same root file system, diverted the
#   same way, for the container-like confinement.
# Writes OUTDIR/disk.img (ext4, sparse).  Needs root (chroot, dpkg-divert).
set -eu
out=$1 tar=$2 affected=$3 v1=$4 v2=$5 progs=$6
here=$(cd "$(dirname "$0")" && pwd)
triplet=x86_64-linux-gnu

say() { echo "check-host: $*" >&2; }
fail() { say "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "building the host's disk needs root (chroot, dpkg-divert, file owners)"

# divert ROOT: the affected glibc in place of ROOT's own, file by file.
divert() {
    droot=$1
    mkdir -p "$droot/srv/afx-check/fixed-glibc"
    for lib in "$affected/libc.so.6"; do
        f=$(basename "$lib")
        path=/lib/$triplet/$f
        chroot "$droot" dpkg -S "$path" >/dev/null 2>&1 || fail "$path: no package of the root file system ships it"
        # dpkg-divert renames the file away; the next chroot needs a libc
        # again, so each file is replaced before the next one moves.
        chroot "$droot" dpkg-divert --quiet --local --rename \
            --divert "/srv/afx-check/fixed-glibc/$f" --add "$path" || fail "dpkg-divert $path failed"
        cp "$lib" "$droot$path.afx-new"
        mv "$droot$path.afx-new" "$droot$path"
    done
    chroot "$droot" ldconfig
}

rm -rf "$out/root"
mkdir -p "$out/root"
tar -C "$out/root" --numeric-owner -xf "$tar"
root=$out/root

# The affected glibc must be the same release as the root file system's
# libc6, or the rest of libc6 (libnss_*, libresolv, ...) would mix two.
want=$(chroot "$root" dpkg-query -W -f '${Version}' libc6)
have=$("$affected/ld-linux-x86-64.so.2" --library-path "$affected" "$affected/libc.so.6" 2>/dev/null |
       sed -n 's/.*release version \([0-9.]*[0-9]\).*/\1/p' | head -n 1)
case $want in
"$have"-*) ;;
*) fail "the affected glibc is $have, the root file system's libc6 is $want: they must be the same release" ;;
esac
divert "$root"

chk=$root/srv/afx-check
mkdir -p "$chk/debs/v1" "$chk/debs/v2" "$chk/progs" "$chk/guest"
for v in v1 v2; do
    eval dir=\$$v
    # What an operator installs: the three packages, not their -dbgsym.
    for deb in "$dir"/*.deb; do
        case $deb in *-dbgsym_*) ;; *) cp "$deb" "$chk/debs/$v/" ;; esac
    done
    dpkg-deb --field "$(ls "$dir"/libarenafix_*.deb | head -n 1)" Version >"$chk/debs/$v/VERSION"
done
cp -R "$progs"/. "$chk/progs/"
cp "$here/guest/check.sh" "$chk/guest/"
for unit in "$here"/guest/*.service; do
    cp "$unit" "$root/etc/systemd/system/"
done
chroot "$root" systemctl enable --quiet afx-check.service afx-pinned.service afx-house.service
# The serial consoles belong to the check, not to a login prompt.
chroot "$root" systemctl mask --quiet serial-getty@ttyS0.service serial-getty@ttyS1.service getty@tty1.service
echo afx-host >"$root/etc/hostname"
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' >"$root/etc/fstab"

# The container's root: its own copy of the same packages.
mkdir -p "$root/srv/ctr"
tar -C "$root/srv/ctr" --numeric-owner -xf "$tar"
divert "$root/srv/ctr"
mkdir -p "$root/srv/ctr/srv/afx-check/progs"
cp -R "$progs"/. "$root/srv/ctr/srv/afx-check/progs/"

rm -f "$out/disk.img"
mke2fs -q -t ext4 -L afx-host -d "$root" "$out/disk.img" 4G
rm -rf "$root"
