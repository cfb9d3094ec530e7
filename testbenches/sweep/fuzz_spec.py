#!/usr/bin/python3
"""Structure-aware fuzzing of sweep specs: a seeded generator writes specs
from the spec's own vocabulary (its top-level keys, the value forms of an
axis, sampling methods, repeats, constraints and metrics as expressions
over swept parameters and statistics, programs with argument references)
mixed with values of the wrong type, size or sign, and loads each with the
tool's Loader against the real tessera (its `config --list` and probe runs).
Each spec must load or be refused with a SweepError, within a time limit
and the process's memory limit; each metric the loaded spec keeps is then
evaluated on random statistics, which must give a value or one of the
errors runner.metric_value expects (ExprError, ZeroDivisionError).
Anything else (another exception, a hang, MemoryError) is a finding: the
spec is written to the findings directory and the run exits with status 1.

    fuzz_spec.py --tessera BUILD/tessera [--seed N] [--seconds S | --specs N]
                 [--findings DIR]

No hypothesis or atheris is needed: the generator is random.Random(seed),
so a finding is reproduced by its seed and index (printed)."""
import argparse
import os
import random
import resource
import signal
import sys
import tempfile
import time
import traceback

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from tessera_sweep import SweepError, space, spec as spec_mod  # noqa: E402

SPEC_SECONDS = 60  # one spec's load and metric evaluation
MEMORY_BYTES = 2 << 30

PARAMS = ["sm.scheduler", "sm.max_warps", "gpu.num_sms", "l1.size_kb", "l2.size_kb", "cluster.cores",
          "cluster.protocol", "icnt.model", "noc.k", "noc.vcs", "memory.latency", "nosuch.key", "sm", ""]
STATS = ["summary.sim_cycles", "summary.warp_insts", "roi.sim_cycles", "chip.sm0.ipc", "chip.nosuch",
         "fast_forward.instructions", "cycles"]
ODD = [None, True, -1, 0, 1, 2.5, float("inf"), float("nan"), 10 ** 40, -(10 ** 40), "", "x", "..", "/",
       "a" * 300, [], {}, [1, [2, [3]]], {"a": {"b": 1}}, "{p.x}", "10**10**10", "1e308*1e308"]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def pick(self, xs):
        return xs[self.r.randrange(len(xs))]

    def maybe(self, p=0.5):
        return self.r.random() < p

    def number(self):
        return self.pick([0, 1, 2, 3, 4, 8, 16, 64, 1000, -1, 0.5, 1e6, 2 ** 31, 10 ** 12, 1e300])

    def values(self):
        """An axis: a list, or one of the value forms, sometimes malformed."""
        kind = self.r.randrange(7)
        if kind == 0:
            return [self.pick([1, 2, 4, 8, 16, 32, 64, "lrr", "gto", "two_level", "mesi", "msi", "noc", "xbar"])
                    for _ in range(self.r.randrange(0, 5))]
        if kind == 1:
            return {"range": [self.number() for _ in range(self.r.randrange(1, 4))]}
        if kind == 2:
            return {"log2_range": [self.number() for _ in range(self.r.randrange(1, 3))]}
        if kind in (3, 4):
            return {self.pick(["linspace", "logspace"]): [self.number(), self.number(), self.pick([1, 2, 3, 0, -1, 2.5])]}
        if kind == 5:
            return self.pick([1, "gto", 2.5, True])
        return self.pick(ODD)

    def expr(self, names, depth=0):
        """An expression over names: arithmetic, comparisons, min/max, and
        parts whose value explodes."""
        if depth > 3 or self.maybe(0.3):
            return self.pick(names + [str(self.number()), "'gto'", "true", "1e308", "(0 - 1)"]) if names else \
                str(self.number())
        a, b = self.expr(names, depth + 1), self.expr(names, depth + 1)
        form = self.r.randrange(8)
        if form == 0:
            return f"{self.pick(['min', 'max'])}({a}, {b})"
        if form == 1:
            return f"not {a}"
        if form == 2:
            return f"({a}) ** ({b})"
        if form == 3:
            return f"{a} {self.pick(['and', 'or'])} {b}"
        if form == 4:
            return f"{self.pick(['__import__', 'open', 'x.__class__', 'lambda: 0'])}"
        return f"({a}) {self.pick(['+', '-', '*', '/', '//', '%', '<', '<=', '==', '!=', '>'])} ({b})"

    def program(self, params):
        if self.maybe(0.7):
            return self.pick(["vecadd", "saxpy", "reduction"]) if self.maybe(0.9) else \
                self.pick(["nosuch", "../firmware/vecadd", "/nonexistent.elf", ""])
        args = [f"{{{self.pick(params)}}}" if params and self.maybe() else self.pick(["1", "ticket", "{nosuch}"])
                for _ in range(self.r.randrange(0, 3))]
        if self.maybe(0.9):
            return {"name": "lock_bench", "args": args}
        return {"name": self.pick(["vecadd", None, 3]), "args": self.pick([args, "x", None])}

    def spec(self):
        s = {}
        if self.maybe(0.9):
            s["name"] = "fuzz" if self.maybe(0.95) else self.pick(["a.b-c_d", "..", "x/y", "", 7, "a" * 201])
        params = {}
        for _ in range(self.r.randrange(0, 4)):
            key = self.pick(PARAMS + ["program.n"]) if self.maybe(0.9) else self.pick(ODD)
            try:
                params[key] = self.values()
            except TypeError:  # an unhashable key from ODD
                pass
        names = [k for k in params if isinstance(k, str) and k]
        if self.maybe(0.05):
            s["tool"] = self.pick(["noc", "dram", "nosuch"])
            s["tool_args"] = self.pick([["--cycles", "1000"], ["{noc.k}"], "x", [1.5]])
        else:
            s["platforms"] = self.pick([["sm1"], ["sm1", "chip"], "sm1"]) if self.maybe(0.9) else \
                self.pick([["nosuch"], [], [3], "../platforms/sm1.yaml", {"a": 1}])
            s["programs"] = [self.program(names) for _ in range(self.r.randrange(1, 3))]
        if params or self.maybe(0.1):
            s["parameters"] = params if self.maybe(0.95) else self.pick(ODD)
        if self.maybe(0.3):
            s["sampling"] = self.pick(["grid", "random", "lhs", {"method": "random", "points": self.number(),
                                                                 "seed": self.pick([0, 1, "s", None, []])},
                                       {"method": "lhs", "points": self.pick([1, 3, 20, 0, 10 ** 12])},
                                       {"method": "sobol"}, 5])
        if self.maybe(0.2):
            s["repeats"] = self.pick([2, 0, 10 ** 12, {"count": 2, "parameter": "seed"},
                                      {"count": 2, "parameter": self.pick(names or ["x"])}, "x"])
        if self.maybe(0.3):
            s["constraints"] = [self.expr(names) for _ in range(self.r.randrange(1, 3))]
        if self.maybe(0.5):
            s["metrics"] = {f"m{i}": self.expr(STATS) if self.maybe(0.8) else self.pick(ODD)
                            for i in range(self.r.randrange(1, 4))}
        if self.maybe(0.2):
            s["timeout"] = self.pick([1, 600, 0, -1, float("nan"), float("inf"), "x", 10 ** 9])
        if self.maybe(0.2):
            s["max_points"] = self.pick([1, 2, 100, 0, -5, True, 10 ** 30])
        if self.maybe(0.02):
            s[self.pick(["plot", "fast_forwrd", "Name"])] = 1
        if self.maybe(0.1):
            s["fast_forward"] = self.pick([True, False, "yes", 1])
        return s


