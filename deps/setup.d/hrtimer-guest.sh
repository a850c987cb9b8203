#!/usr/bin/env bash
# Fetches the two guest kernels of the user-vs-kernel study (docs/user-vs-kernel.md) and
# what builds out-of-tree modules for them, into build/hrtimer-guest/<flavour>/ (gitignored):
#   stock  linux-image-<abi>-arm64          + linux-headers-<abi>-arm64 + -common
#   rt     linux-image-<abi>-rt-arm64 (PREEMPT_RT) + linux-headers-<abi>-rt-arm64 + -common-rt
# and linux-kbuild-6.1:amd64 (the x86-64 host tools kbuild runs; Multi-Arch: foreign).
# Each <flavour>/ gets vmlinuz, kernel-version and headers/ (the unpacked tree, its
# Makefile pointed at it); workloads/linux/rtlab-hrtimer/build-module.sh builds the module.
# Packages are unpacked with dpkg-deb -x, never installed (installing the arm64 headers
# would remove the host's gcc). Idempotent; without the Debian archive it leaves the
# reason in build/hrtimer-guest/fetch-failed and exits 0 (the study is then skipped).
set -euo pipefail
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/../.."
top=$PWD/build/hrtimer-guest
mkdir -p "$top"
# One fetch at a time per tree (each xdist worker's first kernel-guest test runs this):
# the script runs again under flock(1), as deps/setup.d/gpio-guest.sh does.
if [ "${RTLAB_HRTIMER_FETCH_LOCKED-}" != "$top" ]; then
    exec env RTLAB_HRTIMER_FETCH_LOCKED="$top" flock -o "$top/.fetch.lock" bash "$self" "$@"
fi
done_all=1
for f in stock rt; do [ -s "$top/$f/vmlinuz" ] && [ -f "$top/$f/headers/Makefile" ] || done_all=0; done
[ -x "$top/cyclictest/bin/cyclictest" ] || done_all=0
[ "$done_all" = 1 ] && exit 0
rm -f "$top/fetch-failed"
fetch_failed() {
    echo "$1" >"$top/fetch-failed"
    echo "hrtimer-guest: $1; the user-vs-kernel study and its tests are skipped" >&2
    exit 0
}
command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 ||
    fetch_failed "apt-get/dpkg-deb not found (not a Debian-based system)"
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
    $SUDO apt-get update -q || true
fi
# The meta package names the current ABI (linux-image-6.1.0-N-arm64): both flavours
# and their headers come from that one ABI.
image_of() { apt-cache depends "$1" 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}'; }
kpkg=$(image_of linux-image-arm64:arm64)
if [ -z "$kpkg" ]; then
    $SUDO apt-get update -q || true
    kpkg=$(image_of linux-image-arm64:arm64)
fi
[ -n "$kpkg" ] || fetch_failed "apt-cache cannot resolve linux-image-arm64:arm64 (apt-get update failed?)"
abi=${kpkg%:arm64}; abi=${abi#linux-image-}; abi=${abi%-arm64}   # 6.1.0-N
kbuild_major=$(echo "$abi" | cut -d. -f1-2)  # 6.1: linux-kbuild-6.1
dl=$top/dl
rm -rf "$dl" && mkdir -p "$dl"
( cd "$dl" && apt-get download -q \
    "linux-image-$abi-arm64:arm64" "linux-headers-$abi-arm64:arm64" "linux-headers-$abi-common" \
    "linux-image-$abi-rt-arm64:arm64" "linux-headers-$abi-rt-arm64:arm64" \
    "linux-headers-$abi-common-rt" "linux-kbuild-$kbuild_major:amd64" \
    rt-tests:arm64 libnuma1:arm64 libc6:arm64 ) ||
    fetch_failed "apt-get download of the $abi arm64 kernels and headers failed"
# cyclictest for the guest (the cross-check): the binary and the few libraries it needs
ct=$top/cyclictest
rm -rf "$ct" && mkdir -p "$ct/x" "$ct/bin" "$ct/lib/aarch64-linux-gnu"
for deb in "$dl"/rt-tests_*_arm64.deb "$dl"/libnuma1_*_arm64.deb "$dl"/libc6_*_arm64.deb; do
    dpkg-deb -x "$deb" "$ct/x"
done
cp "$ct/x/usr/bin/cyclictest" "$ct/bin/"
# NEEDED by cyclictest and libnuma (readelf -d)
for l in lib/aarch64-linux-gnu/ld-linux-aarch64.so.1 lib/aarch64-linux-gnu/libc.so.6 \
         lib/aarch64-linux-gnu/librt.so.1 lib/aarch64-linux-gnu/libpthread.so.0 \
         usr/lib/aarch64-linux-gnu/libnuma.so.1; do
    cp -L "$ct/x/$l" "$ct/lib/aarch64-linux-gnu/"
done
ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$ct/lib/ld-linux-aarch64.so.1"
rm -rf "$ct/x"
for f in stock rt; do
    [ -s "$top/$f/vmlinuz" ] && [ -f "$top/$f/headers/Makefile" ] && continue
    suf=""; [ "$f" = rt ] && suf="-rt"
    x=$top/$f/x
    rm -rf "$top/$f" && mkdir -p "$x"
    # only /boot of the image (its 300 MB of modules are not needed)
    dpkg-deb --fsys-tarfile "$dl"/linux-image-"$abi$suf"-arm64_*.deb | tar -x -C "$x" ./boot
    for deb in "$dl"/linux-headers-"$abi$suf"-arm64_*.deb \
               "$dl"/linux-headers-"$abi"-common"$suf"_*.deb "$dl"/linux-kbuild-*_amd64.deb; do
        dpkg-deb -x "$deb" "$x"
    done
    cp "$x"/boot/vmlinuz-* "$top/$f/vmlinuz"
    ver=$(basename "$x"/boot/vmlinuz-*); echo "${ver#vmlinuz-}" >"$top/$f/kernel-version"
    # the headers' tree and its common part; the kbuild tools sit under usr/lib/linux-kbuild-*
    mv "$x/usr/src" "$top/$f/src"
    mv "$x/usr/lib/linux-kbuild-$kbuild_major" "$top/$f/kbuild"
    rm -rf "$x"
    hdr=$top/$f/src/linux-headers-$abi$suf-arm64
    # The headers' scripts/ and tools/ are symlinks into /usr/lib/linux-kbuild-*: repoint.
    for l in "$hdr"/scripts "$hdr"/tools "$top/$f/src/linux-headers-$abi-common$suf"/scripts \
             "$top/$f/src/linux-headers-$abi-common$suf"/tools; do
        [ -L "$l" ] && ln -sfn "$top/$f/kbuild/$(basename "$l")" "$l"
    done
    # its one-line Makefile includes /usr/src/linux-headers-<abi>-common[-rt]/Makefile
    sed -i "s|/usr/src/|$top/$f/src/|" "$hdr/Makefile"
    ln -sfn "$hdr" "$top/$f/headers"
done
rm -rf "$dl"
echo "hrtimer-guest: kernels $(cat "$top/stock/kernel-version") and $(cat "$top/rt/kernel-version") in $top"
