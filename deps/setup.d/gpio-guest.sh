#!/usr/bin/env bash
# Fetches what the GPIO guest tests need (tests/gpio_guest, targets/linux/guest):
# Debian's arm64 kernel (linux-image-arm64: CONFIG_GPIO_CDEV=y, CONFIG_GPIO_PL061=y) and
# busybox-static:arm64, with apt-get download into build/gpio-guest/dl (gitignored).
# Idempotent: returns at once when the kernel and busybox are there.
set -euo pipefail
cd "$(dirname "$0")/../.."
dl=build/gpio-guest/dl
if [ -s "$dl/vmlinuz" ] && [ -x "$dl/busybox" ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
    echo "gpio-guest: apt-get/dpkg-deb not found; the GPIO guest tests will be skipped" >&2
    exit 0
fi
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
    $SUDO apt-get update -q
fi
mkdir -p "$dl"
cd "$dl"
# The meta package names the current kernel ABI (linux-image-6.1.0-N-arm64).
kpkg=$(apt-cache depends linux-image-arm64:arm64 | awk '/Depends: linux-image-/{print $2; exit}')
if [ -z "$kpkg" ]; then
    $SUDO apt-get update -q
    kpkg=$(apt-cache depends linux-image-arm64:arm64 | awk '/Depends: linux-image-/{print $2; exit}')
fi
[ -n "$kpkg" ] || { echo "gpio-guest: cannot resolve linux-image-arm64:arm64" >&2; exit 1; }
rm -f ./*.deb
apt-get download -q "${kpkg%:arm64}:arm64" busybox-static:arm64
rm -rf x && mkdir x
for deb in ./linux-image-*.deb ./busybox-static_*.deb; do dpkg-deb -x "$deb" x; done
cp x/boot/vmlinuz-* vmlinuz
cp x/bin/busybox busybox
basename x/boot/vmlinuz-* | sed 's/^vmlinuz-//' > kernel-version
rm -rf x ./*.deb
echo "gpio-guest: kernel $(cat kernel-version), busybox in $dl"
