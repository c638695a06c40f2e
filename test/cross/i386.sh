#!/bin/sh
# make check-cross-i386 (test/cross/i386.mk): the project built for
# 32-bit x86 with Debian's cross compiler and tested natively.
#
#   sh test/cross/i386.sh BUILDDIR
#
# Parts, each counted: the build (warnings are errors); the suites of
# make check that test the library (unit, integration, exports) on
# Debian's i386 glibc, with the integration suite's proof on
# libc6-i386-cross (bookworm's 2.36-8 before the fix); the proof's arena
# counts, side by side, against glibc's rule for 32-bit (2 arenas per
# CPU, arena_test 2); both builds installed under one root and
# LD_PRELOAD='ROOT/usr/$LIB/arenafix/libarenafix.so' crossing from a
# 64-bit process to a 32-bit one and back.  What cannot run here is a
# skip with its reason, never a pass.  The last line:
# "check-cross-i386: N passed, N failed, N skipped".
set -u

make=${MAKE:-make}
triplet=i686-linux-gnu
multiarch=i386-linux-gnu
affected=/usr/$triplet/lib
. "$(dirname "$0")/parts.sh"
lib=$build/shim/libarenafix.so

# ---- what the parts need ------------------------------------------------
# gcc-multilib would do too, but Debian's removes the cross compilers.
pcdir=/usr/lib/$multiarch/pkgconfig:/usr/share/pkgconfig
no_build=
command -v $triplet-gcc > /dev/null ||
    no_build="no cross compiler ($triplet-gcc: apt-get install gcc-$triplet)"
[ -n "$no_build" ] || command -v $triplet-g++ > /dev/null ||
    no_build="no C++ cross compiler ($triplet-g++: apt-get install g++-$triplet)"
[ -n "$no_build" ] || PKG_CONFIG_LIBDIR=$pcdir pkg-config --exists check ||
    no_build="no i386 libcheck (apt-get install check:i386)"

# Why i386 programs cannot run here, or nothing.
no_run() {
    if [ ! -x /lib/ld-linux.so.2 ]; then
        echo "no i386 glibc to run on (dpkg --add-architecture i386; apt-get install libc6:i386)"
        return
    fi
    for prog in test/semantics-cxx test/integration; do
        missing=$(LD_TRACE_LOADED_OBJECTS=1 /lib/ld-linux.so.2 "$build/$prog" 2>&1 |
                  sed -n 's/^[[:space:]]*\([^ ]*\) => not found.*/\1/p' | tr '\n' ' ')
        if [ -n "$missing" ]; then
            echo "$prog needs i386 $missing(apt-get install libstdc++6:i386 check:i386)"
            return
        fi
    done
    "$build/test/single" > /dev/null 2>&1 ||
        echo "the kernel does not run i386 programs (CONFIG_IA32_EMULATION, or ia32_emulation=0)"
}

if [ -r $affected/libc.so.6 ] && [ -x $affected/ld-linux.so.2 ]; then
    have_affected=$affected
else
    have_affected=
fi

# The project's make for i386; the library lands in BUILDDIR, never in
# shim/ (the native build's).  An affected i386 glibc of one's own:
# ARENAFIX_AFFECTED_GLIBC_I386 (the suite finds libc6-i386-cross itself).
i386_make() {
    $make --no-print-directory B="$build" CC=$triplet-gcc CXX=$triplet-g++ \
        PKG_CONFIG="env PKG_CONFIG_LIBDIR=$pcdir pkg-config" MULTIARCH=$multiarch WERROR=1 \
        SHIM_LIB="$lib" ARENAFIX_TESTLIB="$lib" \
        ARENAFIX_AFFECTED_GLIBC="${ARENAFIX_AFFECTED_GLIBC_I386:-}" "$@"
}

# ---- the build --------------------------------------------------------------
if [ -n "$no_build" ]; then
    skip "build: $no_build"
else
    part build i386_make -j2 "$lib" test-progs "$build/test/unit" "$build/test/integration"
    file -L "$lib" | grep -q 'ELF 32-bit LSB.*Intel 80386' || fail "build: $lib is not an i386 library"
fi
cannot_run=$( [ -n "$no_build" ] && echo "$no_build" || no_run)

# ---- make check's suites, natively ------------------------------------------
for suite in check-exports check-unit check-shim; do
    if [ -n "$cannot_run" ]; then
        skip "$suite: $cannot_run"
    else
        part $suite i386_make $suite
    fi
