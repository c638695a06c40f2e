#!/bin/sh
# make check-cross-arm64 (test/cross/arm64.mk): the project built for
# arm64 with Debian's cross compiler and tested under qemu-user.
#
#   sh test/cross/arm64.sh BUILDDIR
#
# Parts, each counted: the build (warnings are errors); the suites of
# make check that test the compiled code (unit, integration, exports,
# command, benchmark) on Debian's arm64 glibc, with the integration
# suite's proof on libc6-arm64-cross (bookworm's 2.36-8 before the fix);
# the proof's arena counts, side by side; the Debian packages
# cross-built (dpkg-buildpackage -a arm64) and lintian on them.  What
# cannot run here is a skip with its reason, never a pass.  The last
# line: "check-cross-arm64: N passed, N failed, N skipped".
#
# arm64 programs run through binfmt_misc (the kernel hands them to
# qemu-aarch64-static), so that the test programs' own children, the
# command's and the benchmark's run emulated too.  A static qemu keeps
# LD_PRELOAD for the program alone.  As root, an unregistered
# qemu-aarch64 is registered from qemu-user-static's binfmt.d file.
set -u

make=${MAKE:-make}
triplet=aarch64-linux-gnu
affected=/usr/$triplet/lib
top=$(pwd)
. "$(dirname "$0")/parts.sh"
lib=$build/shim/libarenafix.so

# ---- what the parts need ------------------------------------------------
no_build=
command -v $triplet-gcc > /dev/null ||
    no_build="no cross compiler ($triplet-gcc: apt-get install gcc-$triplet)"
[ -n "$no_build" ] || command -v $triplet-g++ > /dev/null ||
    no_build="no C++ cross compiler ($triplet-g++: apt-get install g++-$triplet)"
[ -n "$no_build" ] || command -v $triplet-pkg-config > /dev/null ||
    no_build="no $triplet-pkg-config (apt-get install pkg-config:arm64)"
[ -n "$no_build" ] || $triplet-pkg-config --exists check hwloc ||
    no_build="no arm64 libcheck or hwloc (apt-get install check:arm64 libhwloc-dev:arm64)"

# Why arm64 programs cannot run here, or nothing.
no_run() {
    entry=/proc/sys/fs/binfmt_misc/qemu-aarch64
    conf=/usr/lib/binfmt.d/qemu-aarch64.conf
    # A fresh machine or container may not have it mounted: as root, do
    # what systemd's proc-sys-fs-binfmt_misc.mount would.
    if [ ! -e /proc/sys/fs/binfmt_misc/register ] && [ "$(id -u)" -eq 0 ]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2> /dev/null || true
    fi
    if [ ! -e $entry ] && [ "$(id -u)" -eq 0 ] && [ -w /proc/sys/fs/binfmt_misc/register ] &&
        [ -r $conf ] && grep -q 'qemu-aarch64-static\|:[A-Z]*F[A-Z]*$' $conf; then
        echo "registering qemu-aarch64 with binfmt_misc ($conf)" >&2
        cat $conf > /proc/sys/fs/binfmt_misc/register
    fi
    if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
        echo "binfmt_misc is not mounted (/proc/sys/fs/binfmt_misc)"
    elif [ "$(head -n 1 $entry 2> /dev/null)" != enabled ]; then
        echo "no qemu-aarch64 in binfmt_misc (apt-get install qemu-user-static; in a" \
             "container, as root, this target registers it)"
    elif interp=$(sed -n 's/^interpreter //p' $entry) &&
        LC_ALL=C readelf -l "$interp" 2> /dev/null | grep -q 'program interpreter'; then
        echo "binfmt_misc runs arm64 programs with a dynamic qemu ($interp), which LD_PRELOAD" \
             "reaches too (apt-get install qemu-user-static)"
    elif [ ! -x /lib/ld-linux-aarch64.so.1 ]; then
        echo "no arm64 glibc to run on (apt-get install libc6:arm64)"
    elif [ ! -e /usr/lib/$triplet/libstdc++.so.6 ]; then
        echo "no arm64 libstdc++ for the C++ test program (apt-get install libstdc++6:arm64)"
    fi
}
cannot_run=$( [ -n "$no_build" ] && echo "$no_build" || no_run)

# The affected glibc, named so that one that does not show the bug fails.
if [ -r $affected/libc.so.6 ] && [ -x $affected/ld-linux-aarch64.so.1 ]; then
    have_affected=$affected
else
    have_affected=
fi

# The project's make for arm64; the library lands in BUILDDIR, never in
# shim/ (the native build's).
arm64_make() {
    $make --no-print-directory B="$build" CC=$triplet-gcc CXX=$triplet-g++ \
        PKG_CONFIG=$triplet-pkg-config MULTIARCH=$triplet WERROR=1 \
        SHIM_LIB="$lib" ARENAFIX_TESTLIB="$lib" ARENAFIX_AFFECTED_GLIBC="$have_affected" "$@"
}

