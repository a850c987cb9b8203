// SPDX-License-Identifier: GPL-2.0-or-later
//! Thumb / Thumb-2 instruction classes from an instruction's bytes (ARMv6-M, ARMv7-M,
//! ARMv8-M Mainline encodings, ARM DDI 0403 / DDI 0553 A5.x): only what the timing
//! tables tell apart (ALU, multiply, divide, loads and stores, multiples by register
//! count, branches with their static target), never the full semantics.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Alu,
    AluPc, // data processing that writes PC (ADD PC / MOV PC): an indirect branch
    Mul,
    Mla,
    MulLong,
    MulLongAcc,
    Div,
    Load,
    LoadPc, // LDR PC: an indirect branch
    Store,
    LoadDouble,
    StoreDouble,
    LoadMulti,  // LDM / POP, n registers (PC among them: a branch)
    StoreMulti, // STM / PUSH
    Branch,     // B: direct, unconditional
    CondBranch, // B<c>, CBZ, CBNZ: direct
    Call,       // BL: direct
    BranchReg,  // BX
    CallReg,    // BLX reg
    TableBranch,
    Msr,
    Mrs,
    Barrier,
    Cps,
    Svc,
    Sleep, // WFI / WFE
    Nop,
    It,
    Fp,
    FpDiv,
    FpLoad,
    FpStore,
    FpMulti,
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    pub class: Class,
    pub regs: u32,           // registers (words) moved by a multiple
    pub target: Option<u64>, // a direct branch's target
    pub rt: u8,              // a single load's destination (pipelining hazard)
    pub rn: u8,              // a single load/store's base
    pub writes_pc: bool,     // ends in a jump whose target is known only at run time
}

impl Insn {
    /// Whether the instruction may write memory (a store of any kind; `Other` may).
    pub fn may_store(&self) -> bool {
        matches!(
            self.class,
            Class::Store | Class::StoreDouble | Class::StoreMulti | Class::FpStore | Class::FpMulti
                | Class::Other
        )
    }

    /// Whether the instruction reads or writes memory (its wait states, marker stores and
    /// counter reads come through QEMU's memory callback).
    pub fn accesses_memory(&self) -> bool {
        matches!(
            self.class,
            Class::Load | Class::LoadPc | Class::Store | Class::LoadDouble | Class::StoreDouble
                | Class::LoadMulti | Class::StoreMulti | Class::TableBranch | Class::FpLoad
                | Class::FpStore | Class::FpMulti | Class::Other
        )
    }
}

fn insn(class: Class) -> Insn {
    Insn { class, regs: 0, target: None, rt: 0xff, rn: 0xff, writes_pc: false }
}

fn mem(class: Class, rt: u16, rn: u16) -> Insn {
    Insn { rt: rt as u8, rn: rn as u8, ..insn(class) }
}

fn sext(v: u32, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((v as i64) << shift) >> shift
}

fn rel(pc: u64, off: i64) -> Option<u64> {
    Some((pc as i64 + 4 + off) as u64 & 0xffff_ffff)
}

/// The class of the instruction at `pc` whose bytes are `b` (2 or 4 bytes, little endian).
pub fn decode(pc: u64, b: &[u8]) -> Insn {
    let hw1 = u16::from_le_bytes([b[0], b[1]]);
    if b.len() >= 4 {
        let hw2 = u16::from_le_bytes([b[2], b[3]]);
        return decode32(pc, hw1, hw2);
    }
    decode16(pc, hw1)
}

pub fn is_wide(hw1: u16) -> bool {
    matches!(hw1 >> 11, 0b11101 | 0b11110 | 0b11111)
}

