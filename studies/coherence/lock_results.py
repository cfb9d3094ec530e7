#!/usr/bin/python3
"""Lock type as a study axis: lock_bench prints one line per lock and core
count, `RESULT lock NAME cores N txn_per_handoff T inval_per_handoff I
cycles_per_acquire C`, for every core count from 1 to cluster.cores. This
reads them from the coherence sweep's points with the most cores (per
protocol) and writes locks/results.csv and locks/sweep.json in the sweep
format, so `tessera sweep plot studies/coherence/locks` draws them.

Usage: lock_results.py [SWEEP_DIR]   (default: the directory of this script)
"""
import csv
import json
import os
import sys

FIELDS = ["txn_per_handoff", "inval_per_handoff", "cycles_per_acquire"]


def main(argv):
    out = argv[0] if argv else os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(out, "sweep.json")) as f:
        sweep = json.load(f)
    best = {}
    for p in sweep["points"]:
        proto, cores = p["params"]["cluster.protocol"], p["params"]["cluster.cores"]
        if proto not in best or cores > best[proto]["params"]["cluster.cores"]:
            best[proto] = p
    rows = []
    for proto, p in best.items():
        path = os.path.join(out, "points", f"{p['id']:05d}", "stdout.txt")
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except OSError as e:
            sys.exit(f"lock_results.py: {path}: {e} (run the coherence sweep first)")
        for line in lines:
            w = line.split()
            if len(w) == 11 and w[:2] == ["RESULT", "lock"]:
                rows.append({"id": len(rows), "program": "lock_bench", "platform": "chip",
                             "repeat": 0, "cluster.protocol": proto, "lock": w[2],
                             "cores": int(w[4]), **{k: float(w[6 + 2 * i]) for i, k in enumerate(FIELDS)},
                             "status": "ok", "exit_code": 0, "host_seconds": "",
                             "message": f"from point {p['id']}"})
    if not rows:
        sys.exit(f"lock_results.py: no RESULT lines in {out}/points")
    locks = os.path.join(out, "locks")
    os.makedirs(locks, exist_ok=True)
    cols = ["id", "program", "platform", "repeat", "cluster.protocol", "lock", "cores"] + FIELDS + \
        ["status", "exit_code", "host_seconds", "message"]
    with open(os.path.join(locks, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, cols, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    spec = {"name": "coherence_locks",
            "parameters": {"cluster.protocol": sweep["spec"]["parameters"]["cluster.protocol"],
                           "lock": ["tas", "ttas", "tas_backoff", "ticket", "array"],
                           "cores": {"range": [1, max(r["cores"] for r in rows), 1]}},
            "metrics": {k: f"stdout RESULT {k}" for k in FIELDS},
            "plots": [{"kind": "line", "x": "cores", "y": "cycles_per_acquire",
                       "series": "cluster.protocol", "facet": "lock", "logy": True},
                      {"kind": "heatmap", "x": "lock", "y": "cluster.protocol",
                       "value": "cycles_per_acquire", "name": "heatmap-16-cores",
                       "where": {"cores": max(r["cores"] for r in rows)}}]}
    with open(os.path.join(locks, "sweep.json"), "w") as f:
        json.dump({"version": 1, "name": spec["name"], "spec": spec, "metrics": spec["metrics"],
                   "derived_from": os.path.join("..", "sweep.json"), "points": []}, f, indent=1)
    print(f"{locks}/results.csv: {len(rows)} rows")


if __name__ == "__main__":
    main(sys.argv[1:])
