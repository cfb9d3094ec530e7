"""Plots of a sweep's results: `tessera sweep plot OUT [options]`.

Usage:
  tessera sweep plot OUT [--line X METRIC [--series P] [--facet F] [--reference DIR] [--logy] [--speedup]]...
                         [--heatmap X Y METRIC [--facet F]]...
                         [--pareto M1 M2 [--minimize|--maximize [M]]... [--label C]... [--facet F]]...
                         [--where COLUMN=VALUE]... [--name NAME] [--title TEXT] [--dpi N]

Each --line/--heatmap/--pareto starts a plot; --series, --facet, --label,
--minimize, --maximize, --reference, --logy, --speedup, --where, --name and
--title that follow it belong to that plot. Without any of them the spec's
`plots:` list (sweep.json) is drawn:
  {kind: line, x: PARAM, y: METRIC, series: PARAM, facet: COLUMN,
   reference: DIR, logy: true, speedup: true}
  {kind: heatmap, x: PARAM, y: PARAM, value: METRIC, facet: COLUMN}
  {kind: pareto, x: METRIC, y: METRIC, minimize: [..], maximize: [..],
   label: COLUMN or [COLUMNS], facet: COLUMN}
Any plot may have `where: {COLUMN: VALUE or [VALUES]}` (only those rows).
reference: another sweep without PARAM (in a spec relative to OUT, on the
command line to the working directory), drawn as a dashed level per
platform, e.g. a crossbar beside networks swept over VCs. logy: a log y axis.
speedup: each line divided into its value at the first x (METRIC lower is
better, e.g. cycles): the speedup over the first value of the x parameter.
(each may also have `name:` and `title:`).

Values come from OUT/results.csv, ok rows only; the points of one
configuration (repeats) are averaged. Plots go to OUT/plots/<name>.png and
.svg (labels as SVG text), listed with their captions in OUT/plots/index.html
beside a link to results.csv.
"""

import csv
import difflib
import html
import io
import json
import math
import os
import re
import stat
import sys

try:
    from . import safefile
except ImportError:  # loaded on its own from its file (the plot tests): the package beside it
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tessera_sweep import safefile

FIXED_COLUMNS = ["id", "program", "platform", "repeat"]
TRAILING_COLUMNS = ["status", "exit_code", "host_seconds", "inputs", "message"]
DEFAULT_DPI = 90


class PlotError(Exception):
    """A user error: printed without a traceback, exit status 2."""


# ----------------------------------------------------------------------------
# Results


