#!/usr/bin/env bash
# The ssh target test (tests/lab/test_ssh_target.py) runs a real sshd on a local port.
# Installing openssh-server would start an ssh service on the user's machine, so its
# package is only downloaded and unpacked into build/sshd (gitignored): the test starts
# that binary itself, on a throwaway port, with throwaway keys.
# Started as root, sshd runs its pre-authentication child as the unprivileged `sshd`
# user ("Privilege separation user sshd does not exist" otherwise); the package's postinst
# would create it, so this does the same (a system account with no login, no home).
# Idempotent: returns at once when the binary and the user are there.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=build/sshd
if ! getent passwd sshd >/dev/null; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO useradd --system --no-create-home --home-dir /run/sshd --shell /usr/sbin/nologin sshd
    echo "sshd: created the system user sshd (sshd's privilege separation)"
fi
if [ -x "$out/usr/sbin/sshd" ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
    echo "sshd: apt-get/dpkg-deb not found; the ssh target test will be skipped" >&2
    exit 0
fi
mkdir -p "$out/dl"
(
    cd "$out/dl"
    rm -f ./*.deb
    apt-get download -q openssh-server 2>/dev/null || {
        SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
        $SUDO apt-get update -q
        apt-get download -q openssh-server
    }
)
dpkg-deb -x "$out"/dl/openssh-server_*.deb "$out"
rm -rf "$out/dl"
echo "sshd: $("$out/usr/sbin/sshd" -V 2>&1 | head -1) unpacked in $out"
