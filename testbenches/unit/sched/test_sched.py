#!/usr/bin/python3
"""Unit tests of firmware/tessera-sched, the dual-issue scheduling pass, on
small assembly snippets: pairs formed, every dependence kept, barriers never
crossed, unchanged blocks written as they were."""

import importlib.machinery
import importlib.util
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCHED = os.path.join(ROOT, "firmware", "tessera-sched")
_loader = importlib.machinery.SourceFileLoader("tessera_sched", SCHED)
_spec = importlib.util.spec_from_loader("tessera_sched", _loader)
ts = importlib.util.module_from_spec(_spec)
_loader.exec_module(ts)


def sched(text):
    """The pass's output for `text` (lines without the leading tab)."""
    lines = [("\t" + line if line and not line.endswith(":") and not line.startswith("#")
              and not line.startswith(" #") else line) for line in text.strip("\n").split("\n")]
    out, _ = ts.transform(lines)
    return [line.strip() for line in out]


def insts(lines):
    return [line for line in lines if line and not line.startswith("#") and not line.startswith(".loc")]


def pairs(lines):
    """Dual-issue pairs the hardware forms issuing these instruction lines."""
    seq = [ts.Inst([], *ts.parse_inst(line)) for line in insts(lines)]
    return ts.count_pairs(seq)


class PairsFormed(unittest.TestCase):
    def test_shared_loads_and_sfu_join_independent_fmas(self):
        # The mixed loop body GCC writes: loads, then SFU, then FMAs.
        src = """
flw fa2,0(a5)
flw fa3,4(a5)
addi a5,a5,8
fsqrt.s fa2,fa2
fdiv.s fa3,fa3,fa1
fmadd.s ft0,ft0,fa5,fa4
fmadd.s ft1,ft1,fa5,fa4
fmadd.s ft2,ft2,fa5,fa4
fmadd.s ft3,ft3,fa5,fa2
fmadd.s ft4,ft4,fa5,fa3
"""
        out = sched(src)
        # Before: (flw fa3, addi) and (fdiv, fmadd ft0) pair: 2. After: every
        # load and SFU instruction leads a pair with an SP one: 4.
        self.assertEqual(pairs(src.split("\n")), 2)
        self.assertEqual(pairs(out), 4)
        self.assertEqual(sorted(out), sorted(insts(src.strip().split("\n"))))

    def test_an_sfu_or_load_leads_the_pair(self):
        # GCC's order pairs only (fmul fa5, flw); the pass forms two pairs,
        # each led by the load or the SFU instruction.
        src = "fmul.s fa0,fa1,fa2\nfmul.s fa3,fa1,fa2\nfmul.s fa5,fa1,fa2\nflw fa4,0(a0)\nfsqrt.s fa6,fa1\n"
        self.assertEqual(pairs(src.strip().split("\n")), 1)
        out = sched(src)
        self.assertEqual(out, ["flw fa4,0(a0)", "fmul.s fa0,fa1,fa2", "fsqrt.s fa6,fa1", "fmul.s fa3,fa1,fa2",
                               "fmul.s fa5,fa1,fa2"])
        self.assertEqual(pairs(out), 2)

    def test_a_block_whose_pairs_do_not_improve_is_left_alone(self):
        # As many pairs either way (fmul fa3 with the load): GCC's order stays.
        src = "fmul.s fa0,fa1,fa2\nfmul.s fa3,fa1,fa2\nflw fa4,0(a0)\n"
        self.assertEqual(sched(src), src.strip().split("\n"))

    def test_same_unit_instructions_do_not_move(self):
        src = "fadd.s fa0,fa1,fa2\nadd a0,a1,a2\nfmul.s fa3,fa1,fa2\n"
        self.assertEqual(sched(src), src.strip().split("\n"))

    def test_the_last_instruction_pairs_with_the_branch(self):
        # bne uses the SP unit: an SFU instruction before it issues with it.
        src = "fsqrt.s fa0,fa1\nfsqrt.s fa2,fa1\naddi a5,a5,1\nbne a5,a4,.L2\n"
        self.assertEqual(sched(src), ["fsqrt.s fa0,fa1", "addi a5,a5,1", "fsqrt.s fa2,fa1", "bne a5,a4,.L2"])


