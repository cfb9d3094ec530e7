"""Load a sweep spec (YAML), validate it against the tessera that will run
it, and expand it into the points of sweep.json. Every refusal names the spec
file and the key, and comes before any point runs."""
import difflib
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import yaml

from . import SweepError
from . import provenance, space
from .runner import PROGRAM_PARAM, flatten, json_object, model_params, set_value, tool_command

# A parameter named in a program argument: "{cluster.cores}".
ARG_REF = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")

TOP_KEYS = ("name", "description", "tool", "tool_args", "platforms", "programs", "parameters", "derived", "sampling",
            "repeats", "constraints", "metrics", "timeout", "fast_forward", "plots", "max_points", "search")
DEFAULT_METRICS = {"cycles": "summary.sim_cycles", "warp_insts": "summary.warp_insts"}
ALWAYS_ALLOWED = ("roi.", "summary.", "fast_forward.", "kernels.")
TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_DIR = os.path.dirname(TOOLS_DIR)

# The standalone tools a sweep point may run instead of `tessera run`: each
# prints one JSON object with --json. "list": the command that lists its
# parameters (key value default range ...; dram's are the dram.* keys of the
# HBM platform, the same configuration), "prefix": the prefix of its keys (dram
# keys may leave it out); "shrink": (option, value, --set key) that make a
# probe cheap (the value replaces a larger one of the point's: CLI11 refuses a
# repeated option);
# "metrics": the default metrics.
TOOLS = {
    "dram": {"list": ["config", "--list", "chip_hbm"], "prefix": "dram.", "shrink": [("--requests", "1000", None)],
             "metrics": {"bandwidth_gbps": "bandwidth_gbps", "avg_read_latency_ns": "avg_read_latency_ns"}},
    "noc": {"list": ["noc", "--list"], "prefix": "noc.", "shrink": [("--cycles", "1000", "noc.cycles")],
            "metrics": {"latency": "avg_packet_latency_cycles", "accepted": "accepted_flits_per_node_cycle"}},
}
# Options of a tool that are not a sweep point's: they replace the one JSON object.
TOOL_RESERVED = ("--help", "-h", "--json", "--set", "--list", "--sweep", "--csv", "--plot")

# A sweep of more points is refused before it is expanded: points are counted
# from the spec (space.count) and compared with its max_points. Each point costs
# ~230 bytes of sweep.json and ~700 bytes of the tool's memory (1,000,000 points:
# 233 MB, 670 MB, 22 s to check and write with a stand-in tessera).
DEFAULT_MAX_POINTS = 1_000_000
POINT_BYTES = 1000  # the tool's memory a point takes, rounded up from ~700
# The spec itself: YAML aliases let a short file stand for an enormous tree
# (expanded when the spec is copied into sweep.json), so values are counted as
# if expanded; deep nesting would exhaust the stack of the JSON copy.
MAX_SPEC_BYTES = 4 << 20
MAX_SPEC_VALUES = 1_000_000
MAX_SPEC_DEPTH = 64
MAX_TIMEOUT = 30 * 24 * 3600  # seconds: a point longer than 30 days is a mistake, not a simulation
MAX_NAME_CHARS = 200

_LISTING = re.compile(r"^(\S+)\s+(\S+)\s+(\S+)\s+(\[[^\]]*\]|\S+)\s+(\S+)(?:\s+(.*))?$")


def default_tessera():
    return os.path.join(REPO_DIR, "build", "tessera")


def nearest(name, candidates):
    m = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.5)
    return f" (nearest: {m[0]})" if m else ""


def nearest_path(name, paths):
    """The nearest stats path, looked for first under the deepest existing
    parent of name (chip.sm0.l1.hitz -> a chip.sm0.* counter)."""
    parts = name.split(".")
    for depth in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:depth]) + "."
        under = [p for p in paths if p.startswith(prefix)]
        if under:
            m = difflib.get_close_matches(name, under, n=1, cutoff=0.3)
            if m:
                return f" (nearest: {m[0]})"
            break
    return nearest(name, paths)


def _safe(text):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


