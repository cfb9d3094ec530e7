# A minimal RV32 program for the ELF loader test: code at 0x80000000, an
# initialised data word and a .bss buffer.
        .option norvc
        .text
        .globl _start
        .type _start, @function
_start:
        lui     a0, %hi(answer)
        lw      a0, %lo(answer)(a0)
        .insn r 0x0B, 1, 1, x0, x0, x0
        .size _start, . - _start

        .data
        .globl answer
        .type answer, @object
        .size answer, 4
answer:
        .word   0x2a2a2a2a

        .bss
        .globl buffer
        .type buffer, @object
        .size buffer, 256
buffer:
        .space  256
