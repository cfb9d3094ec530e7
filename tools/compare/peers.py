"""Pure parts of the peer comparison: case lists, BookSim2 configuration
text, DRAMsim3 traces, parsers of both peers' output, the saturation rules,
the peer binary lookup, process CPU-time accounting and the table maker.

Nothing here runs a simulator; tools/compare/run.py does (through
run_measured).
"""

import csv
import io
import json
import os
import random
import re
import resource
import subprocess
import time

# ---------------------------------------------------------------- NoC cases

NOC_TRAFFIC = {"uniform": "uniform", "transpose": "transpose", "bitcomp": "bitcomp"}


def noc_cases():
    """8x8 mesh, dimension-order routing: every traffic x packet size x VCs."""
    cases = []
    for traffic in ("uniform", "transpose", "bitcomp"):
        for flits in (1, 4):
            for vcs in (2, 4):
                cases.append({"traffic": traffic, "packet_flits": flits, "vcs": vcs,
                              "vc_buf": 8, "k": 8})
    return cases


def case_name(case):
    return "%s_p%d_vc%d" % (case["traffic"], case["packet_flits"], case["vcs"])


def booksim_config(case, rate, seed=1):
    """BookSim2 configuration text for one case at one offered load.

    The load is in flits per node per cycle on both sides
    (injection_rate_uses_flits = 1). BookSim's router delays (routing,
    VC allocation, switch allocation, switch traversal: 1 cycle each), its
    1-cycle channels and its non-atomic VC reallocation
    (wait_for_tail_credit = 0) are written out so the file states them.
    """
    lines = [
        ("topology", "mesh"),
        ("k", case["k"]),
        ("n", 2),
        ("routing_function", "dim_order"),
        ("num_vcs", case["vcs"]),
        ("vc_buf_size", case["vc_buf"]),
        ("wait_for_tail_credit", 0),
        ("routing_delay", 1),
        ("vc_alloc_delay", 1),
        ("sw_alloc_delay", 1),
        ("st_final_delay", 1),
        ("traffic", NOC_TRAFFIC[case["traffic"]]),
        ("packet_size", case["packet_flits"]),
        ("injection_rate_uses_flits", 1),
        ("injection_rate", "%g" % rate),
        ("sim_type", "latency"),
        ("seed", seed),
    ]
    return "".join("%s = %s;\n" % (k, v) for k, v in lines)


def tessera_noc_args(case, rate, atomic_vc=None):
    """Arguments of `tessera noc` for one case at one offered load; with
    atomic_vc None, Tessera's default (noc.atomic_vc=auto)."""
    args = ["noc", "--topology", "mesh", "--k", str(case["k"]), "--routing", "dor",
            "--vcs", str(case["vcs"]), "--vc-buf", str(case["vc_buf"]),
            "--traffic", case["traffic"], "--packet-flits", str(case["packet_flits"]),
            "--rate", "%g" % rate, "--json"]
    if atomic_vc is not None:
        args += ["--set", "noc.atomic_vc=%s" % ("true" if atomic_vc else "false")]
    return args


_BS_OVERALL = "====== Overall Traffic Statistics ======"


def _bs_value(text, label):
    m = re.search(r"^" + re.escape(label) + r"\s*=\s*([-+0-9.eE]+|nan|inf)", text, re.M)
    return float(m.group(1)) if m else None


# BookSim2's defaults (src/booksim_config.cpp): stopping_thres and
# acc_stopping_thres 0.05; Tessera's noc.converge and noc.saturation_margin
# are the same 5 % (docs/noc.md).
BOOKSIM_STOPPING_THRES = 0.05
SATURATION_MARGIN = 0.05
_BS_CHANGE = re.compile(r"^latency change\s*=\s*(\S+)\s*\nthroughput change\s*=\s*(\S+)", re.M)