class Loader:
    def __init__(self, spec_path, tessera):
        self.path = spec_path
        self.dir = os.path.dirname(os.path.abspath(spec_path))
        self.tessera = os.path.abspath(tessera)
        self.files = {}
        self._listings = {}
        self.spec_json = None
        self.origins = {}

    def err(self, key, msg):
        return SweepError(f"{self.path}: {key}: {msg}" if key else f"{self.path}: {msg}")

    def add_file(self, prefix, stem, path):
        """A filesystem-safe KEY for path (the same path keeps its key)."""
        for k, v in self.files.items():
            if v == path:
                return k
        key = f"{prefix}-{_safe(stem)}"
        n = 2
        while key in self.files:
            key = f"{prefix}-{_safe(stem)}-{n}"
            n += 1
        self.files[key] = path
        return key

    # ------------------------------------------------------------ tessera

    def run_tessera(self, args):
        try:
            return subprocess.run([self.tessera] + args, capture_output=True, text=True, timeout=60)
        except OSError as e:
            raise SweepError(f"cannot run tessera ({self.tessera}): {e.strerror}") from None

    def listing(self, platform_path, sets):
        """{key: (range, type)} from `tessera config --list P --set ...`, or a
        SweepError with tessera's message."""
        ck = (platform_path, tuple(sets))
        if ck not in self._listings:
            args = ["config", "--list", platform_path]
            for s in sets:
                args += ["--set", s]
            r = self.run_tessera(args)
            if r.returncode != 0:
                lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
                self._listings[ck] = lines[-1].replace("tessera: error: ", "") if lines else \
                    f"tessera config --list failed with status {r.returncode}"
            else:
                params = {}
                for ln in r.stdout.splitlines():
                    if ln.startswith("#") or ln.startswith("key "):
                        continue
                    m = _LISTING.match(ln)
                    if m:
                        params[m.group(1)] = (m.group(4), m.group(5))
                self._listings[ck] = params
        return self._listings[ck]

    # ------------------------------------------------------------ spec parts

    def platform(self, i, item):
        key = f"platforms[{i}]"
        if not isinstance(item, str) or not item:
            raise self.err(key, f"expected a platform name or .yaml path, got {item!r}")
        if item.endswith(".yaml") or os.sep in item:
            path = item if os.path.isabs(item) else os.path.join(self.dir, item)
            if not os.path.isfile(path):
                raise self.err(key, f"platform file '{item}' does not exist ({os.path.abspath(path)})")
            return os.path.splitext(os.path.basename(item))[0], os.path.abspath(path)
        for d in (os.path.join(REPO_DIR, "platforms"), os.path.join(os.path.dirname(self.tessera), "..", "platforms")):
            path = os.path.join(d, item + ".yaml")
            if os.path.isfile(path):
                return item, os.path.abspath(path)
        known = sorted(f[:-5] for f in os.listdir(os.path.join(REPO_DIR, "platforms")) if f.endswith(".yaml")) \
            if os.path.isdir(os.path.join(REPO_DIR, "platforms")) else []
        raise self.err(key, f"unknown platform '{item}'{nearest(item, known)} (known: {', '.join(known)})")

    def platform_overlay(self, i, item):
        """{name, set, parameters} of a platform given as a mapping: a platform
        under another name with fixed parameter values (`set`) and parameters
        swept for it alone (`parameters`)."""
        key = f"platforms[{i}]"
        unknown = set(item) - {"platform", "name", "set", "parameters"}
        if unknown:
            raise self.err(key, f"unknown key '{sorted(map(str, unknown))[0]}' (platform, name, set, parameters)")
        if "platform" not in item:
            raise self.err(key, "a platform given as a mapping needs platform: (a name or .yaml path)")
        out = {}
        if "name" in item:
            n = item["name"]
            if not isinstance(n, str) or not re.fullmatch(r"[A-Za-z0-9._-]+", n):
                raise self.err(f"{key}.name", f"expected a name of letters, digits, . _ -, got {n!r}")
            out["name"] = n
        fixed = item.get("set") or {}
        if not isinstance(fixed, dict):
            raise self.err(f"{key}.set", "expected a mapping of parameter -> value")
        for k, v in fixed.items():
            if isinstance(v, bool) or not isinstance(v, (int, float, str)) or \
                    (isinstance(v, float) and not math.isfinite(v)):
                raise self.err(f"{key}.set.{k}", f"expected one number or text, got {v!r}")
        out["set"] = {str(k): v for k, v in fixed.items()}
        own = item.get("parameters") or {}
        if not isinstance(own, dict):
            raise self.err(f"{key}.parameters", "expected a mapping of parameter -> values")
        axes = []
        for k, v in own.items():
            if str(k) in out["set"]:
                raise self.err(f"{key}.parameters.{k}", f"'{k}' is also fixed under set")
            try:
                axes.append((str(k), space.axis(str(k), v)))
            except SweepError as e:
                raise self.err(f"{key}.parameters.{k}", str(e).replace(f"parameter '{k}': ", "")) from None
        out["parameters"] = axes
        return out

    def program(self, i, item):
        key = f"programs[{i}]"
        args = []
        if isinstance(item, dict):
            unknown = set(item) - {"name", "elf", "args"}
            if unknown:
                raise self.err(key, f"unknown key '{sorted(unknown)[0]}' (name, elf, args)")
            name, elf, args = item.get("name"), item.get("elf"), item.get("args", [])
            if not isinstance(args, list):
                raise self.err(f"{key}.args", f"expected a list of arguments, got {args!r}")
            if not name and not elf:
                raise self.err(key, "a program needs a name or an elf")
            elf = elf or name
            name = name or os.path.splitext(os.path.basename(elf))[0]
        elif isinstance(item, str) and item:
            name, elf = os.path.splitext(os.path.basename(item))[0], item
        else:
            raise self.err(key, f"expected a program name, an ELF path or {{name, elf, args}}, got {item!r}")
        if not isinstance(name, str) or not isinstance(elf, str):
            raise self.err(key, "name and elf must be strings")
        # A path relative to the spec, else a program of the build's firmware
        # folder next to the tessera binary ("sgemm", "htm/htm_bank").
        fname = elf if elf.endswith(".elf") else elf + ".elf"
        fw = os.path.join(os.path.dirname(self.tessera), "firmware")
        if os.path.isabs(elf):
            path = candidates = elf
        else:
            candidates = [os.path.join(self.dir, elf), os.path.join(fw, fname), os.path.join(self.dir, fname)]
            if os.sep not in elf:
                candidates = candidates[1:] + candidates[:1]
            path = next((c for c in candidates if os.path.isfile(c)), candidates[0])
        if not os.path.isfile(path):
            looked = ", ".join(os.path.abspath(c) for c in dict.fromkeys(
                [candidates] if isinstance(candidates, str) else candidates))
            raise self.err(key, f"firmware '{elf}' does not exist (looked for {looked})")
        return name, os.path.abspath(path), [a if isinstance(a, str) else set_value(a) for a in args]

    # ------------------------------------------------------------ load

    def read(self):
        """The spec file's YAML, bounded in size, nesting and (aliases expanded) values."""
        try:
            with open(self.path, "rb") as f:
                text = f.read(MAX_SPEC_BYTES + 1)
        except OSError as e:
            raise SweepError(f"{self.path}: cannot read: {e.strerror}") from None
        if len(text) > MAX_SPEC_BYTES:
            raise SweepError(f"{self.path}: the spec is larger than {MAX_SPEC_BYTES >> 20} MB")
        try:
            spec = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise SweepError(f"{self.path}: not valid YAML: {e}") from None
        except (RecursionError, MemoryError):
            raise SweepError(f"{self.path}: the spec is nested too deeply to read") from None
        except ValueError as e:  # a number PyYAML cannot convert (an integer of more than 4300 digits)
            raise SweepError(f"{self.path}: not valid YAML: {e}") from None
        values, stack = 0, [(spec, 1, None)]
        while stack:
            v, depth, key = stack.pop()
            values += 1
            if values > MAX_SPEC_VALUES:
                raise self.err(key, f"the spec holds more than {MAX_SPEC_VALUES:,} values (YAML aliases counted "
                               "as often as they are used)")
            if depth > MAX_SPEC_DEPTH:
                raise self.err(key, f"nested more than {MAX_SPEC_DEPTH} levels deep")
            if isinstance(v, dict):
                stack.extend((x, depth + 1, key if key is not None else k) for k, x in v.items())
            elif isinstance(v, list):
                stack.extend((x, depth + 1, key) for x in v)
        return spec

    def load(self):
        spec = self.read()
        if not isinstance(spec, dict):
            raise self.err(None, "expected a mapping (name, platforms, programs, parameters, ...)")
        try:
            # The spec as sweep.json holds it (a YAML date becomes its text).
            self.spec_json = json.loads(json.dumps(spec, default=str))
        except (TypeError, ValueError) as e:
            raise self.err(None, f"the spec holds a value sweep.json cannot (JSON) hold: {e}") from None
        for k in spec:
            if k not in TOP_KEYS:
                raise self.err(k, f"unknown key{nearest(str(k), TOP_KEYS)} (known: {', '.join(TOP_KEYS)})")
        if not os.access(self.tessera, os.X_OK):
            raise SweepError(f"tessera binary '{self.tessera}' is missing or not executable")
        name = self.sweep_name(spec)

        tool = spec.get("tool")
        if tool is not None:
            both = [k for k in ("platforms", "programs", "fast_forward") if k in spec]
            if both:
                raise self.err("tool", f"tool and {' and '.join(both)} are both given: a sweep runs either "
                               "`tessera TOOL` (tool, tool_args) or `tessera run` (platforms, programs)")
            if tool not in TOOLS:
                raise self.err("tool", f"unknown tool '{tool}'{nearest(str(tool), TOOLS)} (tools: {', '.join(TOOLS)})")
            tool_args = spec.get("tool_args", [])
            if isinstance(tool_args, str) or not isinstance(tool_args, list) or \
                    not all(isinstance(a, (str, int, float)) for a in tool_args):
                raise self.err("tool_args", f"expected a list of arguments, got {tool_args!r}")
            platforms = [(tool, None, {}, [])]
            programs = [(f"tessera {tool}", None, [a if isinstance(a, str) else set_value(a) for a in tool_args])]
        elif "tool_args" in spec:
            raise self.err("tool_args", "tool_args needs tool (dram or noc)")
        else:
            platforms, programs = self.platforms_programs(spec)
        return self.load_rest(spec, name, tool, platforms, programs)

    def sweep_name(self, spec):
        """The sweep's name: the default directory sweeps/NAME, so one plain file
        name (`..` would put the sweep's files in the working directory)."""
        given = spec.get("name") is not None
        name = spec["name"] if given else os.path.splitext(os.path.basename(self.path))[0]
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9._-]+", name) or name in (".", "..") or \
                len(name) > MAX_NAME_CHARS:
            whose = "" if given else " (the spec file's name; give the sweep a name: key)"
            raise self.err("name", f"{name!r}{whose} is not a filesystem-safe name: one plain file name of letters, "
                           f"digits, . _ - (not . or ..), at most {MAX_NAME_CHARS} characters")
        return name

    def platforms_programs(self, spec):
        plats = spec.get("platforms")
        if isinstance(plats, str):
            plats = [plats]
        if not isinstance(plats, list) or not plats:
            raise self.err("platforms", "expected a non-empty list of platform names or .yaml paths")
        platforms = []
        for i, p in enumerate(plats):
            overlay = {}
            if isinstance(p, dict):
                overlay = self.platform_overlay(i, p)
                p = p.get("platform")
            pname, ppath = self.platform(i, p)
            pname = overlay.get("name", pname)
            if any(pname == q[0] for q in platforms):
                raise self.err(f"platforms[{i}]", f"a second platform named '{pname}' (give it a name: of its own)")
            platforms.append((pname, self.add_file("platform", pname, ppath), overlay.get("set", {}),
                              overlay.get("parameters", [])))

        progs = spec.get("programs")
        if isinstance(progs, (str, dict)):
            progs = [progs]
        if not isinstance(progs, list) or not progs:
            raise self.err("programs", "expected a non-empty list of programs")
        programs = []
        for i, p in enumerate(progs):
            pname, ppath, args = self.program(i, p)
            programs.append((pname, self.add_file("elf", pname, ppath), args))
        return platforms, programs

    def load_rest(self, spec, name, tool, platforms, programs):
        params = spec.get("parameters") or {}
        if not isinstance(params, dict):
            raise self.err("parameters", "expected a mapping of parameter -> values")
        axes = []
        for k, v in params.items():
            try:
                axes.append((str(k), space.axis(str(k), v)))
            except SweepError as e:
                raise self.err(f"parameters.{k}", str(e).replace(f"parameter '{k}': ", "")) from None

        repeats = spec.get("repeats")
        rep = None
        if repeats is not None:
            if isinstance(repeats, int) and not isinstance(repeats, bool):
                repeats = {"count": repeats}
            if not isinstance(repeats, dict) or set(repeats) - {"count", "parameter"}:
                raise self.err("repeats", "expected {count: R, parameter: KEY}")
            count, rparam = repeats.get("count"), repeats.get("parameter")
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise self.err("repeats.count", f"expected a positive integer, got {count!r}")
            if rparam is not None and not isinstance(rparam, str):
                raise self.err("repeats.parameter", f"expected a parameter name, got {rparam!r}")
            if rparam in params:
                raise self.err("repeats.parameter", f"'{rparam}' is also swept under parameters")
            rep = (count, rparam)

        cons = spec.get("constraints") or []
        if isinstance(cons, str):
            cons = [cons]
        if not isinstance(cons, list):
            raise self.err("constraints", "expected a list of expressions")
        constraints = []
        known_params = [k for k, _ in axes]
        # (platform name, key) -> the spec key of a platform's own parameter, for messages
        for i, (pname, _, fixed, own) in enumerate(platforms):
            self.origins.update({(pname, k): f"platforms[{i}].set.{k}" for k in fixed})
            self.origins.update({(pname, k): f"platforms[{i}].parameters.{k}" for k, _ in own})
            for k in list(fixed) + [k for k, _ in own]:
                if k in known_params:
                    raise self.err(f"platforms[{i}]", f"'{k}' is swept under parameters for every platform; a "
                                   "platform may set or sweep only parameters the others do not sweep")
        for i, c in enumerate(cons):
            try:
                e = space.Expr(c)
            except SweepError as ex:
                raise self.err(f"constraints[{i}]", str(ex)) from None
            if e.patterns:
                raise self.err(f"constraints[{i}]", f"'{c}': {min(e.patterns)} is an aggregate of statistics, "
                               "for metrics; a constraint names swept parameters")
            for n in sorted(e.names):
                if n not in known_params:
                    raise self.err(f"constraints[{i}]", f"'{c}' names '{n}', which is not a swept parameter"
                                   f"{nearest(n, known_params)}")
            constraints.append(e)

        metrics = spec.get("metrics") or (TOOLS[tool]["metrics"] if tool else DEFAULT_METRICS)
        if not isinstance(metrics, dict):
            raise self.err("metrics", "expected a mapping column -> stats path or expression")
        metric_exprs = {}
        for col, text in metrics.items():
            try:
                metric_exprs[str(col)] = space.Expr(text)
            except SweepError as ex:
                raise self.err(f"metrics.{col}", str(ex)) from None

        timeout = spec.get("timeout", 600)
        # (nan fails every comparison, so it is refused with inf and the negatives)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_TIMEOUT:
            raise self.err("timeout", f"expected a positive, finite number of seconds (at most {MAX_TIMEOUT:,}: "
                           f"30 days), got {timeout!r}")
        ff = spec.get("fast_forward", False)
        if not isinstance(ff, bool):
            raise self.err("fast_forward", f"expected true or false, got {ff!r}")

        if "search" in spec and "sampling" in spec:
            raise self.err("search", "sampling and search are both given: a search chooses its own points from "
                           "the grid of the parameters' values")
        sampling = spec.get("sampling", "grid")
        try:
            n_samples = space.count(axes, sampling)
        except SweepError as ex:
            raise self.err("sampling", str(ex)[len("sampling: "):]) from None
        self.check_size(spec, platforms, programs, axes, sampling, n_samples, rep)
        dropped = {}
        try:
            # At most max_points parameter points: the grid is filtered as it is produced.
            sampled = list(space.iter_sample(axes, sampling, constraints, dropped))
        except SweepError as ex:
            raise self.err("constraints", str(ex)) from None
        if not sampled:
            raise self.err("constraints", "the parameter space is empty: the constraints exclude every point")
        sampling_note = self.shortfall(sampling, len(sampled), dropped)
        derived = self.derived(spec, known_params)
        if derived:
            sampled = [self.derive(p, derived) for p in sampled]
            known_params = known_params + list(derived)
        param_points = list(space.iter_repeats(sampled, rep))

        referenced = set()
        known_params = known_params + [k for _, _, fixed, own in platforms for k in list(fixed) + [a for a, _ in own]
                                       if k not in known_params]
        for i, (gname, _, args) in enumerate(programs):
            for a in args:
                for ref in ARG_REF.findall(a):
                    if ref not in known_params:
                        raise self.err("tool_args" if tool else f"programs[{i}].args", f"'{{{ref}}}' names no parameter of the sweep"
                                       f"{nearest(ref, known_params)} (parameters: {', '.join(known_params) or 'none'})")
                    referenced.add(ref)
        for k in known_params:
            if k.startswith(PROGRAM_PARAM) and k not in referenced:
                raise self.err(f"parameters.{k}", f"'{k}' is a program parameter (only substituted into arguments), "
                               f"but no {'tool_args' if tool else 'program args'} name '{{{k}}}'")

        points = []
        for pname, pkey, fixed, own in platforms:
            own_points = [dict(fixed, **q) for q in space.iter_sample(own, "grid", [], {})] if own else [fixed]
            for gname, gkey, args in programs:
                for params_, r in ((dict(q, **shared), r) for shared, r in param_points for q in own_points):
                    # "{cluster.cores}" in an argument is the point's value of that parameter.
                    point_args = [ARG_REF.sub(lambda m: set_value(params_[m.group(1)]), a) for a in args]
                    if tool:
                        points.append({"id": len(points), "tool": tool, "platform": tool, "platform_name": tool,
                                       "program": gname, "program_name": gname, "args": point_args,
                                       "params": params_, "repeat": r})
                        continue
                    points.append({"id": len(points), "platform": pkey, "platform_name": pname, "program": gkey,
                                   "program_name": gname, "args": point_args, "params": params_, "repeat": r})

        if tool:
            self.validate_tool(tool, points, metric_exprs)
        else:
            self.validate_parameters(points, derived)
            self.validate_metrics(points, metric_exprs)

        extra = {"tool": tool} if tool else {}
        if "search" in spec:
            from . import search
            extra["search"] = search.parse(self, spec["search"], metric_exprs, axes, platforms, known_params)
        sweep = {"version": 1, "name": name, **extra, "spec": self.spec_json, "spec_file": os.path.abspath(self.path),
                 "tessera": self.tessera, "files": self.files,
                 "metrics": {c: e.text for c, e in metric_exprs.items()}, "timeout": timeout, "fast_forward": ff}
        if sampling_note:
            sweep["sampling_note"] = sampling_note
            print(f"tessera sweep: {self.path}: {sampling_note}", file=sys.stderr)
        labels = {c: metric_label(c, e, getattr(self, "descriptions", {})) for c, e in metric_exprs.items()}
        labels = {c: v for c, v in labels.items() if v}
        if labels:
            sweep["metric_labels"] = labels
        sweep["inputs"] = provenance.inputs(sweep)
        sweep["git_commit"] = provenance.git_commit(self.tessera)
        sweep["points"] = points  # last: sweep.json lists its points after what they came from
        return sweep

    def derived(self, spec, known_params):
        """{key: Expr} of `derived:`, parameters computed at each point from the
        swept ones (and the derived ones before them), in the spec's order."""
        given = spec.get("derived") or {}
        if not isinstance(given, dict):
            raise self.err("derived", "expected a mapping of parameter -> expression over the swept parameters")
        out = {}
        for k, text in given.items():
            k = str(k)
            if k in known_params:
                raise self.err(f"derived.{k}", f"'{k}' is swept under parameters; a parameter is swept or derived")
            try:
                e = space.Expr(text)
            except SweepError as ex:
                raise self.err(f"derived.{k}", str(ex)) from None
            if e.patterns:
                raise self.err(f"derived.{k}", f"{min(e.patterns)} is an aggregate of statistics, for metrics")
            for n in sorted(e.names):
                if n not in known_params and n not in out:
                    raise self.err(f"derived.{k}", f"'{text}' names '{n}', which is not a swept parameter or a "
                                   f"derived one before it{nearest(n, known_params + list(out))}")
            out[k] = e
        return out

    def derive(self, point, derived):
        """The point with its derived parameters; an expression that cannot be
        computed there, or gives no number or text, is refused naming the point."""
        p = dict(point)
        for k, e in derived.items():
            try:
                v = e.eval(p)
            except (space.ExprError, ZeroDivisionError, space.MissingName) as ex:
                raise self.err(f"derived.{k}", f"'{e.text}' cannot be computed at "
                               f"{', '.join(f'{n}={set_value(x)}' for n, x in point.items())}: "
                               f"{ex or type(ex).__name__}") from None
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            if isinstance(v, bool) or not isinstance(v, (int, float, str)) or \
                    (isinstance(v, float) and not math.isfinite(v)):
                raise self.err(f"derived.{k}", f"'{e.text}' gives {v!r} at "
                               f"{', '.join(f'{n}={set_value(x)}' for n, x in point.items())}: expected a number or text")
            p[k] = v
        return p

    @staticmethod
    def shortfall(sampling, got, dropped):
        """What a random or Latin-hypercube sample that gave fewer points than
        asked lost, in words; None when it gave them all (or for a grid)."""
        method, n, _ = space.parse_sampling(sampling)
        if method == "grid" or got >= n:
            return None
        why = []
        if dropped.get("repeated"):
            why.append(f"{dropped['repeated']} repeated an earlier point (an axis has fewer values than points)")
        if dropped.get("rejected"):
            why.append(f"{dropped['rejected']} failed the constraints")
        if not why:
            why.append("the parameter space, less what the constraints exclude, holds no more")
        return f"sampling: {method} gave {got} distinct points of the {n} asked: {'; '.join(why)}"

    def check_size(self, spec, platforms, programs, axes, sampling, n_samples, rep):
        """Refuse a sweep of more than max_points points, counted from the spec
        before any point is made, naming the count, its factors and the key
        of the largest."""
        limit = spec.get("max_points", DEFAULT_MAX_POINTS)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise self.err("max_points", f"expected a positive integer (the most points the sweep may have), "
                           f"got {limit!r}")
        # Each platform with its own parameters counts as the grid of their values.
        configs = sum(math.prod(v.count for _, v in own) for _, _, _, own in platforms)
        what = "platforms" if configs == len(platforms) else "platform configurations (with their own parameters)"
        factors = [(configs, "platforms", f"{configs:,} {what}"),
                   (len(programs), "programs", f"{len(programs):,} programs")]
        if space.parse_sampling(sampling)[0] == "grid":
            factors += [(v.count, f"parameters.{k}", f"{v.count:,} values of {k}") for k, v in axes]
        else:
            factors.append((n_samples, "sampling.points", f"{n_samples:,} sampled points"))
        if rep:
            factors.append((rep[0], "repeats.count", f"{rep[0]:,} repeats"))
        total = math.prod(n for n, _, _ in factors)
        shown = [d for n, _, d in factors if n > 1]
        largest = max(factors, key=lambda f: f[0])[1]
        if total > limit:
            raise self.err(largest, f"the sweep would have {total:,} points ({' x '.join(shown)}), more than "
                           f"max_points ({limit:,}); make the space smaller, or raise max_points if that many "
                           "points are meant")
        # A max_points raised past what this machine can hold: the points are
        # kept in memory while sweep.json is written.
        available = available_memory()
        if available and total * POINT_BYTES > available:
            raise self.err(largest, f"the sweep's {total:,} points ({' x '.join(shown)}) would take about "
                           f"{total * POINT_BYTES / 2 ** 30:,.1f} GiB of this tool's memory ({POINT_BYTES} bytes "
                           f"a point), more than the {available / 2 ** 30:.1f} GiB available; make the space smaller")

    # ------------------------------------------------------------ validation

    def validate_parameters(self, points, derived=()):
        """Each point's parameters against `tessera config --list` of its
        platform with the point's non-numeric values set (a parameter may
        exist only when another selects its subsystem)."""
        combos = {}
        for p in points:
            structural = structural_values(p)
            combos.setdefault((p["platform"], structural), []).append(p)
        for (pkey, structural), pts in combos.items():
            path = self.files[pkey]
            listing = self.listing(path, [f"{k}={v}" for k, v in structural])
            if isinstance(listing, str):
                m = re.search(r"unknown parameter '([^']+)'", listing)
                hint = ""
                if m:
                    base = self.listing(path, [])
                    hint = nearest(m.group(1), base if isinstance(base, dict) else {})
                    raise self.err(self.param_key(m.group(1), derived, pts[0]), f"unknown parameter '{m.group(1)}' on platform "
                                   f"{os.path.basename(path)}{hint}")
                m = re.match(r"--set ([^:\s]+): (.*)", listing)
                if m:
                    raise self.err(self.param_key(m.group(1), derived, pts[0]), f"{m.group(2)} (platform {os.path.basename(path)})")
                raise self.err("parameters", f"platform {os.path.basename(path)}: {listing}")
            for p in pts:
                for k, v in model_params(p).items():
                    if k not in listing:
                        raise self.err(self.param_key(k, derived, p), f"unknown parameter '{k}' on platform "
                                       f"{os.path.basename(path)}{nearest(k, listing)}")
                    msg = check_value(v, *listing[k])
                    if msg:
                        raise self.err(self.param_key(k, derived, p), msg)

    def param_key(self, k, derived, point):
        """The spec key a parameter of a point comes from."""
        origin = self.origins.get((point["platform_name"], k))
        if origin:
            return origin
        return f"derived.{k}" if k in derived else f"parameters.{k}"

    def validate_metrics(self, points, metric_exprs):
        """Probe runs (`--max-cycles 1`, which writes every counter) of the
        points that decide which statistics exist, and check that each
        metric's stats paths are in every one of them: per platform x
        program and each combination of non-numeric values (a subsystem
        they select has its own counters), the first point, and for each
        numeric parameter a point with its smallest and one with its largest
        value (a count of SMs, slices or cores sets how many instances have
        counters). A path none of them has is refused; one that some lack is
        noted on stderr with the values of a point that lacks it (those
        points have no value for the metric). Either way whatever the order
        of the values."""
        probes = []  # (point, leaves)
        self.descriptions = {}  # stats path -> description, from the first probe of each group
        groups = {}
        for p in points:
            groups.setdefault((p["platform"], p["program"], structural_values(p)), []).append(p)
        with tempfile.TemporaryDirectory(prefix="tessera-sweep-probe-") as tmp:
            for members in groups.values():
                for n, p in enumerate(shape_probes(members)):
                    stats = os.path.join(tmp, f"{len(probes)}-{n}.json")
                    args = ["run", self.files[p["platform"]], self.files[p["program"]], "--max-cycles", "1",
                            "--stats", stats, "-q"]
                    described = os.path.join(tmp, f"{len(probes)}-{n}.describe.json")
                    if n == 0:
                        args += ["--stats-describe", described]
                    for k, v in model_params(p).items():
                        args += ["--set", f"{k}={set_value(v)}"]
                    r = self.run_tessera(args)
                    if n == 0:
                        try:
                            with open(described) as f:
                                self.descriptions.update(json.load(f))
                        except (OSError, ValueError):
                            pass  # no labels from this probe: the plots name the column
                    try:
                        with open(stats) as f:
                            probes.append((p, set(flatten(json.load(f)))))
                    except (OSError, ValueError):
                        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
                        why = lines[-1].replace('tessera: error: ', '') if lines else 'no statistics written'
                        if n == 0:
                            raise self.err("programs", f"probing {p['program_name']} on {p['platform_name']} failed "
                                           f"(tessera {' '.join(args[:3])} ... status {r.returncode}): {why}") from None
                        # A point the simulator refuses fails when it runs, and is recorded so.
                        print(f"tessera sweep: {self.path}: note: the point with {describe_point(p)} does not run "
                              f"(status {r.returncode}: {why}); it will be recorded as failed", file=sys.stderr)
        every = set().union(*(leaves for _, leaves in probes)) if probes else set()
        def checked(text):  # an aggregate's path outside roi., summary., ... (which probes may lack)
            return not text[text.index("(") + 1:].startswith(ALWAYS_ALLOWED)

        for col, e in metric_exprs.items():
            for text, regex in sorted(e.patterns.items()):
                if checked(text) and not any(regex.match(leaf) for leaf in every):
                    raise self.err(f"metrics.{col}", f"{text} matches no statistic of these runs"
                                   f"{nearest_path(text[text.index('(') + 1:-1], every)}")
            for n in sorted(e.names):
                if not n.startswith(ALWAYS_ALLOWED) and n not in every:
                    raise self.err(f"metrics.{col}", f"'{n}' is not a statistic of these runs{nearest_path(n, every)}")
            # A statistic of some points only (a subsystem one selects, an SM
            # only the larger chips have) leaves the others without a value:
            # said once, with the values of a point that lacks it.
            for p, leaves in probes:
                lacking = [t for t, regex in sorted(e.patterns.items())
                           if checked(t) and not any(regex.match(x) for x in leaves)]
                lacking += [n for n in sorted(e.names) if not n.startswith(ALWAYS_ALLOWED) and n not in leaves]
                if lacking:
                    print(f"tessera sweep: {self.path}: metrics.{col}: {', '.join(lacking)} does not exist in runs with "
                          f"{describe_point(p)}: such points have no {col} (an aggregate, sum(chip.sm*.x), "
                          f"covers every instance a point has)", file=sys.stderr)
                    break


    # ------------------------------------------------------------ standalone tools

    def tool_options(self, tool):
        """The options `tessera TOOL --help` lists."""
        r = self.run_tessera([tool, "--help"])
        return sorted(set(re.findall(r"(?:^|[\s,])(--[A-Za-z0-9][A-Za-z0-9-]*)", r.stdout, re.M)))

    def tool_listing(self, tool):
        """{key: (range, type)} of the tool's parameters when it lists them, else None."""
        cmd = TOOLS[tool]["list"]
        if not cmd:
            return None
        r = self.run_tessera(cmd)
        if r.returncode != 0:
            return None
        params = {}
        for ln in r.stdout.splitlines():
            m = re.match(r"^(\S+)\s+(\S+)\s+(\S+)\s+(\[[^\]]*\]|\S+)", ln)
            if not m or ln.startswith(("#", "key ")) or not m.group(1).startswith(TOOLS[tool]["prefix"]):
                continue
            rng = m.group(4)
            params[m.group(1)] = (rng, "float" if rng.startswith("[") else "enum" if "|" in rng else "string")
        return params

    def validate_tool(self, tool, points, metric_exprs):
        """A tool sweep before any point runs: its options against `tessera
        TOOL --help`, its --set keys and values against its parameter list
        (noc) and, with the metrics, by one cheap run per distinct combination
        of non-numeric values (the workload shrunk by TOOLS[tool]["shrink"])."""
        options = self.tool_options(tool)
        for k in points[0]["params"]:
            if not k.startswith("--"):
                continue
            if k in TOOL_RESERVED:
                raise self.err(f"parameters.{k}", f"'{k}' is not an option of a sweep point (the sweep adds --json "
                               "and --set; a point prints one JSON object)")
            if k not in options:
                usable = [o for o in options if o not in TOOL_RESERVED]
                raise self.err(f"parameters.{k}", f"unknown option '{k}' of `tessera {tool}`{nearest(k, usable)} "
                               f"(options: {', '.join(usable)})")
        listing = self.tool_listing(tool)
        prefix = TOOLS[tool]["prefix"]
        if listing is not None:
            for p in points:
                for k, v in model_params(p).items():
                    if k.startswith("--"):
                        continue
                    full = k if k in listing else prefix + k
                    if full not in listing:
                        names = list(listing) + [n[len(prefix):] for n in listing] if tool == "dram" else listing
                        raise self.err(f"parameters.{k}", f"unknown parameter '{k}' of `tessera {tool}`"
                                       f"{nearest(k, names)}")
                    msg = check_value(v, *listing[full])
                    if msg:
                        raise self.err(f"parameters.{k}", msg)
        leaves = set()
        seen = set()
        for p in points:
            combo = structural_values(p)
            if combo in seen:
                continue
            seen.add(combo)
            args = tool_command("", tool, p)[1:]
            args = shrink(args, TOOLS[tool]["shrink"])
            r = self.run_tessera(args)
            if r.returncode != 0:
                raise self.err(self.tool_error_key(r.stderr, p), f"`tessera {tool}` refuses this point "
                               f"({' '.join(args[1:-1])}): {tool_error(r.stderr) or f'status {r.returncode}'}")
            obj = json_object(r.stdout)
            if obj is None:
                raise self.err("tool", f"`tessera {' '.join(args)}` printed no JSON object")
            leaves.update(flatten(obj))
        for col, e in metric_exprs.items():
            for text, regex in sorted(e.patterns.items()):
                if not any(regex.match(leaf) for leaf in leaves):
                    raise self.err(f"metrics.{col}", f"{text} matches nothing in the JSON of `tessera {tool} --json`")
            for n in sorted(e.names):
                if n not in leaves:
                    raise self.err(f"metrics.{col}", f"'{n}' is not in the JSON of `tessera {tool} --json`"
                                   f"{nearest_path(n, leaves)}")

    @staticmethod
    def tool_error_key(stderr, point):
        """The spec key a tool's error names: parameters.KEY of a --set key or option, else parameters."""
        text = tool_error(stderr)
        for k in point["params"]:
            bare = k[2:] if k.startswith("--") else k
            if re.search(r"(?<![\w.-])(--)?(\w+\.)?" + re.escape(bare) + r"(?![\w.-])", text):
                return f"parameters.{k}"
        return "tool_args" if point["args"] else "parameters"


