#!/bin/sh
# Install the Debian packages listed in test/packages.txt that are missing,
# for one tier: demo (what `make demo` needs), check (make check), slow
# (make check-slow) or all (make check-all, the default); each tier takes
# the ones before it.  A package marked with a trailing ? is wanted, not
# needed: one that cannot be had is named, and nothing fails for it.
# As root: apt-get install them; a package apt cannot install is named with
# what to do, and the others are installed all the same.  Otherwise: print
# the exact commands and fail.
# A package named PKG:ARCH for a foreign architecture (check:arm64) needs
# that architecture in dpkg (dpkg --add-architecture ARCH) and its package
# lists (apt-get update) first.
set -eu
list=$(dirname "$0")/packages.txt
tier=${1:-all}

rank() {
    case $1 in
    demo) echo 0 ;;
    check) echo 1 ;;
    slow) echo 2 ;;
    all) echo 3 ;;
    *) return 1 ;;
    esac
}
if ! want=$(rank "$tier"); then
    echo "arenafix: no tier '$tier' (demo, check, slow or all)" >&2
    exit 2
fi

# The tier's packages: "@TIER" lines in the list start a tier's groups.
needed= wanted=
current=3
for word in $(sed -e 's/#.*//' "$list"); do
    case $word in
    @*)
        if ! current=$(rank "${word#@}"); then
            echo "arenafix: $list: no tier '${word#@}'" >&2
            exit 2
        fi
        continue ;;
    esac
    [ "$current" -le "$want" ] || continue
    case $word in
    *'?') wanted="$wanted ${word%?}" ;;
    *) needed="$needed $word" ;;
    esac
done

installed() {
    case "$(dpkg-query -W -f '${Status}' "$1" 2>/dev/null || true)" in
    *" installed") return 0 ;;
    *) return 1 ;;
    esac
}
missing= missing_needed=
for pkg in $needed $wanted; do
    case " $missing " in *" $pkg "*) continue ;; esac
    if ! installed "$pkg"; then
        missing="$missing $pkg"
        case " $needed " in *" $pkg "*) missing_needed="$missing_needed $pkg" ;; esac
    fi
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
    if [ -z "$missing_needed" ]; then
        echo "arenafix: (wanted, not needed: going on without them)" >&2
        exit 0
    fi
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
install() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}
install $missing && exit 0

# One package apt cannot have fails them all ("held broken packages"):
# ask apt of each alone, install those it can, and name the others.
echo "arenafix: the install failed; asking apt of each package alone" >&2
can= cannot= failed_needed=
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for pkg in $missing; do
    if DEBIAN_FRONTEND=noninteractive apt-get install -s -q --no-install-recommends "$pkg" \
        >"$tmp" 2>&1; then
        can="$can $pkg"
    else
        cannot="$cannot $pkg"
        why=$(grep -E '^(E:| [^ ].*: Depends:|Package .* is not available)' "$tmp" | head -n 3 |
              tr '\n' ' ')
        echo "arenafix: cannot install $pkg: ${why:-apt gave no reason}" >&2
        case " $missing_needed " in *" $pkg "*) failed_needed="$failed_needed $pkg" ;; esac
    fi
done
status=0
if [ -n "$can" ] && ! install $can; then
    echo "arenafix: installing the others failed too (apt's errors are above)" >&2
    status=1
fi
if [ -n "$cannot" ]; then
    echo "arenafix: not installed:$cannot" >&2
    echo "arenafix: what to do: a mirror in the middle of a sync, or a list that did not" \
         "come, is the usual cause: run 'apt-get update' until it succeeds (or name another" \
         "mirror in /etc/apt/sources.list.d), then run this again; the tests that need" \
         "them say so where they run" >&2
    if [ -z "$failed_needed" ]; then
        echo "arenafix: (wanted, not needed: going on without them)" >&2
    else
        status=1
    fi
fi
exit $status