class DependencesKept(unittest.TestCase):
    def test_read_after_write(self):
        # The SFU result feeds the only SP instruction: no pair can form.
        src = "fsqrt.s fa0,fa1\nfadd.s fa2,fa0,fa0\n"
        self.assertEqual(sched(src), ["fsqrt.s fa0,fa1", "fadd.s fa2,fa0,fa0"])

    def test_read_after_write_through_memory_address(self):
        src = "addi a0,a0,4\nflw fa0,0(a0)\naddi a1,a1,1\n"
        out = sched(src)
        self.assertLess(out.index("addi a0,a0,4"), out.index("flw fa0,0(a0)"))

    def test_write_after_read(self):
        # The load reads a5 before addi writes it: the addi may join the load
        # but never precede it.
        out = sched("fmul.s fa0,fa1,fa2\naddi a5,a5,8\nflw fa3,0(a5)\n")
        self.assertLess(out.index("addi a5,a5,8"), out.index("flw fa3,0(a5)"))
        out = sched("flw fa3,0(a5)\nfmul.s fa0,fa1,fa2\naddi a5,a5,8\n")
        self.assertLess(out.index("flw fa3,0(a5)"), out.index("addi a5,a5,8"))

    def test_write_after_write(self):
        src = "fmv.s fa0,fa1\nfmv.s fa3,fa1\nfsqrt.s fa0,fa2\n"
        out = sched(src)
        self.assertLess(out.index("fmv.s fa0,fa1"), out.index("fsqrt.s fa0,fa2"))

    def test_zero_register_carries_no_dependence(self):
        out = sched("fmul.s fa0,fa1,fa2\nfmul.s fa3,fa1,fa2\nmv zero,a1\nlw a2,0(zero)\nfsqrt.s fa6,fa1\n")
        self.assertEqual(out[0], "lw a2,0(zero)")

    def test_stores_stay_in_order_with_every_memory_access(self):
        src = "fmul.s fa0,fa1,fa2\nfmul.s fa3,fa1,fa2\nsw a1,0(a2)\nlw a3,0(a4)\nsw a5,4(a2)\nflw fa5,8(a6)\n"
        out = sched(src)
        mem = [line for line in out if line.split()[0] in ("sw", "lw", "flw")]
        self.assertEqual(mem, ["sw a1,0(a2)", "lw a3,0(a4)", "sw a5,4(a2)", "flw fa5,8(a6)"])

    def test_loads_pass_loads(self):
        block = [ts.Inst([], *ts.parse_inst(x)) for x in ("flw fa5,0(a3)", "lw a2,4(a3)", "sw a1,0(a0)", "lw a4,0(a5)")]
        self.assertEqual(ts.dependences(block), [{}, {}, {0: "mem", 1: "mem"}, {2: "mem"}])
        # With the store in between they could not: the load after it stays.
        out = sched("flw fa5,0(a3)\nsw a1,0(a0)\nlw a4,0(a5)\nfmul.s fa0,fa1,fa2\n")
        self.assertEqual([x for x in out if x[0] != "f"], ["sw a1,0(a0)", "lw a4,0(a5)"])

    def test_a_load_result_waits_behind_every_earlier_load(self):
        # The add waits for the first load; the second load stays before it,
        # so both loads are in flight at once.
        block = [ts.Inst([], *ts.parse_inst(x)) for x in ("lw a3,0(a0)", "lw a4,4(a0)", "add a3,a3,a5",
                                                           "slli a6,a6,2")]
        self.assertEqual(ts.dependences(block), [{}, {}, {0: "raw", 1: "load"}, {}])

    def test_random_blocks_keep_every_conflicting_order(self):
        # Reference: two instructions conflict when one writes a register the
        # other reads or writes, or both access memory and one stores; every
        # conflicting pair keeps its order, and no line is lost or added.
        rng = random.Random(14)
        xr, fr = ["a0", "a1", "a2", "a3", "zero"], ["fa0", "fa1", "fa2", "fa3"]
        for _ in range(400):
            block = []
            for _ in range(rng.randint(2, 12)):
                k = rng.randrange(6)
                if k == 0:
                    block.append("fmadd.s %s,%s,%s,%s" % tuple(rng.choice(fr) for _ in range(4)))
                elif k == 1:
                    block.append("addi %s,%s,%d" % (rng.choice(xr), rng.choice(xr), rng.randint(-8, 8)))
                elif k == 2:
                    block.append("fsqrt.s %s,%s" % (rng.choice(fr), rng.choice(fr)))
                elif k == 3:
                    block.append("flw %s,%d(%s)" % (rng.choice(fr), 4 * rng.randint(0, 3), rng.choice(xr)))
                elif k == 4:
                    block.append("lw %s,0(%s)" % (rng.choice(xr), rng.choice(xr)))
                else:
                    block.append("sw %s,4(%s)" % (rng.choice(xr), rng.choice(xr)))
            block = [line + " # %d" % i for i, line in enumerate(block)]  # unique lines
            out = sched("\n".join(block))
            self.assertEqual(sorted(out), sorted(block))
            pos = {line: out.index(line) for line in block}

            def regs(line):
                parsed = ts.parse_inst(line)
                return set(parsed[1]), set(parsed[2]), parsed[3]

            for i, a in enumerate(block):
                da, ua, ka = regs(a)
                for b in block[i + 1:]:
                    db, ub, kb = regs(b)
                    conflict = (da & (ub | db)) or (ua & db) or (ka and kb and "store" in (ka, kb))
                    if conflict:
                        self.assertLess(pos[a], pos[b], "%s moved after %s in %s" % (a, b, out))
            # An instruction waiting for a load's result (through registers)
            # stays after every load that came before it.
            waiting = set()
            for i, a in enumerate(block):
                for r in regs(a)[1]:
                    writers = [b for b in block[:i] if r in regs(b)[0]]
                    if writers and (regs(writers[-1])[2] == "load" or writers[-1] in waiting):
                        waiting.add(a)
                if a in waiting:
                    for b in block[:i]:
                        if regs(b)[2] == "load":
                            self.assertLess(pos[b], pos[a], "%s moved before load %s in %s" % (a, b, out))
            self.assertGreaterEqual(pairs(out), pairs(block))