class Listings(spec_mod.Loader):
    """The Loader with `tessera config --list` answers kept across specs (the
    listing of a platform does not change between them), and tessera run
    without this process's memory limit (a sanitizer build's tessera maps
    terabytes of shadow memory)."""
    cache = {}

    def run_tessera(self, args):
        limits = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, limits[1]))
        try:
            return super().run_tessera(args)
        finally:
            resource.setrlimit(resource.RLIMIT_AS, limits)

    def listing(self, platform_path, sets):
        key = (platform_path, tuple(sets))
        if key not in Listings.cache:
            Listings.cache[key] = super().listing(platform_path, sets)
        return Listings.cache[key]


class SpecTimeout(Exception):
    pass


def on_alarm(signum, frame):
    raise SpecTimeout()


def check_one(path, tessera, gen):
    """"refused", "loaded", or what went wrong."""
    signal.alarm(SPEC_SECONDS)
    try:
        try:
            loaded = Listings(path, tessera).load()
        except SweepError:
            return "refused"
        except MemoryError:
            # spec.load() turns it into a SweepError: a max_points raised past
            # this process's limit (MEMORY_BYTES) but not past the machine's
            # memory, which check_size compares the points with.
            return "refused"
        for text in loaded["metrics"].values():
            e = space.Expr(text)
            for _ in range(3):
                env = {n: gen.pick([0, 1, 7, -3, 2.5, 10 ** 20, 1e308, "gto"]) for n in e.names}
                try:
                    e.eval(env)
                except (space.ExprError, space.MissingName, ZeroDivisionError):
                    pass  # what runner.metric_value records: an empty cell, or the metric's error
        return "loaded"
    except SpecTimeout:
        return f"no answer within {SPEC_SECONDS} s"
    except MemoryError:
        return "MemoryError"
    except Exception:  # noqa: BLE001 - anything else is the finding
        return traceback.format_exc()
    finally:
        signal.alarm(0)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--specs", type=int, default=0)
    ap.add_argument("--findings", default=None)
    args = ap.parse_args(argv)
    if not args.seconds and not args.specs:
        ap.error("give --seconds or --specs")
    # The soft limit only: run_tessera lifts it for the tessera it starts.
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, resource.getrlimit(resource.RLIMIT_AS)[1]))
    signal.signal(signal.SIGALRM, on_alarm)
    findings = args.findings or tempfile.mkdtemp(prefix="fuzz-spec-findings-")
    os.makedirs(findings, exist_ok=True)
    start, n, found, loaded = time.monotonic(), 0, 0, 0
    with tempfile.TemporaryDirectory(prefix="fuzz-spec-") as tmp:
        path = os.path.join(tmp, "spec.yaml")
        while (args.specs and n < args.specs) or (args.seconds and time.monotonic() - start < args.seconds):
            gen = Gen(f"{args.seed}:{n}")
            try:
                text = yaml.safe_dump(gen.spec(), allow_unicode=True)
            except (yaml.YAMLError, ValueError):
                n += 1
                continue
            with open(path, "w") as f:
                f.write(text)
            problem = check_one(path, args.tessera, gen)
            if problem == "loaded":
                loaded += 1
            elif problem != "refused":
                found += 1
                out = os.path.join(findings, f"seed{args.seed}-spec{n}.yaml")
                with open(out, "w") as f:
                    f.write(text)
                print(f"fuzz_spec: FINDING for seed {args.seed} spec {n} ({out}):\n{problem}", file=sys.stderr)
            n += 1
    took = time.monotonic() - start
    print(f"fuzz_spec: {n} specs ({loaded} loaded, the others refused) in {took:.0f} s ({n / took:.1f}/s), "
          f"seed {args.seed}: {found} findings")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
