#!/bin/sh
# Install the Build-Depends of debian/control (apt-get build-dep on the
# source tree, so the list lives in one place).  As root: install them.
# Otherwise: print the exact command and fail if some are missing.
# Extra arguments go to apt-get, e.g. -P nocheck.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
if dpkg-checkbuilddeps "$top/debian/control" 2>/dev/null; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "arenafix: missing Build-Depends; install them with:" >&2
    echo "  sudo apt-get build-dep -y $top" >&2
    exit 1
fi
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' 2>/dev/null | head -n 1)" ]; then
    apt-get update -q
fi
DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q "$@" "$top"
