// SPDX-License-Identifier: GPL-2.0-or-later
//! The cycle count of one vCPU, instruction by instruction. QEMU 7.2's plugin API (v1)
//! calls back before each instruction executes and after each memory access, with no
//! register values and no exception callback, so what an instruction did is read from
//! the next one's address:
//!
//! - a direct branch was taken when the next PC is its target (the refill is charged);
//! - an indirect jump (BX, POP/LDM/LDR into PC, ADD/MOV PC) always refills;
//! - any other discontinuity is an exception entry (a non-branch instruction's successor
//!   is not the next address, or the next PC is a vector-table handler);
//! - in a handler, an indirect jump at call depth 0 (BLs and their returns counted) is its
//!   exception return; one that lands on a handler entry is a tail-chain.

use crate::decode::{Class, Insn};
use crate::table::Config;

/// An instruction as translated: where, how long, its class and base cost.
pub struct Desc {
    pub addr: u64,
    pub size: u64,
    pub insn: Insn,
    pub base: u64,
    pub wide: bool,
}

struct Frame {
    calls: u32, // BL depth inside the handler
}

#[derive(Default)]
pub struct Counts {
    pub cycles: u64,
    pub insns: u64,
    pub entries: u64,
    pub returns: u64,
    pub tail_chains: u64,
}

/// `edges`' channel for a read of the guest's counter register.
pub const READ: u8 = 255;

pub struct Vcpu {
    pub counts: Counts,
    pub edges: Vec<(u8, u64)>, // (channel or READ, cycle) in execution order
    prev: Option<&'static Desc>,
    frames: Vec<Frame>,
    last_fetch_word: u64,
    levels: [bool; 4], // the marker channels' levels (low at reset)
    // `trace=`: (address, cycle before it) of every instruction from `trace_from` on
    pub trace: Option<Vec<(u32, u64)>>,
    pub trace_from: Option<u64>,
    pub tbst: TbState, // the fast mode's running block
}

impl Default for Vcpu {
    fn default() -> Self {
        Vcpu { counts: Counts::default(), edges: Vec::new(), prev: None, frames: Vec::new(), last_fetch_word: u64::MAX, levels: [false; 4], trace: None, trace_from: None, tbst: TbState::default() }
    }
}

fn is_direct(c: Class) -> bool {
    matches!(c, Class::Branch | Class::CondBranch | Class::Call)
}

fn is_single_mem(c: Class) -> bool {
    matches!(c, Class::Load | Class::Store)
}

impl Vcpu {
    fn refill(&self, cfg: &Config, cur: &Desc, indirect: bool) -> u64 {
        let mut p = cfg.fast.refill;
        if cur.wide && cur.addr % 4 != 0 {
            p += cfg.fast.refill_wide_unaligned;
        }
        if indirect {
            p += cfg.fast.refill_indirect;
        }
        p
    }

    fn enter(&mut self, cfg: &Config) {
        self.counts.cycles += cfg.fast.exception_entry;
        self.counts.entries += 1;
        self.frames.push(Frame { calls: 0 });
    }

    /// What the previous instruction turned out to do, now that `cur` runs.
    fn settle(&mut self, cfg: &Config, p: &Desc, cur: &Desc) {
        let pc = cur.addr;
        let fall = p.addr + p.size;
        let class = p.insn.class;
        let in_handler = !self.frames.is_empty();
        if is_direct(class) {
            let target = p.insn.target.unwrap_or(fall);
            if pc == target && target != fall {
                self.counts.cycles += self.refill(cfg, cur, false);
                if class == Class::Call {
                    if let Some(f) = self.frames.last_mut() {
                        f.calls += 1;
                    }
                }
            } else if pc != fall {
                self.enter(cfg);
            }
            return;
        }
        if p.insn.writes_pc {
            let ret_like = matches!(class, Class::BranchReg | Class::LoadMulti | Class::LoadPc | Class::AluPc);
            let depth0 = self.frames.last().map(|f| f.calls == 0).unwrap_or(false);
            if in_handler && ret_like && depth0 {
                self.frames.pop();
                self.counts.cycles += self.refill(cfg, cur, true);
                if cfg.handlers.contains(&pc) {
                    self.counts.cycles += cfg.fast.tail_chain;
                    self.counts.tail_chains += 1;
                    self.frames.push(Frame { calls: 0 });
                } else {
                    self.counts.cycles += cfg.fast.exception_return;
                    self.counts.returns += 1;
                }
                return;
            }
            if cfg.handlers.contains(&pc) && class != Class::CallReg {
                self.enter(cfg); // taken just after the jump
                return;
            }
            self.counts.cycles += self.refill(cfg, cur, true);
            if let Some(f) = self.frames.last_mut() {
                if class == Class::CallReg {
                    f.calls += 1;
                } else if ret_like && f.calls > 0 {
                    f.calls -= 1;
                }
            }
            return;
        }
        if pc != fall {
            self.enter(cfg);
        }
    }

