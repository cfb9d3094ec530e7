# The Tessera warp-level instructions exactly as docs/firmware-abi.md
# ("Warp-level instructions") writes them with .insn; warp_insn_test.cpp
# checks how each word decodes and disassembles, in order.
        .option norvc
        .text
        .globl _start
_start:
        .insn r4 0x0B, 2, 0, a0, a1, a2, a3     # shfl.idx a0,a1,a2,a3
        .insn r4 0x0B, 2, 1, t0, t1, t2, t3     # shfl.up t0,t1,t2,t3
        .insn r4 0x0B, 2, 2, s0, s1, s2, s3     # shfl.down s0,s1,s2,s3
        .insn r4 0x0B, 2, 3, t6, zero, t4, s10  # shfl.xor t6,zero,t4,s10
        .insn r 0x0B, 3, 0, a0, a1, a2          # vote.ballot a0,a1,a2
        .insn r 0x0B, 3, 1, a5, s11, zero       # vote.any a5,s11,zero
        .insn r 0x0B, 3, 2, ra, sp, gp          # vote.all ra,sp,gp
        .insn r 0x0B, 3, 3, a4, x0, x0          # activemask a4
        .insn r 0x0B, 3, 4, x0, a1, x0          # syncwarp a1
        .insn r 0x0B, 3, 5, a0, a1, x0          # bar.red.popc a0,a1
        .insn r 0x0B, 3, 6, t1, t2, x0          # bar.red.and t1,t2
        .insn r 0x0B, 3, 7, s4, s5, x0          # bar.red.or s4,s5
        .insn r 0x0B, 3, 8, x0, x0, x0          # membar.cta
