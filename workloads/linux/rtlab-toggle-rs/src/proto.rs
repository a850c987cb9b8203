//! Writer of the rtlab output protocol v1 (docs/protocol.md): the same records as the C
//! writer (workloads/linux/common/proto.c), buffered, counted for `end`.

use std::io::Write;

pub struct Proto<W: Write> {
    out: W,
    crc: bool,
    records: u64,
}

fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
        }
    }
    !c
}

pub fn encode(v: &str) -> String {
    let mut s = String::with_capacity(v.len());
    for &c in v.as_bytes() {
        if c <= 0x20 || c >= 0x7F || c == b'=' || c == b'*' || c == b'%' {
            s.push_str(&format!("%{:02X}", c));
        } else {
            s.push(c as char);
        }
    }
    s
}

const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(raw: &[u8]) -> String {
    let mut s = String::new();
    for ch in raw.chunks(3) {
        let v = (ch[0] as u32) << 16
            | (*ch.get(1).unwrap_or(&0) as u32) << 8
            | *ch.get(2).unwrap_or(&0) as u32;
        let n = ch.len() + 1; // no '=' padding (protocol rule)
        for k in 0..n {
            s.push(B64[((v >> (18 - 6 * k)) & 63) as usize] as char);
        }
    }
    s
}

impl<W: Write> Proto<W> {
    pub fn new(out: W, crc: bool) -> Self {
        Proto { out, crc, records: 0 }
    }

    pub fn line(&mut self, body: &str) {
        let mut l = format!("@rtl1 {body}");
        if self.crc {
            let c = crc32(l.as_bytes());
            l.push_str(&format!(" *{c:08x}"));
        }
        l.push('\n');
        let _ = self.out.write_all(l.as_bytes());
        self.records += 1;
    }

    pub fn hello(&mut self, workload: &str, version: &str) {
        self.records = 0;
        self.line(&format!("hello workload={} version={}", encode(workload), encode(version)));
    }
    pub fn meta(&mut self, key: &str, value: &str) {
        self.line(&format!("meta {key}={}", encode(value)));
    }
    pub fn warn(&mut self, code: &str, msg: &str) {
        self.line(&format!("warn code={code} msg={}", encode(msg)));
    }
    pub fn counter(&mut self, name: &str, value: i64, unit: &str) {
        self.line(&format!("c {name} {value} unit={unit}"));
    }
    pub fn series(&mut self, name: &str, unit: &str) {
        self.line(&format!("series {name} unit={unit}"));
    }
    /// Samples as `sd` (delta text) or `sb` (zigzag LEB128, base64) chunks of 150 (4096-byte lines even with 20-digit deltas).
    pub fn samples(&mut self, name: &str, v: &[i64], binary: bool) {
        for (seq, chunk) in v.chunks(150).enumerate() {
            if binary {
                let mut raw = Vec::new();
                let mut prev = 0u64;
                for &x in chunk {
                    let d = (x as u64).wrapping_sub(prev);
                    prev = x as u64;
                    let mut z = (d << 1) ^ (((d as i64) >> 63) as u64);
                    loop {
                        let b = (z & 0x7F) as u8;
                        z >>= 7;
                        raw.push(if z != 0 { b | 0x80 } else { b });
                        if z == 0 {
                            break;
                        }
                    }
                }
                self.line(&format!("sb {name} {seq} {} {}", chunk.len(), base64(&raw)));
            } else {
                let mut l = format!("sd {name} {seq} {}", chunk[0]);
                for (k, w) in chunk.windows(2).enumerate() {
                    l.push(if k == 0 { ' ' } else { ',' });
                    l.push_str(&(w[1].wrapping_sub(w[0])).to_string());
                }
                self.line(&l);
            }
        }
    }
    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
    pub fn end(&mut self, status: &str, msg: Option<&str>) {
        let mut l = format!("end records={} status={status}", self.records);
        if let Some(m) = msg {
            l.push_str(&format!(" msg={}", encode(m)));
        }
        self.line(&l);
        let _ = self.out.flush();
    }
}
