#!/bin/sh
# make check-rpm: the RPM packages built (make rpm, whose %check runs the
# upstream tests against the fresh build), linted, then their payload
# tested as it would be installed: each binary package unpacked with
# rpm2cpio into one scratch root, the integration tests run against the
# library there (ARENAFIX_TESTLIB, as debian/tests/upstream does with the
# installed one), and the command there asked whether the affected glibc
# (ARENAFIX_AFFECTED_GLIBC) is affected and whether the library fixes it.
# Whatever cannot run on this host is a skip with the reason, never a pass.
#
# Usage: rpm/check.sh OUT VERSION   (OUT: build/rpm)
set -u
out=${1:?usage: rpm/check.sh OUT VERSION}
version=${2:?usage: rpm/check.sh OUT VERSION}
make=${MAKE:-make}
passed=0 failed=0 skipped=0

pass() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
skip() { echo "SKIP: $*"; skipped=$((skipped + 1)); }

finish() {
    echo "check-rpm: $passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
    exit
}

# What the payload must hold, relative to the root; the names are the
# spec's, on a 64-bit RPM system (%{_libdir} is /usr/lib64).
lib_rel=usr/lib64/arenafix/libarenafix.so
payload_files="$lib_rel usr/bin/arenafix usr/bin/arenafix-bench
               usr/share/man/man1/arenafix.1 usr/share/man/man1/arenafix-inspect.1
               usr/share/man/man7/libarenafix.7
               usr/share/man/man1/arenafix-bench.1
               usr/share/licenses/libarenafix/LICENSE
               usr/share/doc/arenafix/rollout.md
               usr/lib/systemd/system/arenafix-textfile.service
               usr/lib/systemd/system/arenafix-textfile.timer
               usr/share/doc/arenafix/arenafix-alerts.yml"
# The command's LD_PRELOAD entry for the installed library (a literal $LIB).
preload_entry='/usr/$LIB/arenafix/libarenafix.so'

if ! command -v rpmbuild > /dev/null 2>&1; then
    skip "rpm build: rpmbuild is not installed (Debian: apt-get install rpm)"
    skip "rpmlint, payload: no packages were built"
    finish
fi

start=$(date +%s)
if "$make" --no-print-directory rpm; then
    pass "rpm build: rpmbuild -ba, with the spec's %check, in $(($(date +%s) - start)) s"
else
    fail "rpm build: make rpm failed"
    skip "rpmlint, payload: no packages were built"
    finish
fi

srpms=$(ls "$out"/SRPMS/*.src.rpm 2> /dev/null)
rpms=$(ls "$out"/RPMS/*/*.rpm 2> /dev/null)
names=$(for r in $rpms; do rpm -qp --qf '%{NAME}-%{VERSION}\n' "$r" 2> /dev/null; done | sort | tr '\n' ' ')
want="arenafix-$version arenafix-bench-$version libarenafix-$version "
if [ -n "$srpms" ] && [ "$names" = "$want" ]; then
    pass "packages: $(echo "$srpms" $rpms | sed "s|$out/||g")"
else
    fail "packages: expected a source package and $want, got ${names:-none}"
fi

if command -v rpmlint > /dev/null 2>&1; then
    # rpmlint exits non-zero on errors only; its warnings are shown.
    if rpmlint --rpmlintrc rpm/arenafix.rpmlintrc rpm/arenafix.spec $srpms $rpms; then
        pass "rpmlint: no errors"
    else
        fail "rpmlint: errors (above)"
    fi
else
    skip "rpmlint: not installed (Debian: apt-get install rpmlint)"
fi

# ---- the payload, unpacked as rpm would install it -----------------------
root=$out/root
rm -rf "$root"
mkdir -p "$root"
root=$(cd "$root" && pwd)
unpacked=0
for r in $rpms; do
    if rpm2cpio "$r" | (cd "$root" && cpio -idm --quiet); then
        unpacked=$((unpacked + 1))
    else
        fail "payload: rpm2cpio | cpio of $r"
    fi
done
missing=
for f in $payload_files; do
    # brp-compress gzips manual pages; Fedora's rpm compresses them too.
    [ -e "$root/$f" ] || [ -e "$root/$f.gz" ] || missing="$missing $f"
done
if [ "$unpacked" -gt 0 ] && [ -z "$missing" ]; then
    pass "payload: $unpacked packages unpacked into $root, every expected file there"
else
    fail "payload: missing from the unpacked packages:${missing:- all}"
fi

# The metrics service writes where node_exporter's RPMs read (the
# textfile directory of its RHEL 9 packages), in each of the three
# settings that name it, and nowhere near Debian's directory.
unit=$root/usr/lib/systemd/system/arenafix-textfile.service
el_dir=/var/lib/node_exporter/textfile_collector
if [ -f "$unit" ] &&
   grep -qx "ExecStart=/usr/bin/arenafix inspect --all --prometheus --output $el_dir/arenafix.prom" "$unit" &&
   grep -qx "ConditionPathIsDirectory=$el_dir" "$unit" && grep -qx "ReadWritePaths=$el_dir" "$unit" &&
   ! grep -q /var/lib/prometheus/node-exporter "$unit"; then
    pass "payload: arenafix-textfile.service writes $el_dir/arenafix.prom (ExecStart, ConditionPathIsDirectory, ReadWritePaths)"
