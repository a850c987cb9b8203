//! rtlab-toggle-rs: the rtlab-toggle workload in Rust, same options, modes, protocol
//! records and exit statuses as the C program (workloads/linux/rtlab-toggle/src/toggle.c;
//! docs/gpio-workloads.md). GPIO through the uAPI v2 by raw ioctls, no crate.

mod proto;
mod sys;

use std::fs::OpenOptions;
use std::io::{self, BufWriter};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::exit;
use std::sync::atomic::{AtomicI32, Ordering};

use proto::Proto;
use sys::*;

const GPIO_EXIT: i32 = 3;
static STOP: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: i32) {
    STOP.store(sig, Ordering::Relaxed);
}

fn die_usage(msg: &str) -> ! {
    eprintln!("rtlab-toggle-rs: {msg}");
    eprintln!(
        "usage: rtlab-toggle-rs [-c CHIP] [-l LINES] [-w fast|busy|abs|usleep] [-i NS] \
         [-n N | -D TIME] [-t] [--verify] [--policy P] [-p PRIO] [-a CPU] [-m]"
    );
    exit(2);
}

fn parse_int(opt: &str, s: &str, lo: i64, hi: i64) -> i64 {
    match s.parse::<i64>() {
        Ok(v) if v >= lo && v <= hi => v,
        _ => die_usage(&format!("{opt}: expected an integer in [{lo}, {hi}], got '{s}'")),
    }
}

fn parse_duration_ns(s: &str) -> Option<i64> {
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let v: f64 = s[..split].parse().ok()?;
    let scale = match &s[split..] {
        "" | "s" => 1e9,
        "ms" => 1e6,
        "us" => 1e3,
        "ns" => 1.0,
        "m" => 60e9,
        _ => return None,
    };
    (v > 0.0).then(|| (v * scale) as i64)
}

fn parse_lines(s: &str) -> Result<Vec<u32>, String> {
    let bad = || format!("lines: expected offsets like 0 or 0,3 or 0-3, got '{s}'");
    let mut out = Vec::new();
    for part in s.split(',') {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.parse::<u32>().map_err(|_| bad())?, b.parse::<u32>().map_err(|_| bad())?),
            None => {
                let a = part.parse::<u32>().map_err(|_| bad())?;
                (a, a)
            }
        };
        if b < a || b > 0xFFFF {
            return Err(bad());
        }
        for v in a..=b {
            if out.contains(&v) {
                return Err(format!("line {v} given twice"));
            }
            out.push(v);
        }
    }
    if out.len() > GPIO_V2_LINES_MAX {
        return Err(format!("at most {GPIO_V2_LINES_MAX} lines per request"));
    }
    Ok(out)
}

struct Chip {
    fd: OwnedFd,
    path: String,
    info: GpiochipInfo,
}

fn open_chip(spec: &str) -> Result<Chip, String> {
    let path = if spec.contains('/') {
        spec.to_string()
    } else if spec.parse::<u32>().is_ok() {
        format!("/dev/gpiochip{spec}")
    } else if spec.starts_with("gpiochip") {
        format!("/dev/{spec}")
    } else {
        // A label: scan the chips.
        let mut found = None;
        if let Ok(rd) = std::fs::read_dir("/dev") {
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                if n.starts_with("gpiochip") {
                    if let Ok(c) = open_chip(&format!("/dev/{n}")) {
                        if cstr(&c.info.label) == spec || cstr(&c.info.name) == spec {
                            found = Some(c);
                            break;
                        }
                    }
                }
            }
        }
        return found.ok_or_else(|| {
            format!(
                "unknown GPIO chip '{spec}': give /dev/gpiochipN, gpiochipN, N or a chip label \
                 (labels: cat /sys/bus/gpio/devices/*/label)"
            )
        });
    };
    let f = OpenOptions::new().read(true).write(true).open(&path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => {
            format!("unknown GPIO chip {path}: no such device (chips: ls /dev/gpiochip*)")
        }
        io::ErrorKind::PermissionDenied => format!(
            "no permission to open {path} ({e}): run as root or give your user access \
             (group of the device, a udev rule)"
        ),
        _ => format!("cannot open GPIO chip {path}: {e}"),
    })?;
    let fd = OwnedFd::from(f);
    let mut info: GpiochipInfo = unsafe { std::mem::zeroed() };
    if unsafe { ioctl(fd.as_raw_fd(), GPIO_GET_CHIPINFO_IOCTL, &mut info) } < 0 {
        let e = io::Error::last_os_error();
        return Err(format!("{path} is not a GPIO character device ({e})"));
    }
    Ok(Chip { fd, path, info })
}

