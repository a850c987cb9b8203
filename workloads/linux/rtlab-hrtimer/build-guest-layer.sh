#!/usr/bin/env bash
# The user-vs-kernel layer of the arm64 guest for one kernel flavour, appended to the GPIO
# guest's base initramfs (workloads/linux/guest): a cpio holding
#   /rtlab/rtlab_hrtimer.ko   the module, built for that kernel (build-module.sh)
#   /rtlab/rtlab-hrtimer      its reader, static aarch64
#   /rtlab/rtlab-latency      the user-space side (usleep, clock_nanosleep), static aarch64
#   /rtlab/rtlab-timerlat     the timerlat tracer as an @rtl1 run (a busybox script)
#   /bin/cyclictest + the libc6/libnuma1 arm64 libraries it needs (when rt-tests:arm64 is
#   fetched), the cross-check
#   build-guest-layer.sh stock|rt OUT.cpio.gz
# Needs deps/setup.d/hrtimer-guest.sh to have run (the kernel headers).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
flavour=${1:?usage: build-guest-layer.sh stock|rt OUT}
out=${2:?usage: build-guest-layer.sh stock|rt OUT}
top=$root/build/hrtimer-guest
# One build at a time per tree (the module, CMake trees and the layer's stage are shared:
# two at once removed the stage under each other), as workloads/linux/guest/build-initramfs.sh.
if [ "${RTLAB_HRTIMER_LAYER_LOCKED-}" != "$top" ]; then
    mkdir -p "$top"
    exec env RTLAB_HRTIMER_LAYER_LOCKED="$top" flock -o "$top/.build.lock" bash "$here/$(basename "$0")" "$@"
fi
unset RTLAB_HRTIMER_LAYER_LOCKED
[ -f "$top/$flavour/headers/Makefile" ] || {
    echo "build-guest-layer: no $flavour kernel headers in $top (run deps/setup.d/hrtimer-guest.sh)" >&2; exit 1; }
ko=$top/$flavour/module/rtlab_hrtimer.ko
if [ ! -f "$ko" ] || [ "$here/rtlab_hrtimer.c" -nt "$ko" ]; then
    bash "$here/build-module.sh" "$top/$flavour/headers" "$top/$flavour/module" >/dev/null
fi
for prog in rtlab-hrtimer rtlab-latency; do
    b=$top/c-aarch64/$prog
    grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$root/workloads/linux/$prog" "$b/CMakeCache.txt" 2>/dev/null ||
        rm -rf "$b"
    if [ ! -f "$b/CMakeCache.txt" ]; then
        extra=()
        [ "$prog" = rtlab-latency ] && extra=(-DCMAKE_EXE_LINKER_FLAGS=-static)
        cmake -S "$root/workloads/linux/$prog" -B "$b" -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
            -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc -DRTLAB_STATIC=ON "${extra[@]}" >/dev/null
    fi
    cmake --build "$b" --parallel 2 >/dev/null
done
stage=$top/$flavour/layer
rm -rf "$stage" && mkdir -p "$stage/rtlab" "$stage/bin"
cp "$ko" "$top/c-aarch64/rtlab-hrtimer/rtlab-hrtimer" "$top/c-aarch64/rtlab-latency/rtlab-latency" \
    "$stage/rtlab/"
install -m 755 "$here/rtlab-timerlat.sh" "$stage/rtlab/rtlab-timerlat"
# busybox's module applets (the base image links only the common ones)
for a in insmod rmmod lsmod dd; do ln -sf busybox "$stage/bin/$a"; done
ct=$top/cyclictest
if [ -x "$ct/bin/cyclictest" ]; then
    cp -a "$ct/bin/cyclictest" "$stage/bin/"
    cp -a "$ct/lib" "$stage/"
fi
python3 "$root/workloads/linux/guest/mkcpio.py" "$stage" "$out"
echo "$out"
