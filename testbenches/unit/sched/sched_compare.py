#!/usr/bin/python3
"""Compiles firmware programs with and without the dual-issue scheduling pass
(firmware/tessera-sched), runs both builds on a platform and compares them.

    sched_compare.py --tessera BUILD/tessera --out DIR [--platform sm1] FILE.c...

Each program: riscv64-unknown-elf-gcc -S with tessera-cc's flags gives
NAME.s, tessera-sched gives NAME.sched.s, firmware/tessera-cc links each (it
accepts .s inputs). Both must exit with status 0 (their self-checks pass);
the table shows kernel cycles, SM IPC (warp instructions per kernel cycle)
and dual-issue cycles before and after. Exit status 1 when any build or run
fails, naming which, or a program named by --require-faster is not faster.
"""

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
FIRMWARE = os.path.join(ROOT, "firmware")
# tessera-cc's compile flags (firmware/tessera-cc); linking goes through it.
CFLAGS = ["-march=rv32imafd", "-mabi=ilp32d", "--specs=picolibc.specs", "-O2", "-std=gnu17", "-fno-math-errno",
          "-ffunction-sections", "-fdata-sections", "-Wall", "-Wextra", "-I", os.path.join(FIRMWARE, "runtime")]


def run(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed (status %d): %s\n%s" % (what, p.returncode, " ".join(cmd), p.stdout))
    return p.stdout


def stat_sums(stats):
    """(kernel cycles, warp instructions, dual-issue cycles) over the SMs:
    kernel cycles are the most any SM was active (sm<i>.cycles)."""
    cycles = issued = dual = 0
    for name, sm in stats["chip"].items():
        if not (name.startswith("sm") and name[2:].isdigit()):
            continue
        cycles = max(cycles, sm["cycles"])
        issued += sm["warp_insts"]
        dual += sum(v["dual_issued"] for k, v in sm.items() if k.startswith("sched") and isinstance(v, dict))
    return cycles, issued, dual


def build_and_run(args, src):
    name = os.path.splitext(os.path.basename(src))[0]
    asm = os.path.join(args.out, name + ".s")
    sched = os.path.join(args.out, name + ".sched.s")
    gcc = os.environ.get("TESSERA_CC", "riscv64-unknown-elf-gcc")
    run([gcc] + CFLAGS + ["-S", src, "-o", asm], "compiling " + src)
    run([sys.executable, os.path.join(FIRMWARE, "tessera-sched"), asm, "-o", sched], "tessera-sched on " + asm)
    results = []
    for label, s in (("gcc", asm), ("sched", sched)):
        elf = os.path.join(args.out, "%s.%s.elf" % (name, label))
        run([os.path.join(FIRMWARE, "tessera-cc"), s, "-o", elf], "linking " + s)
        stats_path = elf + ".stats.json"
        cmd = [args.tessera, "run", "-q", args.platform, elf, "--stats", stats_path]
        for kv in args.set or []:
            cmd += ["--set", kv]
        run(cmd, "running %s (%s order) on %s" % (name, label, args.platform))
        with open(stats_path) as f:
            results.append(stat_sums(json.load(f)))
    return name, results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessera", required=True, help="the simulator binary")
    ap.add_argument("--out", required=True, help="directory for the .s, .elf and statistics files")
    ap.add_argument("--platform", default="sm1")
    ap.add_argument("--set", action="append", help="parameter override passed to tessera run")
    ap.add_argument("--require-faster", action="append", default=[], metavar="NAME",
                    help="fail unless program NAME runs in fewer kernel cycles scheduled")
    ap.add_argument("sources", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    failures = 0
    print("| program | kernel cycles (GCC order) | kernel cycles (scheduled) | change | IPC before | IPC after "
          "| dual-issue cycles before | after |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for src in args.sources:
        try:
            name, ((c0, i0, d0), (c1, i1, d1)) = build_and_run(args, src)
        except RuntimeError as e:
            failures += 1
            print("FAIL %s: %s" % (src, e), file=sys.stderr)
            continue
        change = "%+.1f%%" % (100.0 * (c1 - c0) / c0) if c0 else "-"
        ipc0 = "%.3f" % (i0 / c0) if c0 else "-"
        ipc1 = "%.3f" % (i1 / c1) if c1 else "-"
        print("| %s | %d | %d | %s | %s | %s | %d | %d |" % (name, c0, c1, change, ipc0, ipc1, d0, d1), flush=True)
        if name in args.require_faster and not c1 < c0:
            failures += 1
            print("FAIL %s: %d kernel cycles scheduled, not fewer than %d in GCC's order" % (name, c1, c0),
                  file=sys.stderr)
    missing = set(args.require_faster) - {os.path.splitext(os.path.basename(s))[0] for s in args.sources}
    for name in sorted(missing):
        failures += 1
        print("FAIL --require-faster %s: no such program among the sources" % name, file=sys.stderr)
    if failures:
        print("%d failures among %d programs" % (failures, len(args.sources)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
