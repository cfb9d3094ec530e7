#!/usr/bin/python3
"""Every input of the committed fuzz corpora (testbenches/fuzz/corpus) that
is a file tessera reads (an ELF, a netlist with its --set assignments, a
checkpoint, a DRAM or NoC trace) ends, through the tessera binary, with a
documented exit status (docs/firmware-abi.md, "Exit status"), within its
time limit: never a signal, never 9 (host memory) or 70 (an internal
error), and a status outside 0 and 2..8 only as the program's own, which
the summary names. The corpora of fuzz_isa and fuzz_sm are the harnesses'
own encodings of instructions, not files of tessera's.

    corpus_replay.py TESSERA CORPUS_DIR VECADD_ELF
"""
import os
import re
import subprocess
import sys
import tempfile

DOCUMENTED = {0, 2, 3, 4, 5, 6, 7, 8}


def runs(corpus, vecadd, scratch):
    """(input, argv) for every corpus file tessera reads."""
    def files(harness):
        d = os.path.join(corpus, harness)
        return [os.path.join(d, f) for f in sorted(os.listdir(d))]

    for f in files("fuzz_elf"):
        yield f, ["run", "sm1", f, "--max-cycles", "2000000"]
    for f in files("fuzz_config"):
        # fuzz_config's input: a netlist, then NUL-separated --set assignments.
        with open(f, "rb") as fh:
            parts = fh.read().split(b"\0")
        netlist = os.path.join(scratch, os.path.basename(f) + ".yaml")
        with open(netlist, "wb") as fh:
            fh.write(parts[0])
        sets = []
        for s in parts[1:]:
            if s:
                sets += ["--set", s.decode("utf-8", "replace")]
        yield f, ["config", "--list", netlist] + sets
    for f in files("fuzz_checkpoint"):
        yield f, ["run", "chip", vecadd, "--restore", f]
    for f in files("fuzz_dram_trace"):
        yield f, ["dram", "--pattern", "trace", "--trace-file", f]
    for f in files("fuzz_noc_trace"):
        yield f, ["noc", "--traffic", "trace", "--trace", f]


def main():
    tessera, corpus, vecadd = (os.path.abspath(a) for a in sys.argv[1:4])
    failures = 0
    count = 0
    with tempfile.TemporaryDirectory(prefix="tessera-corpus-") as scratch:
        for name, args in runs(corpus, vecadd, scratch):
            count += 1
            try:
                p = subprocess.run([tessera] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                                   cwd=scratch)
            except subprocess.TimeoutExpired:
                print(f"FAIL {name}: no end within 120 s: tessera {' '.join(args)}")
                failures += 1
                continue
            err = p.stderr.decode("utf-8", "replace")
            own = re.search(r"program exited with status (\d+)", err)
            if p.returncode < 0:
                why = f"killed by signal {-p.returncode}"
            elif p.returncode in DOCUMENTED or (own and int(own.group(1)) == p.returncode):
                why = ""
            else:
                why = f"exit status {p.returncode}, not a documented one"
            print(f"{'FAIL' if why else 'ok  '} {p.returncode:3d} {name}{': ' + why if why else ''}")
            if why:
                failures += 1
                print("  tessera " + " ".join(args) + "\n  " + err.strip().replace("\n", "\n  ")[-2000:])
    print(f"{count} corpus inputs, {failures} failures")
    return 1 if failures or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
