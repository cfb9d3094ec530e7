/* Kernels for kernel_record_test.cpp, written by hand so that their
 * registers, frames and shared references are counted from this text.
 * KERNEL marks a kernel as TESSERA_KERNEL does (tessera_kernel.h): a nop
 * before the entry, listed in __patchable_function_entries. */
#define KERNEL(name, sec)                                           \
	.section sec, "ax", @progbits;                              \
	.align 2;                                                   \
	.globl name;                                                \
	.section __patchable_function_entries, "awo", @progbits, name; \
	.align 2;                                                   \
	.4byte .Lmark_##name;                                       \
	.section sec;                                               \
.Lmark_##name:                                                      \
	nop;                                                        \
	.type name, @function;                                      \
name:
#define END(name) .size name, .-name

	.option norelax

/* Shared variables: pad [0x20000000, 0x20000100), tile_a [0x20000100,
 * 0x20000140), a 64-byte gap, tile_b [0x20000180, 0x200001a0). */
	.section .shared, "aw", @nobits
	.align 7
	.type pad, @object
pad:	.zero 256
	.size pad, 256
	.type tile_a, @object
tile_a:	.zero 64
	.size tile_a, 64
	.zero 64
	.type tile_b, @object
tile_b:	.zero 32
	.size tile_b, 32

/* x: a0 a1 ra (3); f: fa0 fa1 fa2 (3) = 6 registers, no frame. */
KERNEL(leaf_k, .text.leaf_k)
	add a0, a0, a1
	fadd.s fa0, fa1, fa2
	ret
END(leaf_k)

/* A device function, not a kernel: x: sp t0 t1 t2 ra; f: ft0; 16-byte frame; tile_b. */
	.section .text.helper, "ax", @progbits
	.align 2
	.globl helper
	.type helper, @function
helper:
	addi sp, sp, -16
	lui t0, %hi(tile_b)
	flw ft0, %lo(tile_b)(t0)
	mul t2, t1, t0
	addi sp, sp, 16
	ret
END(helper)

/* x: sp ra a5 a0 + helper's t0 t1 t2 (7); f: ft0 (1) = 8 registers;
 * stack 32 + 16 = 48; shared tile_a and tile_b: window 0x20000100..0x200001a0. */
KERNEL(caller_k, .text.caller_k)
	addi sp, sp, -32
	sw ra, 28(sp)
	lui a5, %hi(tile_a)
	addi a5, a5, %lo(tile_a)
	sw a0, 0(a5)
	call helper
	lw ra, 28(sp)
	addi sp, sp, 32
	ret
END(caller_k)

/* A tail call (jal x0): x: a0 + helper's sp t0 t1 t2 ra (6); f: ft0 = 7; stack 16. */
KERNEL(tail_k, .text.tail_k)
	addi a0, a0, 1
	j helper
END(tail_k)

/* An indirect call: all 64 registers. */
KERNEL(indirect_k, .text.indirect_k)
	addi sp, sp, -16
	sw ra, 12(sp)
	jalr ra, 0(a0)
	lw ra, 12(sp)
	addi sp, sp, 16
	ret
END(indirect_k)

/* __launch_bounds__(1024, 2): limit 65536 / (2 * 1024) = 32; uses ra only (1). */
KERNEL(bounded_k, .text.tessera.kres.1024.2.0)
	ret
END(bounded_k)

/* TESSERA_MAXRREG(4): uses a0..a5 and ra (7), charged 4. */
KERNEL(maxrreg_k, .text.tessera.kres.0.0.4)
	add a0, a1, a2
	add a3, a4, a5
	ret
END(maxrreg_k)

/* Recursion: its 16-byte frame counted once. x: sp ra a0 (3). */
KERNEL(recursive_k, .text.recursive_k)
	addi sp, sp, -16
	sw ra, 12(sp)
	addi a0, a0, -1
	call recursive_k
	lw ra, 12(sp)
	addi sp, sp, 16
	ret
END(recursive_k)

/* A large frame set through a register: li t0, -8192 (lui+addi); add sp, sp, t0.
 * x: t0 sp ra (3); stack 8192. */
KERNEL(big_frame_k, .text.big_frame_k)
	li t0, -8192
	add sp, sp, t0
	li t0, 8192
	add sp, sp, t0
	ret
END(big_frame_k)

/* An indirect tail call (jr through a register, no jump table): all 64. */
KERNEL(jr_k, .text.jr_k)
	jr a1
END(jr_k)

/* A switch: jr through a register loaded from a jump table of this
 * function's labels, not a call. x: a0 a5 ra (3). */
KERNEL(switch_k, .text.switch_k)
	lui a5, %hi(.Ltable)
	addi a5, a5, %lo(.Ltable)
	slli a0, a0, 2
	add a5, a5, a0
	lw a5, 0(a5)
	jr a5
.Lcase0:
	ret
.Lcase1:
	ret
END(switch_k)

	.section .rodata.switch_k, "a", @progbits
	.align 2
.Ltable:
	.4byte .Lcase0, .Lcase1

/* main keeps every kernel: it loads the table below. */
	.section .text.main, "ax", @progbits
	.align 2
	.globl main
	.type main, @function
main:
	lui a0, %hi(kernel_table)
	lw a0, %lo(kernel_table)(a0)
	li a0, 0
	ret
END(main)

	.section .data.kernel_table, "aw", @progbits
	.align 2
	.type kernel_table, @object
kernel_table:
	.4byte leaf_k, caller_k, tail_k, indirect_k, bounded_k, maxrreg_k, recursive_k, big_frame_k
	.4byte jr_k, switch_k
	.size kernel_table, .-kernel_table
