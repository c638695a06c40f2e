#!/bin/sh
# The package folder check-fleet gives the role: two releases of each
# package, of both kinds, so that every run must pick the newer one by
# version, whatever the file names' order:
#
#   releases.sh OUT DEBS RPMS-OLD RPMS-NEW
#
# - DEBS: make deb's folder; its libarenafix and arenafix, and the same
#   packages repacked as VERSION+fleet1 (nothing but the version and the
#   exact dependency of arenafix on libarenafix changed), whose files
#   sort before VERSION's ('+' before '_');
# - RPMS-OLD, RPMS-NEW: two make rpm builds of the same tree, with the
#   dist tags .fleet9 and .fleet10 (release 1.fleet10 is rpm's newer,
#   and sorts before 1.fleet9 by name).
set -eu
out=$1 debs=$2 old=$3 new=$4

rm -rf "$out" "$out.tmp"
mkdir -p "$out" "$out.tmp"
for pkg in libarenafix arenafix; do
    deb=$(ls "$debs/${pkg}"_*.deb)
    cp "$deb" "$out/"
    v=$(dpkg-deb -f "$deb" Version)
    v2=$v+fleet1
    dir=$out.tmp/$pkg
    dpkg-deb -R "$deb" "$dir"
    sed -i -e "s/^Version: .*/Version: $v2/" \
        -e "/^Depends:/s/libarenafix (= $v)/libarenafix (= $v2)/" "$dir/DEBIAN/control"
    arch=$(dpkg-deb -f "$deb" Architecture)
    dpkg-deb --root-owner-group -b "$dir" "$out/${pkg}_${v2}_$arch.deb" >/dev/null
done
rm -rf "$out.tmp"
for rpms in "$old" "$new"; do
    cp "$rpms"/RPMS/*/libarenafix-[0-9]*.rpm "$rpms"/RPMS/*/arenafix-[0-9]*.rpm "$out/"
done
ls "$out"