else
    fail "payload: arenafix-textfile.service does not write to $el_dir alone: $(grep -E '^(ExecStart|ConditionPathIsDirectory|ReadWritePaths)=' "$unit" 2> /dev/null | tr '\n' ' ')"
fi

lib=$root/$lib_rel
cmd=$root/usr/bin/arenafix
if [ ! -f "$lib" ] || [ ! -x "$cmd" ]; then
    skip "payload tests: the library or the command is missing (above)"
    finish
fi

v=$("$cmd" --version 2>&1 | head -n 1)
if [ "$v" = "arenafix $version" ]; then
    pass "payload: arenafix --version: $v"
else
    fail "payload: arenafix --version: expected arenafix $version, got $v"
fi
v=$("$root/usr/bin/arenafix-bench" --version 2>&1 | head -n 1)
if [ "$v" = "arenafix-bench $version" ]; then
    pass "payload: arenafix-bench --version: $v"
else
    fail "payload: arenafix-bench --version: expected arenafix-bench $version, got $v"
fi

# The upstream integration tests (a real preload in child processes, on
# the system glibc and on every affected one at hand) against the
# packaged library.  The unit tests test the sources, not the package:
# they ran in the build's %check.
if ! pkg-config --exists check 2> /dev/null; then
    skip "integration tests on the payload: check (the test framework) is not installed"
elif "$make" --no-print-directory B="$out/test" ARENAFIX_TESTLIB="$lib" check-shim; then
    pass "integration tests on the payload's library (ARENAFIX_TESTLIB=$lib)"
else
    fail "integration tests on the payload's library (ARENAFIX_TESTLIB=$lib)"
fi

# The packaged command, told where the packaged library is, on each
# affected glibc: the probe must say "affected", and that its run with
# the library got the arenas a fixed glibc gives.
glibcs=${ARENAFIX_AFFECTED_GLIBC:-}
online=$(getconf _NPROCESSORS_ONLN)
if [ -z "$glibcs" ]; then
    skip "probe on an affected glibc: none (set ARENAFIX_AFFECTED_GLIBC to its lib directory)"
elif [ "$online" -lt 2 ]; then
    skip "probe on an affected glibc: one CPU online, the bug cannot show"
else
    old_ifs=$IFS
    IFS=:
    set -- $glibcs
    IFS=$old_ifs
    for glibc in "$@"; do
        rc=0
        probe=$(ARENAFIX_LIBRARY="$lib" "$cmd" probe --glibc "$glibc" 2>&1) || rc=$?
        echo "$probe" | sed 's/^/    /'
        expected=$(echo "$probe" | sed -n 's/^  arenas expected: *\([0-9]*\) .*/\1/p')
        fixed=$(echo "$probe" | sed -n "s|^  with libarenafix: *\([0-9]*\) (\(.*\))\$|\1 \2|p")
        if [ "$rc" -eq 3 ] && echo "$probe" | grep -q '^verdict: affected: ' &&
           [ -n "$expected" ] && [ "${fixed%% *}" -ge "$expected" ] 2> /dev/null &&
           [ "${fixed#* }" = "$lib" ]; then
            pass "probe --glibc $glibc: affected, and the payload's library gives the $expected arenas of a fixed glibc"
        else
            fail "probe --glibc $glibc: expected exit status 3, \"affected\", and at least ${expected:-?} arenas with $lib; got exit status $rc"
        fi
    done
fi


