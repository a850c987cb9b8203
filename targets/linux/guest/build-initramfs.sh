#!/usr/bin/env bash
# Builds the GPIO guest: a minimal initramfs (Debian's busybox-static + the workloads,
# cross-compiled static for aarch64) next to Debian's arm64 kernel.
#   targets/linux/guest/build-initramfs.sh [--script FILE] [--out FILE]
# Outputs (build/gpio-guest/, gitignored):
#   base.cpio.gz   busybox, /init, /rtlab/<workloads>
#   vmlinuz        -> dl/vmlinuz (deps/setup.d/gpio-guest.sh fetches it)
# With --script FILE the script is appended as /rtlab/run.sh in a second cpio, and
# --out (default build/gpio-guest/initrd.cpio.gz) is base + script: the kernel unpacks
# concatenated archives in order, so a test changes its script without a rebuild.
# Second language (Rust, targets/linux/rtlab-toggle-rs) is built when cargo and the
# aarch64-unknown-linux-musl target are installed, else skipped with a note.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out_dir=$root/build/gpio-guest
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
if [ ! -f "$cb/CMakeCache.txt" ]; then
    cmake -S "$root/targets/linux/rtlab-toggle" -B "$cb" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
        -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc -DRTLAB_STATIC=ON >/dev/null
fi
cmake --build "$cb" --parallel 2 >/dev/null

# Rust workload (optional).
rs_bin=""
rs_src=$root/targets/linux/rtlab-toggle-rs
if [ -f "$rs_src/Cargo.toml" ] && command -v cargo >/dev/null; then
    if rustup target list --installed 2>/dev/null | grep -qx aarch64-unknown-linux-musl; then
        CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=aarch64-linux-gnu-gcc \
            cargo build -q --release --locked --offline --target aarch64-unknown-linux-musl \
            --manifest-path "$rs_src/Cargo.toml" --target-dir "$out_dir/rs-target"
        rs_bin=$out_dir/rs-target/aarch64-unknown-linux-musl/release/rtlab-toggle-rs
    else
        echo "build-initramfs: rustup target aarch64-unknown-linux-musl not installed; Rust workload skipped" >&2
    fi
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
python3 "$here/mkcpio.py" "$stage" "$out_dir/base.cpio.gz"
ln -sf dl/vmlinuz "$out_dir/vmlinuz"

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