def parse_booksim(text):
    """Result of one BookSim2 latency run: its overall statistics (None when
    it printed none) and the facts both saturation rules read
    (saturation_rules): over_threshold when BookSim declared the run
    unstable, converged, drained."""
    cycles = re.findall(r"^Time taken is (\d+) cycles", text, re.M)
    run_time = re.search(r"^Total run time ([0-9.eE+-]+)", text, re.M)
    out = {
        "simulated_cycles": int(cycles[-1]) if cycles else None,
        "host_seconds": float(run_time.group(1)) if run_time else None,  # BookSim's wall clock (main.cpp)
    }
    # TrafficManager::_SingleSim (src/trafficmanager.cpp) fails a run only
    # when the mean latency, in-flight packets counted at their age, exceeds
    # latency_thres (after a sample or every 1,000 drain cycles); Run() then
    # prints "Simulation unstable". A run that reaches max_samples without
    # converging, and its unbounded drain, still count as stable.
    unstable = "Simulation unstable" in text or _BS_OVERALL not in text
    # It converged when its last three samples after the warm-up changed by
    # at most stopping_thres in latency and in throughput (its loop ends on
    # the third such sample or at max_samples); compared as BookSim compares
    # (a 'nan' change does not exceed the threshold).
    warmed = text.find("Warmed up ...")
    changes = [(float(a), float(b)) for a, b in _BS_CHANGE.findall(text[warmed:])] if warmed >= 0 else []
    converged = (not unstable and len(changes) >= 3 and
                 all(not (c > BOOKSIM_STOPPING_THRES) for pair in changes[-3:] for c in pair))
    out.update(over_threshold=unstable, converged=converged, drained=not unstable)
    if unstable:
        out.update(latency=None, accepted=None, injected=None, hops=None)
    else:
        overall = text[text.index(_BS_OVERALL):]
        out.update(latency=_bs_value(overall, "Packet latency average"),
                   network_latency=_bs_value(overall, "Network latency average"),
                   accepted=_bs_value(overall, "Accepted flit rate average"),
                   injected=_bs_value(overall, "Injected flit rate average"),
                   hops=_bs_value(overall, "Hops average"))
    out["saturated"] = saturated(out, "tessera")
    return out


# A point's saturation under each rule, from the facts both sides report:
#   latency_threshold: BookSim2's only rule, the mean latency (in-flight
#     packets at their age) above latency_thres / noc.latency_threshold 500;
#   tessera: Tessera's rules (docs/noc.md, "Synthetic traffic and
#     measurement"): that, or not converged within the samples, or the
#     measured packets not drained, or accepted below injected by more than
#     noc.saturation_margin.
SATURATION_RULES = ("latency_threshold", "tessera")


def saturated(point, rule):
    """Whether a sweep point (over_threshold, converged, drained, injected,
    accepted) counts as saturated under `rule` (SATURATION_RULES)."""
    if rule == "latency_threshold":
        return bool(point["over_threshold"])
    if rule != "tessera":
        raise ValueError("unknown saturation rule %r" % rule)
    if point["over_threshold"] or not point["converged"] or not point["drained"]:
        return True
    inj, acc = point.get("injected"), point.get("accepted")
    return inj is not None and acc is not None and acc < inj * (1.0 - SATURATION_MARGIN)


def saturation_rate(points):
    """Highest offered load of a sweep below its first saturated point: the
    last unsaturated load before it in offered order (None if the lowest is
    saturated); a later unsaturated point does not count.

    points: (offered, saturated) pairs, in any order."""
    best = None
    for rate, sat in sorted(points):
        if sat:
            break
        best = rate
    return best


def saturation_rates(points):
    """{rule: saturation_rate} of a sweep's points (dicts with "offered" and
    the facts `saturated` reads) under every rule of SATURATION_RULES."""
    return {rule: saturation_rate([(p["offered"], saturated(p, rule)) for p in points])
            for rule in SATURATION_RULES}


# ---------------------------------------------------------------- HBM cases

