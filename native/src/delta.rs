//! Decoding one uncompressed Parquet column chunk of DELTA_BINARY_PACKED int64 values
//! (rtlab's native format stores its edge times so, docs/formats.md): page headers in
//! Thrift's compact protocol, definition levels skipped (no value may be null), the
//! values decoded into a caller's int64 buffer. Every read is bounds-checked: a corrupt
//! file gives an error naming the byte offset within the chunk, never a crash.

pub struct Reader<'a> {
    pub buf: &'a [u8],
    pub pos: usize,
}

pub type Res<T> = Result<T, String>;

impl<'a> Reader<'a> {
    fn err<T>(&self, what: &str) -> Res<T> {
        Err(format!("{what} at byte {} of the column chunk", self.pos))
    }

    fn byte(&mut self) -> Res<u8> {
        match self.buf.get(self.pos) {
            Some(b) => {
                self.pos += 1;
                Ok(*b)
            }
            None => self.err("unexpected end of data"),
        }
    }

    fn uleb(&mut self) -> Res<u64> {
        let mut out: u64 = 0;
        let mut shift = 0;
        loop {
            let b = self.byte()?;
            if shift >= 64 {
                return self.err("varint too long");
            }
            out |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(out);
            }
            shift += 7;
        }
    }

    fn zigzag(&mut self) -> Res<i64> {
        let v = self.uleb()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn skip(&mut self, n: usize) -> Res<()> {
        if n > self.buf.len() - self.pos {
            return self.err("a length runs past the end");
        }
        self.pos += n;
        Ok(())
    }

    /// Skip one compact-protocol value of type `t`.
    fn skip_value(&mut self, t: u8, depth: u32) -> Res<()> {
        if depth > 32 {
            return self.err("thrift nesting too deep");
        }
        match t {
            1 | 2 => Ok(()),                      // bool true/false (in the type nibble)
            3 => self.skip(1),                    // byte
            4..=6 => self.uleb().map(|_| ()),     // i16, i32, i64 (varints)
            7 => self.skip(8),                    // double
            8 => {
                let n = self.uleb()? as usize; // binary
                self.skip(n)
            }
            9 | 10 => {
                // list, set
                let h = self.byte()?;
                let n = if h >> 4 == 15 { self.uleb()? as usize } else { (h >> 4) as usize };
                for _ in 0..n {
                    self.skip_value(h & 15, depth + 1)?;
                }
                Ok(())
            }
            12 => self.skip_struct(depth + 1),
            _ => self.err("unknown thrift type"),
        }
    }

    fn skip_struct(&mut self, depth: u32) -> Res<()> {
        let mut fields = Fields::default();
        while let Some((_, t)) = fields.next(self)? {
            self.skip_value(t, depth)?;
        }
        Ok(())
    }
}

/// Field headers of one compact-protocol struct: (field id, type) until the stop byte.
#[derive(Default)]
struct Fields {
    last: i16,
}

impl Fields {
    fn next(&mut self, r: &mut Reader) -> Res<Option<(i16, u8)>> {
        let h = r.byte()?;
        if h == 0 {
            return Ok(None);
        }
        let t = h & 15;
        let delta = (h >> 4) as i16;
        self.last = if delta != 0 { self.last + delta } else { r.zigzag()? as i16 };
        Ok(Some((self.last, t)))
    }
}

#[derive(Default)]
struct PageHeader {
    kind: i64,
    compressed: usize,
    uncompressed: usize,
    num_values: i64,
    encoding: i64,
    // data page v2 only
    num_nulls: i64,
    levels_len: usize,
}

fn read_i(r: &mut Reader, t: u8) -> Res<i64> {
    if !(4..=6).contains(&t) {
        return r.err("expected an integer field");
    }
    r.zigzag()
}

fn page_header(r: &mut Reader) -> Res<PageHeader> {
    let mut h = PageHeader::default();
    let mut f = Fields::default();
    while let Some((id, t)) = f.next(r)? {
        match (id, t) {
            (1, _) => h.kind = read_i(r, t)?,
            (2, _) => h.uncompressed = read_i(r, t)?.max(0) as usize,
            (3, _) => h.compressed = read_i(r, t)?.max(0) as usize,
            (5, 12) | (8, 12) => {
                let v2 = id == 8;
                let mut g = Fields::default();
                while let Some((sid, st)) = g.next(r)? {
                    match (v2, sid) {
                        (_, 1) => h.num_values = read_i(r, st)?,
                        (false, 2) | (true, 4) => h.encoding = read_i(r, st)?,
                        (true, 2) => h.num_nulls = read_i(r, st)?,
                        (true, 5) | (true, 6) => h.levels_len += read_i(r, st)?.max(0) as usize,
                        _ => r.skip_value(st, 1)?,
                    }
                }
            }
            _ => r.skip_value(t, 0)?,
        }
    }
    Ok(h)
}

