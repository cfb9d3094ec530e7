# Every RV32IMAFD (+ Zicsr, Zifencei) instruction form, for the golden
# disassembler test: golden_test.cpp compares our decoder and disassembler
# with `riscv64-unknown-elf-objdump -d -M no-aliases` on this file.
        .option norvc
        .option arch, +zifencei
        .text
        .globl _start
_start:
# ---- U and J types ----
        lui     zero,0
        lui     a0,0xfffff
        lui     t6,0x80000
        lui     s0,0x12345
        auipc   ra,0
        auipc   sp,0xfffff
        auipc   s11,0x7ffff
back:
        jal     ra,back
        jal     zero,fwd
        jal     t0,back
        jalr    ra,0(a0)
        jalr    zero,-2048(t6)
        jalr    s11,2047(sp)
        jalr    zero,0(ra)
        # jal with the extreme offsets -2^20 and 2^20-2 (no label can be that far)
        .insn   4, 0x800000ef
        .insn   4, 0x7ffff06f
# ---- branches, backward and forward ----
        beq     a0,a1,back
        bne     zero,t6,back
        blt     s0,s1,back
        bge     t3,t4,back
        bltu    a7,s2,back
        bgeu    gp,tp,back
        beq     a0,a1,fwd
        bne     s10,s11,fwd
        blt     a5,zero,fwd
        bge     zero,a5,fwd
        bltu    t1,t2,fwd
        bgeu    s3,s4,fwd
        # extreme offsets: beq a0,a1,+4094 and bne t6,t5,-4096
        .insn   4, 0x7eb50fe3
        .insn   4, 0x81ef9063
fwd:
# ---- loads and stores ----
        lb      a0,0(a1)
        lh      t0,-2048(sp)
        lw      s11,2047(t6)
        lbu     ra,-1(gp)
        lhu     tp,100(s0)
        lw      zero,4(a0)
        sb      a0,0(a1)
        sh      t6,-2048(sp)
        sw      s11,2047(zero)
        sw      zero,-4(a3)
# ---- OP-IMM ----
        addi    zero,zero,0
        addi    a0,a1,-2048
        addi    t6,s11,2047
        addi    sp,sp,-16
        slti    a2,a3,-1
        slti    a2,a3,2047
        sltiu   a4,a5,1
        sltiu   a4,a5,-2048
        xori    a6,a7,-1
        xori    s2,s3,1365
        ori     s4,s5,-1366
        ori     s6,s7,0
        andi    s8,s9,255
        andi    s10,t3,-2048
        slli    t4,t5,0
        slli    a0,a0,31
        srli    a1,a2,1
        srli    t0,t1,31
        srai    t2,s0,0
        srai    s1,a3,31
        srai    a4,a5,17
# ---- OP ----
        add     a0,a1,a2
        add     zero,t6,s11
        sub     t0,t1,t2
        sll     s0,s1,a3
        slt     a4,a5,a6
        sltu    a7,s2,s3
        xor     s4,s5,s6
        srl     s7,s8,s9
        sra     s10,s11,t3
        or      t4,t5,t6
        and     ra,sp,gp
        and     tp,zero,zero
# ---- M ----
        mul     a0,a1,a2
        mulh    t0,t1,t2
        mulhsu  s0,s1,a3
        mulhu   a4,a5,a6
        div     a7,s2,s3
        divu    s4,s5,s6
        rem     s7,s8,s9
        remu    s10,s11,t6
# ---- fences and system ----
        fence
        fence   iorw,iorw
        fence   r,rw
        fence   w,w
        fence   i,o
        fence   o,i
        fence   rw,rw
        fence   ir,ow
        fence   iorw,rw
        fence.tso
        fence.i
        ecall
        ebreak
        wfi
        # every predecessor/successor set, including the empty ones
        .set    fence_pred, 0
        .rept   16
        .set    fence_succ, 0
        .rept   16
        .insn   4, 0x0000000f | (fence_pred << 24) | (fence_succ << 20)
        .set    fence_succ, fence_succ + 1
        .endr
        .set    fence_pred, fence_pred + 1
        .endr
# ---- Zicsr ----
        csrrw   a0,fflags,a1
        csrrs   a0,frm,zero
        csrrc   t0,fcsr,t1
        csrrw   zero,fcsr,s0
        csrrs   a0,cycle,zero
        csrrs   a1,time,zero
        csrrs   a2,instret,zero
        csrrs   a3,cycleh,zero
        csrrs   a4,timeh,zero
        csrrs   a5,instreth,zero
        csrrs   s0,mhartid,zero
        csrrw   s1,mstatus,s2
        csrrs   t6,0xcc0,zero
        csrrs   t5,0xcd0,zero
        csrrc   t4,0x7c0,t3
        csrrw   zero,0x800,zero
        csrrwi  a0,fflags,0
        csrrwi  a0,frm,31
        csrrsi  a1,fcsr,1
        csrrci  zero,fflags,31
        csrrsi  a2,0xcc5,0
        csrrci  a3,mstatus,16
        # every CSR the disassembler names, and the Tessera custom range
        .macro  csr_range first, last
        .set    csr_n, \first
        .rept   \last - \first + 1
        csrrs   a0,csr_n,zero
        .set    csr_n, csr_n + 1
        .endr
        .endm
        csr_range 0x000, 0x005
        csr_range 0x040, 0x044
        csr_range 0x100, 0x106
        csr_range 0x140, 0x144
        csr_range 0x180, 0x180
        csr_range 0x300, 0x306
        csr_range 0x320, 0x344
        csr_range 0x3a0, 0x3a3
        csr_range 0x3b0, 0x3bf
        csr_range 0x7a0, 0x7b3
        csr_range 0xb00, 0xb1f
        csr_range 0xb80, 0xb9f
        csr_range 0xc00, 0xc1f
        csr_range 0xc80, 0xc9f
        csr_range 0xcc0, 0xcd0
        csr_range 0xf11, 0xf14
        csr_range 0xfff, 0xfff
