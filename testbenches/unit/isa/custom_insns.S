# The Tessera custom instructions exactly as docs/firmware-abi.md writes them
# with .insn; custom_insn_test.cpp checks how each word decodes, in order.
        .option norvc
        .text
        .globl _start
_start:
        .insn r 0x0B, 0, 0, fa0, fa1, f0        # sfu.sin fa0,fa1
        .insn r 0x0B, 0, 1, ft0, ft11, f0       # sfu.cos ft0,ft11
        .insn r 0x0B, 0, 2, fs11, fs0, f0       # sfu.ex2 fs11,fs0
        .insn r 0x0B, 0, 3, fa7, ft8, f0        # sfu.lg2 fa7,ft8
        .insn r 0x0B, 0, 4, ft1, ft2, f0        # sfu.rcp ft1,ft2
        .insn r 0x0B, 0, 5, fs1, fa2, f0        # sfu.rsqrt fs1,fa2
        .insn r 0x0B, 1, 0, x0, x0, x0          # bar.sync
        .insn r 0x0B, 1, 1, x0, x0, x0          # exit
        .insn i 0x2B, 0, a0, -2048(a1)          # ldg.b a0,-2048(a1)
        .insn i 0x2B, 1, t0, 2047(sp)           # ldg.h t0,2047(sp)
        .insn i 0x2B, 2, a0, 4(a1)              # ldg.w a0,4(a1)
        .insn i 0x2B, 4, s11, 0(t6)             # ldg.bu s11,0(t6)
        .insn i 0x2B, 5, ra, -2(gp)             # ldg.hu ra,-2(gp)
        .insn r 0x2B, 6, 0, a0, a1, a2          # atom.fadd a0,a2,(a1)
        .insn r 0x2B, 6, 1, t0, t1, t2          # atom.inc t0,t2,(t1)
        .insn r 0x2B, 6, 2, s0, s1, s2          # atom.dec s0,s2,(s1)
        .insn r4 0x2B, 7, 0, a0, a1, a2, a3     # atom.cas a0,a2,a3,(a1)
        .insn r4 0x2B, 7, 0, t6, zero, t4, s10  # atom.cas t6,t4,s10,(zero)