class Results:
    """results.csv plus what sweep.json says about its columns."""

    def __init__(self, out):
        self.out = out
        path = os.path.join(out, "results.csv")
        if not os.path.isfile(path):
            raise PlotError(f"{path}: no such file (is {out} a sweep directory?)")
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            self.columns = list(reader.fieldnames or [])
            self.rows = list(reader)
        self.path = path
        self.spec = {}
        meta_path = os.path.join(out, "sweep.json")
        if os.path.isfile(meta_path):
            try:
                with open(meta_path) as f:
                    meta = json.load(f)
            except (OSError, ValueError) as e:
                raise PlotError(f"{meta_path}: {e}")
            self.spec = meta.get("spec") or {}
            metrics = list((meta.get("metrics") or self.spec.get("metrics") or {}).keys())
        else:
            metrics = []
        self.parameters = [c for c in (self.spec.get("parameters") or {}) if c in self.columns]
        if self.parameters:
            # Derived parameters and a platform's own (set, parameters) are
            # parameter columns too: configurations differ by them.
            self.parameters += [c for c in self.columns if c not in FIXED_COLUMNS + TRAILING_COLUMNS + metrics +
                                self.parameters]
        else:
            # Without sweep.json: every column between the fixed ones and the
            # trailing ones that is not a metric.
            middle = [c for c in self.columns if c not in FIXED_COLUMNS + TRAILING_COLUMNS]
            self.parameters = [c for c in middle if c not in metrics]
        self.metrics = [c for c in metrics if c in self.columns]
        self.ok = [r for r in self.rows if r.get("status") == "ok"]
        if not self.ok:
            counts = {}
            for r in self.rows:
                counts[r.get("status", "?")] = counts.get(r.get("status", "?"), 0) + 1
            detail = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no rows"
            raise PlotError(f"{path}: no ok rows to plot ({detail})")

    def check_column(self, name, what):
        if name in self.columns:
            return name
        candidates = [c for c in self.columns if c not in TRAILING_COLUMNS[:1]]
        near = difflib.get_close_matches(name, candidates, n=1, cutoff=0.0)
        hint = f" (nearest: {near[0]})" if near else ""
        raise PlotError(f"{what}: unknown column '{name}'{hint}; results.csv has: "
                        + ", ".join(self.columns))

    def subset(self, keep):
        """A copy whose ok rows are those keep(row) accepts."""
        other = object.__new__(Results)
        other.__dict__.update(self.__dict__)
        other.ok = [r for r in self.ok if keep(r)]
        return other

    def config_columns(self, metrics=()):
        """Columns that identify a configuration: its repeats are averaged.
        Without sweep.json every column that is not fixed is taken for a
        parameter, except the metrics being plotted."""
        if self.spec.get("parameters"):
            return ["program", "platform"] + self.parameters
        return ["program", "platform"] + [c for c in self.parameters if c not in metrics]

    def value_order(self, column, values):
        """The distinct values of a column in plotting order: numbers sorted,
        words in the spec's order (else first appearance)."""
        distinct = list(dict.fromkeys(values))
        if all(as_number(v) is not None for v in distinct):
            return sorted(distinct, key=as_number)
        listed = (self.spec.get("parameters") or {}).get(column)
        if isinstance(listed, list):
            rank = {spec_text(v): i for i, v in enumerate(listed)}
            return sorted(distinct, key=lambda v: rank.get(v.lower(), len(rank)))
        return distinct

    def log_base(self, column, values):
        """2 or 10 when the column's values are a log range, else None."""
        listed = (self.spec.get("parameters") or {}).get(column)
        if isinstance(listed, dict):
            if "log2_range" in listed:
                return 2
            if "logspace" in listed:
                return 10
            return None
        # A list (or no spec): a geometric run of values is a log range too.
        nums = sorted({as_number(v) for v in values})
        if len(nums) < 3 or None in nums or nums[0] <= 0:
            return None
        ratios = [b / a for a, b in zip(nums, nums[1:])]
        if min(ratios) < 1.9 or max(ratios) / min(ratios) > 1.01:
            return None
        powers_of_two = all(n == 2 ** round(math.log2(n)) for n in nums)
        return 2 if powers_of_two else 10


def spec_text(v):
    """A spec value as results.csv spells it, lower case (true, 16, gto)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v).lower()


def as_number(text):
    if text is None or text == "":
        return None
    if isinstance(text, (int, float)):
        return float(text)
    if text.strip().lower() in ("nan", "inf", "-inf", "infinity", "true", "false"):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def mean_by(results, keys, metrics):
    """{tuple(key values): {metric: mean}} over ok rows: first the repeats of
    each configuration are averaged, then the configurations that share the
    key values (when other parameters vary too). A metric with no numeric
    value in a group is absent from that group's dict."""
    configs = {}
    for row in results.ok:
        ckey = tuple(row.get(c, "") for c in results.config_columns(metrics))
        configs.setdefault(ckey, []).append(row)
    groups = {}
    for rows in configs.values():
        gkey = tuple(rows[0].get(k, "") for k in keys)
        per_config = {}
        for m in metrics:
            nums = [as_number(r.get(m)) for r in rows]
            nums = [n for n in nums if n is not None and not math.isnan(n)]
            if nums:
                per_config[m] = sum(nums) / len(nums)
        groups.setdefault(gkey, []).append(per_config)
    means = {}
    for gkey, lst in groups.items():
        means[gkey] = {}
        for m in metrics:
            vals = [d[m] for d in lst if m in d]
            if vals:
                means[gkey][m] = sum(vals) / len(vals)
    return means