fn request_output(chip: &Chip, offsets: &[u32]) -> Result<OwnedFd, String> {
    for &o in offsets {
        if o >= chip.info.lines {
            return Err(format!(
                "line {o} out of range: {} ({}) has lines 0..{}",
                chip.path,
                cstr(&chip.info.label),
                chip.info.lines.saturating_sub(1)
            ));
        }
    }
    let mut req: LineRequest = unsafe { std::mem::zeroed() };
    req.offsets[..offsets.len()].copy_from_slice(offsets);
    req.consumer[..16].copy_from_slice(b"rtlab-toggle-rs\0");
    req.num_lines = offsets.len() as u32;
    req.config.flags = GPIO_V2_LINE_FLAG_OUTPUT;
    req.config.num_attrs = 1;
    req.config.attrs[0].attr.id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES;
    req.config.attrs[0].attr.value = 0;
    req.config.attrs[0].mask = mask_of(offsets.len());
    if unsafe { ioctl(chip.fd.as_raw_fd(), GPIO_V2_GET_LINE_IOCTL, &mut req) } < 0 {
        let e = io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(16) => {
                // EBUSY: name the holder from the line info.
                for &o in offsets {
                    let mut li: LineInfo = unsafe { std::mem::zeroed() };
                    li.offset = o;
                    let r = unsafe { ioctl(chip.fd.as_raw_fd(), GPIO_V2_GET_LINEINFO_IOCTL, &mut li) };
                    if r == 0 && li.flags & GPIO_V2_LINE_FLAG_USED != 0 {
                        let who = cstr(&li.consumer);
                        return Err(format!(
                            "line {o} of {} busy: held by '{}' (EBUSY)",
                            chip.path,
                            if who.is_empty() { "?".into() } else { who }
                        ));
                    }
                }
                format!("line(s) of {} busy (EBUSY)", chip.path)
            }
            Some(1) | Some(13) => format!("no permission to request lines of {} ({e})", chip.path),
            _ => format!("requesting lines of {} failed: {e}", chip.path),
        });
    }
    Ok(unsafe { OwnedFd::from_raw_fd(req.fd) })
}

fn mask_of(n: usize) -> u64 {
    if n >= 64 { !0 } else { (1u64 << n) - 1 }
}

#[inline(always)]
fn set_values(fd: i32, bits: u64, mask: u64) -> i32 {
    let mut v = LineValues { bits, mask };
    unsafe { ioctl(fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &mut v) }
}

