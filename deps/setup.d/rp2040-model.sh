#!/usr/bin/env bash
# Installs the pinned rp2040js under models/rp2040 (rtlab's RP2040 board model extends it)
# and builds the model's boot ROM from the project's source (models/rp2040/rom, with
# arm-none-eabi-gcc from deps/apt.txt). Node.js and npm as in rp2040-sim.sh.
# Idempotent: npm runs only when node_modules does not match package-lock.json.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/models/rp2040"
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    echo "rp2040-model: installing Debian's nodejs and npm"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends nodejs npm
fi
stamp=node_modules/.package-lock.json
if ! { [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ] && [ -d node_modules/rp2040js ]; }; then
    npm ci --no-audit --no-fund --loglevel=error
fi
make -s -C rom
