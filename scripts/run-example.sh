#!/usr/bin/env bash
# `make run`: the main job on this machine with no hardware.
# First a real timing experiment (examples/host.toml: wake methods x SCHED_OTHER/FIFO x
# idle/load, about two minutes) into the results store; then the GPIO study's method in
# the QEMU arm64 guest (examples/gpio-study-emulated.toml: C vs Rust, about 45 s,
# labelled emulated; skipped with the reason when the guest cannot boot here); the short
# user-vs-kernel study (examples/user-vs-kernel-short-*.toml: user-space loops vs the
# rtlab_hrtimer module on the stock and PREEMPT_RT guest kernels, emulated); one HTML
# report of all three; then the bundled GPIO-toggle capture (the study's PIO CSV format)
# analyzed with plots, and a live signal from the real sigrok-cli demo driver with the
# latency between two channels.
# A part that cannot run is named in the summary at the end and in the report
# ("PART: skipped — reason — how to fix"). Exit status: 0 when every part ran, or a part
# was skipped for a reason outside the project (no network to the Debian archive, no
# hardware); 1 when a part was skipped for a reason the project's set-up should have
# prevented (a package of deps/apt.txt missing, a setup hook that did not run).
# A second `make run` resumes the experiments (nothing left to run: summary and report
# only); `rtlab run examples/host.toml --force` measures again.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
RTLAB="$VENV/bin/rtlab"
OUT=${OUT:-out}
mkdir -p "$OUT"
done_parts=()  # "part: what it gave"
skipped=()     # "part: reason — how to fix", for the summary and the report
fixable=0      # a skip that `make setup` should have prevented

skip() {  # skip PART FIXABLE(0/1) "reason — how to fix"
    skipped+=("$1: skipped — $3")
    [ "$2" = 1 ] && fixable=1
    echo "$1: skipped — $3"
}

echo "== 1. timing experiment: examples/host.toml (workloads/linux/rtlab-latency on this host, about two minutes) =="
# exit 1 = some run did not finish cleanly (listed above, marked in the store and the
# report): worth a look, not a reason to skip the rest
"$RTLAB" run examples/host.toml || [ $? -eq 1 ]
specs=(host)
done_parts+=("timing experiment (examples/host.toml): stored, in the report")

echo
echo "== 2. the GPIO study without a board: examples/gpio-study-emulated.toml (workloads/linux/rtlab-toggle{,-rs} in the arm64 guest, QEMU TCG, EMULATED, about 45 s) =="
part="GPIO study (emulated, examples/gpio-study-emulated.toml)"
# one line: FIXABLE<TAB>reason — how to fix, or nothing when the guest can boot
why=$("$VENV/bin/python" -c '
from rtlab.lab.gpio_guest import availability
u = availability()
print("" if u is None else f"{int(u.fixable)}\t{u}")') ||
    why=$'1\tcannot check the guest (see the error above) — run `make setup`, then `make run`'
if [ -z "$why" ]; then
    st=0
    "$RTLAB" run examples/gpio-study-emulated.toml || st=$?
    case $st in
    0 | 1) specs+=(gpio-study-emulated)  # 1: some run not ok, the others are reported
        done_parts+=("$part: stored, in the report (labelled emulated)") ;;
    130) exit 130 ;;
    *) skip "$part" 1 "rtlab run exited with status $st (message above) — fix that error, then \`make run\`" ;;
    esac
else
    skip "$part" "${why%%$'\t'*}" "${why#*$'\t'}"
fi
echo
echo "== 3. user space vs kernel space: examples/user-vs-kernel-short.toml (usleep, clock_nanosleep FIFO, the rtlab_hrtimer module; stock and PREEMPT_RT arm64 kernels, QEMU icount, EMULATED, about 90 s) =="
part="user vs kernel space (emulated, examples/user-vs-kernel-short.toml)"
why=$("$VENV/bin/python" -c '
from rtlab.lab.hrtimer_guest import FLAVOURS, flavour_availability
us = [u for u in map(flavour_availability, FLAVOURS) if u is not None]
print("" if not us else f"{int(us[0].fixable)}\t{us[0]}")') ||
    why=$'1\tcannot check the guest kernels (see the error above) — run `make setup`, then `make run`'
if [ -z "$why" ]; then
    st=0
    "$RTLAB" run examples/user-vs-kernel-short.toml || st=$?
    case $st in
    0 | 1) specs+=(user-vs-kernel-short)
        done_parts+=("$part: stored, in the report (labelled emulated)") ;;
    130) exit 130 ;;
    *) skip "$part" 1 "rtlab run exited with status $st (message above) — fix that error, then \`make run\`" ;;
    esac
else
    skip "$part" "${why%%$'\t'*}" "${why#*$'\t'}"
fi
report_args=()
for s in "${skipped[@]}"; do report_args+=(--skipped "$s"); done
"$RTLAB" report "${specs[@]}" -o "$OUT/report.html" "${report_args[@]}"

echo
echo "== 4. the bundled GPIO toggle capture (RP2040 PIO durations, 16 ns ticks) =="
"$RTLAB" analyze examples/captures/gpio-toggle-pio.csv --plot "$OUT/plots"
"$RTLAB" analyze examples/captures/gpio-toggle-pio.csv --json > "$OUT/gpio-toggle.json"
done_parts+=("bundled GPIO capture: $OUT/plots/, $OUT/gpio-toggle.json")

echo
echo "== 5. a live capture from sigrok-cli's demo logic analyzer (counter pattern) =="
part="live sigrok capture (demo driver)"
if command -v sigrok-cli >/dev/null; then
    # D2 rises every 8 samples, D3 every 16: half of D2's edges get a D3 response
    # before the next D2 edge, the other half are counted as unpaired.
    sigrok-cli -d demo:logic_channels=4:analog_channels=0 -g Logic -c pattern=incremental \
        --samples 200000 -o "$OUT/demo.sr"
    "$RTLAB" analyze "$OUT/demo.sr" --channel D2 --channel D3 --latency D2:D3
    "$RTLAB" convert "$OUT/demo.sr" "$OUT/demo.parquet"
    done_parts+=("$part: $OUT/demo.sr, $OUT/demo.parquet")
else
    skip "$part" 1 "sigrok-cli not installed — it is in deps/apt.txt: run \`make setup\`"
fi

echo
echo "== summary =="
for d in "${done_parts[@]}"; do echo "  done     $d"; done
for s in "${skipped[@]}"; do echo "  SKIPPED  $s"; done
echo "report: $OUT/report.html   plots: $OUT/plots/   JSON: $OUT/gpio-toggle.json"
if [ "$fixable" = 1 ]; then
    echo "make run: a part was skipped for a reason rtlab's set-up should have prevented (above)" >&2
    exit 1
fi