def tool_error(stderr):
    """A tool's error: its `tessera: error:` line, else CLI11's first line."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip() and not ln.startswith("Run with --help")]
    for ln in lines:
        if ln.startswith("tessera: error:"):
            return ln[len("tessera: error:"):].strip()
    return lines[0] if lines else ""


def shrink(args, rules):
    """args with each (option, value, set key) of rules making the run cheap:
    the option's value (or the --set key's) replaced, else the option added."""
    args = list(args)
    for opt, value, key in rules:
        done = False
        for i, a in enumerate(args):
            if a == opt and i + 1 < len(args):
                args[i + 1], done = smaller(args[i + 1], value), True
            elif a.startswith(opt + "="):
                args[i], done = f"{opt}={smaller(a[len(opt) + 1:], value)}", True
            elif key and a == "--set" and i + 1 < len(args) and args[i + 1].startswith(key + "="):
                args[i + 1], done = f"{key}={smaller(args[i + 1][len(key) + 1:], value)}", True
        if not done:
            args[-1:-1] = [opt, value]  # before the final --json
    return args


def smaller(given, cheap):
    """cheap when given is a larger number, else given (a bad value stays for the tool to refuse)."""
    try:
        return cheap if float(given) > float(cheap) else given
    except ValueError:
        return given


def describe_path(path, descriptions):
    """The description of one statistics path (`tessera run --stats-describe`):
    roi.chip.X and kernels.N.counters.A.B (per-instance numbers dropped) are
    described by their chip counters; None when unknown."""
    if path in descriptions:
        return descriptions[path]
    if path.startswith("roi.chip."):
        d = descriptions.get(path[len("roi."):])
        return f"{d}, in the region of interest" if d else None
    m = re.fullmatch(r"kernels\.(?:\d+|\*)\.(.*)", path)
    if m:
        rest = m.group(1)
        if rest.startswith("counters."):
            # sm.l1_half.hit_sectors -> chip.sm0.l1_half1.hit_sectors
            regex = re.compile(r"^chip\." + r"\.".join(re.escape(part) + r"\d*" for part in
                                                       rest[len("counters."):].split(".")) + "$")
            d = next((v for k, v in sorted(descriptions.items()) if regex.match(k)), None)
            return f"{d}, during the kernel launch" if d else None
        return descriptions.get(f"kernels.*.{rest}")
    return None


AGGREGATE_WORDS = {"sum": "sum", "mean": "mean", "count": "number", "min": "least", "max": "largest"}


def metric_label(column, expr, descriptions):
    """An axis label for a metric column from the statistics' descriptions
    (which carry the unit where there is one): the description of a metric
    that is one statistic, or of the statistic one aggregate is over; None
    for other expressions (a plot then names the column)."""
    text = expr.text.strip()
    if len(expr.patterns) == 1 and not expr.names and text == next(iter(expr.patterns)):
        func, _, inner = text.partition("(")
        pattern = inner[:-1]
        regex = expr.patterns[text]
        d = describe_path(pattern, descriptions) or next(
            (describe_path(k, descriptions) for k in sorted(descriptions) if regex.match(k)), None)
        return f"{column}: {AGGREGATE_WORDS[func]} of {d}" if d else None
    if not expr.patterns and expr.names == {text}:
        d = describe_path(text, descriptions)
        return f"{column}: {d}" if d else None
    return None


def shape_probes(points):
    """The points whose statistics decide which paths a group of points
    (one platform, program and set of non-numeric values) has: the first,
    and for each numeric parameter one with its smallest and one with its
    largest value, each point once."""
    chosen = [points[0]]
    for k in model_params(points[0]):
        values = [(model_params(p).get(k), i) for i, p in enumerate(points)]
        numeric = [(v, i) for v, i in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if not numeric:
            continue
        for _, i in (min(numeric), max(numeric)):
            if all(points[i] is not c for c in chosen):
                chosen.append(points[i])
    return chosen


def describe_point(point):
    """platform, program and parameter values of a point, for messages."""
    params = ", ".join(f"{k}={set_value(v)}" for k, v in model_params(point).items())
    return f"{point['platform_name']} {point['program_name']}" + (f" {params}" if params else "")


def structural_values(point):
    """The point's non-numeric parameter values: the ones that may select a
    subsystem (and so decide which other parameters and counters exist)."""
    return tuple((k, set_value(v)) for k, v in model_params(point).items() if isinstance(v, (str, bool)))


def check_value(v, rng, typ):
    """None if v fits a parameter's listed range/choices, else the message."""
    sv = set_value(v)
    if typ in ("enum", "bool"):
        choices = rng.split("|")
        if sv not in choices:
            return f"value '{sv}' is not one of {rng}"
        return None
    if typ in ("int", "float"):
        m = re.fullmatch(r"\[\s*([^,\]]+)\s*,\s*([^\]]+)\]", rng)
        try:
            x = float(sv)
        except ValueError:
            return f"value '{sv}' is not a number ({typ} in {rng})"
        if not math.isfinite(x):
            return f"value '{sv}' is not a finite number ({typ} in {rng})"
        if typ == "int" and x != int(x):
            return f"value '{sv}' is not an integer ({typ} in {rng})"
        if m:
            lo, hi = float(m.group(1)), float(m.group(2))
            if not lo <= x <= hi:
                return f"value {sv} is out of range {rng}"
    return None


def available_memory():
    """MemAvailable of /proc/meminfo in bytes, or None where it cannot be read."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def load(spec_path, tessera):
    try:
        return Loader(spec_path, tessera).load()
    except MemoryError:
        raise SweepError(f"{spec_path}: the sweep does not fit in this machine's memory; make the space "
                         "smaller") from None
