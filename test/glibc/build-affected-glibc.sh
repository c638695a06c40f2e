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
# glibc source version (default: the libc6 installed; Debian 12, x86_64).
#
# WORK names the directory for the source (WORK/src) and the build tree
# (WORK/build), a temporary one by default.  Run again with the same WORK,
# the script reuses what is there: it downloads, unpacks, patches and
# configures only once, and make rebuilds only what changed.  make check-glibc
# keeps its tree this way (WORK=build/glibc) to run glibc's own tests in it.
# JOBS sets make's parallelism (default: every CPU).
#
# Needs the packages gawk bison python3 gcc g++ make gettext dpkg-dev (for
# dpkg-source, patch and xz): as root it installs the missing ones, otherwise
# it prints the apt-get line.  Needs access to Debian's archive, but no
# deb-src entries: it keeps a private source list in WORK/apt.  A full build
# takes about six minutes on two CPUs and 0.8 GB of disk.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: $0 OUTDIR [VERSION]}
version=${2:-$(dpkg-query -W -f '${Version}' libc6)}
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
cd "$work"

# ---- build dependencies ----------------------------------------------
packages="gawk bison python3 gcc g++ make gettext dpkg-dev"
missing=
for pkg in $packages; do
    case $(dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null || true) in
    *" installed") ;;
    *) missing="$missing $pkg" ;;
    esac
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "build-affected-glibc: missing packages; install them with:" >&2
        echo "  sudo apt-get install -y$missing" >&2
        exit 1
    fi
    echo "build-affected-glibc: installing:$missing" >&2
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi

# ---- source: Debian's, with the fix reverted -------------------------
# The stamp says the tree is complete and patched; anything else is redone.
if [ ! -e src/.bz30945-reverted ]; then
    rm -rf src
    if [ ! -e "glibc_$version.dsc" ]; then
        # A private deb-src list and package lists: the host's apt
        # configuration, lists and caches stay as they are.
        # shellcheck disable=SC1091
        codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
        mkdir -p apt/lists/partial apt/sources.list.d
        cat > apt/sources.list <<LIST
deb-src http://deb.debian.org/debian $codename main
deb-src http://deb.debian.org/debian $codename-updates main
deb-src http://deb.debian.org/debian-security $codename-security main
LIST
        apt="-o Dir::Etc::SourceList=$work/apt/sources.list"
        apt="$apt -o Dir::Etc::SourceParts=$work/apt/sources.list.d"
        apt="$apt -o Dir::State::Lists=$work/apt/lists"
        apt="$apt -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache="
        [ "$(id -u)" -ne 0 ] || apt="$apt -o APT::Sandbox::User=root"
        # shellcheck disable=SC2086
        apt-get -q $apt update
        # shellcheck disable=SC2086
        apt-get -q $apt source --download-only "glibc=$version"
    fi
    # Applies Debian's patches (3.0 quilt), then ours on top.
    dpkg-source -x "glibc_$version.dsc" src
    (cd src && patch -p1 < "$here/revert-bz30945-fix.patch")
    touch src/.bz30945-reverted
    rm -rf build
fi

# ---- configure and build ---------------------------------------------
mkdir -p build
cd build
# MAKEINFO=: as in Debian's own build: Debian's source has no manual
# (local-remove-manual.diff), and make install would look for one.
if [ ! -e config.status ]; then
    ../src/configure --prefix=/usr --disable-werror --disable-profile \
        --without-selinux --disable-crypt --disable-nscd --disable-build-nscd \
        MAKEINFO=:
fi
make -j"$jobs"

strip -o "$out/libc.so.6" libc.so
strip -o "$out/ld-linux-x86-64.so.2" elf/ld.so
strip -o "$out/libm.so.6" math/libm.so
strip -o "$out/libdl.so.2" dlfcn/libdl.so
strip -o "$out/libpthread.so.0" nptl/libpthread.so
strip -o "$out/librt.so.1" rt/librt.so
echo "affected glibc built in $out: ARENAFIX_AFFECTED_GLIBC=$out make check"