def hbm_cases():
    return [
        {"name": "stream_read", "pattern": "stream", "read_ratio": 1.0},
        {"name": "stream_2to1", "pattern": "stream", "read_ratio": 2.0 / 3.0},
        {"name": "random_read", "pattern": "random", "read_ratio": 1.0},
        {"name": "random_2to1", "pattern": "random", "read_ratio": 2.0 / 3.0},
    ]


def dramsim3_trace(case, requests, capacity_bytes, request_bytes=64, seed=1):
    """DRAMsim3 trace lines ('0xADDR READ|WRITE cycle'), request i offered
    at cycle i (DRAMsim3's trace reader takes at most one a cycle):
    stream = consecutive request-sized addresses, random = uniform aligned
    addresses over the capacity; each request is a read with probability
    read_ratio (a seeded draw)."""
    rng = random.Random(seed)
    slots = capacity_bytes // request_bytes
    lines = []
    for i in range(requests):
        if case["pattern"] == "stream":
            addr = (i % slots) * request_bytes
        else:
            addr = rng.randrange(slots) * request_bytes
        op = "READ" if rng.random() < case["read_ratio"] else "WRITE"
        lines.append("0x%x %s %d\n" % (addr, op, i))
    return "".join(lines)


def parse_ini(text):
    """DRAMsim3 .ini: {section: {key: value-string}}."""
    out, section = {}, None
    for raw in text.splitlines():
        line = raw.split(";")[0].split("#")[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            out.setdefault(section, {})
        elif "=" in line and section is not None:
            k, v = line.split("=", 1)
            out[section][k.strip()] = v.strip()
    return out


def parse_dramsim3_json(text, request_bytes=64, tck_ns=1.0):
    """Sum DRAMsim3's per-channel statistics (dramsim3.json, one epoch) into
    whole-stack figures. Bandwidth is over the simulated cycles, so the run
    must keep the controller busy for all of them."""
    data = json.loads(text)
    chans = [v for k, v in data.items() if isinstance(v, dict) and "num_cycles" in v]
    if not chans:
        raise ValueError("no channel statistics in DRAMsim3 output")
    reads = sum(c["num_reads_done"] for c in chans)
    writes = sum(c["num_writes_done"] for c in chans)
    cmds = sum(c["num_read_cmds"] + c["num_write_cmds"] for c in chans)
    hits = sum(c["num_read_row_hits"] + c["num_write_row_hits"] for c in chans)
    cycles = max(c["num_cycles"] for c in chans)
    lat_weight = sum(c["average_read_latency"] * c["num_reads_done"] for c in chans)
    energy = sum(c["total_energy"] for c in chans)
    done = reads + writes
    seconds = cycles * tck_ns * 1e-9
    return {
        "reads": reads,
        "writes": writes,
        "requests": done,
        "cycles": cycles,
        "bandwidth_gbps": done * request_bytes / seconds / 1e9 if cycles else 0.0,
        "avg_read_latency_ns": lat_weight / reads * tck_ns if reads else None,
        "row_hit_rate": hits / cmds if cmds else None,
        "energy_pj": energy,
        "energy_pj_per_bit": energy / (done * request_bytes * 8) if done else None,
    }


# ---------------------------------------------------------------- tables

def _cell(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        if v != v:
            return "-"
        return "%.4g" % v
    return str(v)


def markdown_table(headers, rows):
    """GitHub Markdown table; None and NaN print as '-', floats to 4 digits."""
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        out.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return "\n".join(out) + "\n"


def csv_table(headers, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(headers)
    for row in rows:
        w.writerow(["" if v is None else v for v in row])
    return buf.getvalue()


def ratio(a, b):
    """a / b, None when either is missing or b is 0."""
    if a is None or b in (None, 0):
        return None
    return a / b


# DRAMsim3's trace lines are '<hex address> <op> <cycle>' (operator>> of
# Transaction, src/common.cc). TraceBasedCPU::ClockTick (src/cpu.cc) offers
# the next line once its cycle is <= the CPU's clk_, which counts calls of
# MemorySystem::ClockTick, one per tCK of the .ini's [timing] tCK (ns);
# lines are taken in file order, at most one a cycle. Tessera's trace lines
# are '<cycle> <R|W> <hex address>', the cycle the earliest DRAM command-
# clock cycle (the preset's tck_ps) the request may enter
# (models/dram/traffic.h, TraceEntry).


def tessera_trace_from_dramsim3(text, dramsim3_tck_ps=1000, tessera_tck_ps=1000):
    """The same requests as a DRAMsim3 trace, in `tessera dram --pattern
    trace` form, each at its own time: DRAMsim3 cycle c is c x
    dramsim3_tck_ps, so it enters Tessera no earlier than cycle
    ceil(c x dramsim3_tck_ps / tessera_tck_ps). A line stamped before the
    line above it enters after it, as DRAMsim3's in-order reader offers it
    (Tessera's reader rejects a decreasing cycle)."""
    if dramsim3_tck_ps <= 0 or tessera_tck_ps <= 0:
        raise ValueError("clock periods must be positive (DRAMsim3 %s ps, Tessera %s ps)" %
                         (dramsim3_tck_ps, tessera_tck_ps))
    out, last = [], 0
    for line in text.splitlines():
        if not line.strip():
            continue
        addr, op, cycle = line.split()
        at = -(-int(cycle) * dramsim3_tck_ps // tessera_tck_ps)  # ceiling, in integers
        last = max(last, at)
        out.append("%d %s %s\n" % (last, "W" if op == "WRITE" else "R", addr))
    return "".join(out)


def dramsim3_trace_cycles(text):
    """DRAMsim3 cycles that offer every line of a trace: its last cycle + 1."""
    last = 0
    for line in text.splitlines():
        if line.strip():
            last = max(last, int(line.split()[2]))
    return last + 1


def ps_of_ns(ns_text):
    """A clock period given in ns (DRAMsim3's tCK, e.g. '1' or '0.625') in
    whole picoseconds."""
    return int(round(float(ns_text) * 1000))


# ---------------------------------------------------------------- peer binaries

# DRAMsim3 builds its driver in two places: CMake into build/dramsim3main
# (its README), its own Makefile into the checkout's root as
# dramsim3main.out (Makefile: EXE_NAME). A root dramsim3main is accepted too.
DRAMSIM3_BINARIES = (os.path.join("build", "dramsim3main"), "dramsim3main.out", "dramsim3main")


class PeerNotBuilt(Exception):
    pass


def find_peer(checkout, candidates, what):
    """The first of `candidates` (paths inside `checkout`) that is an
    executable file; PeerNotBuilt naming every path tried otherwise."""
    tried = [os.path.join(checkout, rel) for rel in candidates]
    for exe in tried:
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            return exe
    listed = tried[0] if len(tried) == 1 else ", ".join(tried[:-1]) + " or " + tried[-1]
    raise PeerNotBuilt("%s: %s is not built: no executable at %s (build it as its README says)"
                       % (what, checkout, listed))


def find_dramsim3(checkout):
    return find_peer(checkout, DRAMSIM3_BINARIES, "DRAMsim3")


# ---------------------------------------------------------------- process CPU time

def cpu_seconds(usage):
    """User + system CPU seconds of a resource.struct_rusage."""
    return usage.ru_utime + usage.ru_stime


def run_measured(cmd, **kwargs):
    """subprocess.run(cmd, **kwargs), and the CPU seconds (user + system)
    the process used: the growth of this process's RUSAGE_CHILDREN across
    the call, which counts the children reaped during it (run.py runs one
    at a time). Both peers and Tessera are measured this way, start-up and
    output included, whatever each prints about its own time.
    Returns (CompletedProcess, cpu_seconds, wall_seconds)."""
    before = cpu_seconds(resource.getrusage(resource.RUSAGE_CHILDREN))
    t0 = time.perf_counter()
    p = subprocess.run(cmd, **kwargs)
    wall = time.perf_counter() - t0
    return p, cpu_seconds(resource.getrusage(resource.RUSAGE_CHILDREN)) - before, wall