def pareto_front(points, senses=("min", "min")):
    """Indices of the non-dominated points, sorted by the first coordinate.

    points: [(a, b), ...]; senses: "min" or "max" per coordinate. A point is
    dominated when another is at least as good in both coordinates and better
    in one. Equal points are all on the front."""
    for s in senses:
        if s not in ("min", "max"):
            raise ValueError(f"pareto sense must be min or max, not {s!r}")
    sign = [1 if s == "min" else -1 for s in senses]
    norm = [(p[0] * sign[0], p[1] * sign[1]) for p in points]
    front = []
    for i, (a, b) in enumerate(norm):
        dominated = any(
            (c <= a and d <= b) and (c < a or d < b) for j, (c, d) in enumerate(norm) if j != i)
        if not dominated:
            front.append(i)
    return sorted(front, key=lambda i: (points[i][0], points[i][1]))


# ----------------------------------------------------------------------------
# Drawing


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt

    return plt


def _facets(results, facet):
    if not facet:
        return [None]
    return results.value_order(facet, [r.get(facet, "") for r in results.ok])


def _grid(plt, n, width=5.0, height=3.8):
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def _facet_title(ax, facet, value):
    if facet:
        ax.set_title(f"{facet} = {value}")


def _fmt(v):
    if v is None:
        return ""
    if abs(v) >= 1e5 or (v != 0 and abs(v) < 1e-2):
        return f"{v:.3g}"
    if v == int(v):
        return str(int(v))
    return f"{v:.3g}"


