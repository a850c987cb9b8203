#!/usr/bin/env bash
# Installs the pinned rp2040js emulator for the capture firmware's test harness.
# Idempotent: skips when node_modules matches the committed package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/../../firmware/rp2040-capture/sim"
if ! command -v npm >/dev/null 2>&1; then
    echo "rp2040-sim: npm not found; the RP2040 emulator tests will be skipped" >&2
    exit 0
fi
stamp=node_modules/.package-lock.json
if [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ] && [ -d node_modules/rp2040js ]; then
    exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
