#!/bin/sh
# libarenafix's prerm, as built into the .deb, run by sh on a scratch
# root (DPKG_ROOT, as dpkg gives it): on remove it warns about each
# /etc/ld.so.preload line and arenafix drop-in that loads this
# architecture's library, and exits 0; on upgrade it says nothing; it
# never changes a file.  Usage: test/deb/prerm-check.sh PRERM SCRATCH
set -eu
prerm=${1:?usage: prerm-check.sh PRERM SCRATCH}
root=${2:?usage: prerm-check.sh PRERM SCRATCH}
fail=0
rm -rf "$root"
mkdir -p "$root/etc/systemd/system/web.service.d" "$root/etc/systemd/system/mine.service.d"
lib=$(sed -n 's|^lib=||p' "$prerm")
printf '# the operator'"'"'s\n/usr/$LIB/arenafix/libarenafix.so\n/usr/lib/no-such-triplet/arenafix/libarenafix.so\n' \
    > "$root/etc/ld.so.preload"
printf '# Written by arenafix enable; remove with: arenafix disable web.service\n[Service]\n'`
      `'Environment="LD_PRELOAD=/usr/$LIB/arenafix/libarenafix.so"\n' \
    > "$root/etc/systemd/system/web.service.d/arenafix.conf"
printf '[Service]\nEnvironment="LD_PRELOAD=/usr/$LIB/arenafix/libarenafix.so"\n' \
    > "$root/etc/systemd/system/mine.service.d/arenafix.conf"
before=$(cd "$root" && find . -type f | sort | xargs md5sum)

check() {  # check WHAT CONDITION...
    what=$1
    shift
    if "$@"; then echo "ok: prerm: $what"; else echo "FAIL: prerm: $what"; fail=1; fi
}

# prerm ROOT ARGS...: the script run as dpkg runs it on ROOT; its exit
# status in rc, stdout in $root.out, stderr in $root.err (shown).
prerm() {
    proot=$1
    shift
    rc=0
    DPKG_ROOT=$proot sh "$prerm" "$@" > "$root.out" 2> "$root.err" || rc=$?
    cat "$root.err"
}

prerm "$root" remove
check "remove exits 0" [ "$rc" = 0 ]
check "names the ld.so.preload line of this architecture" \
      grep -q "^libarenafix: warning: /etc/ld.so.preload line 2 still loads $lib" "$root.err"
check "not another architecture's line" [ "$(grep -c 'ld.so.preload line' "$root.err")" = 1 ]
check "names the drop-in and how to undo it" grep -q "^libarenafix: warning: /etc/systemd/system/web.service.d/arenafix.conf still preloads $lib into web.service: run arenafix disable web.service" "$root.err"
check "not a drop-in arenafix did not write" [ "$(grep -c 'mine.service' "$root.err")" = 0 ]
check "nothing on stdout" [ ! -s "$root.out" ]
prerm "$root" upgrade 99
check "upgrade: exit 0, quiet" [ "$rc" = 0 ] && [ ! -s "$root.out" ] && [ ! -s "$root.err" ]
rm -rf "$root.none" && mkdir -p "$root.none"
prerm "$root.none" remove
check "remove with nothing to undo: exit 0, quiet" [ "$rc" = 0 ] && [ ! -s "$root.out" ] && [ ! -s "$root.err" ]
check "no file changed" [ "$before" = "$(cd "$root" && find . -type f | sort | xargs md5sum)" ]
# Multi-Arch: another architecture's library stays, and the $LIB entry
# still loads it into that architecture's programs: no advice to undo
# the fix for them.
mkdir -p "$root/usr/lib/other-triplet/arenafix"
: > "$root/usr/lib/other-triplet/arenafix/libarenafix.so"
prerm "$root" remove
check "another architecture's library stays: exit 0" [ "$rc" = 0 ]
check "another architecture's library stays: the \$LIB line is kept for it" \
      grep -q '^libarenafix: warning: /etc/ld.so.preload line 2 names the library by \$LIB, which still loads /usr/lib/other-triplet/arenafix/libarenafix.so for its own architecture: keep it for those' "$root.err"
check "another architecture's library stays: no advice to delete a line" [ "$(grep -c 'delete that line' "$root.err")" = 0 ]
check "another architecture's library stays: disable only for this architecture's programs" \
      grep -q "^libarenafix: warning: /etc/systemd/system/web.service.d/arenafix.conf preloads the library by \\\$LIB into web.service, which still finds /usr/lib/other-triplet/arenafix/libarenafix.so for its own architecture: if web.service runs a program of this architecture" "$root.err"
rm -rf "$root" "$root.none" "$root.out" "$root.err"
exit $fail
