//! The body of a plain VCD file in one pass: the fast path of rtlab's VCD scanner
//! (src/rtlab/formats/vcd/scanner.py states what it reads). Accepted: `#<1-18 digits>`
//! times that never go backwards, 1-bit changes `<value><id>` with a one-byte declared id,
//! vector values `b<bits> <id>` (skipped), and the commands `$dumpvars`, `$dumpall`,
//! `$end`. Anything else returns None and the numpy scanner (then pywellen) decides.

const SPACE: [bool; 256] = {
    let mut t = [false; 256];
    t[b' ' as usize] = true;
    t[b'\t' as usize] = true;
    t[b'\n' as usize] = true;
    t[b'\r' as usize] = true;
    t[0x0b] = true;
    t[0x0c] = true;
    t
};

fn is_scalar(c: u8) -> bool {
    b"01xXzZuUwWlLhH-".contains(&c)
}

fn is_bit(c: u8) -> bool {
    b"01xXzZuUwWlLhH-".contains(&c)
}

/// Level of a scalar value: 0, 1, or -1 (x, z, u, w, -).
fn level(c: u8) -> i8 {
    match c {
        b'0' | b'l' | b'L' => 0,
        b'1' | b'h' | b'H' => 1,
        _ => -1,
    }
}

/// Per wanted id (slot[id] = index into the outputs, or -1 for a declared id that is not
/// collected, or -2 for an undeclared one): the times and levels of its changes.
pub fn scan(body: &[u8], slot: &[i32; 256], n_out: usize) -> Option<Vec<(Vec<i64>, Vec<i8>)>> {
    let mut out: Vec<(Vec<i64>, Vec<i8>)> = (0..n_out).map(|_| (Vec::new(), Vec::new())).collect();
    let mut time: i64 = -1;
    let mut id_next = false;
    let mut i = 0usize;
    let n = body.len();
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
        if id_next {
            // the id of a vector value: one declared byte, never one that reads as a value
            if tok.len() != 1 || slot[c as usize] == -2 || b"bBrRsS".contains(&c) {
                return None;
            }
            id_next = false;
            continue;
        }
        if is_scalar(c) {
            if tok.len() != 2 {
                return None;
            }
            let s = slot[tok[1] as usize];
            if s == -2 || time < 0 {
                return None;
            }
            if s >= 0 {
                let o = &mut out[s as usize];
                o.0.push(time);
                o.1.push(level(c));
            }
        } else if c == b'#' {
            let digits = &tok[1..];
            if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let mut v: i64 = 0;
            for d in digits {
                v = v * 10 + (d - b'0') as i64;
            }
            if v < time {
                return None;
            }
            time = v;
        } else if c == b'b' || c == b'B' {
            if tok.len() < 2 || !tok[1..].iter().all(|&b| is_bit(b)) {
                return None;
            }
            id_next = true;
        } else if c == b'$' {
            if tok != b"$dumpvars" && tok != b"$dumpall" && tok != b"$end" {
                return None;
            }
        } else {
            return None;
        }
    }
    if id_next {
        return None;
    }
    Some(out)
}
