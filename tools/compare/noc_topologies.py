#!/usr/bin/python3
"""Tessera's NoC beside BookSim2 on topologies other than the 8x8 mesh of
run.py: zero-load latency and saturation throughput per case.

  tools/compare/noc_topologies.py --booksim PATH [--tessera build/tessera]
                                  [--only CASE[,CASE]] [--step 0.01]

Per case and side:
  zero-load   average packet latency at one grid step (--step), sampled
              over 50,000 cycles on both sides (BookSim sample_period =
              50000; Tessera 50 samples of 1,000 cycles, no convergence
              stop), so that the mean hop count of the sampled packets is
              within 1 % of the topology's;
  sat. 3x     the highest grid load whose average latency is at most 3x the
              zero-load latency (and that ran stable), by bisection;
  stable      the highest grid load the side calls stable (BookSim: no
              "Simulation unstable", i.e. mean latency under its 500-cycle
              threshold; Tessera: `saturated` false and drained), as in
              run.py, by bisection;
  accepted    accepted throughput at an offered load of 1.0 in throughput
              mode on both sides (BookSim: sim_type = throughput, its
              overall "Accepted flit rate average" over the window after
              its 3 warm-up samples; Tessera: --mode throughput, the window
              after its 3,000 warm-up cycles), the network's saturation
              throughput. Until 2026-12-07 BookSim ran this point in
              latency mode, which stops at its first sample over the
              500-cycle latency threshold (on ring16 the very first, at
              cycle 1,000) and so reported the rate of the network filling
              up from empty (ring16: 0.076, against its 0.070 in
              throughput mode).
Bisection assumes a side saturated at one load is saturated at every higher
one.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402

# Router pipeline and measurement of run.py's mesh comparison: 1-cycle
# routing, VC allocation, switch allocation, switch traversal and channels,
# 8-flit VC buffers, non-atomic VC reallocation, 1-flit packets, seed 1.
BOOKSIM_COMMON = [
    ("wait_for_tail_credit", 0), ("routing_delay", 1), ("vc_alloc_delay", 1),
    ("sw_alloc_delay", 1), ("st_final_delay", 1), ("vc_buf_size", 8),
    ("traffic", "uniform"), ("packet_size", 1), ("injection_rate_uses_flits", 1),
    ("sim_type", "latency"), ("seed", 1),
]
TESSERA_COMMON = ["--vc-buf", "8", "--traffic", "uniform", "--packet-flits", "1", "--json"]

# name -> (BookSim2 keys, Tessera arguments). BookSim2's k-ary n-cube gives
# a torus 2-cycle channels (folded: use_noc_latency = 1, its default) and
# keeps injection and ejection at 1 cycle; the plain cases switch that off
# (1-cycle channels as in the mesh comparison), the _link2 cases match it.
TORUS4 = ([("topology", "torus"), ("k", 4), ("n", 2), ("routing_function", "dim_order"), ("num_vcs", 2)],
          ["--topology", "torus", "--k", "4", "--m", "4", "--routing", "dor", "--vcs", "2"])
RING16 = ([("topology", "torus"), ("k", 16), ("n", 1), ("routing_function", "dim_order"), ("num_vcs", 2)],
          ["--topology", "ring", "--k", "16", "--routing", "dor", "--vcs", "2"])
LINK1 = ([("use_noc_latency", 0)], [])
LINK2 = ([("use_noc_latency", 1)],
         ["--set", "noc.delay.link=2", "--set", "noc.delay.credit=2", "--set", "noc.delay.injection=1",
          "--set", "noc.delay.ejection=1"])


def _case(base, extra):
    return (base[0] + extra[0], base[1] + extra[1])


# A 4-ary 3-tree: 64 nodes, 48 routers of 8 ports, nearest-common-ancestor
# routing (a random up port, BookSim2's nca_fattree; Tessera hashes the
# packet id), all VCs on every hop.
FATTREE = ([("topology", "fattree"), ("k", 4), ("n", 3), ("routing_function", "nca"), ("num_vcs", 2)],
           ["--topology", "fattree", "--k", "4", "--set", "noc.n=3", "--routing", "nca", "--vcs", "2"])

# A 4-ary 2-flat with 4 nodes per router (BookSim2's examples/flatflyconfig
# shape: 16 routers of 10 ports, 64 nodes), 1-cycle channels on both sides
# (use_noc_latency = 0; with 1 BookSim2 gives each channel its length on a
# 2-D floor plan). BookSim2's routing names: ran_min is its dimension-order
# minimal routing, ugal its ugal_flatfly_onchip (bias 2, Tessera's default).
FLATFLY = ([("topology", "flatfly"), ("k", 4), ("n", 2), ("c", 4), ("x", 4), ("y", 4), ("xr", 2), ("yr", 2),
            ("use_noc_latency", 0), ("num_vcs", 2)],
           ["--topology", "flatfly", "--k", "4", "--set", "noc.n=2", "--set", "noc.c=4", "--vcs", "2"])
FLATFLY_MIN = ([("routing_function", "ran_min")], ["--routing", "min"])
FLATFLY_UGAL = ([("routing_function", "ugal")], ["--routing", "ugal"])

# A dragonfly of p = 2 (BookSim2's dragonflynew, k = 2, n = 1): 72 nodes,
# 9 groups of 4 routers. BookSim2 compiles in its channel latencies
# (DRAGON_LATENCY: local channels 10 cycles, global 100, credits alike) and
# keeps its terminal channels at 1 cycle; Tessera gets the same links, and
# the credit delay of the channel latency as in the _link2 cases. A 100-cycle
# link needs deep buffers to stay busy: 256-flit VCs on both sides, as in
# BookSim2's examples/dragonflyconfig. min: 2 VCs (min_dragonflynew), ugal:
# 3 (ugal_dragonflynew asserts 3; Tessera's intermediate is a group, not a
# node: docs/validation.md, "NoC: dragonfly").
DRAGONFLY = ([("topology", "dragonflynew"), ("k", 2), ("n", 1), ("vc_buf_size", 256)],
             ["--topology", "dragonfly", "--k", "2", "--vc-buf", "256",
              "--set", "noc.delay.link=10", "--set", "noc.delay.credit=10", "--set", "noc.delay.global_link=100",
              "--set", "noc.delay.injection=1", "--set", "noc.delay.ejection=1"])
DF_MIN = ([("routing_function", "min"), ("num_vcs", 2)], ["--routing", "min", "--vcs", "2"])
DF_UGAL = ([("routing_function", "ugal"), ("num_vcs", 3)], ["--routing", "ugal", "--vcs", "3"])
# BookSim2's UGAL rule itself in Tessera (intermediate node, its VC phases;
# it can deadlock, so Tessera runs it only with allow_unsafe_routing).
DF_UGAL_NODE = ([("routing_function", "ugal"), ("num_vcs", 3)],
                ["--routing", "ugal_node", "--vcs", "3", "--set", "noc.allow_unsafe_routing=true"])

CASES = {
    "fattree4x3": FATTREE,
    "flatfly4x2_min": _case(FLATFLY, FLATFLY_MIN),
    "flatfly4x2_ugal": _case(FLATFLY, FLATFLY_UGAL),
    "dragonfly2_min": _case(DRAGONFLY, DF_MIN),
    "dragonfly2_ugal": _case(DRAGONFLY, DF_UGAL),
    "dragonfly2_ugal_node": _case(DRAGONFLY, DF_UGAL_NODE),
    "torus4x4": _case(TORUS4, LINK1),
    "torus4x4_link2": _case(TORUS4, LINK2),
    "ring16": _case(RING16, LINK1),
    "ring16_link2": _case(RING16, LINK2),
}


def booksim_config(keys, rate, throughput=False):
    own = {k for k, _ in keys}  # a case's own value of a common key wins
    common = [(k, "throughput" if throughput and k == "sim_type" else v) for k, v in BOOKSIM_COMMON if k not in own]
    lines = keys + common + [("injection_rate", "%.4f" % rate)]  # a real: "1" would parse as an integer
    return "".join("%s = %s;\n" % (k, v) for k, v in lines)


def run_booksim(exe, keys, rate, tmp, throughput=False, long=False):
    """(saturated, latency) at `rate`; with throughput, the accepted rate
    in BookSim's throughput mode (no latency threshold to stop it)."""
    cfg = os.path.join(tmp, "booksim.cfg")
    with open(cfg, "w") as f:
        f.write(booksim_config(keys + ([("sample_period", 50000)] if long else []), rate, throughput))
    p = subprocess.run([exe, cfg], capture_output=True, text=True, timeout=3600)
    if throughput:
        # In throughput mode the last such line is the average over the samples.
        acc = re.findall(r"^Accepted flit rate average\s*=\s*([0-9.eE+-]+)", p.stdout, re.M)
        return float(acc[-1]) if acc else None
    r = peers.parse_booksim(p.stdout)
    # BookSim's own rule ("Simulation unstable": mean latency over
    # latency_thres), as the docstring says; r["saturated"] applies
    # Tessera's rules (peers.saturated) since the mesh comparison gives both.
    return r["over_threshold"], r["latency"]


