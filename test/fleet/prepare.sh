#!/bin/sh
# What check-fleet runs on this machine, installed when missing:
# systemd-nspawn (the hosts), Debian's ansible-core and ansible-lint,
# the SSH client, ip (the network namespace), rpmbuild (the RPMs, and the
# RHEL 9 host's rpm database).
#
#   prepare.sh
set -eu

say() { echo "check-fleet: $*" >&2; }
fail() { say "$*"; exit 1; }

missing=
command -v systemd-nspawn >/dev/null 2>&1 || missing="$missing systemd-container"
command -v ansible-playbook >/dev/null 2>&1 || missing="$missing ansible-core"
command -v ansible-lint >/dev/null 2>&1 || missing="$missing ansible-lint"
command -v ssh >/dev/null 2>&1 || missing="$missing openssh-client"
command -v ip >/dev/null 2>&1 || missing="$missing iproute2"
command -v debootstrap >/dev/null 2>&1 || missing="$missing debootstrap"
command -v rpmbuild >/dev/null 2>&1 || missing="$missing rpm"
[ -n "$missing" ] || exit 0
[ "$(id -u)" -eq 0 ] || fail "missing packages:$missing; install them with:
  sudo apt-get update && sudo apt-get install -y$missing"
say "installing:$missing"
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends $missing >&2 ||
    fail "could not install$missing"
