#!/usr/bin/python3
"""The HBM policy study on synthetic traffic: `tessera dram` (the HBM model
standalone) with stream and random patterns, 100000 requests of 64 bytes,
70% reads, for every page policy x scheduler. The sweep runner drives
`tessera run` only, so this small grid runs here and writes dram/results.csv
and dram/sweep.json in the sweep format for `tessera sweep plot`.

Usage: dram_standalone.py TESSERA [STUDY_DIR]   (default: this directory)
"""
import csv
import json
import os
import subprocess
import sys

PATTERNS = ["stream", "random"]
POLICIES = ["open", "closed", "adaptive"]
SCHEDULERS = ["fr_fcfs", "fcfs"]
METRICS = ["bandwidth_gbps", "avg_read_latency_ns", "p99_read_latency_ns", "row_hit_rate",
           "acts_per_burst", "energy_pj_per_bit"]
REQUESTS, READ_RATIO = 100000, 0.7


def main(argv):
    if not argv:
        sys.exit(__doc__)
    tessera = argv[0]
    out = os.path.join(argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__)),
                       "dram")
    os.makedirs(out, exist_ok=True)
    rows = []
    for pattern in PATTERNS:
        for policy in POLICIES:
            for sched in SCHEDULERS:
                cmd = [tessera, "dram", "--pattern", pattern, "--requests", str(REQUESTS),
                       "--read-ratio", str(READ_RATIO), "--set", f"page_policy={policy}",
                       "--set", f"scheduler={sched}", "--json"]
                r = subprocess.run(cmd, capture_output=True, text=True)
                row = {"id": len(rows), "program": f"tessera dram --pattern {pattern}",
                       "platform": "hbm2", "repeat": 0, "pattern": pattern,
                       "dram.page_policy": policy, "dram.scheduler": sched}
                if r.returncode != 0:
                    row.update(status="failed", exit_code=r.returncode, host_seconds="",
                               message=r.stderr.strip().splitlines()[-1] if r.stderr else "")
                else:
                    d = json.loads(r.stdout)
                    row.update({m: d[m] for m in METRICS})
                    row.update(status="ok", exit_code=0, host_seconds=d["host_seconds"],
                               message=" ".join(cmd[1:]))
                rows.append(row)
    cols = ["id", "program", "platform", "repeat", "pattern", "dram.page_policy",
            "dram.scheduler"] + METRICS + ["status", "exit_code", "host_seconds", "message"]
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, cols, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    spec = {"name": "hbm_policy_synthetic",
            "parameters": {"pattern": PATTERNS, "dram.page_policy": POLICIES,
                           "dram.scheduler": SCHEDULERS},
            "metrics": {m: f"tessera dram --json: {m}" for m in METRICS},
            "plots": [{"kind": "heatmap", "x": "dram.page_policy", "y": "dram.scheduler",
                       "value": "bandwidth_gbps", "facet": "pattern"},
                      {"kind": "heatmap", "x": "dram.page_policy", "y": "dram.scheduler",
                       "value": "avg_read_latency_ns", "facet": "pattern"}]}
    with open(os.path.join(out, "sweep.json"), "w") as f:
        json.dump({"version": 1, "name": spec["name"], "spec": spec, "metrics": spec["metrics"],
                   "derived_from": "tessera dram", "points": []}, f, indent=1)
    failed = sum(r["status"] != "ok" for r in rows)
    print(f"{out}/results.csv: {len(rows)} rows, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
