#!/usr/bin/python3
"""Run Tessera's NoC and HBM models beside BookSim2 and DRAMsim3 on matched
configurations; write side-by-side tables (Markdown + CSV), latency-load
plots (PNG) and the speed ratio to an output directory.

  tools/compare/run.py --booksim PATH --dramsim3 PATH [--tessera build/tessera]
                       [--out compare-out] [--only noc|hbm] [--quick]

PATH is a built checkout of each peer's public source (BookSim2: src/booksim;
DRAMsim3: build/dramsim3main from CMake, or dramsim3main.out from its
Makefile). Nothing is downloaded or built here. Speed is process CPU time
(user + system, getrusage of each child) on both sides.
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DS3_INI = "configs/HBM2_8Gb_x128.ini"


def log(msg):
    print(msg, flush=True)


def peer_exe(path, candidates, what):
    try:
        return peers.find_peer(path, candidates, what)
    except peers.PeerNotBuilt as e:
        sys.exit(str(e))


def build_booksim(path):
    return peer_exe(path, [os.path.join("src", "booksim")], "BookSim2")


def build_dramsim3(path):
    return peer_exe(path, peers.DRAMSIM3_BINARIES, "DRAMsim3")


# ------------------------------------------------------------------- NoC

def run_booksim(exe, case, rate, tmp):
    cfg = os.path.join(tmp, "booksim.cfg")
    with open(cfg, "w") as f:
        f.write(peers.booksim_config(case, rate))
    p, cpu, wall = peers.run_measured([exe, cfg], capture_output=True, text=True, timeout=600)
    r = peers.parse_booksim(p.stdout)
    r.update(cpu_seconds=cpu, wall_seconds=wall)
    return r


def run_tessera_noc(exe, case, rate, atomic_vc):
    p, cpu, wall = peers.run_measured([exe] + peers.tessera_noc_args(case, rate, atomic_vc),
                                      capture_output=True, text=True, timeout=600)
    j = json.loads(p.stdout)
    r = {"over_threshold": j["saturation_reason"] == "latency_threshold",  # recorded first when it applies
         "converged": j["converged"], "drained": j["drained"],
         "injected": j["injected_flits_per_node_cycle"],
         "latency": j["avg_packet_latency_cycles"],  # None when measured packets stayed undelivered
         "accepted": j["accepted_flits_per_node_cycle"],
         "hops": j["avg_hops"],
         "simulated_cycles": j["simulated_cycles"],
         "host_seconds": j["host_seconds"], "cpu_seconds": cpu, "wall_seconds": wall}
    r["saturated"] = peers.saturated(r, "tessera")
    if r["saturated"] != (bool(j["saturated"]) or not j["drained"]):
        log("warning: Tessera's rules recomputed disagree with its own verdict at %s rate %g" % (case, rate))
    return r


def sweep(fn, step, top):
    """Run fn(rate) at step, 2*step, ... until the first point over the
    latency threshold, the one rule both sides share, so the points give
    the saturation under both rules (peers.SATURATION_RULES)."""
    pts = []
    i = 1
    while i * step <= top + 1e-9:
        rate = round(i * step, 4)
        r = fn(rate)
        r["offered"] = rate
        pts.append(r)
        if r["over_threshold"]:
            break
        i += 1
    return pts


def noc(args, out):
    bs = build_booksim(args.booksim)
    step = 0.05 if args.quick else 0.02
    # Tessera at its defaults (noc.atomic_vc=auto: non-atomic with
    # dimension-order routing, as BookSim), and with atomic VC allocation
    # for reference.
    sides = [("booksim", None), ("tessera_default", None), ("tessera_atomic", True)]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for case in peers.noc_cases():
            name = peers.case_name(case)
            results[name] = {}
            for side, atomic in sides:
                if side == "booksim":
                    fn = lambda r, c=case: run_booksim(bs, c, r, tmp)  # noqa: E731
                else:
                    fn = lambda r, c=case, a=atomic: run_tessera_noc(args.tessera, c, r, a)  # noqa: E731
                results[name][side] = sweep(fn, step, 1.0)
                sat = peers.saturation_rates(results[name][side])
                log("noc %-22s %-18s saturation %s (latency threshold), %s (Tessera's rules)"
                    % (name, side, sat["latency_threshold"], sat["tessera"]))
    with open(os.path.join(out, "noc_points.json"), "w") as f:
        json.dump(results, f, indent=1)

    thr, all_ = " sat. (latency threshold)", " sat. (Tessera's rules)"
    headers = ["case", "BookSim2" + thr, "Tessera default" + thr, "Tessera atomic_vc=true" + thr,
               "BookSim2" + all_, "Tessera default" + all_, "Tessera atomic_vc=true" + all_,
               "ratio default/BookSim (threshold)", "ratio default/BookSim (Tessera's rules)",
               "ratio atomic/BookSim (Tessera's rules)",
               "BookSim2 lat. @0.02", "Tessera default lat. @0.02", "Tessera atomic lat. @0.02"]
    speed_headers = ["case", "BookSim2 points", "BookSim2 CPU s", "BookSim2 CPU us/cycle",
                     "Tessera points", "Tessera CPU s", "Tessera CPU us/cycle", "speed ratio"]
    rows, speed = [], []
    for name, by in results.items():
        sat = {s: peers.saturation_rates(by[s]) for s, _ in sides}
        low = {s: by[s][0]["latency"] if by[s] else None for s, _ in sides}

        def per_cycle(pts):
            # Process CPU time over the points under the latency threshold:
            # BookSim prints no cycle count for a run it aborts.
            pts = [p for p in pts if not p["over_threshold"] and p["simulated_cycles"]]
            cyc = sum(p["simulated_cycles"] for p in pts)
            sec = sum(p["cpu_seconds"] for p in pts)
            return len(pts), sec, (sec / cyc * 1e6 if cyc else None)
        bs_n, bs_s, bs_pc = per_cycle(by["booksim"])
        te_n, te_s, te_pc = per_cycle(by["tessera_default"] + by["tessera_atomic"])
        rows.append([name] + [sat[s]["latency_threshold"] for s, _ in sides] + [sat[s]["tessera"] for s, _ in sides] +
                    [peers.ratio(sat["tessera_default"]["latency_threshold"], sat["booksim"]["latency_threshold"]),
                     peers.ratio(sat["tessera_default"]["tessera"], sat["booksim"]["tessera"]),
                     peers.ratio(sat["tessera_atomic"]["tessera"], sat["booksim"]["tessera"]),
                     low["booksim"], low["tessera_default"], low["tessera_atomic"]])
        speed.append([name, bs_n, bs_s, bs_pc, te_n, te_s, te_pc, peers.ratio(bs_pc, te_pc)])
    write_tables(out, "noc_speed", speed_headers, speed)
    write_tables(out, "noc", headers, rows)
    plot_noc(out, results)


def plot_noc(out, results):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = list(results)
    fig, axes = plt.subplots(3, 4, figsize=(18, 12))
    for ax, name in zip(axes.flat, names):
        for side, style in (("booksim", "k-o"), ("tessera_default", "r-s"), ("tessera_atomic", "b-^")):
            pts = [p for p in results[name][side] if not p["over_threshold"] and p["latency"] is not None]
            ax.plot([p["offered"] for p in pts], [p["latency"] for p in pts], style, ms=3,
                    label={"booksim": "BookSim2", "tessera_default": "Tessera (default, atomic_vc=auto)",
                           "tessera_atomic": "Tessera (atomic_vc=true)"}[side])
        ax.set_title(name)
        ax.set_xlabel("offered load (flits/node/cycle)")
        ax.set_ylabel("avg packet latency (cycles)")
        ax.set_xlim(left=0)
        ax.grid(True, alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "noc_latency_load.png"), dpi=80)


# ------------------------------------------------------------------- HBM

HBM2_PRESET = os.path.join(ROOT, "models", "dram", "presets", "hbm2.yaml")


def tessera_tck_ps():
    for line in open(HBM2_PRESET):
        m = re.match(r"^tck_ps:\s*([0-9]+)", line)
        if m:
            return int(m.group(1))
    sys.exit("%s: no tck_ps" % HBM2_PRESET)


def tessera_timings():
    path = HBM2_PRESET
    out, in_timing = {}, False
    for line in open(path):
        if re.match(r"^timing:", line):
            in_timing = True
            continue
        if in_timing:
            m = re.match(r"^\s+(\w+):\s*([0-9]+)", line)
            if m:
                out[m.group(1)] = int(m.group(2))
            elif re.match(r"^\S", line):
                break
    return out


def timing_table(out, ds3_ini):
    ini = peers.parse_ini(open(ds3_ini).read())
    ds = {k: int(v) for k, v in ini["timing"].items() if re.match(r"^[0-9]+$", v)}
    ds.setdefault("tRC", ds["tRAS"] + ds["tRP"])
    # DRAMsim3 reads only `tRTP` (default 5, src/configuration.cc); the
    # tRTP_L / tRTP_S keys of its HBM2 file are not read.
    ds["tRTP"] = ds.get("tRTP", 5)
    te = tessera_timings()
    rows = []
    for k in sorted(set(te) | set(ds), key=str.lower):
        a, b = te.get(k), ds.get(k)
        mark = "" if a == b else ("only Tessera" if b is None else ("only DRAMsim3" if a is None else "differs"))
        rows.append([k, a, b, mark])
    sysrows = [[k, v] for k, v in ini["system"].items()]
    write_tables(out, "hbm_timings", ["timing (tCK)", "Tessera hbm2", "DRAMsim3 HBM2_8Gb_x128", "note"], rows)
    write_tables(out, "hbm_dramsim3_system", ["DRAMsim3 [system]", "value"], sysrows)


# DRAMsim3's effective values where Tessera's hbm2 preset differs (docs/dram.md,
# "Timing sources"): its legacy-channel tFAW, the 4 Gb tRFC, tCCD_L at its own
# burst time and no row-bus occupancy for ACT. The "Tessera, DRAMsim3 timings"
# rows run with these overrides and DRAMsim3's in-order source and synchronized
# refresh, so the controllers are compared on equal terms.
DS3_TIMINGS = {"tFAW": 30, "tRFC": 260, "tCCD_L": 2, "tACT_BUS": 1}


def ds3_timing_sets():
    args = []
    for k, v in DS3_TIMINGS.items():
        args += ["--set", "timing.%s=%d" % (k, v)]
    # DRAMsim3's trace reader offers its requests strictly in order, and its
    # HBM channels refresh together.
    return args + ["--window", "1", "--set", "refresh_stagger=none"]


def hbm(args, out):
    exe = build_dramsim3(args.dramsim3)
    log("hbm DRAMsim3 binary %s" % exe)
    ini = os.path.join(args.dramsim3, DS3_INI)
    timing_table(out, ini)
    ds_tck_ps = peers.ps_of_ns(peers.parse_ini(open(ini).read())["timing"].get("tCK", "1"))
    te_tck_ps = tessera_tck_ps()
    requests = 50000 if args.quick else 200000
    # DRAMsim3's trace reader offers at most one request per cycle (64 GB/s):
    # both sides get the same trace at that rate, each request at its own
    # cycle. DRAMsim3 runs until its last request is offered and its
    # bandwidth counts what completed by then; Tessera runs to the last
    # completion.
    capacity = 4 << 30  # Tessera hbm2 stack (8 ch x 2 PC x 16 banks x 16384 rows x 1 KiB); within DRAMsim3's
    headers = ["case", "side", "requests", "bandwidth GB/s", "% of peak", "avg read latency ns",
               "row-hit rate", "energy pJ/bit", "requests per CPU second"]
    rows, speed, sat_rows = [], [], []
    for case in peers.hbm_cases():
        with tempfile.TemporaryDirectory() as tmp:
            ds_trace = os.path.join(tmp, "trace_ds3.txt")
            te_trace = os.path.join(tmp, "trace_tessera.txt")
            text = peers.dramsim3_trace(case, requests, capacity)
            ds_cycles = peers.dramsim3_trace_cycles(text)
            with open(ds_trace, "w") as f:
                f.write(text)
            with open(te_trace, "w") as f:
                f.write(peers.tessera_trace_from_dramsim3(text, ds_tck_ps, te_tck_ps))
            p, t_cpu, _ = peers.run_measured([args.tessera, "dram", "--spec", "hbm2", "--pattern", "trace",
                                              "--trace-file", te_trace, "--json"],
                                             capture_output=True, text=True, timeout=600, check=True)
            t = json.loads(p.stdout)
            p, tm_cpu, _ = peers.run_measured([args.tessera, "dram", "--spec", "hbm2", "--pattern", "trace",
                                               "--trace-file", te_trace, "--json"] + ds3_timing_sets(),
                                              capture_output=True, text=True, timeout=600, check=True)
            tm = json.loads(p.stdout)
            _, d_cpu, _ = peers.run_measured([exe, ini, "-c", str(ds_cycles), "-t", ds_trace, "-o", tmp],
                                             capture_output=True, text=True, timeout=600, check=True)
            d = peers.parse_dramsim3_json(open(os.path.join(tmp, "dramsim3.json")).read())
        t_rate = peers.ratio(t["requests"], t_cpu)
        d_rate = peers.ratio(d["requests"], d_cpu)
        rows.append([case["name"], "Tessera", t["requests"], t["bandwidth_gbps"],
                     100.0 * t["bandwidth_gbps"] / t["peak_bandwidth_gbps"], t["avg_read_latency_ns"],
                     t["row_hit_rate"], t["energy_pj_per_bit"], t_rate])
        rows.append([case["name"], "Tessera, DRAMsim3 timings", tm["requests"], tm["bandwidth_gbps"],
                     100.0 * tm["bandwidth_gbps"] / tm["peak_bandwidth_gbps"], tm["avg_read_latency_ns"],
                     tm["row_hit_rate"], tm["energy_pj_per_bit"], peers.ratio(tm["requests"], tm_cpu)])
        rows.append([case["name"], "DRAMsim3", d["requests"], d["bandwidth_gbps"],
                     100.0 * d["bandwidth_gbps"] / 256.0, d["avg_read_latency_ns"], d["row_hit_rate"],
                     d["energy_pj_per_bit"], d_rate])
        speed.append([case["name"], t["requests"], t_cpu, t_rate, d["requests"], d_cpu, d_rate,
                      peers.ratio(t_rate, d_rate)])
        log("hbm %-12s Tessera %.1f GB/s  DRAMsim3 %.1f GB/s  CPU s %.2f / %.2f" % (
            case["name"], t["bandwidth_gbps"], d["bandwidth_gbps"], t_cpu, d_cpu))
        # Tessera alone with its source unthrottled (as fast as the queues accept)
        p, u_cpu, _ = peers.run_measured([args.tessera, "dram", "--spec", "hbm2", "--pattern", case["pattern"],
                                          "--read-ratio", "%.6f" % case["read_ratio"], "--requests", str(requests),
                                          "--json"], capture_output=True, text=True, timeout=600, check=True)
        u = json.loads(p.stdout)
        sat_rows.append([case["name"], u["bandwidth_gbps"], 100.0 * u["bandwidth_gbps"] / u["peak_bandwidth_gbps"],
                         u["avg_read_latency_ns"], u["row_hit_rate"], u["energy_pj_per_bit"],
                         peers.ratio(u["requests"], u_cpu)])
    write_tables(out, "hbm", headers, rows)
    write_tables(out, "hbm_tessera_unthrottled", ["case", "bandwidth GB/s", "% of peak", "avg read latency ns",
                                                  "row-hit rate", "energy pJ/bit", "requests per CPU second"], sat_rows)
    write_tables(out, "hbm_speed", ["case", "Tessera requests", "Tessera CPU s", "Tessera req/CPU s",
                                    "DRAMsim3 requests", "DRAMsim3 CPU s", "DRAMsim3 req/CPU s",
                                    "speed ratio"], speed)


def write_tables(out, stem, headers, rows):
    with open(os.path.join(out, stem + ".md"), "w") as f:
        f.write(peers.markdown_table(headers, rows))
    with open(os.path.join(out, stem + ".csv"), "w") as f:
        f.write(peers.csv_table(headers, rows))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--booksim", help="BookSim2 checkout")
    ap.add_argument("--dramsim3", help="DRAMsim3 checkout")
    ap.add_argument("--tessera", default=os.path.join(ROOT, "build", "tessera"))
    ap.add_argument("--out", default="compare-out")
    ap.add_argument("--only", choices=["noc", "hbm"])
    ap.add_argument("--quick", action="store_true", help="coarser load steps, fewer requests")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    if args.only != "hbm":
        if not args.booksim:
            ap.error("--booksim PATH is needed for the NoC comparison")
        noc(args, args.out)
    if args.only != "noc":
        if not args.dramsim3:
            ap.error("--dramsim3 PATH is needed for the HBM comparison")
        hbm(args, args.out)
    log("done in %.0f s; tables and plots in %s" % (time.time() - t0, args.out))


if __name__ == "__main__":
    main()