class Barriers(unittest.TestCase):
    # Around each barrier: an SFU instruction on one side could pair with
    # an SP instruction on the other, and must not move there.
    BARRIERS = [
        ".L5:",
        "call foo",
        "tail foo",
        "ret",
        "jalr ra,0(a5)",
        "fence rw,rw",
        "csrr a4, 0xCC0",
        "amoadd.w a0,a1,(a2)",
        "lr.w a0,(a2)",
        "ecall",
        "frflags a0",
        ".insn r 0x0B, 1, 0, x0, x0, x0",
        ".insn i 0x5B, 1, x28, 0(a0)",
        ".option push",
        ".cfi_startproc",
        ".cfi_endproc",
        "auipc a5,%pcrel_hi(sym)",
        "addi a5,a5,%pcrel_lo(.LA0)",
        "lw a0,sym",
        "frobnicate a0,a1",
        "fadd.d fa0,fa1,fa2",
        "add a0,a1,a2 ; add a3,a4,a5",
        "lui a0,1; ret",
    ]

    def test_nothing_crosses_a_barrier(self):
        for barrier in self.BARRIERS:
            with self.subTest(barrier=barrier):
                src = "fmul.s fa0,fa1,fa2\nfmul.s fa3,fa1,fa2\n%s\nfsqrt.s fa4,fa5\nfsqrt.s fa6,fa5\n" % barrier
                out = sched(src)
                self.assertEqual(out, src.strip().split("\n"))

    def test_inline_asm_region_with_unknown_instruction_is_a_barrier(self):
        src = """
fmul.s fa0,fa1,fa2
fmul.s fa3,fa1,fa2
 #APP
# 172 "tessera.h" 1
.insn r 0x0B, 0, 0, fa4, fa5, f0
csrr a0, cycle
# 0 "" 2
 #NO_APP
fsqrt.s fa4,fa5
"""
        out = sched(src)
        self.assertEqual(out, [line.strip() for line in src.strip().split("\n")])

    def test_sfu_asm_moves_inside_its_own_app_markers(self):
        src = """
fmul.s fa0,fa1,fa2
fmul.s fa3,fa1,fa2
 #APP
# 331 "tessera.h" 1
.insn r 0x0B, 0, 0, fa4, fa5, f0
# 0 "" 2
# 332 "tessera.h" 1
.insn r 0x0B, 0, 1, fa6, fa5, f0
# 0 "" 2
 #NO_APP
"""
        out = sched(src)
        self.assertEqual(out, [
            "#APP", '# 331 "tessera.h" 1', ".insn r 0x0B, 0, 0, fa4, fa5, f0", '# 0 "" 2', "#NO_APP",
            "fmul.s fa0,fa1,fa2",
            "#APP", '# 332 "tessera.h" 1', ".insn r 0x0B, 0, 1, fa6, fa5, f0", '# 0 "" 2', "#NO_APP",
            "fmul.s fa3,fa1,fa2"])

    def test_ldg_asm_is_a_load(self):
        # It moves to lead a pair, but never before the store.
        out = sched("sw a2,0(a3)\nfmul.s fa0,fa1,fa2\nfmul.s fa3,fa1,fa2\nfmul.s fa5,fa1,fa2\n"
                    " #APP\n.insn i 0x2B, 2, a0, 0(a1)\n #NO_APP\nfsqrt.s fa6,fa1\n")
        self.assertEqual(out, ["sw a2,0(a3)", "fmul.s fa0,fa1,fa2", "#APP", ".insn i 0x2B, 2, a0, 0(a1)", "#NO_APP",
                               "fmul.s fa3,fa1,fa2", "fsqrt.s fa6,fa1", "fmul.s fa5,fa1,fa2"])

    def test_unchanged_block_is_written_as_it_was(self):
        src = " #APP\n# 1 \"t.h\" 1\n.insn r 0x0B, 0, 0, fa4, fa5, f0\n# 0 \"\" 2\n #NO_APP\nfadd.s fa0,fa4,fa1\n"
        lines = src.split("\n")
        out, stats = ts.transform(lines)
        self.assertEqual(out, lines)
        self.assertEqual(stats["changed"], 0)