fn decode16(pc: u64, hw: u16) -> Insn {
    let lo3 = hw & 7;
    let mid3 = (hw >> 3) & 7;
    match hw >> 12 {
        0x0..=0x3 => insn(Class::Alu),
        0x4 => {
            if hw & 0xFC00 == 0x4000 {
                // data processing (register); MULS is opcode 1101
                return insn(if (hw >> 6) & 0xF == 0xD { Class::Mul } else { Class::Alu });
            }
            if hw & 0xFC00 == 0x4400 {
                let op = (hw >> 8) & 3;
                let rd = ((hw >> 4) & 8) | lo3;
                return match op {
                    3 if hw & 0x80 != 0 => Insn { writes_pc: true, ..insn(Class::CallReg) },
                    3 => Insn { writes_pc: true, rn: ((hw >> 3) & 0xF) as u8, ..insn(Class::BranchReg) },
                    0 | 2 if rd == 15 => Insn { writes_pc: true, ..insn(Class::AluPc) },
                    _ => insn(Class::Alu),
                };
            }
            // 01001: LDR (literal)
            mem(Class::Load, (hw >> 8) & 7, 15)
        }
        0x5 => {
            let op = (hw >> 9) & 7;
            mem(if op <= 2 { Class::Store } else { Class::Load }, lo3, mid3)
        }
        0x6 | 0x7 | 0x8 => {
            let load = hw & 0x0800 != 0;
            mem(if load { Class::Load } else { Class::Store }, lo3, mid3)
        }
        0x9 => {
            let load = hw & 0x0800 != 0;
            mem(if load { Class::Load } else { Class::Store }, (hw >> 8) & 7, 13)
        }
        0xA => insn(Class::Alu),
        0xB => decode_misc16(pc, hw),
        0xC => {
            let n = (hw & 0xFF).count_ones();
            let class = if hw & 0x0800 != 0 { Class::LoadMulti } else { Class::StoreMulti };
            Insn { regs: n, ..insn(class) }
        }
        0xD => match (hw >> 8) & 0xF {
            0xE => insn(Class::Other), // UDF
            0xF => insn(Class::Svc),
            _ => Insn { target: rel(pc, sext((hw & 0xFF) as u32, 8) * 2), ..insn(Class::CondBranch) },
        },
        0xE => Insn { target: rel(pc, sext((hw & 0x7FF) as u32, 11) * 2), ..insn(Class::Branch) },
        _ => insn(Class::Other),
    }
}

fn decode_misc16(pc: u64, hw: u16) -> Insn {
    if hw & 0xF500 == 0xB100 {
        // CBZ / CBNZ: i:imm5:'0'
        let off = ((((hw >> 9) & 1) << 6) | (((hw >> 3) & 0x1F) << 1)) as i64;
        return Insn { target: rel(pc, off), ..insn(Class::CondBranch) };
    }
    if hw & 0xFE00 == 0xB400 {
        let n = (hw & 0xFF).count_ones() + ((hw >> 8) & 1) as u32;
        return Insn { regs: n, ..insn(Class::StoreMulti) };
    }
    if hw & 0xFE00 == 0xBC00 {
        let pc_in = hw & 0x100 != 0;
        let n = (hw & 0xFF).count_ones() + pc_in as u32;
        return Insn { regs: n, writes_pc: pc_in, ..insn(Class::LoadMulti) };
    }
    if hw & 0xFFE8 == 0xB660 {
        return insn(Class::Cps);
    }
    if hw & 0xFF00 == 0xBE00 {
        return insn(Class::Other); // BKPT
    }
    if hw & 0xFF00 == 0xBF00 {
        if hw & 0xF != 0 {
            return insn(Class::It);
        }
        return insn(hint((hw >> 4) & 0xF));
    }
    insn(Class::Alu)
}

fn hint(op: u16) -> Class {
    match op {
        2 | 3 => Class::Sleep,
        _ => Class::Nop,
    }
}

