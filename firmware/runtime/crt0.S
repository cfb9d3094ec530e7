/*
 * Tessera start-up code (docs/firmware-abi.md).
 *
 * _start                  control core: C environment, main(argc, argv), EXIT.
 *                         The simulator starts core 0 with s0 = argc and
 *                         s1 = argv (docs/firmware-abi.md, "Program
 *                         arguments"; both 0 for an ELF without the
 *                         argument block), which the C set-up below keeps:
 *                         __libc_init_array preserves callee-saved registers.
 * __tessera_kernel_entry  every SM thread of a launch: a0 = args, a1 = kernel,
 *                         sp = top of its local memory (set by the SM).
 * __tessera_hart_entry    a control core started by tessera_core_start():
 *                         a0 = arg, a1 = fn, sp = its stack (set by HART_START);
 *                         fn(arg), then HART_PARK.
 *
 * Both load gp with relaxation off: relaxed, "la gp, __global_pointer$" would
 * become "addi gp, gp, 0" and gp would stay 0.
 */

#define TESSERA_MMIO_EXIT 0x10000004
#define TESSERA_MMIO_HART_PARK 0x1000005C

	.section .text.init.enter, "ax", @progbits
	.globl	_start
	.type	_start, @function
_start:
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop

	/* main() runs on control core 0; any other control core that starts
	 * here parks. */
	csrr	t0, mhartid
	bnez	t0, .Lpark

	la	sp, __stack_top

	/* picolibc keeps errno (and a few other variables) in TLS, accessed
	 * tp-relative (local-exec). One static block: .tdata then .tbss. */
	la	tp, __tls_base

	/* Copy the .data/.tdata image if it was linked away from where it runs
	 * (not with tessera.ld, whose LMA == VMA: the loop is skipped). */
	la	a0, __data_start
	la	a1, __data_source
	la	a2, __data_source_end
	beq	a0, a1, 2f
1:	bgeu	a1, a2, 2f
	lw	t0, 0(a1)
	sw	t0, 0(a0)
	addi	a0, a0, 4
	addi	a1, a1, 4
	j	1b
2:
	/* Zero .tbss and .bss (tessera.ld keeps both ends 8-byte aligned). */
	la	a0, __bss_start
	la	a1, __bss_end
3:	bgeu	a0, a1, 4f
	sw	zero, 0(a0)
	addi	a0, a0, 4
	j	3b
4:
	/* Constructors (picolibc walks __preinit_array and __init_array). */
	call	__libc_init_array

	mv	a0, s0
	mv	a1, s1
	call	main

	/* main's return value is the exit status of the simulation. */
	li	t0, TESSERA_MMIO_EXIT
	sw	a0, 0(t0)
.Lpark:
	wfi
	j	.Lpark
	.size	_start, . - _start

	.text
	.globl	__tessera_kernel_entry
	.type	__tessera_kernel_entry, @function
	.p2align 2
__tessera_kernel_entry:
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop
	/* Kernels need no TLS, but a library call that sets errno (a libm
	 * domain error, say) must not fault: point tp at the control core's TLS
	 * block. Such writes race harmlessly while the host waits. */
	la	tp, __tls_base
	jalr	a1                        /* kernel(a0 = args) */
	.insn r 0x0B, 1, 1, x0, x0, x0    /* exit: the thread finishes */
1:	j	1b                        /* not reached */
	.size	__tessera_kernel_entry, . - __tessera_kernel_entry

	.text
	.globl	__tessera_hart_entry
	.type	__tessera_hart_entry, @function
	.p2align 2
__tessera_hart_entry:
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop
	/* One TLS block for every core: errno is shared (library calls that
	 * set it race harmlessly). */
	la	tp, __tls_base
	jalr	a1                        /* fn(a0 = arg) */
	/* Every store of fn is visible before the core reads as parked. */
	fence	rw, rw
	li	t0, TESSERA_MMIO_HART_PARK
	sw	zero, 0(t0)
1:	j	1b                        /* not reached: the core is parked */
	.size	__tessera_hart_entry, . - __tessera_hart_entry
