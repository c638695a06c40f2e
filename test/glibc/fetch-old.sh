#!/bin/sh
# Fetch Debian 11's glibc (2.31, older than the bug) into DIR, for the
# test that the library loads on it and stands down (test/integration/
# test_libcs.c): libc6 and libc6-dev (to link the test's program as in
# such an image) from bullseye, checked with Debian's archive keyring, downloaded with apt's own tools
# under a configuration of its own in DIR (sources, lists, cache), the
# system's apt left as it was, and unpacked into DIR/root.  Run by make
# deps; the test says it was skipped where DIR/root is missing.
#
#     sh test/glibc/fetch-old.sh DIR
set -eu
dir=${1:?usage: fetch-old.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
mirror=${AFX_BULLSEYE_MIRROR:-http://deb.debian.org/debian}
arch=$(dpkg --print-architecture)
[ -f "$dir/root/lib/$(gcc -print-multiarch)/libc.so.6" ] && exit 0
rm -rf "$dir"
mkdir -p "$dir/etc/prefs" "$dir/etc/sources" "$dir/state/lists/partial" "$dir/cache/archives/partial" "$dir/deb"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bullseye main" > "$dir/etc/sources.list"
set -- -o Dir::Etc::sourcelist="$dir/etc/sources.list" -o Dir::Etc::sourceparts="$dir/etc/sources" \
    -o Dir::Etc::preferencesparts="$dir/etc/prefs" -o Dir::Etc::preferences=/dev/null \
    -o Dir::State="$dir/state" -o Dir::State::status=/dev/null -o Dir::Cache="$dir/cache" \
    -o APT::Architecture="$arch" -o APT::Architectures="$arch" -o Debug::NoLocking=1 -o APT::Sandbox::User=root
if ! apt-get "$@" -q update >"$dir/apt.log" 2>&1 ||
    ! (cd "$dir/deb" && apt-get "$@" -q download libc6 libc6-dev >>"$dir/apt.log" 2>&1); then
    echo "arenafix: could not download Debian 11's libc6 from $mirror (see $dir/apt.log)" >&2
    exit 1
fi
for deb in "$dir"/deb/*.deb; do
    dpkg-deb -x "$deb" "$dir/root"
done
echo "arenafix: Debian 11's glibc in $dir/root: $(ls "$dir"/deb)" >&2