def _log_y(ax):
    """A log y axis labelled with plain numbers (40, 100, 1e+03) rather than
    powers of ten; within one decade the minor ticks are labelled too."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_yscale("log")
    plain = FuncFormatter(lambda v, _pos: _fmt(v))
    ax.yaxis.set_major_formatter(plain)
    lo, hi = ax.get_ylim()
    ax.yaxis.set_minor_formatter(plain if lo > 0 and hi / lo < 10 else NullFormatter())


def _averaged_over(results, used, metrics):
    """The configuration columns a plot does not show that vary among rows it
    shows as one (averaged); a column that follows the shown ones (a derived
    parameter) is not."""
    used = sorted(used)
    groups = {}
    for r in results.ok:
        groups.setdefault(tuple(r.get(c, "") for c in used), []).append(r)
    hidden = []
    for c in results.config_columns(metrics):
        if c in used:
            continue
        if any(len({r.get(c, "") for r in rows}) > 1 for rows in groups.values()):
            hidden.append(c)
    return hidden


def line_points(results, p):
    """{facet value: {series value: [(x value, y)]}} of a line plot, x in
    value order; with `speedup`, y is the line's value at its first x over its
    value at each x (lower is better: cycles, time)."""
    x, y, series, facet = p["x"], p["y"], p.get("series"), p.get("facet")
    keys = [k for k in (facet, series, x) if k]
    means = mean_by(results, keys, [y])
    xs_all = results.value_order(x, [r.get(x, "") for r in results.ok])
    series_values = results.value_order(series, [r.get(series, "") for r in results.ok]) \
        if series else [None]
    lines = {}
    for fv in _facets(results, facet):
        lines[fv] = {}
        for sv in series_values:
            pts = []
            for xv in xs_all:
                key = tuple(v for v, k in ((fv, facet), (sv, series), (xv, x)) if k)
                m = means.get(key, {}).get(y)
                if m is not None:
                    pts.append((xv, m))
            if pts and p.get("speedup"):
                first = pts[0][1]
                pts = [(xv, first / m if m else math.nan) for xv, m in pts]
            lines[fv][sv] = pts
    return lines


def draw_line(results, p, plt):
    x, y, series, facet = p["x"], p["y"], p.get("series"), p.get("facet")
    keys = [k for k in (facet, series, x) if k]
    facets = _facets(results, facet)
    xs_all = results.value_order(x, [r.get(x, "") for r in results.ok])
    numeric_x = all(as_number(v) is not None for v in xs_all)
    base = results.log_base(x, xs_all) if numeric_x else None
    lines = line_points(results, p)
    fig, axes = _grid(plt, len(facets))
    for ax, fv in zip(axes, facets):
        for sv, pts in lines[fv].items():
            if pts:
                ax.plot([as_number(xv) if numeric_x else xs_all.index(xv) for xv, _ in pts],
                        [b for _, b in pts], marker="o", label=sv if sv is not None else y)
        for label, value in _reference_lines(results, p, fv):
            ax.axhline(value, linestyle="--", color="0.3", label=label)
        if base:
            ax.set_xscale("log", base=base)
            ax.set_xticks([as_number(v) for v in xs_all])
            ax.set_xticklabels(xs_all)
            ax.minorticks_off()
        elif not numeric_x:
            ax.set_xticks(range(len(xs_all)))
            ax.set_xticklabels(xs_all)
        if p.get("logy"):
            _log_y(ax)
        ax.set_xlabel(x)
        ax.set_ylabel(f"speedup over {x} = {xs_all[0]}" if p.get("speedup") else y)
        ax.grid(True, alpha=0.3)
        _facet_title(ax, facet, fv)
        if series or p.get("reference"):
            ax.legend(title=series or "reference", fontsize="small")
    hidden = _averaged_over(results, set(keys), [y])
    caption = (f"speedup ({y} at the first {x} over {y})" if p.get("speedup") else y) + f" against {x}" + \
        (f", one line per {series}" if series else "") + \
        (f", one panel per {facet}" if facet else "") + \
        (f", dashed: the sweep {_ref_name(p)} (no {x})" if p.get("reference") else "")
    return fig, caption, hidden


def _ref_name(p):
    return os.path.basename(os.path.normpath(str(p["reference"])))


def _reference_lines(results, p, facet_value):
    """[(label, mean of y)] of the reference sweep, one per platform (and
    facet value): a baseline that lacks the swept parameter, such as a
    crossbar beside networks swept over their VCs."""
    ref = p.get("_reference_results")
    if ref is None:
        return []
    facet, y = p.get("facet"), p["y"]
    keys = ["platform"] + ([facet] if facet else [])
    lines = []
    for key, m in sorted(mean_by(ref, keys, [y]).items()):
        if facet and key[1] != facet_value:
            continue
        if y in m:
            lines.append((f"{key[0]} ({_ref_name(p)})", m[y]))
    return lines


def draw_heatmap(results, p, plt):
    x, y, value, facet = p["x"], p["y"], p["value"], p.get("facet")
    keys = [k for k in (facet, y, x) if k]
    means = mean_by(results, keys, [value])
    facets = _facets(results, facet)
    xs = results.value_order(x, [r.get(x, "") for r in results.ok])
    ys = results.value_order(y, [r.get(y, "") for r in results.ok])
    fig, axes = _grid(plt, len(facets), width=5.5, height=4.2)
    for ax, fv in zip(axes, facets):
        grid = []
        for yv in ys:
            row = []
            for xv in xs:
                key = tuple(v for v, k in ((fv, facet), (yv, y), (xv, x)) if k)
                row.append(means.get(key, {}).get(value, float("nan")))
            grid.append(row)
        im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
        finite = [v for row in grid for v in row if not math.isnan(v)]
        mid = (min(finite) + max(finite)) / 2 if finite else 0
        for i, row in enumerate(grid):
            for j, v in enumerate(row):
                if not math.isnan(v):
                    ax.text(j, i, _fmt(v), ha="center", va="center", fontsize="x-small",
                            color="black" if v > mid else "white")
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(xs)
        ax.set_yticks(range(len(ys)))
        ax.set_yticklabels(ys)
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        bar = fig.colorbar(im, ax=ax)
        bar.set_label(value)
        _facet_title(ax, facet, fv)
    hidden = _averaged_over(results, set(keys), [value])
    caption = f"{value} over {x} x {y}" + (f", one panel per {facet}" if facet else "")
    return fig, caption, hidden


def draw_pareto(results, p, plt):
    mx, my, facet = p["x"], p["y"], p.get("facet")
    senses = (p.get("sense_x", "min"), p.get("sense_y", "min"))
    labels = p.get("label") or [c for c in results.config_columns((mx, my))
                                if c != facet and len({r.get(c) for r in results.ok}) > 1]
    if isinstance(labels, str):
        labels = [labels]
    keys = ([facet] if facet else []) + [c for c in results.config_columns((mx, my))
                                         if c != facet]
    means = mean_by(results, keys, [mx, my])
    facets = _facets(results, facet)
    fig, axes = _grid(plt, len(facets), width=6.0, height=4.5)
    front_sizes = []
    for ax, fv in zip(axes, facets):
        pts, names = [], []
        for key, m in means.items():
            if facet and key[0] != fv:
                continue
            if mx in m and my in m:
                row = dict(zip(keys, key))
                pts.append((m[mx], m[my]))
                names.append(", ".join(str(row.get(c, "")) for c in labels))
        front = pareto_front(pts, senses)
        front_sizes.append(len(front))
        ax.scatter([a for a, _ in pts], [b for _, b in pts], s=18, color="tab:blue",
                   alpha=0.6, label="configurations")
        fx = [pts[i][0] for i in front]
        fy = [pts[i][1] for i in front]
        # Step line: going along the first metric, the second keeps its
        # front value until the next front point improves it.
        ax.step(fx, fy, where="post", color="tab:red", label="Pareto front")
        ax.scatter(fx, fy, s=30, color="tab:red", zorder=3)
        for i in front:
            ax.annotate(names[i], pts[i], textcoords="offset points", xytext=(4, 4),
                        fontsize="x-small")
        # A parameter swept over a log range keeps its log axis here too.
        for col, setter in ((mx, ax.set_xscale), (my, ax.set_yscale)):
            if col in results.parameters:
                base = results.log_base(col, [r.get(col, "") for r in results.ok])
                if base:
                    setter("log", base=base)
        ax.set_xlabel(f"{mx} ({'lower' if senses[0] == 'min' else 'higher'} is better)")
        ax.set_ylabel(f"{my} ({'lower' if senses[1] == 'min' else 'higher'} is better)")
        ax.grid(True, alpha=0.3)
        ax.legend(title="points", fontsize="small")
        _facet_title(ax, facet, fv)
    caption = (f"Pareto front of {mx} ({senses[0]}) and {my} ({senses[1]}), "
               f"front points labelled by {', '.join(labels) or 'configuration'}"
               + (f", one panel per {facet}" if facet else ""))
    return fig, caption, []


DRAW = {"line": draw_line, "heatmap": draw_heatmap, "pareto": draw_pareto}
REQUIRED = {"line": ("x", "y"), "heatmap": ("x", "y", "value"), "pareto": ("x", "y")}


def _slug(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


def default_name(p):
    p = {k: (v.lstrip("-") if isinstance(v, str) else v) for k, v in p.items()}  # "--pattern" names "pattern"
    k = p["kind"]
    if k == "line":
        n = f"line-{'speedup-' if p.get('speedup') else ''}{p['y']}-vs-{p['x']}" + \
            (f"-by-{p['series']}" if p.get("series") else "")
    elif k == "heatmap":
        n = f"heatmap-{p['value']}-{p['x']}-{p['y']}"
    else:
        n = f"pareto-{p['x']}-{p['y']}"
    if p.get("facet"):
        n += f"-per-{p['facet']}"
    return _slug(n)


def check_plots(plots, columns):
    """Checks a spec's `plots:` list before a sweep runs: the kinds, keys and
    that every column named is one of `columns` (the results.csv header the
    sweep will write: id, program, platform, repeat, parameters, metrics,
    ...). Raises PlotError naming the plot, the key and the nearest column."""
    if plots is None:
        return
    if not isinstance(plots, list):
        raise PlotError(f"plots: a list of plots, got {plots!r}")
    for i, p in enumerate(plots):
        where = f"plots[{i}]"
        _check_shape(p, where)
        for k in ("x", "y", "value", "series", "facet"):
            if p.get(k):
                _check_name(str(p[k]), columns, f"{where}: {k}")
        labels = p.get("label") or []
        for c in [labels] if isinstance(labels, str) else labels:
            _check_name(str(c), columns, f"{where}: label")
        for c in (p.get("where") or {}):
            _check_name(str(c), columns, f"{where}: where")


def _check_name(name, columns, what):
    if name not in columns:
        near = difflib.get_close_matches(name, list(columns), n=1, cutoff=0.0)
        hint = f" (nearest: {near[0]})" if near else ""
        raise PlotError(f"{what}: unknown column '{name}'{hint}")


def _check_shape(p, where):
    if not isinstance(p, dict):
        raise PlotError(f"{where}: a plot is a mapping with kind, x, y, ...; got {p!r}")
    kind = p.get("kind")
    if kind not in DRAW:
        raise PlotError(f"{where}: kind must be one of line, heatmap, pareto; got {kind!r}")
    known = {"kind", "name", "title", "facet", "x", "y", "series", "value", "label",
             "minimize", "maximize", "reference", "logy", "speedup", "where"}
    for k in p:
        if k not in known:
            near = difflib.get_close_matches(str(k), sorted(known), n=1, cutoff=0.0)
            raise PlotError(f"{where}: unknown key '{k}' (nearest: {near[0]})")
    for k in REQUIRED[kind]:
        if not p.get(k):
            raise PlotError(f"{where}: a {kind} plot needs '{k}'")
    for key in ("minimize", "maximize"):
        names = p.get(key) or []
        for n in [names] if isinstance(names, str) else names:
            if kind != "pareto":
                raise PlotError(f"{where}: {key} belongs to a pareto plot")
            if n not in (p.get("x"), p.get("y")):
                raise PlotError(f"{where}: {key} '{n}' is neither axis "
                                f"('{p.get('x')}' or '{p.get('y')}')")
    for k in ("reference", "speedup"):
        if p.get(k) and kind != "line":
            raise PlotError(f"{where}: {k} belongs to a line plot")
    if p.get("speedup") and p.get("reference"):
        raise PlotError(f"{where}: a speedup plot has no reference levels")
    if p.get("where") is not None and not isinstance(p.get("where"), dict):
        raise PlotError(f"{where}: where is a mapping column: value (or [values]), "
                        f"got {p.get('where')!r}")
    if p.get("name") is not None:
        # The name is a file name in OUT/plots: one plain name, not hidden.
        slug = _slug(str(p["name"]))
        if not slug or slug.startswith(".") or len(slug) > 200:
            raise PlotError(f"{where}: name {p['name']!r} does not make a file name (letters, digits, . _ -, "
                            "not starting with ., at most 200 characters)")


def normalise(results, p, where):
    """Check a plot description against the results; returns a clean copy."""
    _check_shape(p, where)
    kind = p["kind"]
    q = dict(p)
    if q.get("reference"):
        ref_dir = os.path.join(results.out, str(q["reference"]))
        try:
            ref = Results(ref_dir)
        except PlotError as e:
            raise PlotError(f"{where}: reference: {e}")
        for k in ("y", "facet"):
            if q.get(k):
                ref.check_column(str(q[k]), f"{where}: reference {ref_dir}: {k}")
        q["_reference_results"] = ref
    for k in ("x", "y", "value", "series", "facet"):
        if q.get(k):
            results.check_column(str(q[k]), f"{where}: {k}")
    if kind == "pareto":
        labels = q.get("label")
        if isinstance(labels, str):
            labels = [labels]
        for c in labels or []:
            results.check_column(str(c), f"{where}: label")
        q["label"] = labels
        for sense, key in (("min", "minimize"), ("max", "maximize")):
            names = q.get(key) or []
            if isinstance(names, str):
                names = [names]
            for n in names:
                if n == q["x"]:
                    q["sense_x"] = sense
                elif n == q["y"]:
                    q["sense_y"] = sense
                else:
                    raise PlotError(f"{where}: {key} '{n}' is neither axis "
                                    f"('{q['x']}' or '{q['y']}')")
    where_ = q.get("where") or {}
    if not isinstance(where_, dict):
        raise PlotError(f"{where}: where is a mapping column: value (or [values]), got {where_!r}")
    for col, want in where_.items():
        results.check_column(str(col), f"{where}: where")
        wanted = {spec_text(v) for v in (want if isinstance(want, list) else [want])}
        q.setdefault("_keep", []).append((str(col), wanted))
    if q.get("_keep"):
        results = results.subset(lambda r: all(r.get(c, "").lower() in w for c, w in q["_keep"]))
        if not results.ok:
            raise PlotError(f"{where}: where {where_} leaves no ok rows")
    for k in {"line": ("y",), "heatmap": ("value",), "pareto": ("x", "y")}[kind]:
        col = q.get(k)
        if col and not any(as_number(r.get(col)) is not None for r in results.ok):
            raise PlotError(f"{where}: column '{col}' has no numeric value in the ok rows")
    q["name"] = _slug(str(q.get("name") or default_name(q)))
    return q


def make_plots(out, plots, dpi=DEFAULT_DPI):
    """Draws every plot description; returns [(name, caption)]. Every plot is
    checked before any is drawn."""
    results = Results(out)
    checked = [normalise(results, p, f"plot {i + 1}") for i, p in enumerate(plots)]
    plt = _pyplot()
    try:
        with safefile.Dir(out, "plots", create=True) as d:
            return _draw(results, checked, plt, d, out, dpi)
    except safefile.SweepError as e:
        raise PlotError(str(e)) from None


def _draw(results, checked, plt, d, out, dpi):
    made = []
    for q in checked:
        rows = results
        if q.get("_keep"):
            rows = results.subset(lambda r: all(r.get(c, "").lower() in w for c, w in q["_keep"]))
        fig, caption, hidden = DRAW[q["kind"]](rows, q, plt)
        if q.get("where"):
            caption += "; only " + ", ".join(f"{c} = {v}" for c, v in q["where"].items())
        if hidden:
            caption += f" (mean over {', '.join(hidden)})"
        n_ok = len(rows.ok)
        caption += f"; {n_ok} ok point{'s' if n_ok != 1 else ''} of {len(results.rows)}"
        title = q.get("title") or results.spec.get("name") or os.path.basename(
            os.path.abspath(out))
        fig.suptitle(title)
        fig.tight_layout()
        for ext in ("png", "svg"):
            # Drawn in memory, written through the plots directory held open (never through a link).
            buf = io.BytesIO()
            fig.savefig(buf, dpi=dpi, format=ext)
            d.write_atomic(f"{q['name']}.{ext}", buf.getvalue())
        plt.close(fig)
        made.append((q["name"], caption))
    write_index(out, made, d)
    return made


def write_index(out, made, d):
    """OUT/plots/index.html: every plot made so far (plots.json keeps the
    captions across invocations) beside a link to results.csv. d: OUT/plots
    held open (safefile.Dir)."""
    try:
        manifest = json.loads(d.read("plots.json") or "{}")
    except ValueError:
        manifest = {}
    if not isinstance(manifest, dict):
        manifest = {}
    for name, caption in made:
        manifest[name] = caption

    def drawn(n):
        try:
            st = d.lstat(n + ".png")
        except safefile.SweepError:  # not a plain name: not one of ours
            return False
        return st is not None and stat.S_ISREG(st.st_mode)

    manifest = {n: c for n, c in manifest.items() if isinstance(n, str) and isinstance(c, str) and drawn(n)}
    d.write_atomic("plots.json", json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    title = html.escape(os.path.basename(os.path.abspath(out)))
    parts = [
        "<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\">",
        f"<title>{title}: sweep plots</title>",
        "<style>body{font-family:sans-serif;margin:2em}figure{margin:1.5em 0}"
        "img{max-width:100%;border:1px solid #ddd}</style></head><body>",
        f"<h1>{title}</h1>",
        "<p>Results: <a href=\"../results.csv\">results.csv</a></p>",
    ]
    for name in sorted(manifest):
        n = html.escape(name)
        parts.append(f"<figure><a href=\"{n}.svg\"><img src=\"{n}.png\" alt=\"{n}\"></a>"
                     f"<figcaption><b>{n}</b>: {html.escape(manifest[name])}</figcaption>"
                     "</figure>")
    parts.append("</body></html>")
    d.write_atomic("index.html", "\n".join(parts) + "\n")


# ----------------------------------------------------------------------------
# Command line

USAGE = __doc__.split("\n\n")[1]


def parse_args(argv):
    """Returns (out, plots, dpi). Options after a plot-starting option belong
    to that plot."""
    out, plots, dpi = None, [], DEFAULT_DPI
    i = 0

    def take(n, opt):
        nonlocal i
        vals = argv[i + 1:i + 1 + n]
        if len(vals) < n or any(v.startswith("--") for v in vals):
            raise PlotError(f"{opt} needs {n} argument{'s' if n > 1 else ''}\n{USAGE}")
        i += n
        return vals

    def current(opt):
        if not plots:
            raise PlotError(f"{opt} must follow --line, --heatmap or --pareto\n{USAGE}")
        return plots[-1]

    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            raise SystemExit(0)
        if a == "--line":
            x, y = take(2, a)
            plots.append({"kind": "line", "x": x, "y": y})
        elif a == "--heatmap":
            x, y, v = take(3, a)
            plots.append({"kind": "heatmap", "x": x, "y": y, "value": v})
        elif a == "--pareto":
            x, y = take(2, a)
            plots.append({"kind": "pareto", "x": x, "y": y})
        elif a in ("--series", "--facet", "--name", "--title"):
            current(a)[a[2:]] = take(1, a)[0]
        elif a == "--where":
            cond = take(1, a)[0]
            if "=" not in cond:
                raise PlotError(f"--where takes COLUMN=VALUE, not '{cond}'")
            col, val = cond.split("=", 1)
            current(a).setdefault("where", {}).setdefault(col, []).append(val)
        elif a in ("--logy", "--speedup"):
            current(a)[a[2:]] = True
        elif a == "--reference":
            # On the command line a path from the working directory (in a
            # spec: from OUT).
            current(a)["reference"] = os.path.abspath(take(1, a)[0])
        elif a == "--label":
            p = current(a)
            p.setdefault("label", []).append(take(1, a)[0])
        elif a in ("--minimize", "--maximize"):
            p = current(a)
            if p["kind"] != "pareto":
                raise PlotError(f"{a} belongs to a --pareto plot")
            key = a[2:]
            nxt = argv[i + 1] if i + 1 < len(argv) else None
            if nxt is not None and not nxt.startswith("-"):
                metric = take(1, a)[0]
            else:
                # Without a metric: the first sense flag is for the first
                # axis, the second for the second.
                n_senses = p.setdefault("_senses", 0)
                metric = (p["x"], p["y"])[min(n_senses, 1)]
                p["_senses"] = n_senses + 1
            p.setdefault(key, []).append(metric)
        elif a == "--dpi":
            v = take(1, a)[0]
            try:
                dpi = int(v)
            except ValueError:
                raise PlotError(f"--dpi needs a whole number, not '{v}'")
            if not 20 <= dpi <= 600:
                raise PlotError(f"--dpi {dpi} is outside [20, 600]")
        elif a.startswith("-"):
            opts = ["--line", "--heatmap", "--pareto", "--series", "--facet", "--label", "--reference", "--logy",
                    "--speedup", "--where",
                    "--minimize", "--maximize", "--name", "--title", "--dpi"]
            near = difflib.get_close_matches(a, opts, n=1, cutoff=0.0)
            raise PlotError(f"unknown option '{a}' (nearest: {near[0]})\n{USAGE}")
        elif out is None:
            out = a
        else:
            raise PlotError(f"unexpected argument '{a}': one sweep directory only\n{USAGE}")
        i += 1
    if out is None:
        raise PlotError(f"no sweep directory given\n{USAGE}")
    for p in plots:
        p.pop("_senses", None)
    return out, plots, dpi


def main(argv):
    """`tessera sweep plot OUT ...`; returns the exit status."""
    try:
        out, plots, dpi = parse_args(argv)
        if not plots:
            results = Results(out)
            plots = results.spec.get("plots") or []
            if not plots:
                raise PlotError(f"{out}: the spec has no plots: list; name one with "
                                "--line, --heatmap or --pareto")
        made = make_plots(out, plots, dpi)
    except PlotError as e:
        print(f"tessera sweep plot: {e}", file=sys.stderr)
        return 2
    for name, caption in made:
        print(f"{os.path.join(out, 'plots', name)}.png: {caption}")
    print(f"{os.path.join(out, 'plots', 'index.html')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
