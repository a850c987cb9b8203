#!/usr/bin/env bash
# Fetches what the GPIO guest tests need (tests/lab/workloads/gpio, workloads/linux/guest):
# Debian's arm64 kernel (linux-image-arm64: CONFIG_GPIO_CDEV=y, CONFIG_GPIO_PL061=y) and
# busybox-static:arm64, with apt-get download into build/gpio-guest/dl (gitignored).
# Idempotent: returns at once when the kernel and busybox are there.
# When the Debian archive cannot be reached, setup goes on without them: the reason is
# left in build/gpio-guest/dl/fetch-failed, and `make run` names the GPIO study as skipped
# for it (rtlab.lab.gpio_guest.availability).
set -euo pipefail
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/../.."
dl=$PWD/build/gpio-guest/dl
if [ -s "$dl/vmlinuz" ] && [ -x "$dl/busybox" ]; then
    exit 0
fi
mkdir -p "$dl"
# One fetch at a time per tree: every pytest-xdist worker's first guest test runs this
# (tests/needs.py), and two at once removed each other's x/ and .debs mid-unpack. The
# script runs again under flock(1) (-o: the lock stays out of its children); the second
# waits, then finds the kernel and busybox there.
if [ "${RTLAB_GPIO_FETCH_LOCKED-}" != "$dl" ]; then
    exec env RTLAB_GPIO_FETCH_LOCKED="$dl" flock -o "$dl/.fetch.lock" bash "$self" "$@"
fi
rm -f "$dl/fetch-failed"
fetch_failed() {
    echo "$1" >"$dl/fetch-failed"
    echo "gpio-guest: $1; the emulated GPIO study and its tests are skipped" >&2
    exit 0
}
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
    fetch_failed "apt-get/dpkg-deb not found (not a Debian-based system)"
fi
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
    $SUDO apt-get update -q || true
fi
cd "$dl"
# The meta package names the current kernel ABI (linux-image-6.1.0-N-arm64).
kpkg=$(apt-cache depends linux-image-arm64:arm64 | awk '/Depends: linux-image-/{print $2; exit}')
if [ -z "$kpkg" ]; then
    $SUDO apt-get update -q || true
    kpkg=$(apt-cache depends linux-image-arm64:arm64 | awk '/Depends: linux-image-/{print $2; exit}')
fi
[ -n "$kpkg" ] || fetch_failed "apt-cache cannot resolve linux-image-arm64:arm64 (apt-get update failed?)"
rm -f ./*.deb
apt-get download -q "${kpkg%:arm64}:arm64" busybox-static:arm64 ||
    fetch_failed "apt-get download ${kpkg%:arm64}:arm64 busybox-static:arm64 failed"
rm -rf x && mkdir x
for deb in ./linux-image-*.deb ./busybox-static_*.deb; do dpkg-deb -x "$deb" x; done
cp x/boot/vmlinuz-* vmlinuz
cp x/bin/busybox busybox
basename x/boot/vmlinuz-* | sed 's/^vmlinuz-//' > kernel-version
rm -rf x ./*.deb
echo "gpio-guest: kernel $(cat kernel-version), busybox in $dl"
