#!/bin/sh
# rtlab-timerlat: the kernel's own timerlat tracer as one @rtl1 run, the independent view
# of the rtlab_hrtimer module's wake-up latency (docs/user-vs-kernel.md). Reads tracefs
# directly (busybox sh + awk: rtla and its libraries are not in the guest).
#   rtlab-timerlat -i PERIOD_US -l SAMPLES
# Series irq_latency (the timer IRQ's latency) and thread_latency (the timerlat thread's,
# SCHED_FIFO 95), in ns, the first SAMPLES of each. A kernel without the tracer (Debian's
# stock arm64 one), or one that refuses the period (6.1: below 100 us), gives a run with
# `warn code=unsupported` and no series: the cross-check is unsupported there, never a
# number. Bad options: one line on stderr, exit 2.
set -u
period=1000 samples=1000
usage() { echo "rtlab-timerlat: $1 (usage: rtlab-timerlat -i PERIOD_US -l SAMPLES)" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    -i) [ $# -ge 2 ] || usage "-i needs a value"; period=$2; shift 2 ;;
    -l) [ $# -ge 2 ] || usage "-l needs a value"; samples=$2; shift 2 ;;
    -q) shift ;;
    *) usage "unknown option $1" ;;
    esac
done
case $period in '' | *[!0-9]*) usage "-i $period: expected microseconds 1..1000000" ;; esac
case $samples in '' | *[!0-9]*) usage "-l $samples: expected a count 1..1000000" ;; esac
[ "$period" -ge 1 ] && [ "$period" -le 1000000 ] || usage "-i $period: expected 1..1000000"
[ "$samples" -ge 1 ] && [ "$samples" -le 1000000 ] || usage "-l $samples: expected 1..1000000"

enc() { sed 's/%/%25/g; s/ /%20/g; s/=/%3D/g; s/\*/%2A/g'; }
T=/sys/kernel/tracing
[ -e $T/available_tracers ] || mount -t tracefs nodev $T 2>/dev/null
out=/tmp/rtlab-timerlat.$$
rt=0
uname -v | grep -q PREEMPT_RT && rt=1
{
    echo "@rtl1 hello workload=rtlab-timerlat version=0.1.0"
    echo "@rtl1 meta method=timerlat interval_ns=$((period * 1000)) samples=$samples preempt_rt=$rt kernel=$(uname -r | enc) kernel_version=$(uname -v | enc)"
} >$out
unsupported() { echo "@rtl1 warn code=unsupported msg=$(echo "$1" | enc)" >>$out; }
if ! grep -qw timerlat $T/available_tracers 2>/dev/null; then
    unsupported "this kernel has no timerlat tracer ($(uname -r))"
elif ! echo $period 2>/dev/null >$T/osnoise/timerlat_period_us ||
    [ "$(cat $T/osnoise/timerlat_period_us)" != "$period" ]; then
    # the kernel refuses the write (6.1: below 100 us) and keeps its old period
    unsupported "the timerlat tracer refuses a $period us period (kept $(cat $T/osnoise/timerlat_period_us) us)"
else
    # one timer per CPU (the samples are every CPU's); whole seconds, 10 % beyond SAMPLES
    secs=$(((samples * period * 11 / 10 + 999999) / 1000000))
    echo timerlat >$T/current_tracer
    echo 1 >$T/tracing_on
    sleep $secs
    echo 0 >$T/tracing_on
    awk -v want="$samples" '
        function chunk(name, vals, n,   seq, i, line, k) {
            print "@rtl1 series " name " unit=ns"
            seq = 0
            for (i = 0; i < n; i += 256) {
                line = ""
                for (k = i; k < i + 256 && k < n; k++) line = line (k > i ? "," : "") vals[k]
                print "@rtl1 s " name " " seq++ " " line
            }
        }
        /context +irq timer_latency/ { if (ni < want) irq[ni++] = $(NF - 1) }
        /context +thread timer_latency/ { if (nt < want) thr[nt++] = $(NF - 1) }
        END { chunk("irq_latency", irq, ni); chunk("thread_latency", thr, nt) }
    ' $T/trace >>$out
    lost=$(cat $T/per_cpu/cpu*/stats 2>/dev/null | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
    echo "@rtl1 c trace_overrun $lost" >>$out
    echo nop >$T/current_tracer
fi
cat $out
echo "@rtl1 end records=$(wc -l <$out) status=ok"
rm -f $out