class DebugLines(unittest.TestCase):
    def test_loc_moves_with_its_instruction(self):
        out = sched(".loc 1 10 3\nfmul.s fa0,fa1,fa2\n.loc 1 11 3\nfmul.s fa3,fa1,fa2\nfmul.s fa5,fa1,fa2\n"
                    ".loc 1 12 3\nflw fa4,0(a0)\n.loc 1 13 3\nfsqrt.s fa6,fa1\n")
        self.assertEqual(out, [".loc 1 12 3", "flw fa4,0(a0)", ".loc 1 10 3", "fmul.s fa0,fa1,fa2", ".loc 1 13 3",
                               "fsqrt.s fa6,fa1", ".loc 1 11 3", "fmul.s fa3,fa1,fa2", "fmul.s fa5,fa1,fa2"])

    def test_debug_labels_and_frame_directives_move_with_their_instruction(self):
        # What -g adds inside code (.LVL/.LBB/.LBE labels, .cfi_* rules) is
        # no barrier: the block is scheduled as without -g.
        plain = ["fmul.s fa0,fa1,fa2", "fmul.s fa3,fa1,fa2", "flw fa4,0(a0)", "fsqrt.s fa6,fa1"]
        debug = ["fmul.s fa0,fa1,fa2", ".LVL3:", ".cfi_def_cfa_offset 16", "fmul.s fa3,fa1,fa2", ".LBB7:",
                 "flw fa4,0(a0)", ".LBE7:", ".cfi_restore 1", "fsqrt.s fa6,fa1"]
        out = sched("\n".join(debug) + "\n")
        self.assertEqual([l for l in out if not l.startswith(".")], sched("\n".join(plain) + "\n"))
        self.assertEqual(out[out.index(".LBB7:") + 1], "flw fa4,0(a0)")
        self.assertEqual(out[out.index(".cfi_restore 1") + 1], "fsqrt.s fa6,fa1")

    def test_block_with_location_views_is_left_alone(self):
        src = ".loc 1 10 3 view .LVU4\nfmul.s fa0,fa1,fa2\nfmul.s fa3,fa1,fa2\nflw fa4,0(a0)\n"
        self.assertEqual(sched(src), src.strip().split("\n"))


