//! rtlab's hot loop: one pass over a channel's edge times that counts every interval,
//! high and low width, period and cycle-to-cycle difference into exact histograms.
//!
//! The contract (rtlab.analysis.kernel holds the numpy twin and the Python side):
//! - `edges`: C-contiguous int64 edge times of one channel, sorted, all in one segment
//!   (the caller splits chunks at capture gaps and resets the state there);
//! - `state`: int64[8], read and written back, so that a chunk boundary can fall
//!   anywhere, inside a pulse too: [level before the next edge (0, 1, -1 unknown),
//!   have_prev, prev edge, have_sel, prev chosen edge, have_period, prev period, mode
//!   (0 rising, 1 falling, 2 both)];
//! - `hists`: five C-contiguous int64 count arrays (interval, high, low, period, c2c);
//!   `bases[m]` is the value counted at hists[m][0]. An interval of known level is
//!   counted once, as a high or low width (the intervals are their union); `interval`
//!   takes only the intervals of unknown level;
//! - a value outside its histogram goes to `overflow` (int64[cap][2]: metric, value).
//!
//! Returns (edges consumed, overflow entries written): the pass stops before an edge
//! when the overflow buffer could not take its (at most four) values; the caller
//! drains the buffer, grows its histograms and calls again from there.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod delta;
mod vcd;

const INTERVAL: usize = 0;
const HIGH: usize = 1;
const LOW: usize = 2;
const PERIOD: usize = 3;
const C2C: usize = 4;

fn slice_of<'a>(buf: &'a PyBuffer<i64>, what: &str) -> PyResult<&'a [i64]> {
    if !buf.is_c_contiguous() {
        return Err(PyValueError::new_err(format!("{what} must be C-contiguous")));
    }
    // SAFETY: a C-contiguous buffer of item_count int64s that outlives the borrow.
    Ok(unsafe { std::slice::from_raw_parts(buf.buf_ptr() as *const i64, buf.item_count()) })
}

fn slice_mut<'a>(buf: &'a PyBuffer<i64>, what: &str) -> PyResult<&'a mut [i64]> {
    if buf.readonly() || !buf.is_c_contiguous() {
        return Err(PyValueError::new_err(format!("{what} must be writable and C-contiguous")));
    }
    // SAFETY: as above, and writable; the caller passes distinct arrays.
    Ok(unsafe { std::slice::from_raw_parts_mut(buf.buf_ptr() as *mut i64, buf.item_count()) })
}

struct Hists<'a> {
    h: [&'a mut [i64]; 5],
    base: [i64; 5],
    over: &'a mut [i64],
    n_over: usize,
}

impl Hists<'_> {
    #[inline(always)]
    fn add(&mut self, m: usize, v: i64) {
        let idx = v.wrapping_sub(self.base[m]) as u64;
        if idx < self.h[m].len() as u64 {
            self.h[m][idx as usize] += 1;
        } else {
            self.over[2 * self.n_over] = m as i64;
            self.over[2 * self.n_over + 1] = v;
            self.n_over += 1;
        }
    }
}

/// The loop of a known level in its steady state: `e` starts at a chosen edge (the
/// level before it is `lvl`, the chosen mode), with a previous edge, chosen edge and
/// period. Each step takes the chosen edge and the one after it: the width before each,
/// the period and its change; no branch depends on the data but the histograms' range.
/// Returns (edges consumed, an even number; prev, prev chosen, prev period).
#[inline(never)]
fn pairs(
    hs: &mut Hists,
    e: &[i64],
    lvl: i64,
    prev: i64,
    prev_sel: i64,
    prev_p: i64,
) -> (usize, (i64, i64, i64)) {
    // width before the chosen edge (level lvl), and before the next one (the other level)
    let (m_a, m_b) = if lvl == 1 { (HIGH, LOW) } else { (LOW, HIGH) };
    let (mut prev, mut prev_sel, mut prev_p) = (prev, prev_sel, prev_p);
    let [_, h_high, h_low, h_per, h_c2c] = &mut hs.h;
    let (wa, wb): (&mut [i64], &mut [i64]) = if m_a == HIGH { (h_high, h_low) } else { (h_low, h_high) };
    let (ba, bb, bp, bc) = (hs.base[m_a], hs.base[m_b], hs.base[PERIOD], hs.base[C2C]);
    let (la, lb, lp, lc) = (wa.len() as u64, wb.len() as u64, h_per.len() as u64, h_c2c.len() as u64);
    let mut k = 0usize;
    while k + 1 < e.len() {
        let (a, b) = (e[k], e[k + 1]);
        let p = a - prev_sel;
        let (ia, ib) = ((a - prev).wrapping_sub(ba) as u64, (b - a).wrapping_sub(bb) as u64);
        let (ip, ic) = (p.wrapping_sub(bp) as u64, (p - prev_p).wrapping_sub(bc) as u64);
        if ia >= la || ib >= lb || ip >= lp || ic >= lc {
            break; // a value outside a histogram: the general loop sets it aside
        }
        wa[ia as usize] += 1;
        wb[ib as usize] += 1;
        h_per[ip as usize] += 1;
        h_c2c[ic as usize] += 1;
        prev_p = p;
        prev_sel = a;
        prev = b;
        k += 2;
    }
    (k, (prev, prev_sel, prev_p))
}

