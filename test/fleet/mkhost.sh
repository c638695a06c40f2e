#!/bin/sh
# One fleet host's root, on top of the shared Debian 12 root file system
# (an overlay the harness mounted at ROOT):
#
#   mkhost.sh ROOT NAME PORT GLIBC PUBKEY PROGS UNIT...
#
# - GLIBC: "fixed" leaves the system's glibc; a directory holding an
#   affected libc.so.6 puts that in place with dpkg-divert, as check-host's
#   disk does (test/host/mkimage.sh), the system's own moved aside to
#   /srv/afx-check/fixed-glibc;
# - sshd on 127.0.0.1:PORT of the harness's network namespace, root's
#   login by the key PUBKEY only, its own host keys;
# - the workload programs (PROGS: a folder, pinnedd in it) where
#   check-host's services find them (/srv/afx-check/progs), and the units
#   UNIT... (files), enabled where they have a WantedBy=.
# Needs root (chroot, dpkg-divert, file owners).
set -eu
root=$1 name=$2 port=$3 glibc=$4 pubkey=$5 progs=$6
shift 6
triplet=x86_64-linux-gnu

say() { echo "check-fleet: $*" >&2; }
fail() { say "$name: $*"; exit 1; }

if [ "$glibc" != fixed ]; then
    # The same release as the root file system's libc6, or the rest of
    # libc6 (libnss_*, libresolv, ...) would mix two.
    want=$(chroot "$root" dpkg-query -W -f '${Version}' libc6)
    have=$("$glibc/ld-linux-x86-64.so.2" --library-path "$glibc" "$glibc/libc.so.6" 2>/dev/null |
           sed -n 's/.*release version \([0-9.]*[0-9]\).*/\1/p' | head -n 1)
    case $want in
    "$have"-*) ;;
    *) fail "the affected glibc is $have, the root file system's libc6 is $want: they must be the same release" ;;
    esac
    path=/lib/$triplet/libc.so.6
    mkdir -p "$root/srv/afx-check/fixed-glibc"
    chroot "$root" dpkg-divert --quiet --local --rename \
        --divert /srv/afx-check/fixed-glibc/libc.so.6 --add "$path" || fail "dpkg-divert $path failed"
    cp "$glibc/libc.so.6" "$root$path.afx-new"
    mv "$root$path.afx-new" "$root$path"
    chroot "$root" ldconfig
fi

echo "$name" >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$name" >"$root/etc/hosts"

rm -f "$root"/etc/ssh/ssh_host_*
chroot "$root" ssh-keygen -q -A || fail "ssh-keygen -A failed"
cat >"$root/etc/ssh/sshd_config.d/fleet.conf" <<CONF
# The fleet test's address: loopback of its own network namespace.
Port $port
ListenAddress 127.0.0.1
PermitRootLogin prohibit-password
PasswordAuthentication no
CONF
install -d -m 700 "$root/root/.ssh"
install -m 600 "$pubkey" "$root/root/.ssh/authorized_keys"

mkdir -p "$root/srv/afx-check/progs"
cp -R "$progs"/. "$root/srv/afx-check/progs/"
for unit in "$@"; do
    cp "$unit" "$root/etc/systemd/system/"
    # Started at boot: those that say where they are wanted.
    if grep -q '^WantedBy=' "$unit"; then
        chroot "$root" systemctl enable --quiet "$(basename "$unit")"
    fi
done
# The console is the harness's log, not a login prompt.
chroot "$root" systemctl mask --quiet console-getty.service
