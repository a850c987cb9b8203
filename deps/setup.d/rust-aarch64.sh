#!/usr/bin/env bash
# The GPIO study's second language: rtlab-toggle-rs cross-built static for the arm64
# guest (workloads/linux/guest/build-initramfs.sh). Either toolchain serves:
#   - rustup with the aarch64-unknown-linux-musl target (a developer's own), or
#   - Debian's rustc-web/cargo-web (Rust 1.8x/1.9x in bookworm) with the arm64 standard
#     library libstd-rust-web-dev:arm64, linked static against glibc (aarch64-unknown-linux-gnu).
# When neither is there this installs Debian's (the arm64 architecture is added by
# gpio-guest.sh, which runs first). Idempotent: returns at once when one is there.
set -euo pipefail
if command -v rustup >/dev/null 2>&1 &&
    rustup target list --installed 2>/dev/null | grep -qx aarch64-unknown-linux-musl; then
    exit 0
fi
if [ -x /usr/bin/rustc ] &&
    [ -d "$(/usr/bin/rustc --print sysroot)/lib/rustlib/aarch64-unknown-linux-gnu/lib" ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "rust-aarch64: no apt-get; install Rust with the aarch64-unknown-linux-musl target" \
        "(rustup target add aarch64-unknown-linux-musl) for the Rust GPIO workload" >&2
    exit 0
fi
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
    $SUDO apt-get update -q || true
fi
echo "rust-aarch64: installing Debian's rustc-web, cargo-web and libstd-rust-web-dev:arm64"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -q --no-install-recommends rustc-web cargo-web libstd-rust-web-dev:arm64