/// Count the intervals of `edges` into the histograms (see the module's contract).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn accumulate(
    py: Python<'_>,
    edges: PyBuffer<i64>,
    start: usize,
    state: PyBuffer<i64>,
    interval: PyBuffer<i64>,
    high: PyBuffer<i64>,
    low: PyBuffer<i64>,
    period: PyBuffer<i64>,
    c2c: PyBuffer<i64>,
    bases: PyBuffer<i64>,
    overflow: PyBuffer<i64>,
) -> PyResult<(usize, usize)> {
    let e = slice_of(&edges, "edges")?;
    let st = slice_mut(&state, "state")?;
    let b = slice_of(&bases, "bases")?;
    if st.len() != 8 || b.len() != 5 {
        return Err(PyValueError::new_err("state must hold 8 values and bases 5"));
    }
    let mut hs = Hists {
        h: [
            slice_mut(&interval, "interval")?,
            slice_mut(&high, "high")?,
            slice_mut(&low, "low")?,
            slice_mut(&period, "period")?,
            slice_mut(&c2c, "c2c")?,
        ],
        base: [b[0], b[1], b[2], b[3], b[4]],
        over: slice_mut(&overflow, "overflow")?,
        n_over: 0,
    };
    let cap = hs.over.len() / 2;
    let (mut lvl, mut have_prev, mut prev) = (st[0], st[1] != 0, st[2]);
    let (mut have_sel, mut prev_sel, mut have_p, mut prev_p) = (st[3] != 0, st[4], st[5] != 0, st[6]);
    let mode = st[7];
    let mut i = start.min(e.len());
    py.allow_threads(|| {
        while i < e.len() {
            if hs.n_over + 4 > cap {
                break;
            }
            if lvl == mode && have_prev && have_sel && have_p {
                // the steady state of a known level: a chosen edge and the one after it
                let (n, state) = pairs(&mut hs, &e[i..], lvl, prev, prev_sel, prev_p);
                i += n;
                (prev, prev_sel, prev_p) = state;
                if n > 0 {
                    continue;
                }
            }
            let t = e[i];
            if have_prev {
                let d = t - prev;
                if lvl == 1 {
                    hs.add(HIGH, d);
                } else if lvl == 0 {
                    hs.add(LOW, d);
                } else {
                    hs.add(INTERVAL, d);
                }
            }
            let chosen = mode == 2 || (lvl >= 0 && lvl == mode);
            if chosen {
                if have_sel {
                    let p = t - prev_sel;
                    hs.add(PERIOD, p);
                    if have_p {
                        hs.add(C2C, p - prev_p);
                    }
                    prev_p = p;
                    have_p = true;
                }
                prev_sel = t;
                have_sel = true;
            }
            prev = t;
            have_prev = true;
            if lvl >= 0 {
                lvl ^= 1;
            }
            i += 1;
        }
    });
    st[0] = lvl;
    st[1] = have_prev as i64;
    st[2] = prev;
    st[3] = have_sel as i64;
    st[4] = prev_sel;
    st[5] = have_p as i64;
    st[6] = prev_p;
    Ok((i, hs.n_over))
}

/// Decode an uncompressed DELTA_BINARY_PACKED int64 column chunk (its pages, from the
/// first page header to the chunk's end) into `out`: (the number of values, whether a
/// value is below the one before it, whether one equals the one before it), or a
/// ValueError naming the byte offset of what is wrong.
#[pyfunction]
fn decode_delta_chunk(
    py: Python<'_>,
    chunk: PyBuffer<u8>,
    nullable: bool,
    out: PyBuffer<i64>,
) -> PyResult<(usize, bool, bool)> {
    if !chunk.is_c_contiguous() {
        return Err(PyValueError::new_err("chunk must be contiguous"));
    }
    // SAFETY: a contiguous byte buffer that outlives the call.
    let data = unsafe { std::slice::from_raw_parts(chunk.buf_ptr() as *const u8, chunk.item_count()) };
    let dest = slice_mut(&out, "out")?;
    py.allow_threads(|| delta::decode_chunk(data, nullable, dest)).map_err(PyValueError::new_err)
}

