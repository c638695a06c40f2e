#!/bin/sh
# Install the Debian packages listed in test/packages.txt that are missing.
# As root: apt-get install them.  Otherwise: print the exact command and fail.
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
if [ "$(id -u)" -ne 0 ]; then
    echo "arenafix: missing packages; install them with:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "arenafix: installing:$missing" >&2
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' 2>/dev/null | head -n 1)" ]; then
    apt-get update -q
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
