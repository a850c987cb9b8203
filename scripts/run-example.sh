#!/usr/bin/env bash
# `make run`: the main job on this machine with no hardware.
# First a real timing experiment (examples/host.toml: wake methods x SCHED_OTHER/FIFO x
# idle/load, about two minutes) into the results store, with its HTML report; then the
# bundled GPIO-toggle capture (the study's PIO CSV format) analyzed with plots, and a
# live signal from the real sigrok-cli demo driver with the latency between two channels.
# A second `make run` resumes the experiment (nothing left to run: summary and report
# only); `rtlab run examples/host.toml --force` measures again.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
RTLAB="$VENV/bin/rtlab"
OUT=${OUT:-out}
mkdir -p "$OUT"

echo "== 1. timing experiment: examples/host.toml (about two minutes) =="
# exit 1 = some run did not finish cleanly (listed above, marked in the store and the
# report): worth a look, not a reason to skip the rest
"$RTLAB" run examples/host.toml --report "$OUT/report.html" || [ $? -eq 1 ]

echo
echo "== 2. the bundled GPIO toggle capture (RP2040 PIO durations, 16 ns ticks) =="
"$RTLAB" analyze examples/captures/gpio-toggle-pio.csv --plot "$OUT/plots"
"$RTLAB" analyze examples/captures/gpio-toggle-pio.csv --json > "$OUT/gpio-toggle.json"

if command -v sigrok-cli >/dev/null; then
    echo
    echo "== 3. a live capture from sigrok-cli's demo logic analyzer (counter pattern) =="
    # D2 rises every 8 samples, D3 every 16: half of D2's edges get a D3 response
    # before the next D2 edge, the other half are counted as unpaired.
    sigrok-cli -d demo:logic_channels=4:analog_channels=0 -g Logic -c pattern=incremental \
        --samples 200000 -o "$OUT/demo.sr"
    "$RTLAB" analyze "$OUT/demo.sr" --channel D2 --channel D3 --latency D2:D3
    "$RTLAB" convert "$OUT/demo.sr" "$OUT/demo.parquet"
fi
echo
echo "report: $OUT/report.html   plots: $OUT/plots/   JSON: $OUT/gpio-toggle.json"