fn get_values(fd: i32, mask: u64) -> Option<u64> {
    let mut v = LineValues { bits: 0, mask };
    (unsafe { ioctl(fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &mut v) } == 0).then_some(v.bits)
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Fast,
    Busy,
    Abs,
    Usleep,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut chip_spec, mut lines_spec) = ("0".to_string(), "0".to_string());
    let (mut mode, mut interval, mut count, mut duration, mut max_samples) = (Mode::Fast, 100_000i64, 0i64, 0i64, 1_000_000i64);
    let (mut timestamps, mut verify, mut mlock, mut binary, mut crc, mut quiet) = (false, false, false, false, false, false);
    let (mut policy, mut priority, mut cpu) = (SCHED_OTHER, -1i64, -1i64);
    let mut metas: Vec<String> = Vec::new();
    let mut i = 0;
    // getopt-like: "-x V", "--long=V" or "--long V".
    while i < args.len() {
        let a = args[i].clone();
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if a.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let takes = matches!(
            name.as_str(),
            "-c" | "--chip" | "-l" | "--lines" | "-w" | "--mode" | "-i" | "--interval" | "-n" | "--count"
                | "-D" | "--duration" | "--max-samples" | "--policy" | "-p" | "--priority" | "-a"
                | "--affinity" | "--meta"
        );
        let val = if takes {
            match inline {
                Some(v) => v,
                None => {
                    i += 1;
                    args.get(i).cloned().unwrap_or_else(|| die_usage(&format!("option {name} needs a value")))
                }
            }
        } else {
            String::new()
        };
        match name.as_str() {
            "-c" | "--chip" => chip_spec = val,
            "-l" | "--lines" => lines_spec = val,
            "-w" | "--mode" => {
                mode = match val.as_str() {
                    "fast" => Mode::Fast,
                    "busy" => Mode::Busy,
                    "abs" | "clock_nanosleep" => Mode::Abs,
                    "usleep" => Mode::Usleep,
                    _ => die_usage(&format!("--mode: fast, busy, abs or usleep, got '{val}'")),
                }
            }
            "-i" | "--interval" => interval = parse_int("-i", &val, 1, 60_000_000_000),
            "-n" | "--count" => count = parse_int("-n", &val, 1, 1 << 40),
            "-D" | "--duration" => {
                duration = parse_duration_ns(&val).unwrap_or_else(|| {
                    die_usage(&format!("-D: expected 2s, 500ms, 100us, 1m or seconds, got '{val}'"))
                })
            }
            "-t" | "--timestamps" => timestamps = true,
            "--max-samples" => max_samples = parse_int("--max-samples", &val, 2, 1 << 28),
            "--verify" => verify = true,
            "--policy" => {
                policy = match val.as_str() {
                    "other" => SCHED_OTHER,
                    "fifo" => SCHED_FIFO,
                    "rr" => SCHED_RR,
                    _ => die_usage(&format!("--policy: other, fifo or rr, got '{val}'")),
                }
            }
            "-p" | "--priority" => priority = parse_int("-p", &val, 0, 99),
            "-a" | "--affinity" => cpu = parse_int("-a", &val, 0, 1023),
            "-m" | "--mlockall" => mlock = true,
            "--meta" => {
                if metas.len() >= 16 || !val.contains('=') || val.starts_with('=') {
                    die_usage("--meta: KEY=VALUE, at most 16");
                }
                metas.push(val)
            }
            "--binary" => binary = true,
            "--crc" => crc = true,
            "-q" | "--quiet" => quiet = true,
            "--help" => {
                println!("see docs/gpio-workloads.md");
                return;
            }
            _ if name.starts_with('-') => die_usage(&format!("unknown option {name}")),
            _ => die_usage(&format!("unexpected argument '{name}'")),
        }
        i += 1;
    }
    if count > 0 && duration > 0 {
        die_usage("give -n or -D, not both");
    }
    if mode == Mode::Usleep && interval < 1000 {
        die_usage("usleep mode: -i must be >= 1000 ns");
    }
    if policy == SCHED_OTHER && priority > 0 {
        die_usage(&format!("-p {priority} needs --policy fifo or rr"));
    }
    if policy != SCHED_OTHER && priority < 0 {
        priority = 80;
    }
    if policy != SCHED_OTHER && priority == 0 {
        die_usage("-p: fifo/rr need a priority in 1..99");
    }
    if count == 0 && duration == 0 {
        count = 1000;
    }
    let offsets = parse_lines(&lines_spec).unwrap_or_else(|e| die_usage(&e));

    let chip = open_chip(&chip_spec).unwrap_or_else(|e| {
        eprintln!("rtlab-toggle-rs: {e}");
        exit(GPIO_EXIT)
    });
    let line = request_output(&chip, &offsets).unwrap_or_else(|e| {
        eprintln!("rtlab-toggle-rs: {e}");
        exit(GPIO_EXIT)
    });
    let lfd = line.as_raw_fd();
    unsafe {
        signal(SIGINT, on_signal as extern "C" fn(i32) as usize);
        signal(SIGTERM, on_signal as extern "C" fn(i32) as usize);
    }
    let mask = mask_of(offsets.len());

    let mut p = Proto::new(BufWriter::new(io::stdout().lock()), crc);
    p.hello("rtlab-toggle-rs", env!("CARGO_PKG_VERSION"));
    if let Ok(rel) = std::fs::read_to_string("/proc/sys/kernel/osrelease") {
        p.meta("kernel", rel.trim());
    }
    p.meta("machine", std::env::consts::ARCH);
    p.meta("api", "gpio-cdev-v2");
    p.meta("language", "rust");
    p.meta("chip", &cstr(&chip.info.name));
    p.meta("chip_label", &cstr(&chip.info.label));
    drop(chip);
    p.meta("lines", &offsets.iter().map(|o| o.to_string()).collect::<Vec<_>>().join(","));
    p.meta("mode", ["fast", "busy", "abs", "usleep"][mode as usize]);
    if mode != Mode::Fast {
        p.meta("interval_ns", &interval.to_string());
    }
    if count > 0 {
        p.meta("count", &count.to_string());
    }
    if duration > 0 {
        p.meta("duration_ns", &duration.to_string());
    }
    p.meta("clock", "monotonic");
    for m in &metas {
        let (k, v) = m.split_once('=').unwrap();
        p.meta(k, v);
    }
    p.meta("policy", ["other", "fifo", "rr"][policy as usize]);
    if policy != SCHED_OTHER {
        p.meta("priority", &priority.to_string());
        let sp = SchedParam { sched_priority: priority as i32 };
        if unsafe { sched_setscheduler(0, policy, &sp) } < 0 {
            let e = io::Error::last_os_error();
            p.warn("sched_fallback", &format!("sched_setscheduler: {e}; running SCHED_OTHER"));
        }
    }
    if cpu >= 0 {
        p.meta("affinity", &cpu.to_string());
        let mut set = [0u64; 16];
        set[(cpu / 64) as usize] |= 1 << (cpu % 64);
        if unsafe { sched_setaffinity(0, 128, set.as_ptr() as *const _) } < 0 {
            let e = io::Error::last_os_error();
            p.warn("affinity_failed", &format!("sched_setaffinity({cpu}): {e}"));
        }
    }
    let cap = if !timestamps { 0 } else if count > 0 { count.min(max_samples) } else { max_samples } as usize;
    let mut ts: Vec<i64> = vec![0; cap]; // zero-filled: the pages are faulted in now
    if mlock {
        p.meta("mlockall", "1");
        if unsafe { mlockall(MCL_CURRENT | MCL_FUTURE) } < 0 {
            let e = io::Error::last_os_error();
            p.warn("mlockall_failed", &format!("mlockall: {e}"));
        }
    }
    p.flush(); // header records out before the loop: a reader sees them even if it hangs

    let (mut writes, mut overruns, mut rb_checks, mut rb_errors, mut n_ts) = (0i64, 0i64, 0i64, 0i64, 0usize);
    let mut failed: Option<io::Error> = None;
    let mut level = 0u64;
    let t0 = now_ns();
    let (mut first, mut last) = (0i64, 0i64);
    let end_at = if duration > 0 { t0 + duration } else { 0 };
    let mut next = t0;
    while STOP.load(Ordering::Relaxed) == 0 {
        if count > 0 && writes >= count {
            break;
        }
        if mode != Mode::Fast {
            next += interval;
            match mode {
                Mode::Busy => while now_ns() < next && STOP.load(Ordering::Relaxed) == 0 {},
                Mode::Abs => {
                    let t = Timespec { tv_sec: (next / 1_000_000_000) as _, tv_nsec: (next % 1_000_000_000) as _ };
                    unsafe { clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, std::ptr::null_mut()) };
                }
                _ => unsafe {
                    usleep((interval / 1000) as u32);
                },
            }
            if STOP.load(Ordering::Relaxed) != 0 {
                break;
            }
        }
        level ^= mask;
        let r = set_values(lfd, level, mask);
        let t = now_ns();
        if r < 0 {
            failed = Some(io::Error::last_os_error());
            break;
        }
        if writes == 0 {
            first = t;
        }
        last = t;
        if n_ts < cap {
            ts[n_ts] = t;
            n_ts += 1;
        }
        writes += 1;
        if verify {
            rb_checks += 1;
            if get_values(lfd, mask).map(|b| b & mask) != Some(level) {
                rb_errors += 1;
            }
        }
        match mode {
            Mode::Abs | Mode::Busy if t - next > interval => {
                overruns += 1; // resynchronise rather than burst to catch up
                next = t;
            }
            Mode::Usleep => next = t,
            _ => {}
        }
        if end_at > 0 && t >= end_at {
            break;
        }
    }
    set_values(lfd, 0, mask); // leave the lines low, then release them
    drop(line);

    if timestamps {
        ts.truncate(n_ts);
        p.series("write_ts", "ns");
        p.samples("write_ts", &ts, binary);
        if n_ts > 2 {
            let per: Vec<i64> = ts.iter().step_by(2).zip(ts.iter().skip(2).step_by(2)).map(|(a, b)| b - a).collect();
            p.series("period", "ns");
            p.samples("period", &per, binary);
        }
        if count == 0 && n_ts == cap && writes as usize > cap {
            p.warn("samples_truncated", "timestamps beyond --max-samples not kept");
        }
    }
    p.counter("writes", writes, "count");
    p.counter("elapsed_ns", if writes > 0 { last - first } else { 0 }, "ns");
    if mode != Mode::Fast {
        p.counter("overruns", overruns, "count");
    }
    if verify {
        p.counter("readback_checks", rb_checks, "count");
        p.counter("readback_errors", rb_errors, "count");
    }
    if !quiet && writes > 1 {
        eprintln!(
            "rtlab-toggle-rs: {writes} writes, {:.1} ns per write{}",
            (last - first) as f64 / (writes - 1) as f64,
            if verify { if rb_errors > 0 { ", READBACK ERRORS" } else { ", read back ok" } } else { "" }
        );
    }
    if let Some(e) = failed {
        let m = format!("GPIO_V2_LINE_SET_VALUES_IOCTL: {e}");
        eprintln!("rtlab-toggle-rs: {m}");
        p.end("error", Some(&m));
        exit(1);
    }
    let sig = STOP.load(Ordering::Relaxed);
    if sig != 0 {
        p.end("interrupted", Some(if sig == SIGTERM { "SIGTERM" } else { "SIGINT" }));
        exit(130);
    }
    p.end("ok", None);
}

