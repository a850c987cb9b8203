#!/usr/bin/env bash
# rtlab's cycle-approximate QEMU plugin (plugins/qemu-cycles: Rust, GPL-2.0-or-later, its
# QEMU plugin API binding from crates.io) into the venv as lib/rtlab/librtlab_qemu_cycles.so
# (rtlab.lab.qemu.cycles finds it there). It runs after rust-aarch64.sh, which leaves a
# Rust toolchain; without one the cycles runs and their tests are skipped: say so, go on.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=${VENV:-.venv}
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "qemu-cycles: no cargo; the QEMU cycles plugin is not built (its runs are skipped)" >&2
    exit 0
fi
CARGO_TARGET_DIR=$PWD/build/qemu-cycles-target \
    cargo build -q --release --manifest-path plugins/qemu-cycles/Cargo.toml
mkdir -p "$VENV/lib/rtlab"
# a new file, renamed into place: a QEMU running the old one keeps its mapping
install -m 755 build/qemu-cycles-target/release/librtlab_qemu_cycles.so "$VENV/lib/rtlab/.librtlab_qemu_cycles.so.new"
mv -f "$VENV/lib/rtlab/.librtlab_qemu_cycles.so.new" "$VENV/lib/rtlab/librtlab_qemu_cycles.so"
echo "qemu-cycles: $VENV/lib/rtlab/librtlab_qemu_cycles.so"
