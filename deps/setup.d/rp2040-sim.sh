#!/usr/bin/env bash
# Installs the pinned rp2040js emulator for the capture firmware's test harness.
# Node.js and npm come from Debian (nodejs, npm) when the machine has none; a Node.js of
# its own (e.g. NodeSource's, which bundles npm) is used as it is, hence not deps/apt.txt.
# Idempotent: skips when node_modules matches the committed package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/../../firmware/rp2040-capture/sim"
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    echo "rp2040-sim: installing Debian's nodejs and npm"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends nodejs npm
fi
stamp=node_modules/.package-lock.json
if [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ] && [ -d node_modules/rp2040js ]; then
    exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