def which(name):
    return shutil.which(os.environ.get("TESSERA_CC", name) if name.endswith("gcc") else name)


class RealCompilerOutput(unittest.TestCase):
    @unittest.skipUnless(which("riscv64-unknown-elf-gcc"), "riscv64-unknown-elf-gcc not installed")
    def test_output_assembles_to_the_same_instructions(self):
        # A kernel with loads, SFU calls, FMAs, stores, a call and -g: the
        # scheduled assembly assembles, and holds the same instructions.
        src = r"""
#include <tessera.h>
extern void g(float*);
TESSERA_KERNEL void k(void* p) {
  float* q = p; float a = q[0], b = q[1], c = 0, d = 1;
  for (int i = 0; i < 64; i++) {
    float s = __sinf(q[2 * i]), t = __cosf(q[2 * i + 1]);
    a = a * 0.5f + 1; b = b * 0.5f + 2; c = c * 0.25f + s; d = d * 0.25f + t;
  }
  q[0] = a + b; q[1] = c + d; g(q);
}
"""
        gcc = which("riscv64-unknown-elf-gcc")
        with tempfile.TemporaryDirectory() as tmp:
            c = os.path.join(tmp, "k.c")
            with open(c, "w") as f:
                f.write(src)
            for extra in ([], ["-g"]):
                flags = ["-march=rv32imafd", "-mabi=ilp32d", "--specs=picolibc.specs", "-O2", "-fno-math-errno",
                         "-I", os.path.join(ROOT, "firmware", "runtime")] + extra
                asm, out = os.path.join(tmp, "k.s"), os.path.join(tmp, "k2.s")
                subprocess.run([gcc] + flags + ["-S", c, "-o", asm], check=True)
                subprocess.run([sys.executable, SCHED, asm, "-o", out], check=True)
                dumps = []
                for s in (asm, out):
                    obj = s + ".o"
                    subprocess.run([gcc] + flags + ["-c", s, "-o", obj], check=True)
                    dis = subprocess.run(["riscv64-unknown-elf-objdump", "-d", obj], check=True,
                                         stdout=subprocess.PIPE, text=True).stdout
                    dumps.append(sorted(re.findall(r"^\s+[0-9a-f]+:\s+([0-9a-f]{8})", dis, re.M)))
                self.assertEqual(dumps[0], dumps[1])
                if not extra:
                    with open(asm) as f1, open(out) as f2:
                        self.assertNotEqual(f1.read(), f2.read(), "the kernel loop should be reordered")


class CommandLine(unittest.TestCase):
    def test_missing_input_names_the_file(self):
        p = subprocess.run([sys.executable, SCHED, "/nonexistent/x.s", "-o", "/dev/null"], stderr=subprocess.PIPE,
                           text=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("/nonexistent/x.s", p.stderr)

    def test_usage_errors(self):
        for args in ([], ["a.s"], ["a.s", "-o"], ["--bogus", "a.s", "-o", "b.s"]):
            p = subprocess.run([sys.executable, SCHED] + args, stderr=subprocess.PIPE, text=True)
            self.assertEqual(p.returncode, 2, args)

    def test_stdin_to_stdout(self):
        src = "\tfmul.s fa0,fa1,fa2\n\tfmul.s fa3,fa1,fa2\n\tflw fa4,0(a0)\n\tfsqrt.s fa6,fa1\n"
        p = subprocess.run([sys.executable, SCHED, "-", "-o", "-"], input=src, stdout=subprocess.PIPE, text=True,
                           check=True)
        self.assertEqual(p.stdout, "\tflw fa4,0(a0)\n\tfmul.s fa0,fa1,fa2\n\tfsqrt.s fa6,fa1\n\tfmul.s fa3,fa1,fa2\n")


if __name__ == "__main__":
    unittest.main()
