//! The body of a plain VCD file in one pass: the fast path of rtlab's VCD reader
//! (src/rtlab/formats/vcd/scanner.py states what it reads). Accepted: `#<1-18 digits>`
//! times that never go backwards, 1-bit changes `<value><id>` with a one-byte declared id,
//! vector values `b<bits> <id>` (skipped, but a one-bit value on a collected 1-bit
//! variable, `b1 !`, is a change of it as `1!` is), and the commands `$dumpvars`,
//! `$dumpall`, `$end`. Anything else returns None/false and the numpy scanner (then
//! pywellen) decides: so does a vector value of several bits on a collected 1-bit variable.
//!
//! The tokenizer keeps its state (the time in force, a vector's id to come) between
//! calls, so a body can be fed in blocks cut at white space: `Edges` turns the changes
//! into edges block by block (src/rtlab/formats/vcd/stream.py).

const fn table(chars: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < chars.len() {
        t[chars[i] as usize] = true;
        i += 1;
    }
    t
}

const SPACE: [bool; 256] = table(b" \t\n\r\x0b\x0c");
const SCALAR: [bool; 256] = table(b"01xXzZuUwWlLhH-");
const VECTOR_ID_BAD: [bool; 256] = table(b"bBrRsS");

/// Level of a scalar value: 0, 1, or -1 (x, z, u, w, -).
fn level(c: u8) -> i8 {
    match c {
        b'0' | b'l' | b'L' => 0,
        b'1' | b'h' | b'H' => 1,
        _ => -1,
    }
}

/// The tokenizer's state between blocks.
pub struct Tokens {
    pub time: i64,
    pub id_next: bool,
    /// the level of the vector value whose id comes next, or VECTOR_WIDE when it has
    /// several bits (a change of a multi-bit variable, not of a collected 1-bit one)
    vec_level: i8,
}

const VECTOR_WIDE: i8 = -3;

impl Tokens {
    pub fn new() -> Self {
        Tokens { time: -1, id_next: false, vec_level: VECTOR_WIDE }
    }

    /// Feed one block (cut at white space); `change(slot, time, level)` for every
    /// 1-bit change of a collected id. False when the block is not plain.
    pub fn feed<F: FnMut(usize, i64, i8)>(&mut self, body: &[u8], slot: &[i32; 256], mut change: F) -> bool {
        let n = body.len();
        let mut i = 0usize;
        while i < n {
            if SPACE[body[i] as usize] {
                i += 1;
                continue;
            }
            let start = i;
            while i < n && !SPACE[body[i] as usize] {
                i += 1;
            }
            let tok = &body[start..i];
            let c = tok[0];
            if self.id_next {
                // the id of a vector value: one declared byte, never one that reads as a value
                if tok.len() != 1 || slot[c as usize] == -2 || VECTOR_ID_BAD[c as usize] {
                    return false;
                }
                let s = slot[c as usize];
                if s >= 0 {
                    // a collected 1-bit variable written as a vector (`b1 !`)
                    if self.vec_level == VECTOR_WIDE || self.time < 0 {
                        return false;
                    }
                    change(s as usize, self.time, self.vec_level);
                }
                self.id_next = false;
            } else if SCALAR[c as usize] {
                if tok.len() != 2 {
                    return false;
                }
                let s = slot[tok[1] as usize];
                if s == -2 || self.time < 0 {
                    return false;
                }
                if s >= 0 {
                    change(s as usize, self.time, level(c));
                }
            } else if c == b'#' {
                let digits = &tok[1..];
                if digits.is_empty() || digits.len() > 18 {
                    return false;
                }
                let mut v: i64 = 0;
                for &d in digits {
                    if !d.is_ascii_digit() {
                        return false;
                    }
                    v = v * 10 + (d - b'0') as i64;
                }
                if v < self.time {
                    return false;
                }
                self.time = v;
            } else if c == b'b' || c == b'B' {
                if tok.len() < 2 || !tok[1..].iter().all(|&b| SCALAR[b as usize]) {
                    return false;
                }
                self.vec_level = if tok.len() == 2 { level(tok[1]) } else { VECTOR_WIDE };
                self.id_next = true;
            } else if c == b'$' {
                if tok != b"$dumpvars" && tok != b"$dumpall" && tok != b"$end" {
                    return false;
                }
            } else {
                return false;
            }
        }
        true
    }
}

/// Per wanted id (slot[id] = index into the outputs, or -1 for a declared id that is not
/// collected, or -2 for an undeclared one): the times and levels of its changes.
pub fn scan(body: &[u8], slot: &[i32; 256], n_out: usize) -> Option<Vec<(Vec<i64>, Vec<i8>)>> {
    let mut out: Vec<(Vec<i64>, Vec<i8>)> = (0..n_out).map(|_| (Vec::new(), Vec::new())).collect();
    let mut tokens = Tokens::new();
    let ok = tokens.feed(body, slot, |s, t, v| {
        out[s].0.push(t);
        out[s].1.push(v);
    });
    if !ok || tokens.id_next {
        return None;
    }
    Some(out)
}

pub const NO_LEVEL: i8 = -2;

/// One signal's changes becoming edges (the rule of reader.py's _to_edges without
/// pauses): of several changes at one time the last wins (the others are counted as
/// overridden); x/z (-1) holds the level (counted); the first known level is the
/// initial level; an edge is a known level that differs from the one before.
pub struct Signal {
    pub initial: i8,
    level: i8,
    pend: Option<(i64, i8)>,
    pub xz: u64,
    pub overridden: u64,
    pub first_t: i64,
    pub last_t: i64,
    pub n_edges: u64,
    pub edges: Vec<i64>,
}

impl Signal {
    pub fn new() -> Self {
        Signal { initial: NO_LEVEL, level: NO_LEVEL, pend: None, xz: 0, overridden: 0,
                 first_t: -1, last_t: -1, n_edges: 0, edges: Vec::new() }
    }

    #[inline]
    pub fn change(&mut self, t: i64, v: i8) {
        if self.first_t < 0 {
            self.first_t = t;
        }
        self.last_t = t;
        match self.pend {
            Some((pt, _)) if pt == t => {
                self.overridden += 1;
                self.pend = Some((t, v));
            }
            Some((pt, pv)) => {
                self.settle(pt, pv);
                self.pend = Some((t, v));
            }
            None => self.pend = Some((t, v)),
        }
    }

    fn settle(&mut self, t: i64, v: i8) {
        if v < 0 {
            self.xz += 1;
        } else if self.level == NO_LEVEL {
            self.initial = v;
            self.level = v;
        } else if v != self.level {
            self.edges.push(t);
            self.n_edges += 1;
            self.level = v;
        }
    }

    /// The end of the body: the last time step's value settles.
    pub fn finish(&mut self) {
        if let Some((t, v)) = self.pend.take() {
            self.settle(t, v);
        }
    }
}