    /// Before `cur` executes.
    pub fn exec(&mut self, cfg: &Config, cur: &'static Desc) {
        if let Some(p) = self.prev {
            self.settle(cfg, p, cur);
        }
        if let Some(t) = self.trace.as_mut() {
            if self.trace_from.map_or(true, |a| a == cur.addr) {
                self.trace_from = None;
                t.push((cur.addr as u32, self.counts.cycles));
            }
        }
        let mut cost = cost_after(cfg, self.prev, cur);
        if let Some(r) = cfg.any_wait_states.then(|| cfg.region(cur.addr)).flatten() {
            if r.fetch_ws > 0 {
                // one fetch per 32-bit word not already fetched
                let (w0, w1) = (cur.addr / 4, (cur.addr + cur.size - 1) / 4);
                for w in w0..=w1 {
                    if w != self.last_fetch_word {
                        cost += r.fetch_ws;
                    }
                }
                self.last_fetch_word = w1;
            }
        }
        self.counts.cycles += cost;
        self.counts.insns += 1;
        self.prev = Some(cur);
    }

    /// After a memory access of the current instruction (physical address).
    pub fn mem(&mut self, cfg: &Config, addr: u64, store: bool) {
        if let Some(r) = cfg.any_wait_states.then(|| cfg.region(addr)).flatten() {
            self.counts.cycles += if store { r.write_ws } else { r.read_ws };
        }
        if store {
            if let Some(m) = cfg.marker {
                // word 2ch + 1 sets channel ch, word 2ch clears it: a store that leaves
                // the level as it was is no edge (as on a pin)
                let pc = self.prev.map(|d| d.addr).unwrap_or(0);
                let by_marker_code = cfg.marks(pc);
                if addr >= m && addr < m + 32 && by_marker_code {
                    let word = (addr - m) / 4;
                    let (ch, high) = ((word / 2) as usize, word % 2 == 1);
                    if self.levels[ch] != high {
                        self.levels[ch] = high;
                        self.edges.push((ch as u8, self.counts.cycles));
                    }
                }
            }
        } else if cfg.counter == Some(addr) {
            // the guest read its timestamp counter: the internal clock's reading, in cycles
            self.edges.push((READ, self.counts.cycles));
        }
    }
}

/// A translation block as the fast mode charges it: its instructions' costs summed once at
/// translation (with the pipelining of neighbouring loads and stores inside it), charged
/// when the block starts; what only execution tells (branches taken, exceptions, the
/// pipelining across blocks) is settled from the block's first address, as the exact
/// mode does per instruction.
pub struct TbDesc {
    pub insns: Vec<&'static Desc>,
    pub upto: Vec<u64>, // cost of instructions 0..=i, in this block's context
}

impl TbDesc {
    pub fn new(cfg: &Config, insns: Vec<&'static Desc>) -> TbDesc {
        let mut upto = Vec::with_capacity(insns.len());
        let mut sum = 0;
        for (i, d) in insns.iter().enumerate() {
            let prev = if i > 0 { Some(insns[i - 1]) } else { None };
            sum += cost_after(cfg, prev, d);
            upto.push(sum);
        }
        TbDesc { insns, upto }
    }
}

/// An instruction's cost after `prev` (pipelining), before branches and wait states.
fn cost_after(cfg: &Config, prev: Option<&Desc>, cur: &Desc) -> u64 {
    if let Some(p) = prev {
        // neighbouring single loads/stores pipeline (M3/M4: TRM "Load/store timings"),
        // unless the second's base is the first load's destination
        let hazard = p.insn.class == Class::Load && p.insn.rt == cur.insn.rn;
        if is_single_mem(p.insn.class) && is_single_mem(cur.insn.class) && !hazard {
            return match cur.insn.class {
                Class::Load => cfg.fast.load_pipelined,
                _ => cfg.fast.store_pipelined,
            };
        }
    }
    cur.base
}

/// The fast mode's position: the block charged last, how much of it ran, and the cycle
/// count before its first instruction.
#[derive(Default)]
pub struct TbState {
    tb: Option<&'static TbDesc>,
    ran: usize,     // instructions of `tb` charged
    start: u64,     // cycles before its first instruction (its pipelining included)
}

