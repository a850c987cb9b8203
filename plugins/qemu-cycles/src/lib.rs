// SPDX-License-Identifier: GPL-2.0-or-later
//! rtlab's cycle-approximate timing plugin for QEMU's Cortex-M machines (TCG plugin API
//! version 1, QEMU 7.2): a cycle count per vCPU from a core's timing table and a
//! board's memory map, and the cycle of every store to the marker words (rtbench's
//! marker pins), written at exit:
//!
//!   qemu-system-arm -icount shift=0 ... \
//!     -plugin librtlab_qemu_cycles.so,core=cores/cm3.toml,board=board.cfg,out=run.cycles
//!
//! The output (text): `cycles N`, `insns N`, `entries N`, `returns N`, `tail_chains N`,
//! then in execution order `edge CH CYCLE` per marker edge (a store to word 2CH + 1 sets
//! channel CH, to word 2CH clears it; a store that keeps the level is none) and
//! `read CYCLE` per load of the guest's counter register (board `counter = addr`).
//!
//! Two modes, the same counts: `fast` (the default) charges each translation block's
//! summed cost once per execution and settles branches and exceptions at block starts;
//! `exact` (`mode=exact`, and whenever a trace or memory wait states need it) calls
//! back per instruction and per memory access.
//!
//! `trace=FILE` (with `trace_from=ADDRESS`: from the first instruction there) also writes
//! vCPU 0's every instruction as 12 little-endian bytes: its address (u32) and the cycle
//! it starts at (u64), for tests and for tracing a figure to the code that made it.

pub mod decode;
pub mod model;
pub mod table;

use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::io::Write;
use std::sync::{Mutex, OnceLock};

use qemu_plugin_sys as sys;

use crate::model::{Desc, TbDesc, Vcpu};
use crate::table::Config;

#[no_mangle]
#[used]
pub static qemu_plugin_version: c_int = sys::QEMU_PLUGIN_VERSION as c_int;

const MAX_VCPUS: usize = 16;

struct Plugin {
    cfg: Config,
    core: String,
    out: String,
    trace: String,
    // per block (fast) or per instruction (exact: a trace, wait states, or `mode=exact`)
    exact: bool,
    // each vCPU's state is touched only by callbacks on that vCPU
    vcpus: Vec<UnsafeCell<Vcpu>>,
    descs: Mutex<HashMap<(u64, u32), &'static Desc>>,
    // fast mode: memory instructions whose lone re-run (an I/O access QEMU cut a block
    // at) cannot be told from a jump back into their block: they get a memory callback
    ambiguous: Mutex<std::collections::HashSet<u64>>,
}

unsafe impl Sync for Plugin {}

static PLUGIN: OnceLock<Plugin> = OnceLock::new();

fn plugin() -> &'static Plugin {
    PLUGIN.get().expect("qemu-cycles: not installed")
}

unsafe fn vcpu(index: c_uint) -> &'static mut Vcpu {
    &mut *plugin().vcpus[index as usize % MAX_VCPUS].get()
}

/// Where a fast-mode memory callback's instruction sits: its block's index, or alone
/// (a one-instruction block: QEMU's re-run of an I/O access, among others).
struct MemSite {
    desc: &'static Desc,
    index: Option<usize>,
}

unsafe extern "C" fn on_tb_exec(index: c_uint, userdata: *mut c_void) {
    let tb = &*(userdata as *const TbDesc);
    vcpu(index).exec_tb(&plugin().cfg, tb);
}

unsafe extern "C" fn on_mem_site(index: c_uint, info: sys::qemu_plugin_meminfo_t, vaddr: u64, userdata: *mut c_void) {
    let site = &*(userdata as *const MemSite);
    let store = sys::qemu_plugin_mem_is_store(info);
    vcpu(index).mem_tb(&plugin().cfg, site.desc, site.index, vaddr, store);
}

unsafe extern "C" fn on_exec(index: c_uint, userdata: *mut c_void) {
    let desc = &*(userdata as *const Desc);
    vcpu(index).exec(&plugin().cfg, desc);
}

// The virtual address: a Cortex-M has no MMU (the MPU does not translate), and QEMU 7.2's
// qemu_plugin_hwaddr_phys_addr adds the RAM block's own offset for RAM beyond the first
// block (an mps2's SSRAM2 at 0x20000000 came out elsewhere).
unsafe extern "C" fn on_mem(index: c_uint, info: sys::qemu_plugin_meminfo_t, vaddr: u64, _u: *mut c_void) {
    vcpu(index).mem(&plugin().cfg, vaddr, sys::qemu_plugin_mem_is_store(info));
}

