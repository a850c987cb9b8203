#!/usr/bin/env bash
# Builds the GPIO guest: a minimal initramfs (Debian's busybox-static + the workloads,
# cross-compiled static for aarch64) next to Debian's arm64 kernel.
#   workloads/linux/guest/build-initramfs.sh [--script FILE] [--out FILE]
# Outputs (build/gpio-guest/, gitignored):
#   base.cpio.gz   busybox, /init, /rtlab/<workloads>
#   vmlinuz        -> dl/vmlinuz (deps/setup.d/gpio-guest.sh fetches it)
# With --script FILE the script is appended as /rtlab/run.sh in a second cpio, and
# --out (default build/gpio-guest/initrd.cpio.gz) is base + script: the kernel unpacks
# concatenated archives in order, so a test changes its script without a rebuild.
# Second language (Rust, workloads/linux/rtlab-toggle-rs) is built static with rustup's
# aarch64-unknown-linux-musl target, or else with Debian's rustc-web and its arm64 std
# (aarch64-unknown-linux-gnu, glibc linked static); deps/setup.d/rust-aarch64.sh installs
# the latter. Without either it is skipped with a note.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out_dir=$root/build/gpio-guest
# One build at a time per tree: the stage, the CMake and cargo trees and base.cpio.gz
# under build/gpio-guest are shared, and two builds at once (two pytest-xdist workers, two
# `rtlab run`s) removed them under each other. The script runs again under flock(1), which
# holds the lock until it ends and keeps the lock's descriptor from the build's children
# (-o: a daemon one of them leaves behind cannot hold it); a second build waits here, then
# finds everything built (a warm build takes under a second).
if [ "${RTLAB_GPIO_GUEST_LOCKED-}" != "$out_dir" ]; then
    mkdir -p "$out_dir"
    exec env RTLAB_GPIO_GUEST_LOCKED="$out_dir" flock -o "$out_dir/.build.lock" bash "$here/$(basename "$0")" "$@"
fi
unset RTLAB_GPIO_GUEST_LOCKED
script="" out="$out_dir/initrd.cpio.gz"
while [ $# -gt 0 ]; do
    case $1 in
    --script) script=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "build-initramfs: unknown argument $1" >&2; exit 2 ;;
    esac
done
bash "$root/deps/setup.d/gpio-guest.sh"
dl=$out_dir/dl
[ -s "$dl/vmlinuz" ] && [ -x "$dl/busybox" ] || { echo "build-initramfs: no kernel/busybox in $dl" >&2; exit 1; }
command -v aarch64-linux-gnu-gcc >/dev/null || {
    echo "build-initramfs: aarch64-linux-gnu-gcc missing (apt-get install gcc-aarch64-linux-gnu)" >&2; exit 1; }

# C workloads, static: the initramfs has no libc.
cb=$out_dir/c-aarch64
# a cache made for another source directory (the tree moved) cannot be rebuilt: start over
grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$root/workloads/linux/rtlab-toggle" "$cb/CMakeCache.txt" 2>/dev/null ||
    rm -rf "$cb"
if [ ! -f "$cb/CMakeCache.txt" ]; then
    cmake -S "$root/workloads/linux/rtlab-toggle" -B "$cb" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
        -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc -DRTLAB_STATIC=ON >/dev/null
fi
cmake --build "$cb" --parallel 2 >/dev/null

# Rust workload (optional).
rs_bin="" rs_target=""
rs_src=$root/workloads/linux/rtlab-toggle-rs
cargo=cargo
if command -v rustup >/dev/null && command -v cargo >/dev/null &&
    rustup target list --installed 2>/dev/null | grep -qx aarch64-unknown-linux-musl; then
    rs_target=aarch64-unknown-linux-musl
