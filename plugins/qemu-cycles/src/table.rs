// SPDX-License-Identifier: GPL-2.0-or-later
//! A core's timing table (cores/<core>.toml: flat `key = integer` lines, each with the
//! TRM row it comes from in a comment) and a board's memory map (regions with their
//! wait states, exception handler entries, the marker words), both in one small syntax:
//! `key = value` per line, `#` comments, `[sections]` and string values ignored.

use std::collections::HashMap;

use crate::decode::Class;

#[derive(Clone, Copy, Debug)]
pub struct Region {
    pub start: u64,
    pub end: u64,
    pub read_ws: u64,
    pub write_ws: u64,
    pub fetch_ws: u64,
}

/// The costs the per-instruction path reads, looked up once (a map lookup per executed
/// instruction was most of the plugin's own time).
#[derive(Debug, Default, Clone, Copy)]
pub struct Fast {
    pub refill: u64,
    pub refill_wide_unaligned: u64,
    pub refill_indirect: u64,
    pub exception_entry: u64,
    pub exception_return: u64,
    pub tail_chain: u64,
    pub load_pipelined: u64,
    pub store_pipelined: u64,
}

/// The vector table's handler entries, sorted: looked up on every indirect jump.
#[derive(Debug, Default)]
pub struct Handlers(Vec<u64>);

impl Handlers {
    pub fn insert(&mut self, a: u64) {
        if let Err(i) = self.0.binary_search(&a) {
            self.0.insert(i, a);
        }
    }

    pub fn contains(&self, a: &u64) -> bool {
        self.0.binary_search(a).is_ok()
    }
}

#[derive(Debug, Default)]
pub struct Config {
    pub costs: HashMap<String, u64>,
    pub fast: Fast,
    pub any_wait_states: bool,
    pub regions: Vec<Region>,
    pub handlers: Handlers,
    pub marker: Option<u64>,
    pub counter: Option<u64>, // the register the guest's timestamps read
    // the marker function's code: stores from elsewhere (start-up zeroing) are no edges
    pub marker_code: Vec<(u64, u64)>, // one line each (empty: any code's stores)
    // the function that reads the counter: the only loads whose cycle the fast mode needs
    pub counter_code: Option<(u64, u64)>,
}

pub fn int(text: &str, where_: &str) -> Result<u64, String> {
    let t = text.trim().replace('_', "");
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else {
        t.parse::<u64>()
    };
    v.map_err(|_| format!("{where_}: {text:?} is not an integer"))
}

impl Config {
    /// Adds one file's lines; `name` names the file in errors.
    pub fn read(&mut self, name: &str, text: &str) -> Result<(), String> {
        for (i, raw) in text.lines().enumerate() {
            let where_ = format!("{name}:{}", i + 1);
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() || line.starts_with('[') {
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(format!("{where_}: expected key = value"));
            };
            let (key, value) = (key.trim(), value.trim());
            if value.starts_with('"') {
                continue; // names and labels: for the readers of the file
            }
            match key {
                "region" => {
                    let f: Vec<&str> = value.split_whitespace().collect();
                    if f.len() != 5 {
                        return Err(format!("{where_}: region = start end read_ws write_ws fetch_ws"));
                    }
                    let n: Result<Vec<u64>, String> = f.iter().map(|s| int(s, &where_)).collect();
                    let n = n?;
                    self.regions.push(Region { start: n[0], end: n[1], read_ws: n[2], write_ws: n[3], fetch_ws: n[4] });
                }
                "handler" => {
                    self.handlers.insert(int(value, &where_)? & !1);
                }
                "marker" => self.marker = Some(int(value, &where_)?),
                "counter" => self.counter = Some(int(value, &where_)?),
                "marker_code" | "counter_code" => {
                    let f: Vec<&str> = value.split_whitespace().collect();
                    if f.len() != 2 {
                        return Err(format!("{where_}: {key} = start end"));
                    }
                    let range = (int(f[0], &where_)? & !1, int(f[1], &where_)? & !1);
                    if key == "marker_code" {
                        self.marker_code.push(range);
                    } else {
                        self.counter_code = Some(range);
                    }
                }
                _ => {
                    self.costs.insert(key.to_string(), int(value, &where_)?);
                }
            }
        }
        Ok(())
    }

