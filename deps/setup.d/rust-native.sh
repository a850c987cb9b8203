#!/usr/bin/env bash
# rtlab's compiled hot loop (native/: Rust, PyO3, built by maturin from PyPI and crates.io)
# into the venv. It runs after rust-aarch64.sh, which leaves a Rust toolchain (rustup's or
# Debian's rustc-web/cargo-web). Without one, streaming analysis uses its numpy twin
# (the same figures, about 7x slower): say so and go on.
set -euo pipefail
VENV=${VENV:-.venv}
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "rust-native: no cargo; rtlab analyze uses numpy (slower). Install Rust, then" \
        "'$VENV/bin/pip install ./native'" >&2
    exit 0
fi
"$VENV/bin/python" -m pip install -q ./native
"$VENV/bin/python" -c "import rtlab_native" && echo "rust-native: rtlab_native installed"