const DATA_PAGE: i64 = 0;
const DATA_PAGE_V2: i64 = 3;
const DELTA_BINARY_PACKED: i64 = 5;

/// Decode every page of a column chunk into `out`; returns the number of values.
/// `nullable`: a v1 page starts with RLE definition levels (4-byte length first).
/// Returns (values, a value below the one before it?, a value equal to the one before?).
pub fn decode_chunk(buf: &[u8], nullable: bool, out: &mut [i64]) -> Res<(usize, bool, bool)> {
    let mut r = Reader { buf, pos: 0 };
    let mut n = 0usize;
    let mut flags = (false, false);
    while r.pos < buf.len() {
        let h = page_header(&mut r)?;
        let start = r.pos;
        if h.compressed != h.uncompressed {
            return r.err("a compressed page (rtlab writes none)");
        }
        r.skip(h.compressed)?;
        let page = &buf[start..start + h.compressed];
        let body = match h.kind {
            DATA_PAGE => {
                if nullable {
                    if page.len() < 4 {
                        return Err(format!("page at byte {start}: no definition levels"));
                    }
                    let len = u32::from_le_bytes([page[0], page[1], page[2], page[3]]) as usize;
                    page.get(4 + len..).ok_or(format!("page at byte {start}: levels too long"))?
                } else {
                    page
                }
            }
            DATA_PAGE_V2 => {
                if h.num_nulls != 0 {
                    return Err(format!("page at byte {start}: null edge times"));
                }
                page.get(h.levels_len..).ok_or(format!("page at byte {start}: levels too long"))?
            }
            _ => return Err(format!("page at byte {start}: not a data page (kind {})", h.kind)),
        };
        if h.encoding != DELTA_BINARY_PACKED {
            return Err(format!("page at byte {start}: encoding {} is not DELTA_BINARY_PACKED", h.encoding));
        }
        let got = decode_delta(body, &mut out[n..], &mut flags).map_err(|e| format!("page at byte {start}: {e}"))?;
        if got as i64 != h.num_values {
            return Err(format!("page at byte {start}: {got} values for {} rows: null edge times", h.num_values));
        }
        if n > 0 && got > 0 {
            flags.0 |= out[n] < out[n - 1];
            flags.1 |= out[n] == out[n - 1];
        }
        n += got;
    }
    Ok((n, flags.0, flags.1))
}

/// Whether a block whose minimum delta is not positive holds a negative delta (values
/// that go backwards) or a zero one (two edges at one time).
fn check_block(
    page: &[u8],
    r: &Reader,
    minis: usize,
    per_mini: usize,
    left: usize,
    min_delta: i64,
) -> (bool, bool) {
    let mut zero = false;
    let mut pos = r.pos + minis;
    let mut left = left;
    for m in 0..minis {
        if left == 0 {
            break;
        }
        let w = match page.get(r.pos + m) {
            Some(w) if *w <= 64 => *w as usize,
            _ => return (false, zero), // the decoder reports the bad width
        };
        let bytes = per_mini * w / 8;
        let Some(data) = page.get(pos..pos + bytes) else { return (false, zero) };
        let take = per_mini.min(left);
        for i in 0..take {
            let d = min_delta.wrapping_add(unpack(data, i * w, w) as i64);
            if d < 0 {
                return (true, zero);
            }
            zero |= d == 0;
        }
        pos += bytes;
        left -= take;
    }
    (false, zero)
}