    pub fn cost(&self, key: &str) -> u64 {
        self.costs.get(key).copied().unwrap_or(0)
    }

    /// Whether a store at `pc` may be a marker edge: from the marker code (any code when
    /// the board names none).
    pub fn marks(&self, pc: u64) -> bool {
        self.marker_code.is_empty() || self.marker_code.iter().any(|(a, b)| pc >= *a && pc < *b)
    }

    pub fn region(&self, addr: u64) -> Option<&Region> {
        self.regions.iter().find(|r| addr >= r.start && addr < r.end)
    }

    /// What every key of a complete core table must name (the plugin refuses a table
    /// without one, so a typo cannot silently cost 0 cycles).
    pub fn check_core(&mut self, name: &str) -> Result<(), String> {
        for key in REQUIRED {
            if !self.costs.contains_key(*key) {
                return Err(format!("{name}: no `{key}` in the timing table"));
            }
        }
        self.fast = Fast {
            refill: self.cost("refill"),
            refill_wide_unaligned: self.cost("refill_wide_unaligned"),
            refill_indirect: self.cost("refill_indirect"),
            exception_entry: self.cost("exception_entry"),
            exception_return: self.cost("exception_return"),
            tail_chain: self.cost("tail_chain"),
            load_pipelined: self.cost("load_pipelined"),
            store_pipelined: self.cost("store_pipelined"),
        };
        self.any_wait_states =
            self.regions.iter().any(|r| r.read_ws + r.write_ws + r.fetch_ws > 0);
        Ok(())
    }

    /// An instruction's cost before its branch (if taken) and memory wait states.
    pub fn base(&self, class: Class, regs: u32, pc_in_list: bool) -> u64 {
        let n = regs as u64;
        match class {
            Class::Alu | Class::AluPc | Class::Other => self.cost("alu"),
            Class::Mul => self.cost("mul"),
            Class::Mla => self.cost("mla"),
            Class::MulLong => self.cost("mul_long"),
            Class::MulLongAcc => self.cost("mul_long_acc"),
            Class::Div => self.cost("div"),
            Class::Load | Class::LoadPc => self.cost("load"),
            Class::Store => self.cost("store"),
            Class::LoadDouble => self.cost("load_double"),
            Class::StoreDouble => self.cost("store_double"),
            Class::LoadMulti => {
                self.cost("multi") + self.cost("multi_per_reg") * n + if pc_in_list { self.cost("multi_pc") } else { 0 }
            }
            Class::StoreMulti => self.cost("multi") + self.cost("multi_per_reg") * n,
            Class::Branch | Class::CondBranch => self.cost("branch"),
            Class::Call => self.cost("call"),
            Class::BranchReg | Class::CallReg => self.cost("branch_reg"),
            Class::TableBranch => self.cost("table_branch"),
            Class::Msr => self.cost("msr"),
            Class::Mrs => self.cost("mrs"),
            Class::Barrier => self.cost("barrier"),
            Class::Cps => self.cost("cps"),
            Class::Svc => self.cost("svc"),
            Class::Sleep => self.cost("sleep"),
            Class::Nop => self.cost("nop"),
            Class::It => self.cost("it"),
            Class::Fp => self.cost("fp"),
            Class::FpDiv => self.cost("fp_div"),
            Class::FpLoad => self.cost("fp_load"),
            Class::FpStore => self.cost("fp_store"),
            Class::FpMulti => self.cost("multi") + self.cost("multi_per_reg") * n,
        }
    }
}

pub const REQUIRED: &[&str] = &[
    "alu", "mul", "mla", "mul_long", "mul_long_acc", "div", "load", "store", "load_pipelined",
    "store_pipelined", "load_double", "store_double", "multi", "multi_per_reg", "multi_pc",
    "branch", "call", "branch_reg", "table_branch", "refill", "refill_wide_unaligned",
    "refill_indirect", "msr", "mrs", "barrier", "cps", "svc", "sleep", "nop", "it", "fp",
    "fp_div", "fp_load", "fp_store", "exception_entry", "exception_return", "tail_chain",
];