fn decode32(pc: u64, hw1: u16, hw2: u16) -> Insn {
    let rn = hw1 & 0xF;
    let rt = hw2 >> 12;
    match hw1 >> 11 {
        0b11101 => {
            if hw1 & 0xFE40 == 0xE800 {
                // LDM / STM (and PUSH.W / POP.W)
                let load = hw1 & 0x10 != 0;
                let n = hw2.count_ones();
                let pc_in = load && hw2 & 0x8000 != 0;
                let class = if load { Class::LoadMulti } else { Class::StoreMulti };
                return Insn { regs: n, writes_pc: pc_in, ..insn(class) };
            }
            if hw1 & 0xFE40 == 0xE840 {
                if hw1 & 0xFFF0 == 0xE8D0 && hw2 & 0xFFE0 == 0xF000 {
                    return Insn { writes_pc: true, ..insn(Class::TableBranch) };
                }
                if hw1 & 0xFFE0 == 0xE840 {
                    // LDREX / STREX
                    let load = hw1 & 0x10 != 0;
                    return mem(if load { Class::Load } else { Class::Store }, rt, rn);
                }
                if hw1 & 0xFFE0 == 0xE8C0 {
                    // LDREXB/H, STREXB/H (and TT on v8-M, no memory access)
                    let load = hw1 & 0x10 != 0;
                    return mem(if load { Class::Load } else { Class::Store }, rt, rn);
                }
                let load = hw1 & 0x10 != 0;
                return insn(if load { Class::LoadDouble } else { Class::StoreDouble });
            }
            if hw1 & 0xFE00 == 0xEA00 {
                return insn(Class::Alu);
            }
            decode_coproc(hw1, hw2)
        }
        0b11110 => {
            if hw2 & 0x8000 == 0 {
                return insn(Class::Alu);
            }
            decode_branch_misc(pc, hw1, hw2)
        }
        _ => {
            // 11111
            if hw1 & 0xFE00 == 0xF800 {
                if hw1 & 0x0100 != 0 && hw1 & 0x10 == 0 {
                    return insn(Class::Other); // unallocated (store with sign bit)
                }
                let load = hw1 & 0x10 != 0;
                if load && rt == 15 {
                    let size = (hw1 >> 5) & 3;
                    if size == 2 {
                        return Insn { writes_pc: true, rn: rn as u8, ..insn(Class::LoadPc) };
                    }
                    return insn(Class::Nop); // PLD / PLI: a hint
                }
                return mem(if load { Class::Load } else { Class::Store }, rt, rn);
            }
            if hw1 & 0xFF80 == 0xFA00 || hw1 & 0xFF00 == 0xFA00 {
                return insn(Class::Alu);
            }
            if hw1 & 0xFF80 == 0xFB00 {
                let op1 = (hw1 >> 4) & 7;
                let ra = hw2 >> 12;
                let op2 = (hw2 >> 4) & 0xF;
                if op1 == 0 && op2 == 0 && ra == 15 {
                    return insn(Class::Mul);
                }
                if op1 == 0 {
                    return insn(Class::Mla); // MLA / MLS
                }
                return insn(if ra == 15 { Class::Mul } else { Class::Mla });
            }
            if hw1 & 0xFF80 == 0xFB80 {
                let op1 = (hw1 >> 4) & 7;
                let op2 = (hw2 >> 4) & 0xF;
                return insn(match (op1, op2) {
                    (1, 0xF) | (3, 0xF) => Class::Div,
                    (0, 0) | (2, 0) => Class::MulLong,
                    _ => Class::MulLongAcc,
                });
            }
            if hw1 & 0xFC00 == 0xFC00 {
                return decode_coproc(hw1, hw2);
            }
            insn(Class::Alu)
        }
    }
}

fn decode_branch_misc(pc: u64, hw1: u16, hw2: u16) -> Insn {
    let s = ((hw1 >> 10) & 1) as u32;
    let j1 = ((hw2 >> 13) & 1) as u32;
    let j2 = ((hw2 >> 11) & 1) as u32;
    match hw2 & 0xD000 {
        0xD000 | 0x9000 => {
            // BL / B.W (T4): S:I1:I2:imm10:imm11:'0'
            let i1 = !(j1 ^ s) & 1;
            let i2 = !(j2 ^ s) & 1;
            let imm = (s << 24) | (i1 << 23) | (i2 << 22) | (((hw1 & 0x3FF) as u32) << 12)
                | (((hw2 & 0x7FF) as u32) << 1);
            let target = rel(pc, sext(imm, 25));
            let class = if hw2 & 0xD000 == 0xD000 { Class::Call } else { Class::Branch };
            Insn { target, ..insn(class) }
        }
        0x8000 => {
            let op = (hw1 >> 6) & 0xF;
            if op & 0xE != 0xE {
                // B<c>.W (T3): S:J2:J1:imm6:imm11:'0'
                let imm = (s << 20) | (j2 << 19) | (j1 << 18) | (((hw1 & 0x3F) as u32) << 12)
                    | (((hw2 & 0x7FF) as u32) << 1);
                return Insn { target: rel(pc, sext(imm, 21)), ..insn(Class::CondBranch) };
            }
            if hw1 & 0xFFE0 == 0xF380 {
                return insn(Class::Msr);
            }
            if hw1 & 0xFFF0 == 0xF3A0 {
                return insn(hint(hw2 & 0xFF));
            }
            if hw1 & 0xFFF0 == 0xF3B0 {
                return insn(Class::Barrier); // DSB / DMB / ISB / CLREX
            }
            if hw1 & 0xFFE0 == 0xF3E0 {
                return insn(Class::Mrs);
            }
            insn(Class::Other)
        }
        _ => insn(Class::Other),
    }
}

