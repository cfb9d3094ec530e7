"""Adaptive search (`search:` in a spec, docs/dse.md "Adaptive search"):
instead of running every configuration of the spec's space, Optuna's
ask/tell interface (Debian: python3-optuna) chooses which to run, batch by
batch, from the results of the ones before.

A configuration is one combination of the swept parameters' values; its
points are that combination on every platform and program (and repeat) of
the spec, all expanded and validated up front as for a grid, so a search
runs exactly the points a grid would, only fewer of them, with the same
records (points/NNNNN/status.json, results.csv). The study (every trial, its
parameters and values) is stored in OUT/sweep.db (SQLite), which makes a
search resumable: a trial asked but not told when the driver died is run
(its finished points are not run again) and told on --resume.

Determinism: a search with the same spec, seed and batch asks for the same
configurations whatever the executor and the order in which points finish:
a batch is asked, run to its end and told in trial order."""
import json
import math
import os
import random
import sys
import time
import warnings

from . import STATUS_INTERRUPTED, SweepError
from . import results

KEYS = ("objectives", "sampler", "trials", "seed", "batch", "combine", "constraints")
SAMPLERS = ("tpe", "cmaes", "random", "nsga2")
DIRECTIONS = ("minimize", "maximize")
COMBINE = ("geomean", "mean", "sum", "min", "max")
STUDY = "search"
# Asks in a row that give no new configuration (one already run, or one the
# spec's constraints exclude) before the search picks an unrun configuration
# itself: a sampler that has converged keeps asking for its optimum.
MAX_IDLE_ASKS = 50


def parse(loader, given, metric_exprs, axes, platforms, constraints_known):
    """The `search:` mapping checked and normalised for sweep.json, or a
    SweepError naming the key (loader.err)."""
    if not isinstance(given, dict):
        raise loader.err("search", "expected a mapping: objectives, sampler, trials, seed, batch, combine, "
                         "constraints")
    for k in given:
        if k not in KEYS:
            raise loader.err(f"search.{k}", f"unknown key (known: {', '.join(KEYS)})")
    objectives = given.get("objectives")
    if isinstance(objectives, dict):
        objectives = [{k: v} for k, v in objectives.items()]
    if isinstance(objectives, str):
        objectives = [{objectives: "minimize"}]
    if not isinstance(objectives, list) or not objectives:
        raise loader.err("search.objectives", "expected metric columns with a direction: {cycles: minimize}")
    objs = []
    for i, o in enumerate(objectives):
        if isinstance(o, str):
            o = {o: "minimize"}
        if not isinstance(o, dict) or len(o) != 1:
            raise loader.err(f"search.objectives[{i}]", f"expected {{column: minimize|maximize}}, got {o!r}")
        col, direction = next(iter(o.items()))
        col = str(col)
        if col not in metric_exprs:
            raise loader.err(f"search.objectives.{col}", f"'{col}' is not a metric column of the spec (metrics: "
                             f"{', '.join(metric_exprs)}); an objective is a metric the points compute")
        if direction not in DIRECTIONS:
            raise loader.err(f"search.objectives.{col}", f"expected minimize or maximize, got {direction!r}")
        if any(col == c for c, _ in objs):
            raise loader.err(f"search.objectives.{col}", "named twice")
        objs.append((col, direction))
    sampler = given.get("sampler", "tpe" if len(objs) == 1 else "nsga2")
    if sampler not in SAMPLERS:
        raise loader.err("search.sampler", f"unknown sampler {sampler!r} (samplers: {', '.join(SAMPLERS)})")
    if sampler == "cmaes" and len(objs) > 1:
        raise loader.err("search.sampler", "cmaes optimises one objective; for several use nsga2 or tpe")

    searched = [(k, list(a)) for k, a in axes if a.count > 1]
    if not searched:
        raise loader.err("search", "no parameter has more than one value: there is nothing to search")
    for i, (_, _, _, own) in enumerate(platforms):
        if own:
            raise loader.err(f"platforms[{i}].parameters", "a search chooses among the values under parameters; "
                             "a platform's own parameters are not searched (sweep them under parameters, or "
                             "give each value its own platform mapping)")

    def positive_int(key, default):
        v = given.get(key, default)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise loader.err(f"search.{key}", f"expected a positive integer, got {v!r}")
        return v

    trials = positive_int("trials", None)
    if trials is None:
        raise loader.err("search.trials", "missing: the number of configurations the search may run (its budget)")
    batch = positive_int("batch", None)
    seed = given.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 32:
        raise loader.err("search.seed", f"expected an integer in [0, 2^32), got {seed!r}")
    combine = given.get("combine", "geomean")
    if combine not in COMBINE:
        raise loader.err("search.combine", f"expected one of {', '.join(COMBINE)}, got {combine!r}")

    cons = given.get("constraints") or []
    if isinstance(cons, str):
        cons = [cons]
    if not isinstance(cons, list):
        raise loader.err("search.constraints", "expected a list of conditions over metric columns and parameters")
    from .space import Expr
    names = list(metric_exprs) + constraints_known
    out_cons = []
    for i, c in enumerate(cons):
        try:
            e = Expr(c)
        except SweepError as ex:
            raise loader.err(f"search.constraints[{i}]", str(ex)) from None
        if e.patterns:
            raise loader.err(f"search.constraints[{i}]", f"'{c}': an aggregate belongs in a metric; a search "
                             "constraint names metric columns and parameters")
        for n in sorted(e.names):
            if n not in names:
                raise loader.err(f"search.constraints[{i}]", f"'{c}' names '{n}', which is neither a metric column "
                                 f"nor a parameter (metrics: {', '.join(metric_exprs)})")
        out_cons.append(e.text)
    if out_cons and sampler == "cmaes":
        raise loader.err("search.constraints", "the cmaes sampler takes no constraints (tpe and nsga2 do)")
    return {"objectives": [[c, d] for c, d in objs], "sampler": sampler, "trials": trials, "seed": seed,
            "batch": batch, "combine": combine, "constraints": out_cons,
            "axes": [[k, values] for k, values in searched]}


