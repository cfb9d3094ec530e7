# The hardware-transaction instructions of docs/firmware-abi.md (custom-3,
# opcode 0x7B), assembled with .insn; htm_insn_test.cpp checks how each word
# decodes and disassembles, in order.
        .text
        .globl _start
_start:
        .insn r 0x7B, 0, 0, a0, x0, x0          # tx.begin a0
        .insn r 0x7B, 0, 0, t6, x0, x0          # tx.begin t6
        .insn r 0x7B, 0, 0, ra, x0, x0          # tx.begin ra
        .insn r 0x7B, 0, 0, x0, x0, x0          # tx.begin zero (status dropped)
        .insn r 0x7B, 1, 0, x0, x0, x0          # tx.end
        .insn i 0x7B, 2, x0, x0, 0              # tx.abort 0
        .insn i 0x7B, 2, x0, x0, 1              # tx.abort 1
        .insn i 0x7B, 2, x0, x0, 7              # tx.abort 7
        .insn i 0x7B, 2, x0, x0, 255            # tx.abort 255
        .insn r 0x7B, 3, 0, a0, x0, x0          # tx.test a0
        .insn r 0x7B, 3, 0, s11, x0, x0         # tx.test s11
        csrrw   a1, 0x8C0, a2                   # csrrw a1,txlogbase,a2
        csrrs   a5, 0x8C1, x0                   # csrrs a5,txlogsize,zero
        csrrwi  x0, 0x8C2, 1                    # csrrwi zero,txfallback,1