# The command as installed: the payload's /usr/lib64 laid over this
# host's in a private mount namespace, where the command must find the
# library at its compiled-in place, name it with $LIB for LD_PRELOAD and
# drop-ins, and where an affected glibc built with upstream's directories
# (its ld.so expands $LIB to lib64, as RHEL's does) loads it from that
# entry and gets the arenas of a fixed glibc.
installed() {  # installed CMD [ARGS...]: run in the namespace
    unshare -rm sh -c 'mount -t overlay overlay -o "lowerdir=$1:/usr/lib64" /usr/lib64 && shift && exec "$@"' \
        sh "$root/usr/lib64" "$@"
}
# libarenafix's %preun as built, run in a private mount namespace whose
# /etc has an ld.so.preload line and a drop-in loading the library: on
# erase ($1 = 0) it warns about each and exits 0, on upgrade it is quiet.
preun_check() {
    librpm=$(ls "$out"/RPMS/*/libarenafix-[0-9]*.rpm 2> /dev/null | head -n 1)
    etc=$out/preun-etc
    rm -rf "$etc" && mkdir -p "$etc/systemd/system/web.service.d"
    printf '/usr/$LIB/arenafix/libarenafix.so\n' > "$etc/ld.so.preload"
    printf '# Written by arenafix enable; remove with: arenafix disable web.service\n[Service]\n%s\n' \
        'Environment="LD_PRELOAD=/usr/$LIB/arenafix/libarenafix.so"' > "$etc/systemd/system/web.service.d/arenafix.conf"
    rpm -qp --qf '%{PREUN}' "$librpm" > "$out/preun.sh" 2> /dev/null
    in_etc() {
        unshare -rm sh -c 'mount -t overlay overlay -o "lowerdir=$1:/etc" /etc && shift && exec "$@"' sh "$etc" "$@"
    }
    if [ ! -s "$out/preun.sh" ]; then
        fail "%preun: libarenafix has none"
    elif ! in_etc true 2> /dev/null; then
        skip "%preun: no private mount namespace with an overlay here (unshare -rm, mount -t overlay)"
    else
        rc=0
        warned=$(in_etc sh "$out/preun.sh" 0 2>&1 > /dev/null | grep '^libarenafix: ') || rc=$?
        echo "$warned" | sed 's/^/    /'
        if echo "$warned" | grep -q '^libarenafix: warning: /etc/ld.so.preload line 1 still loads /usr/lib64/arenafix/libarenafix.so' &&
           echo "$warned" | grep -q 'web.service.d/arenafix.conf still preloads .* run arenafix disable web.service'; then
            pass "%preun on erase: warns about /etc/ld.so.preload and the drop-in"
        else
            fail "%preun on erase: expected warnings naming /etc/ld.so.preload and web.service's drop-in, got: $warned"
        fi
        rc=0
        quiet=$(in_etc sh "$out/preun.sh" 1 2>&1 | grep '^libarenafix: ') || :
        in_etc sh "$out/preun.sh" 0 > /dev/null 2>&1 || rc=$?
        if [ -z "$quiet" ] && [ "$rc" -eq 0 ]; then
            pass "%preun: quiet on upgrade, exit 0 on erase"
        else
            fail "%preun: upgrade said \"$quiet\", erase exited $rc"
        fi
    fi
}
preun_check

pinned=$out/test/test/pinned
if ! installed true 2> /dev/null; then
    skip "as installed: no private mount namespace with an overlay here (unshare -rm, mount -t overlay)"
else
    got=$(installed env -u ARENAFIX_LIBRARY "$cmd" path 2>&1
          installed env -u ARENAFIX_LIBRARY "$cmd" path --preload 2>&1)
    want="/$lib_rel
$preload_entry"
    if [ "$got" = "$want" ]; then
        pass "as installed: arenafix path finds /$lib_rel, preloads $preload_entry"
    else
        fail "as installed: arenafix path and path --preload: expected /$lib_rel and $preload_entry, got: $got"
    fi
    rm -rf "$out/unitroot" && mkdir -p "$out/unitroot/lib/systemd/system"
    printf '[Service]\nExecStart=/bin/true\n' >"$out/unitroot/lib/systemd/system/example.service"
    dropin=$(installed env -u ARENAFIX_LIBRARY "$cmd" enable --dry-run --root "$out/unitroot" example.service 2>&1)
    if echo "$dropin" | grep -qF "LD_PRELOAD=$preload_entry"; then
        pass "as installed: enable --dry-run writes a drop-in preloading $preload_entry"
    else
        fail "as installed: enable --dry-run: no LD_PRELOAD=$preload_entry in: $dropin"
    fi
    glibc=${ARENAFIX_AFFECTED_GLIBC%%:*}
    threads=30
    fixed=$((threads + 1))
    [ "$fixed" -gt $((8 * online)) ] && fixed=$((8 * online))
    if [ -z "$glibc" ] || [ ! -x "$glibc/ld-linux-x86-64.so.2" ] || [ "$online" -lt 2 ]; then
        skip "as installed, \$LIB on an affected glibc: none at hand (ARENAFIX_AFFECTED_GLIBC, x86_64) or one CPU"
    elif [ ! -x "$pinned" ]; then
        skip "as installed, \$LIB on an affected glibc: no test program (the integration tests did not build)"
    else
        without=$("$glibc/ld-linux-x86-64.so.2" --library-path "$glibc" "$pinned" self $threads 2>&1)
        with=$(installed env -u ARENAFIX_LIBRARY "$cmd" "$glibc/ld-linux-x86-64.so.2" \
               --library-path "$glibc" "$pinned" self $threads 2>&1)
        if [ "$without" = arenas=9 ] && [ "$with" = "arenas=$fixed" ]; then
            pass "as installed: $threads pinned threads on $glibc: arenas=9 alone, arenas=$fixed under arenafix (\$LIB expanded by that ld.so)"
        else
            fail "as installed: $threads pinned threads on $glibc: expected arenas=9 alone and arenas=$fixed under arenafix, got $without and $with"
        fi
    fi
fi

finish