fn describe(p: &Plugin, addr: u64, bytes: &[u8]) -> &'static Desc {
    let word = bytes.iter().rev().fold(0u32, |w, b| (w << 8) | *b as u32);
    let mut map = p.descs.lock().unwrap();
    map.entry((addr, word)).or_insert_with(|| {
        let insn = decode::decode(addr, bytes);
        let hw1 = u16::from_le_bytes([bytes[0], bytes[1]]);
        let base = p.cfg.base(insn.class, insn.regs, insn.writes_pc);
        Box::leak(Box::new(Desc { addr, size: bytes.len() as u64, insn, base, wide: decode::is_wide(hw1) }))
    })
}

/// The instructions of a block: their descriptions, and QEMU's handle of each.
unsafe fn block(p: &Plugin, tb: *mut sys::qemu_plugin_tb) -> Vec<(*mut sys::qemu_plugin_insn, &'static Desc)> {
    let mut out = Vec::new();
    for i in 0..sys::qemu_plugin_tb_n_insns(tb) {
        let insn = sys::qemu_plugin_tb_get_insn(tb, i);
        let size = sys::qemu_plugin_insn_size(insn);
        let data = std::slice::from_raw_parts(sys::qemu_plugin_insn_data(insn) as *const u8, size.min(4));
        if data.len() < 2 {
            continue;
        }
        // The instruction's own length from its first halfword: QEMU 7.2 appends the next
        // halfword to an instruction in the last 4 bytes of a (1 KiB) page, from the
        // translator's read that checks whether the next one crosses the page.
        let own = if decode::is_wide(u16::from_le_bytes([data[0], data[1]])) { 4 } else { 2 };
        let data = &data[..own.min(data.len())];
        out.push((insn, describe(p, sys::qemu_plugin_insn_vaddr(insn), data)));
    }
    out
}

unsafe extern "C" fn on_translate(_id: sys::qemu_plugin_id_t, tb: *mut sys::qemu_plugin_tb) {
    let p = plugin();
    let insns = block(p, tb);
    if insns.is_empty() {
        return;
    }
    if p.exact {
        for (insn, desc) in insns {
            sys::qemu_plugin_register_vcpu_insn_exec_cb(
                insn,
                Some(on_exec),
                sys::qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
                desc as *const Desc as *mut c_void,
            );
            if !desc.insn.accesses_memory() {
                continue; // no memory callback to instrument
            }
            sys::qemu_plugin_register_vcpu_mem_cb(
                insn,
                Some(on_mem),
                sys::qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
                sys::qemu_plugin_mem_rw::QEMU_PLUGIN_MEM_RW,
                std::ptr::null_mut(),
            );
        }
        return;
    }
    // Fast: one callback per block; memory callbacks only where an access's cycle or
    // its block's length needs one: the marker function's stores (edges), the counter
    // function's loads (the guest's timestamps), and a memory instruction run alone
    // (QEMU's re-run of an I/O access after cutting its block) where the cut cannot be
    // told from the next block's address (Vcpu::uncharge_cut), or may be followed by an
    // exception (a store).
    let alone = insns.len() == 1;
    let descs: Vec<&'static Desc> = insns.iter().map(|(_, d)| *d).collect();
    if !alone {
        note_ambiguous(p, &descs);
    }
    let tbd: &'static TbDesc = Box::leak(Box::new(TbDesc::new(&p.cfg, descs)));
    sys::qemu_plugin_register_vcpu_tb_exec_cb(
        tb,
        Some(on_tb_exec),
        sys::qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
        tbd as *const TbDesc as *mut c_void,
    );
    let within = |r: Option<(u64, u64)>, a: u64| r.map(|(s, e)| a >= s && a < e);
    for (i, (insn, desc)) in insns.into_iter().enumerate() {
        if !desc.insn.accesses_memory() {
            continue;
        }
        // a store run alone: an I/O write, which may pend an exception taken before the
        // rest of its block (the next block is then the handler, which says nothing of
        // where its block was cut)
        let wanted = p.cfg.marks(desc.addr)
            || within(p.cfg.counter_code, desc.addr).unwrap_or(alone)
            || (alone && desc.insn.may_store())
            || (alone && p.ambiguous.lock().unwrap().contains(&desc.addr));
        if !wanted {
            continue;
        }
        let site: &'static MemSite = Box::leak(Box::new(MemSite { desc, index: if alone { None } else { Some(i) } }));
        sys::qemu_plugin_register_vcpu_mem_cb(
            insn,
            Some(on_mem_site),
            sys::qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
            sys::qemu_plugin_mem_rw::QEMU_PLUGIN_MEM_RW,
            site as *const MemSite as *mut c_void,
        );
    }
}

