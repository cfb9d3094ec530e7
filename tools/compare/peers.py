"""Pure parts of the peer comparison: case lists, BookSim2 configuration
text, DRAMsim3 traces, parsers of both peers' output and the table maker.

Nothing here runs a simulator; tools/compare/run.py does.
"""

import csv
import io
import json
import random
import re

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


def parse_booksim(text):
    """Result of one BookSim2 latency run: its overall statistics, or
    saturated=True when BookSim declared the run unstable (or printed none)."""
    cycles = re.findall(r"^Time taken is (\d+) cycles", text, re.M)
    run_time = re.search(r"^Total run time ([0-9.eE+-]+)", text, re.M)
    out = {
        "simulated_cycles": int(cycles[-1]) if cycles else None,
        "host_seconds": float(run_time.group(1)) if run_time else None,
    }
    unstable = "Simulation unstable" in text
    if unstable or _BS_OVERALL not in text:
        out.update(saturated=True, latency=None, accepted=None, hops=None)
        return out
    overall = text[text.index(_BS_OVERALL):]
    out.update(saturated=False,
               latency=_bs_value(overall, "Packet latency average"),
               network_latency=_bs_value(overall, "Network latency average"),
               accepted=_bs_value(overall, "Accepted flit rate average"),
               injected=_bs_value(overall, "Injected flit rate average"),
               hops=_bs_value(overall, "Hops average"))
    return out


def saturation_rate(points):
    """Highest offered load of a sweep that ran unsaturated (None if none).

    points: (offered, saturated) pairs, in any order."""
    ok = [r for r, sat in points if not sat]
    return max(ok) if ok else None


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


def tessera_trace_from_dramsim3(text):
    """The same requests as a DRAMsim3 trace, in `tessera dram --pattern trace`
    form ('<cycle> <R|W> <hex address>'), request i offered at cycle i: one
    request per cycle, the most DRAMsim3's trace reader offers."""
    out = []
    for i, line in enumerate(l for l in text.splitlines() if l.strip()):
        addr, op, _cycle = line.split()
        out.append("%d %s %s\n" % (i, "W" if op == "WRITE" else "R", addr))
    return "".join(out)
