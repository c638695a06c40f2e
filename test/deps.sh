#!/bin/sh
# Install the Debian packages listed in test/packages.txt that are missing.
# As root: apt-get install them.  Otherwise: print the exact commands and fail.
# A package named PKG:ARCH for a foreign architecture (check:arm64) needs
# that architecture in dpkg (dpkg --add-architecture ARCH) and its package
# lists (apt-get update) first.
set -eu
list=$(dirname "$0")/packages.txt
missing=
for pkg in $(sed -e 's/#.*//' "$list"); do
    status=$(dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null || true)
    case "$status" in
    *" installed") ;;
    *) missing="$missing $pkg" ;;
    esac
done
[ -z "$missing" ] && exit 0

# The foreign architectures the missing packages name, not yet in dpkg.
native=$(dpkg --print-architecture)
known=" $native $(dpkg --print-foreign-architectures | tr '\n' ' ') all any native "
archs=
for pkg in $missing; do
    case $pkg in
    *:*) arch=${pkg##*:} ;;
    *) continue ;;
    esac
    case "$known$archs " in
    *" $arch "*) ;;
    *) archs="$archs $arch" ;;
    esac
done

if [ "$(id -u)" -ne 0 ]; then
    echo "arenafix: missing packages; install them with:" >&2
    for arch in $archs; do
        echo "  sudo dpkg --add-architecture $arch" >&2
    done
    echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "arenafix: installing:$missing" >&2
for arch in $archs; do
    echo "arenafix: adding the $arch architecture (dpkg --add-architecture $arch)" >&2
    dpkg --add-architecture "$arch"
done

# A new architecture has no package lists yet; nor has a fresh machine.
# A mirror caught in the middle of a sync serves lists of the wrong size
# ("File has unexpected size"): try once more, then say so and go on
# with the lists that came, which may hold every package needed.
updated=ok
if [ -n "$archs" ] ||
    [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' 2>/dev/null | head -n 1)" ]; then
    if ! apt-get update -q; then
        echo "arenafix: apt-get update failed; trying again in 10 s" >&2
        sleep 10
        apt-get update -q || updated=failed
    fi
fi
if [ "$updated" = failed ]; then
    echo "arenafix: apt-get update FAILED (its errors are above): some package lists are" \
         "missing or stale; installing from those that came" >&2
fi
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing; then
    if [ "$updated" = failed ]; then
        echo "arenafix: the install failed after apt-get update failed: the packages above" \
             "are likely in the lists that did not come; run apt-get update until it" \
             "succeeds (a mirror in the middle of a sync, or another mirror in" \
             "/etc/apt/sources.list), then make deps again" >&2
    fi
    exit 1
fi