fn decode_coproc(hw1: u16, hw2: u16) -> Insn {
    let cp = (hw2 >> 8) & 0xE;
    if cp != 0xA {
        return insn(Class::Other); // not the FPU (coprocessors 10 and 11)
    }
    if hw1 & 0xEF00 == 0xEE00 {
        // VFP data processing, or a register transfer (VMOV, VMRS): bit 4 of hw2 set
        if hw2 & 0x10 != 0 {
            return insn(Class::Alu);
        }
        let opc1 = ((hw1 >> 4) & 0xB) as u8;
        let opc3 = ((hw2 >> 6) & 1) as u8;
        // VDIV (opc1 1x00, opc3 0) and VSQRT (opc1 1x11, opc2 0001, opc3 1)
        if opc1 == 0x8 && opc3 == 0 {
            return insn(Class::FpDiv);
        }
        if opc1 == 0xB && hw1 & 0xF == 1 && opc3 == 1 {
            return insn(Class::FpDiv);
        }
        return insn(Class::Fp);
    }
    if hw1 & 0xEF30 == 0xED10 {
        return insn(Class::FpLoad);
    }
    if hw1 & 0xEF30 == 0xED00 {
        return insn(Class::FpStore);
    }
    if hw1 & 0xEE00 == 0xEC00 && hw1 & 0xEFE0 != 0xEC40 {
        // VLDM / VSTM / VPUSH / VPOP: imm8 words
        let words = (hw2 & 0xFF) as u32;
        return Insn { regs: words, ..insn(Class::FpMulti) };
    }
    insn(Class::Fp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(pc: u64, bytes: &[u8]) -> Insn {
        decode(pc, bytes)
    }

    #[test]
    fn classes_of_common_encodings() {
        assert_eq!(d(0, &0x1c40u16.to_le_bytes()).class, Class::Alu); // adds r0, r0, #1
        assert_eq!(d(0, &0x4348u16.to_le_bytes()).class, Class::Mul); // muls r0, r1, r0
        assert_eq!(d(0, &0x6808u16.to_le_bytes()).class, Class::Load); // ldr r0, [r1]
        assert_eq!(d(0, &0x6008u16.to_le_bytes()).class, Class::Store); // str r0, [r1]
        let pop = d(0, &0xbd10u16.to_le_bytes()); // pop {r4, pc}
        assert_eq!((pop.class, pop.regs, pop.writes_pc), (Class::LoadMulti, 2, true));
        let push = d(0, &0xb510u16.to_le_bytes()); // push {r4, lr}
        assert_eq!((push.class, push.regs), (Class::StoreMulti, 2));
        assert_eq!(d(0, &0x4770u16.to_le_bytes()).class, Class::BranchReg); // bx lr
        let b = d(0x100, &0xe7feu16.to_le_bytes()); // b .
        assert_eq!((b.class, b.target), (Class::Branch, Some(0x100)));
        let bne = d(0x100, &0xd1fdu16.to_le_bytes()); // bne .-2
        assert_eq!((bne.class, bne.target), (Class::CondBranch, Some(0xfe)));
    }

    #[test]
    fn wide_encodings() {
        // bl .+8 at 0x1000: f000 f802
        let bl = d(0x1000, &[0x00, 0xf0, 0x02, 0xf8]);
        assert_eq!((bl.class, bl.target), (Class::Call, Some(0x1008)));
        // udiv r0, r0, r1: fbb0 f0f1
        assert_eq!(d(0, &[0xb0, 0xfb, 0xf1, 0xf0]).class, Class::Div);
        // umull r0, r1, r2, r3: fba2 0103
        assert_eq!(d(0, &[0xa2, 0xfb, 0x03, 0x01]).class, Class::MulLong);
        // ldr.w r0, [r1, #4]: f8d1 0004
        assert_eq!(d(0, &[0xd1, 0xf8, 0x04, 0x00]).class, Class::Load);
        // ldmia.w r0, {r1-r8}: e890 01fe
        let ldm = d(0, &[0x90, 0xe8, 0xfe, 0x01]);
        assert_eq!((ldm.class, ldm.regs), (Class::LoadMulti, 8));
        // dsb sy: f3bf 8f4f
        assert_eq!(d(0, &[0xbf, 0xf3, 0x4f, 0x8f]).class, Class::Barrier);
        // beq.w .+0x100 at 0: f000 807e
        let beq = d(0, &[0x00, 0xf0, 0x7e, 0x80]);
        assert_eq!((beq.class, beq.target), (Class::CondBranch, Some(0x100)));
    }
}
