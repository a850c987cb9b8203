#!/bin/sh
# The guest half of tests/lab/workloads/gpio/test_in_guest.py: runs inside the initramfs on the PL061 of
# qemu-system-aarch64 -M virt (gpiochip0, lines 0..7; line 3 is QEMU's power button).
# Every step prints "@@sec NAME", its output (stderr too), then "@@rc NAME=STATUS".
E="--meta emulated=qemu-tcg"
step() { name=$1; shift; echo "@@sec $name"; "$@" 2>&1; echo "@@rc $name=$?"; }
# Waits until a background workload has printed its first record (the line is claimed).
wait_hello() { i=0; while ! grep -q "@rtl1 hello" "$1" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; }
# hold NAME PROGRAM LINE: PROGRAM toggles LINE in the background (output in /tmp/NAME.out,
# its pid in $pid) until it has claimed the line; release NAME SIG ends it with SIG and
# prints its output and exit status as the step NAME.
hold() { $2 -l $3 -D 60s -q $E > /tmp/$1.out 2>&1 & pid=$!; wait_hello /tmp/$1.out; }
release() { kill -$2 $pid; wait $pid; st=$?; echo "@@sec $1"; cat /tmp/$1.out; echo "@@rc $1=$st"; }
HAVE_RS=0; [ -x /rtlab/rtlab-toggle-rs ] && HAVE_RS=1
HAVE_KT=0; [ -x /rtlab/rtlab-toggle-kt ] && HAVE_KT=1
echo "@@have rust=$HAVE_RS kotlin=$HAVE_KT"

# 1. Toggled, read back through the uAPI (GET_VALUES on the same request), protocol out.
step toggle_c rtlab-toggle -l 0-1 -n 200 -t --verify $E
step toggle_abs_c rtlab-toggle -l 0 -w abs -i 200000 -n 50 -t $E
[ $HAVE_RS = 1 ] && step toggle_rs rtlab-toggle-rs -l 0-1 -n 200 -t --verify $E
[ $HAVE_RS = 1 ] && step toggle_abs_rs rtlab-toggle-rs -l 0 -w abs -i 200000 -n 50 -t $E
[ $HAVE_KT = 1 ] && step toggle_kt rtlab-toggle-kt -l 0-1 -n 200 -t --verify $E
[ $HAVE_KT = 1 ] && step toggle_abs_kt rtlab-toggle-kt -l 0 -w abs -i 200000 -n 50 -t $E

# 2. Claimed: while one process toggles line 2, a second request gets EBUSY.
hold hold_c rtlab-toggle 2
step busy_c rtlab-toggle -l 2 -n 1
[ $HAVE_RS = 1 ] && step busy_rs rtlab-toggle-rs -l 2 -n 1
[ $HAVE_KT = 1 ] && step busy_kt rtlab-toggle-kt -l 2 -n 1
step busy_events rtlab-gpio-events -l 2 -n 1
# 3. Released on SIGINT: the holder reports status=interrupted, a new request succeeds.
release hold_c INT
step after_sigint_c rtlab-toggle -l 2 -n 2 --verify
if [ $HAVE_RS = 1 ]; then
    hold hold_rs rtlab-toggle-rs 4
    step busy_by_rs rtlab-toggle -l 4 -n 1
    release hold_rs TERM
    step after_sigterm_rs rtlab-toggle-rs -l 4 -n 2 --verify
fi
if [ $HAVE_KT = 1 ]; then
    hold hold_kt rtlab-toggle-kt 5
    step busy_by_kt rtlab-toggle -l 5 -n 1
    release hold_kt TERM
    step after_sigterm_kt rtlab-toggle-kt -l 5 -n 2 --verify
    hold hold_kt_int rtlab-toggle-kt 6
    release hold_kt_int INT
    step after_sigint_kt rtlab-toggle-kt -l 6 -n 2 --verify
fi

# 4. Bad parameters: clear message, non-zero exit.
step range_c rtlab-toggle -l 8
step chip_c rtlab-toggle -c 5
step label_c rtlab-toggle -c no-such-chip
step notchip_c rtlab-toggle -c /dev/null
step perm_c su nobody -c 'PATH=/bin:/rtlab rtlab-toggle -l 0'
step usage_c rtlab-toggle -w sideways
if [ $HAVE_RS = 1 ]; then
    step range_rs rtlab-toggle-rs -l 8
    step chip_rs rtlab-toggle-rs -c 5
    step perm_rs su nobody -c 'PATH=/bin:/rtlab rtlab-toggle-rs -l 0'
    step usage_rs rtlab-toggle-rs -w sideways
fi
if [ $HAVE_KT = 1 ]; then
    step range_kt rtlab-toggle-kt -l 8
    step chip_kt rtlab-toggle-kt -c 5
    step label_kt rtlab-toggle-kt -c no-such-chip
    step notchip_kt rtlab-toggle-kt -c /dev/null
    step perm_kt su nobody -c 'PATH=/bin:/rtlab rtlab-toggle-kt -l 0'
    step usage_kt rtlab-toggle-kt -w sideways
fi
step range_events rtlab-gpio-events -l 9

# 5. Edge events: the host pulses line 3 (QMP system_powerdown) on "ready=1".
step events timeout -s INT 20 rtlab-gpio-events -l 3 -e both -n 2 $E
exit 0
