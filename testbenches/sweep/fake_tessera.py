#!/usr/bin/python3
"""A stand-in for tessera in the spec tests: `config --list` lists noc.*
parameters only with --set icnt.model=noc (a parameter that exists only
when another selects its subsystem); `run` writes a small stats JSON
with sm.max_warps / 8 SMs
($FAKE_TESSERA_STATS, if set, is its text) and exits with status 6 (or
$FAKE_TESSERA_RUN_STATUS). Each call is logged to $FAKE_TESSERA_LOG."""
import json
import os
import sys

args = sys.argv[1:]
with open(os.environ["FAKE_TESSERA_LOG"], "a") as f:
    f.write(" ".join(args) + "\n")
sets = {}
for i, a in enumerate(args):
    if a == "--set":
        k, v = args[i + 1].split("=", 1)
        sets[k] = v
params = {"icnt.model": ("[model]", "xbar|noc", "enum"), "sm.max_warps": ("64", "[1, 64]", "int")}
if sets.get("icnt.model") == "noc":
    params["noc.vcs"] = ("2", "[1, 8]", "int")
for k in sets:
    if k not in params:
        print(f"tessera: error: --set: unknown parameter '{k}' (`tessera config --list` shows this platform's "
              "parameters)", file=sys.stderr)
        sys.exit(2)
if args[0] == "config":
    print("# fake: a platform")
    print(f"{'key':<32} value default range type description")
    for k, (v, r, t) in params.items():
        print(f"{k:<32} {v:<10} {v:<10} {r:<18} {t:<8} a parameter")
    sys.exit(0)
if args[0] == "run":
    stats = args[args.index("--stats") + 1]
    # One SM per 8 warps of sm.max_warps (at least one): a parameter that
    # decides how many instances have counters.
    sms = max(1, int(sets.get("sm.max_warps", "64")) // 8)
    d = {"summary": {"sim_cycles": 1}, "chip": {f"sm{i}": {"cycles": 1, "ipc": 0.5} for i in range(sms)}}
    if sets.get("icnt.model") == "noc":
        d["chip"]["noc"] = {"flits": 0}
    text = os.environ.get("FAKE_TESSERA_STATS") or json.dumps(d)
    with open(stats, "w") as f:
        f.write(text)
    sys.exit(int(os.environ.get("FAKE_TESSERA_RUN_STATUS", "6")))
sys.exit(2)
