#!/bin/sh
# The emulated host's Debian 12 root file system, made by debootstrap from
# the mirror apt already uses, kept as OUTDIR/rootfs.tar for later runs
# (made again when the package list or the mirror changes).
#
#   mkrootfs.sh OUTDIR PACKAGES-FILE
#
# ARENAFIX_HOST_MIRROR names another mirror.
set -eu
out=${1:?usage: mkrootfs.sh OUTDIR PACKAGES-FILE}
list=${2:?usage: mkrootfs.sh OUTDIR PACKAGES-FILE}
suite=bookworm

say() { echo "check-host: $*" >&2; }
fail() { say "$*"; exit 1; }

# The mirror apt reads bookworm's main from (not the security one).
mirror=${ARENAFIX_HOST_MIRROR:-$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' 2>/dev/null |
         awk -v s="$suite" '$2 == s { print $1; exit }')}
[ -n "$mirror" ] || fail "apt has no $suite mirror configured; set ARENAFIX_HOST_MIRROR"

packages=$(grep -v '^#' "$list" | grep . | sort | paste -sd, -)
key=$(printf '%s\n%s\n%s\n' "$suite" "$mirror" "$packages" | sha256sum | cut -d' ' -f1)
if [ -s "$out/rootfs.tar" ] && [ "$(cat "$out/rootfs.key" 2>/dev/null)" = "$key" ]; then
    exit 0
fi

mkdir -p "$out"
rm -rf "$out/rootfs.new" "$out/rootfs.tar" "$out/rootfs.key"
say "debootstrap $suite from $mirror (kept in $out for later runs)"
debootstrap --variant=minbase --include="$packages" "$suite" "$out/rootfs.new" "$mirror" >"$out/debootstrap.log" 2>&1 ||
    { tail -n 20 "$out/debootstrap.log" >&2; fail "debootstrap failed (whole log: $out/debootstrap.log)"; }
# Nothing of this machine's in it: no downloaded packages, no resolver.
rm -rf "$out/rootfs.new/var/cache/apt/archives/"*.deb
tar -C "$out/rootfs.new" --numeric-owner -cf "$out/rootfs.tar.tmp" .
mv "$out/rootfs.tar.tmp" "$out/rootfs.tar"
rm -rf "$out/rootfs.new"
echo "$key" >"$out/rootfs.key"