# ---- A ----
        .irp    sfx, ,.aq,.rl,.aqrl
        lr.w\sfx        a0,(a1)
        sc.w\sfx        t0,t1,(t2)
        amoswap.w\sfx   s0,s1,(a2)
        amoadd.w\sfx    a3,a4,(a5)
        amoxor.w\sfx    a6,a7,(s2)
        amoand.w\sfx    s3,s4,(s5)
        amoor.w\sfx     s6,s7,(s8)
        amomin.w\sfx    s9,s10,(s11)
        amomax.w\sfx    t3,t4,(t5)
        amominu.w\sfx   t6,zero,(sp)
        amomaxu.w\sfx   zero,ra,(gp)
        .endr
# ---- F ----
        flw     fa0,0(a1)
        flw     ft0,-2048(sp)
        flw     ft11,2047(t6)
        fsw     fs11,-2048(s0)
        fsw     fa7,2047(zero)
        fsw     ft8,8(sp)
        .irp    rm, rne,rtz,rdn,rup,rmm,dyn
        fmadd.s   ft0,ft1,ft2,ft3,\rm
        fmsub.s   fa0,fa1,fa2,fa3,\rm
        fnmsub.s  fs0,fs1,fs2,fs3,\rm
        fnmadd.s  ft8,ft9,ft10,ft11,\rm
        fadd.s    ft4,ft5,ft6,\rm
        fsub.s    ft7,fs4,fs5,\rm
        fmul.s    fs6,fs7,fs8,\rm
        fdiv.s    fs9,fs10,fs11,\rm
        fsqrt.s   fa4,fa5,\rm
        fcvt.w.s  a0,fa0,\rm
        fcvt.wu.s t6,ft11,\rm
        fcvt.s.w  fa6,a1,\rm
        fcvt.s.wu fa7,zero,\rm
        .endr
        fsgnj.s   fa0,fa1,fa2
        fsgnj.s   ft0,ft0,ft0
        fsgnjn.s  fs0,fs1,fs2
        fsgnjn.s  ft1,ft1,ft1
        fsgnjx.s  ft8,ft9,ft10
        fsgnjx.s  fa3,fa3,fa3
        fmin.s    fa0,fa1,fa2
        fmax.s    ft11,fs11,fa7
        fmv.x.w   a0,fa0
        fmv.x.w   zero,ft11
        fmv.w.x   fa0,a0
        fmv.w.x   fs11,zero
        feq.s     a0,fa1,fa2
        flt.s     t6,fs0,fs1
        fle.s     zero,ft0,ft11
        fclass.s  s11,fa5
# ---- D ----
        fld     fa0,0(a1)
        fld     ft0,-2048(sp)
        fld     ft11,2047(t6)
        fsd     fs11,-2048(s0)
        fsd     fa7,2047(zero)
        fsd     ft8,8(sp)
        .irp    rm, rne,rtz,rdn,rup,rmm,dyn
        fmadd.d   ft0,ft1,ft2,ft3,\rm
        fmsub.d   fa0,fa1,fa2,fa3,\rm
        fnmsub.d  fs0,fs1,fs2,fs3,\rm
        fnmadd.d  ft8,ft9,ft10,ft11,\rm
        fadd.d    ft4,ft5,ft6,\rm
        fsub.d    ft7,fs4,fs5,\rm
        fmul.d    fs6,fs7,fs8,\rm
        fdiv.d    fs9,fs10,fs11,\rm
        fsqrt.d   fa4,fa5,\rm
        fcvt.w.d  a0,fa0,\rm
        fcvt.wu.d t6,ft11,\rm
        fcvt.s.d  fa6,fa1,\rm
        .endr
        fcvt.d.s  fa0,fa1
        fcvt.d.s  ft11,ft0
        fcvt.d.w  fa6,a1
        fcvt.d.wu fa7,zero
        fsgnj.d   fa0,fa1,fa2
        fsgnj.d   ft0,ft0,ft0
        fsgnjn.d  fs0,fs1,fs2
        fsgnjn.d  ft1,ft1,ft1
        fsgnjx.d  ft8,ft9,ft10
        fsgnjx.d  fa3,fa3,fa3
        fmin.d    fa0,fa1,fa2
        fmax.d    ft11,fs11,fa7
        feq.d     a0,fa1,fa2
        flt.d     t6,fs0,fs1
        fle.d     zero,ft0,ft11
        fclass.d  s11,fa5
        ret_label:
        jal       zero,_start
