# A 64-bit RISC-V program: the ELF loader must refuse it.
        .text
        .globl _start
_start:
        j       _start
