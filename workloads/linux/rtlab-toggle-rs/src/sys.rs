//! The few libc calls and uAPI v2 structs the toggler needs, declared by hand
//! (layouts from <linux/gpio.h>; the asserts pin the sizes the ioctl numbers encode).

use std::os::raw::{c_int, c_long, c_ulong, c_void};

pub const GPIO_MAX_NAME_SIZE: usize = 32;
pub const GPIO_V2_LINES_MAX: usize = 64;
pub const GPIO_V2_LINE_NUM_ATTRS_MAX: usize = 10;
pub const GPIO_V2_LINE_FLAG_USED: u64 = 1 << 0;
pub const GPIO_V2_LINE_FLAG_OUTPUT: u64 = 1 << 3;
pub const GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES: u32 = 2;

/// The kernel's name fields (`char name[GPIO_MAX_NAME_SIZE]`: chip name and label, line
/// name, consumer), NUL-padded; `cstr` reads one.
pub type Name = [u8; GPIO_MAX_NAME_SIZE];

#[repr(C)]
pub struct GpiochipInfo {
    pub name: Name,
    pub label: Name,
    pub lines: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct LineAttribute {
    pub id: u32,
    pub padding: u32,
    pub value: u64, // union of flags / values / debounce_period_us
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct LineConfigAttribute {
    pub attr: LineAttribute,
    pub mask: u64,
}

#[repr(C)]
pub struct LineConfig {
    pub flags: u64,
    pub num_attrs: u32,
    pub padding: [u32; 5],
    pub attrs: [LineConfigAttribute; GPIO_V2_LINE_NUM_ATTRS_MAX],
}

#[repr(C)]
pub struct LineRequest {
    pub offsets: [u32; GPIO_V2_LINES_MAX],
    pub consumer: Name,
    pub config: LineConfig,
    pub num_lines: u32,
    pub event_buffer_size: u32,
    pub padding: [u32; 5],
    pub fd: i32,
}

#[repr(C)]
pub struct LineValues {
    pub bits: u64,
    pub mask: u64,
}

#[repr(C)]
pub struct LineInfo {
    pub name: Name,
    pub consumer: Name,
    pub offset: u32,
    pub num_attrs: u32,
    pub flags: u64,
    pub attrs: [LineAttribute; GPIO_V2_LINE_NUM_ATTRS_MAX],
    pub padding: [u32; 4],
}

const _: () = assert!(std::mem::size_of::<GpiochipInfo>() == 68);
const _: () = assert!(std::mem::size_of::<LineRequest>() == 592);
const _: () = assert!(std::mem::size_of::<LineValues>() == 16);
const _: () = assert!(std::mem::size_of::<LineInfo>() == 256);

// asm-generic _IOC encoding (arm64, x86-64): dir << 30 | size << 16 | type << 8 | nr.
const fn ioc(dir: c_ulong, nr: c_ulong, size: usize) -> c_ulong {
    (dir << 30) | ((size as c_ulong) << 16) | (0xB4 << 8) | nr
}
pub const GPIO_GET_CHIPINFO_IOCTL: c_ulong = ioc(2, 0x01, std::mem::size_of::<GpiochipInfo>());
pub const GPIO_V2_GET_LINEINFO_IOCTL: c_ulong = ioc(3, 0x05, std::mem::size_of::<LineInfo>());
pub const GPIO_V2_GET_LINE_IOCTL: c_ulong = ioc(3, 0x07, std::mem::size_of::<LineRequest>());
pub const GPIO_V2_LINE_GET_VALUES_IOCTL: c_ulong = ioc(3, 0x0E, 16);
pub const GPIO_V2_LINE_SET_VALUES_IOCTL: c_ulong = ioc(3, 0x0F, 16);

#[repr(C)]
pub struct Timespec {
    pub tv_sec: c_long,
    pub tv_nsec: c_long,
}

#[repr(C)]
pub struct SchedParam {
    pub sched_priority: c_int,
}

pub const CLOCK_MONOTONIC: c_int = 1;
pub const TIMER_ABSTIME: c_int = 1;
pub const SCHED_OTHER: c_int = 0;
pub const SCHED_FIFO: c_int = 1;
pub const SCHED_RR: c_int = 2;
pub const MCL_CURRENT: c_int = 1;
pub const MCL_FUTURE: c_int = 2;
pub const SIGINT: c_int = 2;
pub const SIGTERM: c_int = 15;

extern "C" {
    pub fn ioctl(fd: c_int, req: c_ulong, ...) -> c_int;
    pub fn clock_gettime(clk: c_int, ts: *mut Timespec) -> c_int;
    pub fn clock_nanosleep(clk: c_int, flags: c_int, req: *const Timespec, rem: *mut Timespec) -> c_int;
    pub fn usleep(us: u32) -> c_int;
    pub fn sched_setscheduler(pid: c_int, policy: c_int, p: *const SchedParam) -> c_int;
    pub fn sched_setaffinity(pid: c_int, size: usize, mask: *const c_void) -> c_int;
    pub fn mlockall(flags: c_int) -> c_int;
    pub fn signal(sig: c_int, handler: usize) -> usize;
}

#[inline(always)]
pub fn now_ns() -> i64 {
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { clock_gettime(CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as i64 * 1_000_000_000 + ts.tv_nsec as i64
}

pub fn cstr(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}
