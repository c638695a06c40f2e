#!/bin/sh
# Assemble the emulated host's whole userland into one initramfs.
#
#   mkinitramfs.sh OUT.gz INIT [NAME=FILE | NAME?=FILE ...]
#
# Each NAME=FILE puts a program or library at /t/NAME in the guest, with the
# system libraries it needs (ldd tells) at their usual paths.  NAME?=FILE is
# the same for a file that may not exist (a part not built): the guest
# reports the items that need it as skipped.  The guest also
# gets a static busybox, the system glibc, and the affected glibc from
# ARENAFIX_AFFECTED_GLIBC in /afx-glibc (run through its own loader there).
set -eu
out=${1:?usage: mkinitramfs.sh OUT.gz INIT [NAME=FILE ...]}
init=${2:?usage: mkinitramfs.sh OUT.gz INIT [NAME=FILE ...]}
shift 2

root=$out.root
rm -rf "$root"
mkdir -p "$root"/bin "$root"/lib64 "$root"/t "$root"/afx-glibc \
         "$root"/proc "$root"/sys "$root"/dev "$root"/tmp

cp /bin/busybox "$root"/bin/busybox
for applet in $(/bin/busybox --list); do
    [ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
done
ln -s bin "$root"/sbin

# A library at the same path as on the build host, so every program's
# recorded loader and search path work unchanged.
add_file() {
    [ -e "$root$1" ] && return 0
    mkdir -p "$root$(dirname "$1")"
    cp -L "$1" "$root$1"
}

add_libs() {
    # ldd prints "name => /path (addr)" or "/path (addr)" for the loader.
    for lib in $(ldd "$1" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
        add_file "$lib"
    done
}

add_file /lib64/ld-linux-x86-64.so.2

for item in "$@"; do
    name=${item%%=*}
    file=${item#*=}
    case $name in
    *\?) name=${name%\?}; [ -e "$file" ] || continue ;;
    esac
    [ -e "$file" ] || { echo "mkinitramfs: $file: missing" >&2; exit 1; }
    cp -L "$file" "$root/t/$name"
    add_libs "$file"
done

# The first of the list (colon-separated): Debian's 2.36 with the fix
# reverted, where the Makefile finds it.
affected=${ARENAFIX_AFFECTED_GLIBC%%:*}
if [ -n "$affected" ] && [ -r "$affected/libc.so.6" ]; then
    cp -L "$affected"/*.so* "$root"/afx-glibc/
fi

# A loader finds libraries outside its own directories through the cache,
# as on any Debian host: the affected glibc's loader needs it to find
# libhwloc and the rest in the system's directories.
mkdir -p "$root"/etc
printf '%s\n' /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu >"$root"/etc/ld.so.conf
ldconfig -r "$root"

cp "$init" "$root"/init
chmod 755 "$root"/init
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