def run_tessera(exe, args, rate, throughput=False, long=False):
    extra = ["--mode", "throughput"] if throughput else []
    if long:
        # 50 samples of 1,000 cycles after the warm-up (noc.cycles bounds the window).
        extra += ["--set", "noc.converge=0", "--set", "noc.max_samples=50", "--set", "noc.cycles=50000"]
    common = TESSERA_COMMON
    if "--vc-buf" in args:  # a case's own buffer depth wins
        i = common.index("--vc-buf")
        common = common[:i] + common[i + 2:]
    p = subprocess.run([exe, "noc"] + args + common + extra + ["--rate", "%g" % rate],
                       capture_output=True, text=True, timeout=3600)
    if p.returncode != 0:
        sys.exit("tessera noc failed: %s" % p.stderr)
    j = json.loads(p.stdout)
    if throughput:
        return j["accepted_flits_per_node_cycle"]
    return bool(j["saturated"]) or not j["drained"], j["avg_packet_latency_cycles"]


def saturation(fn, step, saturated, top=1.0):
    """Highest grid load at which saturated(fn(load)) is false (bisection)."""
    lo, hi = 0, int(round(top / step)) + 1  # lo: known unsaturated index, hi: known saturated
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if saturated(fn(round(mid * step, 4))):
            hi = mid
        else:
            lo = mid
    return round(lo * step, 4)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--booksim", required=True, help="BookSim2 checkout with src/booksim built")
    ap.add_argument("--tessera", default="build/tessera")
    ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--side", choices=["both", "booksim", "tessera"], default="both")
    ap.add_argument("--step", type=float, default=0.01)
    ap.add_argument("--zero-load-only", action="store_true", help="only the zero-load latency")
    args = ap.parse_args()
    exe = os.path.join(args.booksim, "src", "booksim")
    names = [n for n in args.only.split(",") if n] or list(CASES)
    print("| case | side | zero-load latency @%g | sat. 3x | stable | accepted @1.0 |" % args.step)
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            keys, targs = CASES[name]
            sides = []
            if args.side in ("both", "booksim"):
                sides.append(("BookSim2", lambda r, t=False, z=False, k=keys: run_booksim(exe, k, r, tmp, t, z)))
            if args.side in ("both", "tessera"):
                sides.append(("Tessera", lambda r, t=False, z=False, a=targs: run_tessera(args.tessera, a, r, t, z)))
            for side, fn in sides:
                zero = fn(args.step, False, True)[1]
                if args.zero_load_only:
                    print("| %s | %s | %.2f | | | |" % (name, side, zero), flush=True)
                    continue
                sat3 = saturation(fn, args.step, lambda r, z=zero: r[0] or r[1] is None or r[1] > 3 * z)
                stable = saturation(fn, args.step, lambda r: r[0])
                accepted = fn(1.0, True)
                print("| %s | %s | %.2f | %g | %g | %.3f |" % (name, side, zero, sat3, stable, accepted), flush=True)


if __name__ == "__main__":
    main()
