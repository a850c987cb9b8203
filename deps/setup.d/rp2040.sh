#!/usr/bin/env bash
# The capture firmware assembles its PIO program at build time with the pure-Python
# assembler from adafruit-circuitpython-pioasm (one file, needs only re and array, so
# --no-deps keeps CircuitPython packages out of the venv).
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=${VENV:-.venv}
if ! "$VENV/bin/python" -c "import adafruit_pioasm" 2>/dev/null; then
    "$VENV/bin/python" -m pip install -q --no-deps "adafruit-circuitpython-pioasm==1.3.8"
fi