done
if [ -z "$cannot_run" ]; then
    # The suite's own skips, each with its reason, are this target's.
    for why in $(grep -n '^SKIP: ' "$log/check-shim.log" | cut -d: -f1); do
        skip "check-shim: $(sed -n "${why}s/^SKIP: //p" "$log/check-shim.log")"
    done
    grep -q 'exports: ok' "$log/check-exports.log" ||
        fail "check-exports: no export list compared (test/exports-i686.txt)"
    if [ -n "$have_affected" ]; then
        grep '^affected glibc libc6-i386-cross' "$log/check-shim.log" ||
            fail "check-shim: the integration suite did not run its proof on libc6-i386-cross"
    fi
fi

# ---- the proof: arena counts without and with arenafix --------------------
# glibc on 32-bit: NARENAS_FROM_NCORES (n) = 2 n, arena_test 2.  The
# limit is fixed when a thread needs an arena while 3 exist; the fixed
# glibc takes 2 x online CPUs, at least those 3; the bug 2 x the
# deciding thread's CPUs (1, pinned), so the 3 that exist.
threads=30
online=$(getconf _NPROCESSORS_ONLN)
limit=$((online * 2 > 3 ? online * 2 : 3))
fixed=$((limit < threads + 1 ? limit : threads + 1))
bug=3
proof() {
    loader="$affected/ld-linux.so.2 --library-path $affected"
    prog="$build/test/pinned"
    echo "i386, $online CPUs online, $threads threads: the fixed glibc gives $fixed arenas" \
         "(2 x $online CPUs, at least arena_test + 1), the bug $bug"
    bad=0
    fixed_name="libc6:i386 (fixed)" affected_name=libc6-i386-cross
    count fixed none - $fixed
    count fixed none mallopt $fixed
    count fixed self - $fixed
    count fixed self mallopt $fixed
    count fixed self touch $fixed
    count affected none - $fixed
    count affected none mallopt $fixed
    count affected self - $bug
    count affected self mallopt $fixed
    count affected self touch $fixed
    return $bad
}
if [ -n "$cannot_run" ]; then
    skip "proof: $cannot_run"
elif [ -z "$have_affected" ]; then
    skip "proof: no affected i386 glibc ($affected: apt-get install libc6-i386-cross)"
elif [ "$online" -lt 2 ]; then
    skip "proof: one CPU online: a fixed glibc gives pinned threads the bug's count too"
else
    part proof proof
    cat "$log/proof.log"
fi

# ---- $LIB: one LD_PRELOAD for 32- and 64-bit processes ----------------------
# Both builds installed as a distribution would (PREFIX=/usr, so the
# library lands in /usr/lib/MULTIARCH/arenafix); the loaders expand $LIB
# to lib/x86_64-linux-gnu and lib/i386-linux-gnu on Debian.  Each process
# says which library it mapped and execs the next: 64 -> 32 -> 64 and
# 32 -> 64 -> 32.  A library of the wrong ELF class would be skipped
# with an error on stderr, and the process left unfixed.
root=$build/root
dlib() {
    rm -rf "$root" &&
    $make --no-print-directory install-shim DESTDIR="$root" PREFIX=/usr WERROR=1 &&
    i386_make install-shim DESTDIR="$root" PREFIX=/usr &&
    cc -O2 -Wall -Werror -o "$build/execmaps64" test/cross/execmaps.c &&
    $triplet-gcc -O2 -Wall -Werror -o "$build/execmaps32" test/cross/execmaps.c &&
    find "$root" -name libarenafix.so | sort &&
    for chain in "64 32 64" "32 64 32"; do
        set -- $chain
        echo "chain $1 -> $2 -> $3:"
        LD_PRELOAD="$root/usr/\$LIB/arenafix/libarenafix.so" "$build/execmaps$1" \
            "$build/execmaps$2" "$build/execmaps$3" > "$log/chain.out" 2> "$log/chain.err"
        status=$?
        cat "$log/chain.out" "$log/chain.err"
        [ $status -eq 0 ] || return 1
        [ ! -s "$log/chain.err" ] || return 1
        [ "$(grep -c "^execmaps: 64-bit: $root/usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so\$" \
             "$log/chain.out")" -ge 1 ] || return 1
        [ "$(grep -c "^execmaps: 32-bit: $root/usr/lib/$multiarch/arenafix/libarenafix.so\$" \
             "$log/chain.out")" -ge 1 ] || return 1
        [ "$(wc -l < "$log/chain.out")" -eq 3 ] || return 1
    done
}
if [ -n "$cannot_run" ]; then
    skip "\$LIB: $cannot_run"
elif [ "$(cc -print-multiarch 2> /dev/null)" != x86_64-linux-gnu ]; then
    skip "\$LIB: the native build is not x86_64-linux-gnu"
else
    part lib-expansion dlib
    cat "$log/lib-expansion.log"
fi

finish check-cross-i386