elif [ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ] &&
    [ -d "$(/usr/bin/rustc --print sysroot)/lib/rustlib/aarch64-unknown-linux-gnu/lib" ]; then
    rs_target=aarch64-unknown-linux-gnu cargo=/usr/bin/cargo
    export RUSTC=/usr/bin/rustc RUSTFLAGS="-C target-feature=+crt-static"
fi
if [ -f "$rs_src/Cargo.toml" ] && [ -n "$rs_target" ]; then
    tvar=$(echo "$rs_target" | tr 'a-z-' 'A-Z_')
    env "CARGO_TARGET_${tvar}_LINKER=aarch64-linux-gnu-gcc" \
        "$cargo" build -q --release --locked --offline --target "$rs_target" \
        --manifest-path "$rs_src/Cargo.toml" --target-dir "$out_dir/rs-target"
    rs_bin=$out_dir/rs-target/$rs_target/release/rtlab-toggle-rs
else
    echo "build-initramfs: no Rust toolchain for aarch64 (deps/setup.d/rust-aarch64.sh); Rust workload skipped" >&2
fi

# Kotlin/Native workload (optional): dynamically linked against glibc, so the libraries
# it needs go in /lib (from the arm64 cross packages, glibc 2.36).
kt_bin=$out_dir/kt/rtlab-toggle-kt
if ! "$root/workloads/linux/rtlab-toggle-kt/build.sh" linux_arm64 "$kt_bin"; then
    kt_bin=""
    echo "build-initramfs: no Kotlin/Native (deps/setup.d/kotlin-native.sh); Kotlin workload skipped" >&2
fi

stage=$out_dir/stage
rm -rf "$stage"
mkdir -p "$stage"/{bin,sbin,proc,sys,dev,tmp,rtlab}
cp "$dl/busybox" "$stage/bin/busybox"
# Applets as symlinks: the few the init and the tests use, plus the common ones.
for a in sh ash mount umount sed tr cat echo ls sleep kill grep head tail wc sync \
         poweroff uname su mkdir rm test "[" true false timeout ps dmesg env expr cut seq date; do
    ln -sf busybox "$stage/bin/$a"
done
ln -sf ../bin/busybox "$stage/sbin/poweroff"
cp "$here/init" "$stage/init"
# An unprivileged user, so tests can check the "no permission" path (su nobody).
mkdir -p "$stage/etc"
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$stage/etc/group"
cp "$cb/rtlab-toggle" "$cb/rtlab-gpio-events" "$stage/rtlab/"
[ -n "$rs_bin" ] && cp "$rs_bin" "$stage/rtlab/rtlab-toggle-rs"
if [ -n "$kt_bin" ]; then
    cp "$kt_bin" "$stage/rtlab/rtlab-toggle-kt"
    mkdir -p "$stage/lib"
    for l in ld-linux-aarch64.so.1 libc.so.6 libm.so.6 libresolv.so.2 libgcc_s.so.1; do
        cp -L "/usr/aarch64-linux-gnu/lib/$l" "$stage/lib/"
    done
fi
python3 "$here/mkcpio.py" "$stage" "$out_dir/base.cpio.gz"
# replaced only when wrong, and then by a rename: QEMU may be reading it (boot_initrd)
if [ "$(readlink "$out_dir/vmlinuz" 2>/dev/null)" != dl/vmlinuz ]; then
    ln -sfn dl/vmlinuz "$out_dir/vmlinuz.tmp" && mv -Tf "$out_dir/vmlinuz.tmp" "$out_dir/vmlinuz"
fi

if [ -n "$script" ]; then
    ss=$out_dir/stage-script
    rm -rf "$ss" && mkdir -p "$ss/rtlab"
    cp "$script" "$ss/rtlab/run.sh"
    chmod +x "$ss/rtlab/run.sh"
    python3 "$here/mkcpio.py" "$ss" "$out_dir/script.cpio.gz"
    cat "$out_dir/base.cpio.gz" "$out_dir/script.cpio.gz" > "$out"
else
    cp "$out_dir/base.cpio.gz" "$out"
fi
echo "$out"