# ---------------------------------------------------------------- pure parts


def config_key(values):
    """A configuration's identity: its searched values, in axis order."""
    return json.dumps(values, sort_keys=True, separators=(",", ":"))


def configurations(sweep):
    """{key: [point id, ...]} of every configuration of the sweep's space, in
    the order of their first point."""
    keys = [k for k, _ in sweep["search"]["axes"]]
    out = {}
    for p in sweep["points"]:
        out.setdefault(config_key([p["params"].get(k) for k in keys]), []).append(p["id"])
    return out


def combine(values, how):
    """One number from a configuration's points (geomean needs them all positive)."""
    if len(values) == 1:
        return values[0]  # exactly, not through exp(log(x))
    if how == "geomean":
        if any(v <= 0 for v in values):
            raise ValueError("the geometric mean needs positive values (set search.combine: mean)")
        return math.exp(sum(math.log(v) for v in values) / len(values))
    if how == "mean":
        return sum(values) / len(values)
    return {"sum": sum, "min": min, "max": max}[how](values)


def violation(text, env):
    """How far a constraint is from holding (0 when it holds): the gap of a
    comparison `a <= b` (or <, >=, >), else 1 for a false condition. Optuna
    counts a trial feasible when every such value is at most 0."""
    from .space import Expr
    import ast
    tree = ast.parse(text, mode="eval").body
    if isinstance(tree, ast.Compare) and len(tree.ops) == 1 and \
            isinstance(tree.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
        left = Expr(ast.unparse(tree.left)).eval(env)
        right = Expr(ast.unparse(tree.comparators[0])).eval(env)
        gap = left - right if isinstance(tree.ops[0], (ast.Lt, ast.LtE)) else right - left
        holds = Expr(text).eval(env)
        return 0.0 if holds else max(float(gap), 1e-12)
    return 0.0 if Expr(text).eval(env) else 1.0


def dominates(a, b, directions):
    """a is at least as good as b in every objective and better in one."""
    better = False
    for x, y, d in zip(a, b, directions):
        if d == "maximize":
            x, y = -x, -y
        if x > y:
            return False
        better = better or x < y
    return better


def best(evaluated, directions):
    """The keys of the best feasible configurations: the single best (first
    run on ties) for one objective, the Pareto front for several."""
    feasible = [(k, r["values"]) for k, r in evaluated.items() if r["values"] is not None and r["feasible"]]
    if not feasible:
        return []
    if len(directions) == 1:
        sign = -1 if directions[0] == "maximize" else 1
        return [min(feasible, key=lambda kv: sign * kv[1][0])[0]]
    return [k for k, v in feasible if not any(dominates(w, v, directions) for _, w in feasible)]


# ---------------------------------------------------------------- Optuna


def _optuna():
    try:
        import optuna
    except ImportError as e:
        raise SweepError(f"search: Optuna is missing ({e}); install the Debian package python3-optuna "
                         "(and python3-cmaes for the cmaes sampler)") from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    return optuna


def _sampler(optuna, cfg, evaluated):
    """The sampler of cfg; its constraints are read from evaluated (key ->
    result) through the trial's configuration."""
    seed = cfg["seed"]
    constraints = None
    if cfg["constraints"]:
        def constraints(frozen):
            r = evaluated.get(frozen.user_attrs.get("config"))
            return (r or {}).get("constraints") or [1.0] * len(cfg["constraints"])
    name = cfg["sampler"]
    if name == "tpe":
        # Optuna's default of 10 random trials before the model is most of a
        # small budget: a quarter of it (3 to 10) here.
        startup = min(10, max(3, cfg["trials"] // 4))
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup, multivariate=True, constant_liar=True,
                                          constraints_func=constraints)
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed, constraints_func=constraints)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    try:
        import cmaes  # noqa: F401 - Optuna's CmaEsSampler needs it
    except ImportError:
        raise SweepError("search.sampler cmaes: the cmaes package is missing; install the Debian package "
                         "python3-cmaes") from None
    return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False)