impl Vcpu {
    /// Before a block runs (fast mode): settle the previous instruction, charge the block.
    pub fn exec_tb(&mut self, cfg: &Config, tb: &'static TbDesc) {
        let mut st = std::mem::take(&mut self.tbst);
        self.charge_tb(cfg, &mut st, tb);
        self.tbst = st;
    }

    /// A memory access in fast mode (see mem_at).
    pub fn mem_tb(&mut self, cfg: &Config, d: &'static Desc, index: Option<usize>, addr: u64, store: bool) {
        let mut st = std::mem::take(&mut self.tbst);
        self.mem_at(cfg, &mut st, d, index, addr, store);
        self.tbst = st;
    }

    fn charge_tb(&mut self, cfg: &Config, st: &mut TbState, tb: &'static TbDesc) {
        let first = tb.insns[0];
        self.uncharge_cut(st, first.addr);
        if let Some(p) = self.prev {
            self.settle(cfg, p, first);
        }
        // the first instruction's cost after the previous block's last
        let adj = cost_after(cfg, self.prev, first) as i64 - cost_after(cfg, None, first) as i64;
        st.start = (self.counts.cycles as i64 + adj) as u64;
        st.tb = Some(tb);
        st.ran = tb.insns.len();
        self.counts.cycles = st.start + tb.upto[st.ran - 1];
        self.counts.insns += st.ran as u64;
        self.prev = Some(tb.insns[st.ran - 1]);
    }

    /// The running block stopped after its instruction k - 1 when the next block starts at
    /// its instruction k, unless its last instruction jumped there: QEMU cut it at an I/O
    /// access (and ran that access alone, without block callbacks). What was charged
    /// beyond the access is taken back. A jump to the middle of its own block from a
    /// memory access's successor is the ambiguous case: the access's lone re-run has a
    /// memory callback (`ambiguous`), which has taken it back already.
    fn uncharge_cut(&mut self, st: &mut TbState, next: u64) {
        let Some(tb) = st.tb else { return };
        if st.ran < 2 {
            return;
        }
        let last = tb.insns[st.ran - 1];
        if next <= tb.insns[0].addr || next > last.addr {
            return; // not inside the block: the common case, decided without a search
        }
        let Some(k) = tb.insns[1..st.ran].iter().position(|d| d.addr == next).map(|k| k + 1) else {
            return;
        };
        let jumped = last.insn.writes_pc || (is_direct(last.insn.class) && last.insn.target == Some(next));
        if !jumped {
            self.cut_after(st, tb, k - 1);
        }
    }

    fn cut_after(&mut self, st: &mut TbState, tb: &'static TbDesc, k: usize) {
        if k + 1 < st.ran {
            self.counts.cycles = st.start + tb.upto[k];
            self.counts.insns -= (st.ran - k - 1) as u64;
            st.ran = k + 1;
            self.prev = Some(tb.insns[k]);
        }
    }

    /// The cycle count just after instruction `i` of the running block.
    fn cycle_after(&self, st: &TbState, i: usize) -> u64 {
        match st.tb {
            Some(tb) if i < st.ran => st.start + tb.upto[i],
            _ => self.counts.cycles,
        }
    }

    /// A memory access in fast mode: `at` is the instruction's index in its block when
    /// the block is the running one, or the instruction itself when it ran alone (QEMU
    /// re-runs an I/O access as a block of its own after cutting the block that reached
    /// it: that block ran only up to it, so what was charged beyond it is taken back).
    fn mem_at(&mut self, cfg: &Config, st: &mut TbState, d: &'static Desc, index: Option<usize>, addr: u64, store: bool) {
        let i = match index {
            Some(i) => i,
            None => {
                let Some(tb) = st.tb else { return };
                let Some(k) = tb.insns[..st.ran].iter().position(|x| std::ptr::eq(*x, d)) else {
                    return; // a one-instruction block of its own
                };
                self.cut_after(st, tb, k);
                k
            }
        };
        let at = self.cycle_after(st, i);
        self.event(cfg, d, addr, store, at);
    }

    /// A marker store or a counter read at cycle `at`.
    fn event(&mut self, cfg: &Config, d: &Desc, addr: u64, store: bool, at: u64) {
        if store {
            if let Some(m) = cfg.marker {
                let by_marker_code = cfg.marks(d.addr);
                if addr >= m && addr < m + 32 && by_marker_code {
                    let word = (addr - m) / 4;
                    let (ch, high) = ((word / 2) as usize, word % 2 == 1);
                    if self.levels[ch] != high {
                        self.levels[ch] = high;
                        self.edges.push((ch as u8, at));
                    }
                }
            }
        } else if cfg.counter == Some(addr) {
            self.edges.push((READ, at));
        }
    }
}
