#!/bin/sh
# Build an affected glibc to prove arenafix on: Debian bookworm's glibc
# with the upstream fix for glibc bug 30945 ("malloc: Use __get_nprocs on
# arena_get2") reverted, so that malloc sizes its arena limit from the
# calling thread's CPU affinity, as glibc 2.34-2.38 did before the fix.
#
#   test/glibc/build-affected-glibc.sh OUTDIR [VERSION]
#
# OUTDIR receives ld-linux-x86-64.so.2, libc.so.6 and friends; point the
# tests at it with ARENAFIX_AFFECTED_GLIBC=OUTDIR.  VERSION is a Debian
# glibc source version (default: the one installed).  Needs the build
# dependencies (gawk bison python3 gettext texinfo, gcc, make), network
# access to Debian's archive, and about six minutes on two cores.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: $0 OUTDIR [VERSION]}
version=${2:-$(dpkg-query -W -f '${Version}' libc6)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"

# A private deb-src list, so the host's apt configuration stays as it is.
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
mkdir -p apt/lists/partial
cat > apt/sources.list <<LIST
deb-src http://deb.debian.org/debian $codename main
deb-src http://deb.debian.org/debian $codename-updates main
deb-src http://deb.debian.org/debian-security $codename-security main
LIST
apt="-o Dir::Etc::SourceList=$work/apt/sources.list -o Dir::Etc::SourceParts=- -o Dir::State::Lists=$work/apt/lists"
# shellcheck disable=SC2086
apt-get $apt update
# shellcheck disable=SC2086
apt-get $apt source --download-only "glibc=$version"
dpkg-source -x glibc_*.dsc src
(cd src && patch -p1 < "$here/revert-bz30945-fix.patch")
mkdir build && cd build
../src/configure --prefix=/usr --disable-werror --disable-profile \
    --without-selinux --disable-crypt --disable-nscd --disable-build-nscd
make -j"$(nproc)"
strip -o "$out/libc.so.6" libc.so
strip -o "$out/ld-linux-x86-64.so.2" elf/ld.so
strip -o "$out/libm.so.6" math/libm.so
strip -o "$out/libdl.so.2" dlfcn/libdl.so
strip -o "$out/libpthread.so.0" nptl/libpthread.so
strip -o "$out/librt.so.1" rt/librt.so
echo "affected glibc built in $out: ARENAFIX_AFFECTED_GLIBC=$out make check"
