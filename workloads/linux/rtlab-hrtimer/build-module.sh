#!/usr/bin/env bash
# Builds rtlab_hrtimer.ko for one kernel whose headers are unpacked in a directory.
#   build-module.sh HEADERS_DIR OUT_DIR [CROSS_COMPILE]
# For the emulated guest: HEADERS_DIR = build/hrtimer-guest/<stock|rt>/headers (from
# deps/setup.d/hrtimer-guest.sh), CROSS_COMPILE = aarch64-linux-gnu- (default when the
# headers are arm64 and the host is not). On a board: HEADERS_DIR = /lib/modules/$(uname -r)/build
# and no cross compiler. The kbuild output stays in OUT_DIR (never in the source tree).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: build-module.sh HEADERS_DIR OUT_DIR [CROSS_COMPILE]" >&2; exit 2; }
hdr=$(cd "$1" && pwd -P) out=$2
[ -f "$hdr/Makefile" ] || { echo "build-module: no kernel headers in $1" >&2; exit 1; }
arch=""
grep -q '^CONFIG_ARM64=y' "$hdr/.config" 2>/dev/null && arch=arm64
cross=${3-}
if [ -z "$cross" ] && [ "$arch" = arm64 ] && [ "$(uname -m)" != aarch64 ]; then
    cross=aarch64-linux-gnu-
fi
# Debian's headers were made with gcc-12: use it for the host tools too when there.
cc_host=gcc; command -v gcc-12 >/dev/null && cc_host=gcc-12
mkdir -p "$out"
cp "$here/rtlab_hrtimer.c" "$here/Kbuild" "$out/"
make -s -C "$hdr" M="$(cd "$out" && pwd)" ${arch:+ARCH=$arch} ${cross:+CROSS_COMPILE=$cross} \
    HOSTCC="$cc_host" modules
echo "$out/rtlab_hrtimer.ko"
