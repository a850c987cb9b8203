#!/usr/bin/env bash
# `make run`: the main job on this machine with no hardware.
# Analyzes the bundled GPIO-toggle capture (the study's PIO CSV format), writes plots,
# then captures a live signal with the real sigrok-cli demo driver and measures the
# latency between two of its channels.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
RTLAB="$VENV/bin/rtlab"
OUT=${OUT:-out}
mkdir -p "$OUT"

echo "== 1. the bundled GPIO toggle capture (RP2040 PIO durations, 16 ns ticks) =="
"$RTLAB" analyze examples/captures/gpio-toggle-pio.csv --plot "$OUT/plots"
"$RTLAB" analyze examples/captures/gpio-toggle-pio.csv --json > "$OUT/gpio-toggle.json"

if command -v sigrok-cli >/dev/null; then
    echo
    echo "== 2. a live capture from sigrok-cli's demo logic analyzer (counter pattern) =="
    # D2 rises every 8 samples, D3 every 16: half of D2's edges get a D3 response
    # before the next D2 edge, the other half are counted as unpaired.
    sigrok-cli -d demo:logic_channels=4:analog_channels=0 -g Logic -c pattern=incremental \
        --samples 200000 -o "$OUT/demo.sr"
    "$RTLAB" analyze "$OUT/demo.sr" --channel D2 --channel D3 --latency D2:D3
    "$RTLAB" convert "$OUT/demo.sr" "$OUT/demo.parquet"
fi
echo
echo "plots: $OUT/plots/   JSON: $OUT/gpio-toggle.json"