def _numeric(values):
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def distributions(optuna, cfg):
    """Per searched parameter: the index into its values when they are numbers
    (ordered, so TPE and CMA-ES can use their order), else the values as
    categories."""
    out = {}
    for k, values in cfg["axes"]:
        if _numeric(values):
            out[k] = optuna.distributions.IntDistribution(0, len(values) - 1)
        else:
            out[k] = optuna.distributions.CategoricalDistribution(list(range(len(values))))
    return out


def values_of(cfg, params):
    """The searched values of a trial's parameters (indices into each axis)."""
    return [values[params[k]] for k, values in cfg["axes"]]


def params_of(cfg, values):
    return {k: vals.index(v) for (k, vals), v in zip(cfg["axes"], values)}


class Search:
    def __init__(self, out_dir, sweep, execute, stream=sys.stderr, quiet=False):
        self.out, self.sweep, self.execute = out_dir, sweep, execute
        self.cfg = sweep["search"]
        self.stream, self.quiet = stream, quiet
        self.configs = configurations(sweep)
        self.by_id = {p["id"]: p for p in sweep["points"]}
        self.directions = [d for _, d in self.cfg["objectives"]]
        self.evaluated = {}  # key -> {"values": [..] | None, "feasible": bool, "why": str}
        self.order = []  # keys in the order they were run

    def log(self, msg):
        if not self.quiet:
            print(msg, file=self.stream, flush=True)

    # A configuration's result from its points' records.
    def result(self, key):
        ids = self.configs[key]
        sts = [results.load_status(self.out, i) for i in ids]
        if any(st is None or st.get("status") not in results.STATUSES for st in sts):
            return None  # unfinished
        failed = [(i, st) for i, st in zip(ids, sts) if st["status"] != "ok"]
        if failed:
            i, st = failed[0]
            return {"values": None, "feasible": False,
                    "why": f"point {i} {st['status']}" + (f": {st.get('message')}" if st.get("message") else "")}
        env = dict(zip([k for k, _ in self.cfg["axes"]], json.loads(key)))
        for i in ids:  # every parameter of the configuration, derived and fixed ones included
            env.update({k: v for k, v in self.by_id[i]["params"].items() if k not in env})
        metrics = {}
        objectives = [c for c, _ in self.cfg["objectives"]]
        for col in dict.fromkeys(objectives + list(self.sweep.get("metrics", {}))):
            vals = [st.get("metrics", {}).get(col) for st in sts]
            if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in vals):
                i, bad = next((i, v) for i, v in zip(ids, vals) if isinstance(v, bool) or not isinstance(v, (int, float)))
                if col in objectives and bad is not None:  # text: the spec's mistake, not the point's
                    p = self.by_id[i]
                    where = ", ".join([f"{k}={v}" for k, v in p["params"].items()] +
                                      [f"{p['program_name']} on {p['platform_name']}"])
                    raise SweepError(f"search.objectives.{col}: the metric is {bad!r} at point {i} ({where}), "
                                     "not a number")
                metrics[col] = "no value" if bad is None else f"{bad!r} is not a number"
                continue
            try:
                metrics[col] = combine(vals, self.cfg["combine"])
            except ValueError as e:
                metrics[col] = str(e)
        values = []
        for col, _ in self.cfg["objectives"]:
            if isinstance(metrics[col], str):
                return {"values": None, "feasible": False, "why": f"objective {col}: {metrics[col]}"}
            values.append(metrics[col])
        env.update({c: v for c, v in metrics.items() if not isinstance(v, str)})
        try:
            viol = [violation(c, env) for c in self.cfg["constraints"]]
        except Exception as e:  # noqa: BLE001 - a constraint over a missing metric makes the configuration infeasible
            viol = [1.0] * len(self.cfg["constraints"])
            return {"values": values, "feasible": False, "constraints": viol, "why": f"constraint: {e}"}
        return {"values": values, "feasible": all(v <= 0 for v in viol), "constraints": viol, "why": ""}

    def tell(self, study, optuna, number, key):
        r = self.evaluated[key]
        if r["values"] is None:
            study.tell(number, state=optuna.trial.TrialState.FAIL)
        else:
            study.tell(number, values=r["values"])

    def run(self, batch):
        optuna = _optuna()
        storage = optuna.storages.RDBStorage(f"sqlite:///{os.path.abspath(self.out)}/sweep.db")
        study = optuna.create_study(storage=storage, study_name=STUDY, directions=self.directions,
                                    sampler=_sampler(optuna, self.cfg, self.evaluated),
                                    load_if_exists=True)
        dists = distributions(optuna, self.cfg)
        rng = random.Random(self.cfg["seed"])
        state = optuna.trial.TrialState
        running = []  # (trial number, key) asked by an earlier driver and never told
        for t in study.get_trials(deepcopy=False):
            key = t.user_attrs.get("config")
            if key is None or key not in self.configs:
                continue
            if t.state == state.RUNNING:
                running.append((t.number, key))
            elif key not in self.evaluated and t.state in (state.COMPLETE, state.FAIL):
                r = self.result(key)
                if r is not None:
                    self.evaluated[key] = r
                    self.order.append(key)
        budget = min(self.cfg["trials"], len(self.configs))
        if running:
            self.log(f"[search] resuming: {len(running)} configuration(s) asked before the interruption run first")
        t0 = time.monotonic()
        while running or len(self.order) < budget:
            if not running:
                running = self.ask(study, optuna, dists, rng, min(batch, budget - len(self.order)))
                if not running:  # every configuration the constraints allow has run
                    break
            todo = sorted({i for _, key in running for i in self.configs[key]})
            status = self.execute(todo)
            if status == STATUS_INTERRUPTED:
                return status
            for number, key in running:
                if key not in self.evaluated:
                    r = self.result(key)
                    if r is None:  # a point that could not be run (its reason was printed): stop, resumable
                        self.log(f"[search] configuration {self.describe(key)} has unfinished points; "
                                 "--resume runs them and goes on")
                        return 1
                    self.evaluated[key] = r
                    self.order.append(key)
                self.tell(study, optuna, number, key)
            running = []
            self.progress(budget, t0)
        return 0

    def ask(self, study, optuna, dists, rng, n):
        """Up to n trials of configurations not run yet. An ask that repeats a
        finished configuration is told its result at once (it costs no run);
        one that the spec's constraints exclude fails; after MAX_IDLE_ASKS
        such asks in a row the search enqueues a random unrun configuration."""
        asked, keys, idle = [], set(), 0
        unrun = [k for k in self.configs if k not in self.evaluated]
        while len(asked) < n:
            trial = study.ask(dists)
            key = config_key(values_of(self.cfg, trial.params))
            trial.set_user_attr("config", key)
            if key in self.evaluated:
                self.tell(study, optuna, trial.number, key)
                idle += 1
            elif key in keys or key not in self.configs:
                study.tell(trial.number, state=optuna.trial.TrialState.FAIL)
                idle += 1
            else:
                asked.append((trial.number, key))
                keys.add(key)
                idle = 0
                continue
            if idle >= MAX_IDLE_ASKS:
                left = [k for k in unrun if k not in keys]
                if not left:
                    break
                study.enqueue_trial(params_of(self.cfg, json.loads(rng.choice(left))))
                idle = 0
        return asked

    def describe(self, key):
        return ", ".join(f"{k}={v}" for (k, _), v in zip(self.cfg["axes"], json.loads(key)))

    def progress(self, budget, t0):
        top = best(self.evaluated, self.directions)
        if top and len(self.directions) == 1:
            r = self.evaluated[top[0]]
            lead = f"best {self.cfg['objectives'][0][0]}={r['values'][0]:g} at {self.describe(top[0])}"
        elif top:
            lead = f"{len(top)} configurations on the Pareto front"
        else:
            lead = "no feasible configuration yet"
        self.log(f"[search] {len(self.order)}/{budget} configurations run, {lead}; "
                 f"{time.monotonic() - t0:.0f} s")

    def report(self):
        """search.json: every configuration run in order, with its values, and the best."""
        cols = [c for c, _ in self.cfg["objectives"]]
        axes = [k for k, _ in self.cfg["axes"]]

        def entry(key):
            r = self.evaluated[key]
            e = {"parameters": dict(zip(axes, json.loads(key))), "points": self.configs[key],
                 "objectives": dict(zip(cols, r["values"])) if r["values"] is not None else None,
                 "feasible": r["feasible"]}
            if r.get("why"):
                e["why"] = r["why"]
            return e

        top = best(self.evaluated, self.directions)
        return {"objectives": dict(self.cfg["objectives"]), "sampler": self.cfg["sampler"],
                "seed": self.cfg["seed"], "budget": self.cfg["trials"], "configurations": len(self.configs),
                "run": [entry(k) for k in self.order], "best": [entry(k) for k in top]}