/// One DELTA_BINARY_PACKED stream (the Parquet specification) into `out`.
fn decode_delta(page: &[u8], out: &mut [i64], flags: &mut (bool, bool)) -> Res<usize> {
    let mut r = Reader { buf: page, pos: 0 };
    let block = r.uleb()? as usize;
    let minis = r.uleb()? as usize;
    let total = r.uleb()? as usize;
    let mut value = r.zigzag()?;
    if minis == 0 || block == 0 || block % minis != 0 || (block / minis) % 32 != 0 || block > 1 << 20 {
        return r.err("bad block layout");
    }
    if total > out.len() {
        return r.err("more values than the row group declares");
    }
    if total == 0 {
        return Ok(0);
    }
    let per_mini = block / minis;
    out[0] = value;
    let mut n = 1;
    while n < total {
        let min_delta = r.zigzag()?;
        if min_delta <= 0 {
            // a delta may be negative or zero: check the values themselves
            let (neg, zero) = check_block(page, &r, minis, per_mini, total - n, min_delta);
            flags.0 |= neg;
            flags.1 |= zero;
        }
        let widths_at = r.pos;
        r.skip(minis)?;
        for m in 0..minis {
            if n >= total {
                break;
            }
            let w = page[widths_at + m] as usize;
            if w > 64 {
                return r.err("bit width above 64");
            }
            let bytes = per_mini * w / 8;
            let data_at = r.pos;
            r.skip(bytes)?;
            // the rest of the page: the unpacker may load a few bytes past the miniblock
            // (masked off), which saves copying its last values into a padded buffer
            let data = &page[data_at..];
            let take = per_mini.min(total - n);
            let dest = &mut out[n..n + take];
            value = unpack_run(data, w, min_delta, value, dest);
            n += take;
        }
    }
    Ok(n)
}

/// Decode `dest.len()` packed deltas of `w` bits (w <= 64) from `data` into running
/// values starting after `value`; returns the last value. 32 values at a time through
/// an unpacker specialised to the width (constant shifts, no per-value bounds checks).
fn unpack_run(data: &[u8], w: usize, min_delta: i64, mut value: i64, dest: &mut [i64]) -> i64 {
    let mut chunks = dest.chunks_exact_mut(32);
    let mut at = 0usize; // byte offset of the next 32 values
    let step = 4 * w; // 32 values of w bits
    let mut pad = [0u8; 4 * 64 + 8];
    for group in &mut chunks {
        let src: &[u8] = if data.len() >= at + step + 8 {
            &data[at..at + step + 8]
        } else {
            let end = data.len().min(at + step);
            pad.fill(0);
            pad[..end - at].copy_from_slice(&data[at..end]);
            &pad[..]
        };
        let mut d = [0u64; 32];
        unpack32(src, w, &mut d);
        for (slot, x) in group.iter_mut().zip(d.iter()) {
            value = value.wrapping_add(min_delta).wrapping_add(*x as i64);
            *slot = value;
        }
        at += step;
    }
    for (i, slot) in chunks.into_remainder().iter_mut().enumerate() {
        let packed = unpack(data, (at * 8) + i * w, w);
        value = value.wrapping_add(min_delta).wrapping_add(packed as i64);
        *slot = value;
    }
    value
}

/// 32 values of width W from `src` (at least 4 W + 8 bytes).
#[inline(always)]
fn unpack32_w<const W: usize>(src: &[u8], d: &mut [u64; 32]) {
    if W == 0 {
        *d = [0; 32];
        return;
    }
    let src = &src[..4 * W + 8];
    let mask: u64 = if W == 64 { u64::MAX } else { (1u64 << W) - 1 };
    for (i, slot) in d.iter_mut().enumerate() {
        let bit = i * W;
        let byte = bit / 8;
        let shift = bit % 8;
        let lo = u64::from_le_bytes(src[byte..byte + 8].try_into().unwrap());
        let mut v = lo >> shift;
        if shift + W > 64 {
            v |= (src[byte + 8] as u64) << (64 - shift);
        }
        *slot = v & mask;
    }
}

macro_rules! unpack_dispatch {
    ($src:expr, $w:expr, $d:expr; $($n:literal)*) => {
        match $w { $($n => unpack32_w::<$n>($src, $d),)* _ => unreachable!() }
    };
}

fn unpack32(src: &[u8], w: usize, d: &mut [u64; 32]) {
    unpack_dispatch!(src, w, d; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24
        25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53
        54 55 56 57 58 59 60 61 62 63 64)
}

#[inline(always)]
fn unpack(data: &[u8], bit: usize, w: usize) -> u64 {
    if w == 0 {
        return 0;
    }
    let byte = bit / 8;
    let shift = bit % 8;
    if let Some(b) = data.get(byte..byte + 16) {
        let v = u128::from_le_bytes(b.try_into().unwrap()) >> shift;
        let mask = if w == 64 { u64::MAX as u128 } else { (1u128 << w) - 1 };
        return (v & mask) as u64;
    }
    let mut word = [0u8; 16];
    let end = (byte + 16).min(data.len());
    word[..end - byte].copy_from_slice(&data[byte..end]);
    let v = u128::from_le_bytes(word) >> shift;
    let mask = if w == 64 { u64::MAX as u128 } else { (1u128 << w) - 1 };
    (v & mask) as u64
}