# ---- the build --------------------------------------------------------------
if [ -n "$no_build" ]; then
    skip "build: $no_build"
else
    part build arm64_make -j2 all test-progs "$build/test/unit" "$build/test/integration" \
        "$build/test/cli-tests" "$build/test/cli-static" "$build/test/arenawait" \
        "$build/test/hostile" "$build/real/countarenas.so" "$build/bench/tests/bench-tests"
    file "$lib" | grep -q 'ARM aarch64' || fail "build: $lib is not an arm64 library"
fi

# ---- make check's suites, under qemu-user ---------------------------------
# What only the emulator changes (another process's /proc, duplicate
# environment variables, seccomp, timing) the suites skip, each saying
# why: those skips are this target's.
for suite in check-unit check-shim check-exports check-cli check-bench; do
    if [ -n "$cannot_run" ]; then
        skip "$suite: $cannot_run"
    else
        part $suite arm64_make $suite
        for why in $(grep -n '^SKIP:\{0,1\} ' "$log/$suite.log" | cut -d: -f1); do
            skip "$suite: $(sed -n "${why}s/^SKIP:\{0,1\} //p" "$log/$suite.log")"
        done
    fi
done
if [ -z "$cannot_run" ] && [ -n "$have_affected" ]; then
    grep '^affected glibc libc6-arm64-cross' "$log/check-shim.log" ||
        fail "check-shim: the integration suite did not run its proof on libc6-arm64-cross"
fi

# ---- the proof: arena counts without and with arenafix --------------------
threads=30
online=$(getconf _NPROCESSORS_ONLN)
proof() {
    # The fixed glibc's rule (common/arenarule.h), as arm64 builds it.
    fixed=$("$build/test/fixedarenas" $threads "$online")
    loader="$affected/ld-linux-aarch64.so.1 --library-path $affected"
    prog="$build/test/pinned"
    echo "arm64, $online CPUs online, $threads threads: the fixed glibc gives $fixed arenas," \
         "the bug 9"
    bad=0
    fixed_name="libc6:arm64 (fixed)" affected_name=libc6-arm64-cross
    count fixed none - $fixed
    count fixed self - $fixed
    count fixed self mallopt $fixed
    count affected none - $fixed
    count affected none mallopt $fixed
    count affected self - 9
    count affected self mallopt $fixed
    count affected self touch $fixed
    return $bad
}
if [ -n "$cannot_run" ]; then
    skip "proof: $cannot_run"
elif [ -z "$have_affected" ]; then
    skip "proof: no affected arm64 glibc ($affected: apt-get install libc6-arm64-cross)"
elif [ "$online" -lt 2 ]; then
    skip "proof: one CPU online: a fixed glibc gives pinned threads the bug's count too"
else
    part proof proof
    cat "$log/proof.log"
fi

# ---- the Debian packages, cross-built, and lintian --------------------------
deb=$build/deb
# As test/deb/deb.mk: a copy of the tree as git sees it, built without
# this make's flags.  No tests run in a cross build (debian/rules), so
# the nocheck profile drops their Build-Depends.
deb_build() {
    rm -rf "$deb" && mkdir -p "$deb/src" &&
    git ls-files -z --cached --others --exclude-standard |
        tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$deb/src" &&
    cd "$deb/src" &&
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u ARENAFIX_TESTLIB -u WERROR \
        DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -a arm64 -Pnocheck -us -uc -b
}
deb_lint() {
    for pkg in "$deb"/*_arm64.deb; do
        echo "$(dpkg-deb --field "$pkg" Package): $(dpkg-deb --field "$pkg" Architecture)"
    done
    lintian --fail-on error,warning --display-info "$deb"/*_arm64.changes
}
no_deb=
if [ -n "$no_build" ]; then
    no_deb=$no_build
elif ! command -v dpkg-buildpackage > /dev/null; then
    no_deb="no dpkg-buildpackage (apt-get install dpkg-dev)"
elif ! deps=$(cd "$top" && dpkg-checkbuilddeps -a arm64 -P nocheck 2>&1); then
    no_deb="$deps (apt-get build-dep -a arm64 -P nocheck, or the packages above with :arm64)"
fi
if [ -n "$no_deb" ]; then
    skip "deb: $no_deb"
    skip "lintian: no packages to check"
else
    part deb deb_build
    cd "$top"
    if ls "$deb"/*_arm64.changes > /dev/null 2>&1; then
        if command -v lintian > /dev/null; then
            part lintian deb_lint
            cat "$log/lintian.log"
        else
            skip "lintian: not installed (apt-get install lintian)"
        fi
    else
        fail "lintian: the cross build made no .changes"
    fi
fi

finish check-cross-arm64