def run(out_dir, sweep, args, execute):
    """Run the search; execute(ids) runs the unfinished points among ids and
    returns the executor's status. Writes OUT/search.json and returns the
    sweep's exit status."""
    quiet = getattr(args, "quiet", False)
    s = Search(out_dir, sweep, execute, quiet=quiet)
    status = s.run(sweep["search"]["batch"])
    report = s.report()
    from . import safefile
    with safefile.Dir(out_dir) as d:
        d.write_atomic("search.json", json.dumps(report, indent=1) + "\n")
    n = len(report["run"])
    if report["best"]:
        what = "best" if len(report["best"]) == 1 else f"Pareto front ({len(report['best'])})"
        lines = [f"  {', '.join(f'{k}={v}' for k, v in b['parameters'].items())}: "
                 f"{', '.join(f'{c}={v:g}' for c, v in b['objectives'].items())}" for b in report["best"]]
        print(f"tessera sweep: search: {n} of {report['configurations']} configurations run; {what}:\n" +
              "\n".join(lines[:20]) + (f"\n  ... {len(lines) - 20} more" if len(lines) > 20 else ""),
              file=sys.stderr)
    else:
        print(f"tessera sweep: search: {n} of {report['configurations']} configurations run; none feasible "
              f"(search.json says why)", file=sys.stderr)
    return status
