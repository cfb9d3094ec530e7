# The wide memory instructions and 64-bit atomics of docs/firmware-abi.md,
# assembled with .insn; wide_insn_test.cpp checks how each word decodes, in order.
        .text
        .globl _start
_start:
        .insn i 0x5B, 0, a0, 8(a1)              # ld.v2 a0,8(a1)
        .insn i 0x5B, 1, t3, -16(sp)            # ld.v4 t3,-16(sp)
        .insn i 0x5B, 2, ft0, 2040(a0)          # fld.v2 ft0,2040(a0)
        .insn i 0x5B, 3, ft8, -2048(t6)         # fld.v4 ft8,-2048(t6)
        .insn s 0x5B, 4, a2, 0(a0)              # st.v2 a2,0(a0)
        .insn s 0x5B, 5, t3, 48(a1)             # st.v4 t3,48(a1)
        .insn s 0x5B, 6, fa0, -8(s0)            # fst.v2 fa0,-8(s0)
        .insn s 0x5B, 7, ft8, 2032(zero)        # fst.v4 ft8,2032(zero)
        .insn r 0x2B, 3, 0, a0, a1, a2          # atom.add64 a0,a2,(a1)
        .insn r 0x2B, 3, 1, t3, s0, a4          # atom.exch64 t3,a4,(s0)
        .insn r4 0x2B, 7, 1, a0, a1, a2, a4     # atom.cas64 a0,a2,a4,(a1)
        .insn r4 0x2B, 7, 1, t5, zero, s2, s4   # atom.cas64 t5,s2,s4,(zero)
