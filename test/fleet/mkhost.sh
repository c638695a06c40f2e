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
#
# FLEET_OS (environment) makes the host another family's, as far as
# Ansible and the role can tell (test/fleet/README.md):
# - el: RHEL 9 (/etc/os-release, /etc/redhat-release; Debian's
#   /etc/debian_version, dpkg and apt moved out of reach), an rpm
#   database whose one package declares what the root already has (the
#   glibc's sonames and symbol versions, /bin/sh), and $LIB's expansion
#   by Debian's ld.so pointed at RHEL's library directory;
# - other: a family the role does not know (os-release only).
# FLEET_POD_GLIBC (environment), a directory holding an affected
# libc.so.6 and its loader, makes the host a container host: podman
# configured for the nested layout (below), node_exporter's textfile
# directory, and in /srv/afx-check/image the root of an image with that
# glibc and pinnedd (test/containers/lib.sh's rootfs), which
# afx-pod-image.service imports at boot.
# Needs root (chroot, dpkg-divert, file owners); for el also rpmbuild.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
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
# podman's own boot units (its API service, its restart and auto-update
# jobs) each open its storage as afx-pod-image.service imports into it,
# and at times the import lost that race; none of them is under test.
chroot "$root" systemctl mask --quiet podman.service podman.socket podman-restart.service \
    podman-auto-update.service podman-auto-update.timer

if [ -n "${FLEET_POD_GLIBC:-}" ]; then
    # The host's cgroup v2 tree has no controllers (this machine's hybrid
    # layout binds them to v1): no pids limit for podman to set.
    # nspawn's system call filter refuses keyctl: no session keyring.
    # crun refuses the hybrid layout: runc.
    cat >"$root/etc/containers/containers.conf" <<'CONF'
[containers]
pids_limit = 0
keyring = false

[engine]
runtime = "runc"
CONF
    mkdir -p "$root/var/lib/prometheus/node-exporter"
    (
        # shellcheck source=../containers/lib.sh
        . "$here/../containers/lib.sh"
        rootfs "$root/srv/afx-check/image" "$FLEET_POD_GLIBC" pinnedd="$progs/pinnedd"
    ) || fail "the image's root failed"
fi

aside=$root/srv/afx-check/debian
case ${FLEET_OS:-debian} in
debian) ;;
el)
    # What Ansible reads the family from (its distribution facts:
    # os-release, then redhat-release), as on RHEL 9.4.
    rm -f "$root/etc/os-release"
    cat >"$root/etc/os-release" <<'OS'
NAME="Red Hat Enterprise Linux"
VERSION="9.4 (Plow)"
ID="rhel"
ID_LIKE="fedora"
VERSION_ID="9.4"
PLATFORM_ID="platform:el9"
PRETTY_NAME="Red Hat Enterprise Linux 9.4 (Plow)"
OS
    echo "Red Hat Enterprise Linux release 9.4 (Plow)" >"$root/etc/redhat-release"
    # No Debian tool within reach: a role that called one would fail.
    mkdir -p "$aside"
    mv "$root/etc/debian_version" "$aside/"
    for tool in dpkg dpkg-deb dpkg-query dpkg-divert apt apt-get apt-cache; do
        mv "$root/usr/bin/$tool" "$aside/"
    done
    # The rpm database: one package that declares the root's own glibc
    # and shell, so that rpm checks the packages' dependencies against
    # what is there, as on RHEL, and installs without --nodeps.
    libc=$root/lib/$triplet/libc.so.6
    spec=$root/srv/afx-check/el-base.spec
    {
        printf 'Name: el-base\nVersion: 9.4\nRelease: 1\nSummary: What this root has, for rpm\nLicense: MIT\n'
        printf 'AutoReqProv: no\nProvides: /bin/sh\nProvides: rtld(GNU_HASH)\n'
        /usr/lib/rpm/elfdeps --provides "$libc" | sort -u | sed 's/^/Provides: /'
        printf '%%description\nThe Debian files of a check-fleet host, declared to rpm.\n%%files\n'
    } >"$spec"
    rpmbuild -bb --quiet --define "_topdir $root/srv/afx-check/rpmbuild" "$spec" >/dev/null ||
        fail "rpmbuild of el-base failed"
    chroot "$root" sh -c 'rpm -i --quiet /srv/afx-check/rpmbuild/RPMS/*/el-base-*.rpm' 2>/dev/null ||
        fail "rpm -i el-base failed"
    # RHEL's ld.so expands $LIB (in the drop-in's LD_PRELOAD) to lib64,
    # Debian's to lib/x86_64-linux-gnu: the RPM's library is reached
    # from there too.
    ln -s /usr/lib64/arenafix "$root/usr/lib/$triplet/arenafix"
    ;;
other)
    rm -f "$root/etc/os-release"
    printf 'NAME="Plan 9 from User Space"\nID=plan9\nVERSION_ID="4"\nPRETTY_NAME="Plan 9 4th edition"\n' \
        >"$root/etc/os-release"
    mkdir -p "$aside"
    mv "$root/etc/debian_version" "$aside/"
    ;;
*) fail "FLEET_OS=$FLEET_OS: debian, el or other" ;;
esac