/// The 1-bit changes of a plain VCD body (native/src/vcd.rs says which bodies):
/// `slots` (256 int32) maps each one-byte id to its output index, -1 (declared, not
/// collected) or -2 (undeclared); returns one (times int64 bytes, levels int8 bytes) per
/// output, or None when the body is not plain.
#[pyfunction]
fn vcd_changes(
    py: Python<'_>,
    body: PyBuffer<u8>,
    slots: Vec<i32>,
    n_out: usize,
) -> PyResult<Option<Vec<(Py<pyo3::types::PyBytes>, Py<pyo3::types::PyBytes>)>>> {
    if !body.is_c_contiguous() || slots.len() != 256 {
        return Err(PyValueError::new_err("body must be contiguous and slots 256 long"));
    }
    // SAFETY: a contiguous byte buffer that outlives the call.
    let data = unsafe { std::slice::from_raw_parts(body.buf_ptr() as *const u8, body.item_count()) };
    let mut table = [-2i32; 256];
    table.copy_from_slice(&slots);
    if table.iter().any(|&s| s >= n_out as i32) {
        return Err(PyValueError::new_err("a slot beyond n_out"));
    }
    let found = py.allow_threads(|| vcd::scan(data, &table, n_out));
    Ok(found.map(|outs| {
        outs.into_iter()
            .map(|(t, l)| {
                let tb: Vec<u8> = t.iter().flat_map(|v| v.to_le_bytes()).collect();
                let lb: Vec<u8> = l.iter().map(|&v| v as u8).collect();
                (pyo3::types::PyBytes::new(py, &tb).unbind(), pyo3::types::PyBytes::new(py, &lb).unbind())
            })
            .collect()
    }))
}

/// A plain VCD body fed block by block (each cut at white space): the edges of every
/// output so far, taken with `take`; `feed` returns False once the body is not plain
/// (the reader then reads the file another way).
#[pyclass]
struct VcdEdges {
    slot: [i32; 256],
    tokens: vcd::Tokens,
    signals: Vec<vcd::Signal>,
    ok: bool,
    collect: bool,
}

#[pymethods]
impl VcdEdges {
    /// `slots` as for vcd_changes; `collect` false keeps no edges (a first pass that
    /// checks the body and finds the initial levels and counts).
    #[new]
    fn new(slots: Vec<i32>, n_out: usize, collect: bool) -> PyResult<Self> {
        if slots.len() != 256 || slots.iter().any(|&s| s >= n_out as i32) {
            return Err(PyValueError::new_err("slots must be 256 long, each below n_out"));
        }
        let mut slot = [-2i32; 256];
        slot.copy_from_slice(&slots);
        let signals = (0..n_out).map(|_| vcd::Signal::new()).collect();
        Ok(VcdEdges { slot, tokens: vcd::Tokens::new(), signals, ok: true, collect })
    }

    fn feed(&mut self, py: Python<'_>, block: PyBuffer<u8>) -> PyResult<bool> {
        if !block.is_c_contiguous() {
            return Err(PyValueError::new_err("block must be contiguous"));
        }
        if !self.ok {
            return Ok(false);
        }
        // SAFETY: a contiguous byte buffer that outlives the call.
        let data = unsafe { std::slice::from_raw_parts(block.buf_ptr() as *const u8, block.item_count()) };
        let (slot, tokens, signals, collect) = (&self.slot, &mut self.tokens, &mut self.signals, self.collect);
        let ok = py.allow_threads(|| {
            tokens.feed(data, slot, |s, t, v| {
                let sig = &mut signals[s];
                sig.change(t, v);
                if !collect {
                    sig.edges.clear();
                }
            })
        });
        self.ok = ok;
        Ok(ok)
    }

    /// The end of the body: False if it is not plain (a vector's id missing).
    fn finish(&mut self) -> bool {
        for sig in self.signals.iter_mut() {
            sig.finish();
            if !self.collect {
                sig.edges.clear();
            }
        }
        self.ok = self.ok && !self.tokens.id_next;
        self.ok
    }

    /// Output k's edges found since the last take (int64 bytes).
    fn take(&mut self, py: Python<'_>, k: usize) -> PyResult<Py<pyo3::types::PyBytes>> {
        let sig = self.signals.get_mut(k).ok_or_else(|| PyValueError::new_err("no such output"))?;
        let bytes: &[u8] = unsafe {
            std::slice::from_raw_parts(sig.edges.as_ptr() as *const u8, sig.edges.len() * 8)
        };
        let out = pyo3::types::PyBytes::new(py, bytes).unbind();
        sig.edges.clear();
        Ok(out)
    }

    /// Per output: (initial level or -2, x/z changes, overridden changes, time of the
    /// first change or -1, time of the last change or -1, edges so far).
    fn figures(&self) -> Vec<(i8, u64, u64, i64, i64, u64)> {
        self.signals
            .iter()
            .map(|s| (s.initial, s.xz, s.overridden, s.first_t, s.last_t, s.n_edges))
            .collect()
    }

    /// The last time stamp of the body so far (-1 before the first).
    fn time(&self) -> i64 {
        self.tokens.time
    }
}

#[pymodule]
fn rtlab_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<VcdEdges>()?;
    m.add_function(wrap_pyfunction!(vcd_changes, m)?)?;
    m.add_function(wrap_pyfunction!(accumulate, m)?)?;
    m.add_function(wrap_pyfunction!(decode_delta_chunk, m)?)?;
    Ok(())
}