/// A block whose last instruction may jump into its own middle: the memory instructions
/// just before each place it may land (every one, for a jump known only at run time).
fn note_ambiguous(p: &Plugin, descs: &[&'static Desc]) {
    let last = descs[descs.len() - 1];
    let mut set = p.ambiguous.lock().unwrap();
    for j in 1..descs.len() {
        let lands = last.insn.writes_pc || last.insn.target == Some(descs[j].addr);
        if lands && descs[j - 1].insn.accesses_memory() {
            set.insert(descs[j - 1].addr);
        }
    }
}

fn write_trace(p: &Plugin) -> std::io::Result<()> {
    let v = unsafe { &*p.vcpus[0].get() };
    let mut f = std::io::BufWriter::new(std::fs::File::create(&p.trace)?);
    for (pc, cyc) in v.trace.iter().flatten() {
        f.write_all(&pc.to_le_bytes())?;
        f.write_all(&cyc.to_le_bytes())?;
    }
    f.flush()
}

fn write_out(p: &Plugin) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(&p.out)?);
    writeln!(f, "# rtlab qemu-cycles 1")?;
    writeln!(f, "core {}", p.core)?;
    for (i, cell) in p.vcpus.iter().enumerate() {
        let v = unsafe { &*cell.get() };
        if v.counts.insns == 0 {
            continue;
        }
        let c = &v.counts;
        writeln!(f, "vcpu {i}")?;
        writeln!(f, "cycles {}", c.cycles)?;
        writeln!(f, "insns {}", c.insns)?;
        writeln!(f, "entries {}", c.entries)?;
        writeln!(f, "returns {}", c.returns)?;
        writeln!(f, "tail_chains {}", c.tail_chains)?;
        for (ch, cyc) in &v.edges {
            if *ch == model::READ {
                writeln!(f, "read {cyc}")?;
            } else {
                writeln!(f, "edge {ch} {cyc}")?;
            }
        }
    }
    f.flush()
}

unsafe extern "C" fn on_exit(_id: sys::qemu_plugin_id_t, _u: *mut c_void) {
    let p = plugin();
    if let Err(e) = write_out(p) {
        eprintln!("qemu-cycles: {}: {e}", p.out);
    }
    if !p.trace.is_empty() {
        if let Err(e) = write_trace(p) {
            eprintln!("qemu-cycles: {}: {e}", p.trace);
        }
    }
}

fn install(args: &[String]) -> Result<Plugin, String> {
    let mut cfg = Config::default();
    let (mut core, mut out, mut trace) = (String::new(), String::new(), String::new());
    let mut trace_from = None;
    let mut force_exact = false;
    for a in args {
        let (k, v) = a.split_once('=').ok_or(format!("argument {a:?}: expected key=value"))?;
        match k {
            "core" | "board" => {
                let text = std::fs::read_to_string(v).map_err(|e| format!("{v}: {e}"))?;
                cfg.read(v, &text)?;
                if k == "core" {
                    core = v.to_string();
                }
            }
            "out" => out = v.to_string(),
            "trace" => trace = v.to_string(),
            "mode" => match v {
                "exact" => force_exact = true,
                "fast" => {}
                _ => return Err(format!("mode={v:?}: expected fast or exact")),
            },
            "trace_from" => trace_from = Some(table::int(v, "trace_from")? & !1),
            _ => return Err(format!("unknown argument {k:?} (core=, board=, out=, trace=, trace_from=, mode=)")),
        }
    }
    if core.is_empty() || out.is_empty() {
        return Err("needs core=<timing table> and out=<file> (board= optional)".into());
    }
    cfg.check_core(&core)?;
    let vcpus: Vec<UnsafeCell<Vcpu>> = (0..MAX_VCPUS).map(|_| UnsafeCell::new(Vcpu::default())).collect();
    if !trace.is_empty() {
        let v0 = unsafe { &mut *vcpus[0].get() };
        v0.trace = Some(Vec::new());
        v0.trace_from = trace_from;
    }
    // per instruction where a block's sum cannot serve: a trace, memory wait states
    let exact = force_exact || !trace.is_empty() || cfg.any_wait_states;
    Ok(Plugin {
        cfg,
        core,
        out,
        trace,
        exact,
        vcpus,
        descs: Mutex::new(HashMap::new()),
        ambiguous: Mutex::new(std::collections::HashSet::new()),
    })
}

/// # Safety
/// Called by QEMU with its own argument vector.
#[no_mangle]
pub unsafe extern "C" fn qemu_plugin_install(
    id: sys::qemu_plugin_id_t,
    _info: *const sys::qemu_info_t,
    argc: c_int,
    argv: *mut *mut c_char,
) -> c_int {
    let args: Vec<String> = (0..argc as usize)
        .map(|i| CStr::from_ptr(*argv.add(i)).to_string_lossy().into_owned())
        .collect();
    match install(&args) {
        Ok(p) => {
            if PLUGIN.set(p).is_err() {
                eprintln!("qemu-cycles: loaded twice");
                return -1;
            }
            sys::qemu_plugin_register_vcpu_tb_trans_cb(id, Some(on_translate));
            sys::qemu_plugin_register_atexit_cb(id, Some(on_exit), std::ptr::null_mut());
            0
        }
        Err(e) => {
            eprintln!("qemu-cycles: {e}");
            -1
        }
    }
}
