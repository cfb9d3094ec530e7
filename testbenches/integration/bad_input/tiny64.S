# A 64-bit RISC-V executable (rv64imac, lp64): Tessera must refuse it.
        .text
        .globl _start
_start:
        li      a0, 1
        j       _start
