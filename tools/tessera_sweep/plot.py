"""Plots of a sweep's results: `tessera sweep plot OUT [options]`.

Usage:
  tessera sweep plot OUT [--line X METRIC [--series P] [--facet F] [--reference DIR] [--logy] [--speedup]]...
                         [--heatmap X Y METRIC [--facet F]]...
                         [--pareto M1 M2 [--minimize|--maximize [M]]... [--label C]... [--facet F]]...
                         [--bars X METRIC [--series P] [--baseline P=V] [--geomean] [--facet F]]...
                         [--where COLUMN=VALUE]... [--xlabel TEXT] [--ylabel TEXT]
                         [--name NAME] [--title TEXT] [--dpi N]

Each --line/--heatmap/--pareto/--bars starts a plot; --series, --facet,
--label, --minimize, --maximize, --reference, --logy, --speedup,
--baseline, --geomean, --where, --xlabel, --ylabel, --name and --title that
follow it belong to that plot. Without any of them the spec's `plots:` list
(sweep.json) is drawn:
  {kind: line, x: PARAM, y: METRIC, series: PARAM, facet: COLUMN,
   reference: DIR, logy: true, speedup: true}
  {kind: heatmap, x: PARAM, y: PARAM, value: METRIC, facet: COLUMN}
  {kind: pareto, x: METRIC, y: METRIC, minimize: [..], maximize: [..],
   label: COLUMN or [COLUMNS], facet: COLUMN}
  {kind: bars, x: COLUMN, y: METRIC, series: PARAM, baseline: {PARAM: VALUE},
   geomean: true, facet: COLUMN}
Any plot may have `where: {COLUMN: VALUE or [VALUES]}` (only those rows),
`xlabel:` and `ylabel:` (the axis label in place of the one made from the
column), `name:` and `title:`.
reference: another sweep without PARAM (in a spec relative to OUT, on the
command line to the working directory), drawn as a dashed level per
platform, e.g. a crossbar beside networks swept over VCs. logy: a log y axis.
speedup: each line divided into its value at the first x (METRIC lower is
better, e.g. cycles): the speedup over the first value of the x parameter.
bars: one group of bars per value of X, one bar per value of the series;
baseline: each bar divided by the baseline series value's bar of its group
(the baseline bars are 1); geomean: a last group with each series'
geometric mean over the groups.

Values come from OUT/results.csv, ok rows only; the points of one
configuration (repeats) are averaged, drawn with a band (lines) or error
bars (bars) of one standard deviation of the repeats. Plots go to
OUT/plots/<name>.png (300 dpi unless --dpi), .svg (labels as SVG text) and
.pdf, listed with their captions in OUT/plots/index.html beside a link to
results.csv.
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
import textwrap

try:
    from . import safefile
except ImportError:  # loaded on its own from its file (the plot tests): the package beside it
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tessera_sweep import safefile

FIXED_COLUMNS = ["id", "program", "platform", "repeat"]
TRAILING_COLUMNS = ["status", "exit_code", "host_seconds", "inputs", "message"]
DEFAULT_DPI = 300
FORMATS = ("png", "svg", "pdf")


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
        self.labels = {}  # sweep.json's metric_labels: column -> axis label (its statistic's description)
        meta_path = os.path.join(out, "sweep.json")
        if os.path.isfile(meta_path):
            try:
                with open(meta_path) as f:
                    meta = json.load(f)
            except (OSError, ValueError) as e:
                raise PlotError(f"{meta_path}: {e}")
            self.spec = meta.get("spec") or {}
            metrics = list((meta.get("metrics") or self.spec.get("metrics") or {}).keys())
            labels = meta.get("metric_labels") or {}
            if not (isinstance(labels, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                     for k, v in labels.items())):
                raise PlotError(f"{meta_path}: metric_labels must map column names to label text, "
                                f"got {labels!r}")
            self.labels = {k: v for k, v in labels.items() if v.strip()}
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


# Units read from a column's name, for its axis label when sweep.json has no
# metric_labels entry for it: (suffix of the name, unit), the first that
# matches; then any name with "latency" in it counts cycles.
NAME_UNITS = [
    ("_kb", "KiB"), ("_mb", "MiB"), ("_bytes", "bytes"),
    ("_mhz", "MHz"), ("_ghz", "GHz"),
    ("_ps", "ps"), ("_ns", "ns"), ("_us", "µs"),
    ("_gbps", "GB/s"), ("_pj_per_bit", "pJ/bit"),
    ("_cycles", "cycles"),
]


def name_unit(column):
    """The unit a column's name states (l1.size_kb: KiB), or None."""
    name = column.lower()
    for suffix, unit in NAME_UNITS:
        if name.endswith(suffix):
            return unit
    if "latency" in name:
        return "cycles"
    return None


def column_label(results, column):
    """An axis label for a column: sweep.json's metric_labels entry (the
    statistic's description, with its unit), else the name with the unit its
    name states: 'l1.size_kb (KiB)'."""
    if column in results.labels:
        return results.labels[column]
    unit = name_unit(column)
    return f"{column} ({unit})" if unit else column


def without_unit(label):
    """A label without its trailing ' (unit)': a ratio of two values of a
    metric has no unit."""
    return re.sub(r"\s*\([^()]*\)$", "", label) or label


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


def _configurations(results, metrics):
    """The ok rows grouped by configuration: {configuration key: [rows]};
    a configuration's rows beyond the first are its repeats."""
    configs = {}
    for row in results.ok:
        ckey = tuple(row.get(c, "") for c in results.config_columns(metrics))
        configs.setdefault(ckey, []).append(row)
    return configs


def aggregate(results, keys, metrics):
    """{tuple(key values): {metric: (mean, sd)}} over ok rows: first the
    repeats of each configuration are averaged, then the configurations that
    share the key values (when other parameters vary too). sd is the sample
    standard deviation (n - 1) of the repeats, the root mean square of the
    configurations' when several are averaged into one point; None without
    repeats. A metric with no numeric value in a group is absent from that
    group's dict."""
    groups = {}
    for rows in _configurations(results, metrics).values():
        gkey = tuple(rows[0].get(k, "") for k in keys)
        per_config = {}
        for m in metrics:
            nums = [as_number(r.get(m)) for r in rows]
            nums = [n for n in nums if n is not None and not math.isnan(n)]
            if nums:
                mean = sum(nums) / len(nums)
                var = sum((n - mean) ** 2 for n in nums) / (len(nums) - 1) if len(nums) > 1 else None
                per_config[m] = (mean, var)
        groups.setdefault(gkey, []).append(per_config)
    stats = {}
    for gkey, lst in groups.items():
        stats[gkey] = {}
        for m in metrics:
            vals = [d[m] for d in lst if m in d]
            if vals:
                variances = [v for _, v in vals if v is not None]
                sd = math.sqrt(sum(variances) / len(variances)) if variances else None
                stats[gkey][m] = (sum(mean for mean, _ in vals) / len(vals), sd)
    return stats


def mean_by(results, keys, metrics):
    """{tuple(key values): {metric: mean}}: aggregate() without the spread."""
    return {g: {m: v[0] for m, v in d.items()} for g, d in aggregate(results, keys, metrics).items()}


def repeat_counts(results, metrics):
    """The sorted distinct numbers of rows per configuration among the ok
    rows ([1] when nothing repeats)."""
    return sorted({len(rows) for rows in _configurations(results, metrics).values()})


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
# Label placement (pure: display coordinates in, boxes out)

# Where a label may go around its point, tried in this order: the label's
# nearest corner (or edge middle) at (dx, dy) points from the point, first
# close by, then on wider rings (with a leader line).
LABEL_DIRECTIONS = [(1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1)]
LABEL_RINGS = (4, 10, 18, 30)
LABEL_OFFSETS = [(dx * r, dy * r) for r in LABEL_RINGS for dx, dy in LABEL_DIRECTIONS]


def label_box(anchor, size, offset, scale=1.0):
    """The box (x0, y0, x1, y1) of a label of size (w, h) placed at offset
    (dx, dy) points from anchor (x, y): to the right of x + dx for dx > 0, to
    the left for dx < 0, centred on x for dx == 0; likewise above, below or
    centred in y. scale: display units per point (dpi / 72)."""
    (x, y), (w, h), (dx, dy) = anchor, size, offset
    x += dx * scale
    y += dy * scale
    x0 = x if dx > 0 else x - w if dx < 0 else x - w / 2
    y0 = y if dy > 0 else y - h if dy < 0 else y - h / 2
    return (x0, y0, x0 + w, y0 + h)


def overlap(a, b):
    """The area two boxes (x0, y0, x1, y1) share (0 when they only touch)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def place_labels(anchors, sizes, obstacles, bounds=None, offsets=LABEL_OFFSETS, scale=1.0):
    """Places labels one after the other, deterministically: each takes the
    first offset whose box overlaps no earlier label and no obstacle (the
    markers, the legend) and lies inside bounds (the axes); failing that the
    first clear one outside bounds; failing that the one overlapping least.
    anchors: [(x, y)], sizes: [(w, h)], obstacles: [boxes], in display units.
    Returns [(offset, box)], one per label."""
    placed = []
    for anchor, size in zip(anchors, sizes):
        best = None
        for rank, off in enumerate(offsets):
            box = label_box(anchor, size, off, scale)
            hit = sum(overlap(box, o) for o in obstacles) + sum(overlap(box, b) for _, b in placed)
            inside = bounds is None or (box[0] >= bounds[0] and box[1] >= bounds[1] and
                                        box[2] <= bounds[2] and box[3] <= bounds[3])
            # Clear and inside, then clear, then least overlap; earlier offsets win ties.
            cost = (0 if hit == 0 and inside else 1 if hit == 0 else 2, hit, rank)
            if best is None or cost < best[0]:
                best = (cost, off, box)
            if cost[0] == 0:
                break
        placed.append((best[1], best[2]))
    return placed


def merge_labels(points, names):
    """Points drawn at the same position get one label: [(point, "a / b")]
    in the order of each position's first point."""
    merged = {}
    for pt, name in zip(points, names):
        merged.setdefault(tuple(pt), [])
        if name not in merged[tuple(pt)]:
            merged[tuple(pt)].append(name)
    return [(pt, " / ".join(ns)) for pt, ns in merged.items()]


# ----------------------------------------------------------------------------
# Drawing

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", "-.", ":"]
HATCHES = ["", "//", "..", "xx", "\\\\", "oo", "--", "++"]
SPREAD = "±1 standard deviation of the repeats"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams.update({
        "svg.fonttype": "none",  # labels stay text in the SVG
        "svg.hashsalt": "tessera",  # the same ids in every run: the same SVG for the same results
        "pdf.fonttype": 42,  # TrueType in the PDF: what publishers' checkers accept (not Type 3)
        "font.size": 8,
        "axes.titlesize": 8,
        "axes.labelsize": 8,
        "legend.fontsize": 7,
        "legend.title_fontsize": 7,
        "xtick.labelsize": 7,
        "ytick.labelsize": 7,
        "figure.titlesize": 9,
        "lines.linewidth": 1.2,
        "hatch.linewidth": 0.6,
        "image.interpolation": "none",  # a heatmap's cells, not a resampled picture
    })
    import matplotlib.pyplot as plt

    return plt


def series_style(i, n_points):
    """Colour, marker, line style and marker size of the i-th series: a
    marker of MARKERS and a style of LINESTYLES each (8 distinct pairs).
    Markers are hollow and each later series' are smaller and drawn on top,
    so that where series coincide every marker's outline stays visible, one
    inside the other."""
    base = 7.0 if n_points <= 16 else 4.0
    return {"color": f"C{i % 10}", "marker": MARKERS[i % len(MARKERS)],
            "linestyle": LINESTYLES[i % len(LINESTYLES)],
            "markersize": max(base * 0.4, base * (1 - 0.15 * i)),
            "markerfacecolor": "white", "markeredgewidth": 1.0, "zorder": 2 + 0.01 * i}


def _one_legend(axes, title):
    """One legend for all panels (their series are the same): inside the only
    panel, else right of the first row's last panel; entries in the order
    first drawn, each label once."""
    handles, labels = [], []
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(h)
                labels.append(label)
    if not handles:
        return None
    if len(axes) == 1:
        return axes[0].legend(handles, labels, title=title)
    return axes[min(len(axes), 3) - 1].legend(handles, labels, title=title, loc="upper left",
                                              bbox_to_anchor=(1.02, 1.0), borderaxespad=0)


def _facets(results, facet):
    if not facet:
        return [None]
    return results.value_order(facet, [r.get(facet, "") for r in results.ok])


def _grid(plt, n, width=3.6, height=2.7):
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


def _plain_log(axis, base):
    """A log axis over a log range of a parameter, ticked at its powers of
    base and labelled 4, 8, 16 (not 2^2)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    (axis.axes.set_xscale if axis is axis.axes.xaxis else axis.axes.set_yscale)("log", base=base)
    axis.set_major_locator(LogLocator(base=base))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: _fmt(v)))
    axis.set_minor_formatter(NullFormatter())


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


def averaging_note(results, used, metrics):
    """What each drawn value is a mean over: 'mean over l2.interleave (2
    values), repeat (3)'; empty when every value is one row's."""
    parts = []
    for c in _averaged_over(results, used, metrics):
        n = len({r.get(c, "") for r in results.ok})
        parts.append(f"{c} ({n} values)")
    counts = repeat_counts(results, metrics)
    if counts and counts[-1] > 1:
        parts.append(f"repeat ({counts[0]})" if len(counts) == 1 else f"repeat ({counts[0]}-{counts[-1]})")
    return "mean over " + ", ".join(parts) if parts else ""


def _note(*parts):
    return "; ".join(p for p in parts if p)


def _label(p, axis, default):
    """The plot's own xlabel/ylabel, else default; wrapped at spaces to fit
    beside a panel (a y label of more than 40 characters, an x label of more
    than 70)."""
    text = str(p[axis]) if p.get(axis) else default
    return _wrap(text, 40 if axis == "ylabel" else 70)


def _wrap(text, width):
    return "\n".join(textwrap.fill(line, width, break_long_words=False) for line in text.split("\n"))


def line_series(results, p):
    """{facet value: {series value: [(x value, y, low, high)]}} of a line
    plot, x in value order; low and high the band of one standard deviation
    of the repeats (None without repeats). With `speedup`, y is the line's
    value at its first x over its value at each x (lower is better: cycles,
    time), and the band is the mean +- sd carried through that division."""
    x, y, series, facet = p["x"], p["y"], p.get("series"), p.get("facet")
    keys = [k for k in (facet, series, x) if k]
    stats = aggregate(results, keys, [y])
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
                st = stats.get(key, {}).get(y)
                if st is not None:
                    m, sd = st
                    pts.append((xv, m, m - sd if sd is not None else None, m + sd if sd is not None else None))
            if pts and p.get("speedup"):
                first = pts[0][1]

                def over(v):
                    return first / v if v else math.nan

                pts = [(xv, over(m), None if lo is None else over(hi),
                        None if hi is None else (over(lo) if lo > 0 else math.nan)) for xv, m, lo, hi in pts]
            lines[fv][sv] = pts
    return lines


def line_points(results, p):
    """{facet value: {series value: [(x value, y)]}}: line_series without the band."""
    return {fv: {sv: [(xv, yv) for xv, yv, _, _ in pts] for sv, pts in lines.items()}
            for fv, lines in line_series(results, p).items()}


def draw_line(results, p, plt):
    x, y, series, facet = p["x"], p["y"], p.get("series"), p.get("facet")
    keys = [k for k in (facet, series, x) if k]
    facets = _facets(results, facet)
    xs_all = results.value_order(x, [r.get(x, "") for r in results.ok])
    numeric_x = all(as_number(v) is not None for v in xs_all)
    base = results.log_base(x, xs_all) if numeric_x else None
    lines = line_series(results, p)
    banded = False
    fig, axes = _grid(plt, len(facets))
    for ax, fv in zip(axes, facets):
        for i, (sv, pts) in enumerate(lines[fv].items()):
            if not pts:
                continue
            xs = [as_number(xv) if numeric_x else xs_all.index(xv) for xv, _, _, _ in pts]
            style = series_style(i, len(xs_all))
            ax.plot(xs, [b for _, b, _, _ in pts], label=sv if sv is not None else y, **style)
            if any(lo is not None for _, _, lo, _ in pts):
                banded = True
                ax.fill_between(xs, [math.nan if lo is None else lo for _, _, lo, _ in pts],
                                [math.nan if hi is None else hi for _, _, _, hi in pts],
                                color=style["color"], alpha=0.2, linewidth=0, zorder=1)
        for j, (label, value) in enumerate(_reference_lines(results, p, fv)):
            ax.axhline(value, linestyle=("--", ":", "-.")[j % 3], color="0.3", linewidth=1.0, label=label)
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
        ax.set_xlabel(_label(p, "xlabel", column_label(results, x)))
        ax.set_ylabel(_label(p, "ylabel", f"speedup over {x} = {xs_all[0]}" if p.get("speedup")
                             else column_label(results, y)))
        ax.grid(True, alpha=0.3)
        _facet_title(ax, facet, fv)
    if series or p.get("reference"):
        _one_legend(axes, column_label(results, series) if series else "reference")
    note = _note(averaging_note(results, set(keys), [y]), f"band: {SPREAD}" if banded else "")
    caption = (f"speedup ({y} at the first {x} over {y})" if p.get("speedup") else y) + f" against {x}" + \
        (f", one line per {series}" if series else "") + \
        (f", one panel per {facet}" if facet else "") + \
        (f", dashed: the sweep {_ref_name(p)} (no {x})" if p.get("reference") else "")
    return fig, caption, note, None


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
    fig, axes = _grid(plt, len(facets), width=3.9, height=3.0)
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
        ax.set_xlabel(_label(p, "xlabel", column_label(results, x)))
        ax.set_ylabel(_label(p, "ylabel", column_label(results, y)))
        bar = fig.colorbar(im, ax=ax)
        bar.set_label(_wrap(column_label(results, value), 40))
        _facet_title(ax, facet, fv)
    note = averaging_note(results, set(keys), [value])
    caption = f"{value} over {x} x {y}" + (f", one panel per {facet}" if facet else "")
    return fig, caption, note, None


def _better(label, sense):
    """'roi_cycles (cycles)' -> 'roi_cycles (cycles; lower is better)'."""
    word = "lower" if sense == "min" else "higher"
    if label.endswith(")"):
        return f"{label[:-1]}; {word} is better)"
    return f"{label} ({word} is better)"


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
    fig, axes = _grid(plt, len(facets), width=4.2, height=3.2)
    jobs = []  # (axes, every point, front labels, legend): labels are placed once the layout is final
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
        ax.scatter([a for a, _ in pts], [b for _, b in pts], s=PARETO_POINT ** 2, color="tab:blue",
                   alpha=0.6, linewidths=0, label="configurations")
        fx = [pts[i][0] for i in front]
        fy = [pts[i][1] for i in front]
        # Step line: going along the first metric, the second keeps its
        # front value until the next front point improves it.
        ax.step(fx, fy, where="post", color="tab:red", label="Pareto front")
        ax.scatter(fx, fy, s=PARETO_FRONT_POINT ** 2, color="tab:red", zorder=3, linewidths=0)
        # A parameter swept over a log range keeps its log axis here too.
        for col, axis in ((mx, ax.xaxis), (my, ax.yaxis)):
            if col in results.parameters:
                base = results.log_base(col, [r.get(col, "") for r in results.ok])
                if base:
                    _plain_log(axis, base)
        ax.set_xlabel(_label(p, "xlabel", _better(column_label(results, mx), senses[0])))
        ax.set_ylabel(_label(p, "ylabel", _better(column_label(results, my), senses[1])))
        ax.grid(True, alpha=0.3)
        legend = ax.legend(title="points")
        _facet_title(ax, facet, fv)
        jobs.append((ax, pts, list(zip(fx, fy)),
                     merge_labels([pts[i] for i in front], [names[i] for i in front]), legend))
    caption = (f"Pareto front of {mx} ({senses[0]}) and {my} ({senses[1]}), "
               f"front points labelled by {', '.join(labels) or 'configuration'}"
               + (f", one panel per {facet}" if facet else ""))
    return fig, caption, averaging_note(results, set(keys), [mx, my]), \
        lambda fig, renderer: [_label_front(fig, renderer, *job) for job in jobs]


PARETO_POINT = 4.2  # marker diameters, points
PARETO_FRONT_POINT = 5.5


def _label_front(fig, renderer, ax, pts, step, labelled, legend):
    """Writes the front's labels where they overlap no other label, marker,
    the front's step line or the legend (place_labels), measured with the
    renderer at the figure's final size; a label moved off its point gets a
    leader line."""
    scale = fig.dpi / 72.0
    obstacles = []
    for diameter, where in ((PARETO_POINT, pts), (PARETO_FRONT_POINT, [pt for pt, _ in labelled])):
        r = diameter / 2 * scale
        for x, y in ax.transData.transform(where) if where else []:
            obstacles.append((x - r, y - r, x + r, y + r))
    # The step line: a horizontal then a vertical segment between front points.
    corners = ax.transData.transform(step) if step else []
    half = 0.75 * scale
    for (x0, y0), (x1, y1) in zip(corners, corners[1:]):
        obstacles.append((min(x0, x1), y0 - half, max(x0, x1), y0 + half))
        obstacles.append((x1 - half, min(y0, y1), x1 + half, max(y0, y1)))
    lb = legend.get_window_extent(renderer)
    obstacles.append((lb.x0, lb.y0, lb.x1, lb.y1))
    anchors = [tuple(a) for a in ax.transData.transform([pt for pt, _ in labelled])] if labelled else []
    sizes = []
    pad = 1.0 * scale  # a point of space around every label
    for _, text in labelled:
        t = ax.text(0, 0, text, fontsize="x-small")
        bb = t.get_window_extent(renderer)
        t.remove()
        sizes.append((bb.width + 2 * pad, bb.height + 2 * pad))
    axb = ax.get_window_extent(renderer)
    placed = place_labels(anchors, sizes, obstacles, (axb.x0, axb.y0, axb.x1, axb.y1), scale=scale)
    for (pt, text), ((dx, dy), _) in zip(labelled, placed):
        # The text sits pad inside its box: shift the offset by pad (in points) away from the point.
        ox = dx + (1 if dx > 0 else -1 if dx < 0 else 0) * pad / scale
        oy = dy + (1 if dy > 0 else -1 if dy < 0 else 0) * pad / scale
        far = max(abs(dx), abs(dy)) > LABEL_RINGS[0]
        ax.annotate(text, pt, xytext=(ox, oy), textcoords="offset points", fontsize="x-small",
                    ha="left" if dx > 0 else "right" if dx < 0 else "center",
                    va="bottom" if dy > 0 else "top" if dy < 0 else "center",
                    arrowprops={"arrowstyle": "-", "color": "0.5", "linewidth": 0.5,
                                "shrinkA": 0, "shrinkB": 2} if far else None)


def bar_values(results, p, where="plot"):
    """What a bars plot draws: {facet value: {"groups": [x values],
    "series": [series values], "bars": {series value: [(x value, height,
    error)]}, "geomean": {series value: geometric mean} or None}}. heights
    are means over the configurations (and repeats) of each group and
    series, divided by the baseline series' mean in the same group when the
    plot has a baseline; error is one standard deviation of the repeats
    (divided alike), None without repeats. Raises PlotError when a baseline
    is missing, or a geometric mean is undefined."""
    x, y, series, facet = p["x"], p["y"], p.get("series"), p.get("facet")
    keys = [k for k in (facet, x, series) if k]
    stats = aggregate(results, keys, [y])
    groups = results.value_order(x, [r.get(x, "") for r in results.ok])
    series_values = results.value_order(series, [r.get(series, "") for r in results.ok]) \
        if series else [None]
    baseline = None
    if p.get("baseline"):
        (bcol, bval), = p["baseline"].items()
        wanted = spec_text(bval)
        present = {r.get(bcol, "") for r in results.ok}
        match = [v for v in series_values if v.lower() == wanted]
        if not match:
            near = difflib.get_close_matches(wanted, sorted(present), n=1, cutoff=0.0)
            raise PlotError(f"{where}: baseline: {bcol} = {bval} occurs in no ok row"
                            + (f" (nearest: {near[0]})" if near else "")
                            + f"; {bcol} has: " + ", ".join(results.value_order(bcol, list(present))))
        baseline = match[0]
    panels = {}
    for fv in _facets(results, facet):
        def cell(g, s):
            return stats.get(tuple(v for v, k in ((fv, facet), (g, x), (s, series)) if k), {}).get(y)

        in_panel = [g for g in groups if any(cell(g, s) is not None for s in series_values)]
        at = (f"{facet} = {fv}, " if facet else "")
        bars = {s: [] for s in series_values}
        for g in in_panel:
            div = 1.0
            if baseline is not None:
                b = cell(g, baseline)
                if b is None:
                    raise PlotError(f"{where}: baseline: {at}{x} = {g} has no ok row with "
                                    f"{series} = {baseline} to divide by")
                if b[0] == 0:
                    raise PlotError(f"{where}: baseline: {y} is 0 at {at}{x} = {g}, {series} = {baseline}: "
                                    "nothing to divide by")
                div = b[0]
            for s in series_values:
                st = cell(g, s)
                if st is not None:
                    bars[s].append((g, st[0] / div, None if st[1] is None else st[1] / abs(div)))
        geo = None
        if p.get("geomean"):
            geo = {}
            for s in series_values:
                have = {g: h for g, h, _ in bars[s]}
                for g in in_panel:
                    what = f"{y}" + (" relative to the baseline" if baseline is not None else "")
                    name = f"{series} = {s}, " if series else ""
                    if g not in have:
                        raise PlotError(f"{where}: geomean: {name}{at}{x} = {g} has no value: "
                                        "the geometric means would be over different groups")
                    if not have[g] > 0:
                        raise PlotError(f"{where}: geomean: {what} is {_fmt(have[g])} at {name}{at}{x} = {g}; "
                                        "a geometric mean needs positive values")
                geo[s] = geometric_mean([have[g] for g in in_panel])
        panels[fv] = {"groups": in_panel, "series": series_values, "bars": bars, "geomean": geo}
    return panels


def geometric_mean(values):
    """exp(mean(log v)) of positive values."""
    return math.exp(sum(math.log(v) for v in values) / len(values))


def draw_bars(results, p, plt):
    x, y, series, facet = p["x"], p["y"], p.get("series"), p.get("facet")
    panels = bar_values(results, p)
    facets = _facets(results, facet)
    baseline = next(iter(p["baseline"].items())) if p.get("baseline") else None
    n_groups = max(len(v["groups"]) for v in panels.values()) + (1 if p.get("geomean") else 0)
    n_series = len(next(iter(panels.values()))["series"])
    fig, axes = _grid(plt, len(facets), width=max(3.6, min(7.2, 0.9 + 0.18 * n_groups * (n_series + 1))),
                      height=3.0)
    with_error = False
    for ax, fv in zip(axes, facets):
        panel = panels[fv]
        groups = panel["groups"] + (["geomean"] if panel["geomean"] is not None else [])
        n = len(panel["series"])
        width = 0.8 / n
        for i, s in enumerate(panel["series"]):
            pos = [(groups.index(g), h, e) for g, h, e in panel["bars"][s]]
            if panel["geomean"] is not None:
                pos.append((len(groups) - 1, panel["geomean"][s], None))
            xs = [gi + (i - (n - 1) / 2) * width for gi, _, _ in pos]
            ax.bar(xs, [h for _, h, _ in pos], width, color=f"C{i % 10}", hatch=HATCHES[i % len(HATCHES)],
                   edgecolor="black", linewidth=0.5, label=s if s is not None else y, zorder=2)
            err = [(xv, h, e) for xv, (_, h, e) in zip(xs, pos) if e is not None]
            if err:
                with_error = True
                ax.errorbar([a for a, _, _ in err], [h for _, h, _ in err], yerr=[e for _, _, e in err],
                            fmt="none", ecolor="black", elinewidth=0.7, capsize=1.5, capthick=0.7, zorder=3)
            if panel["geomean"] is not None:
                ax.annotate(f"{panel['geomean'][s]:.2f}" if baseline else _fmt(panel["geomean"][s]),
                            (xs[-1], panel["geomean"][s]), xytext=(0, 1.5), textcoords="offset points",
                            ha="center", va="bottom", fontsize=5.5, rotation=90 if n > 3 else 0)
        if baseline is not None:
            ax.axhline(1.0, linestyle="--", color="0.3", linewidth=0.8, zorder=1)
        if panel["geomean"] is not None:
            ax.axvline(len(groups) - 1.5, linestyle=":", color="0.5", linewidth=0.8)
        ax.set_xticks(range(len(groups)))
        long_ticks = sum(len(str(g)) for g in groups) > 6 * len(groups) + 10 and len(groups) > 3
        ax.set_xticklabels(groups, rotation=30 if long_ticks else 0, ha="right" if long_ticks else "center")
        ax.set_xlim(-0.6, len(groups) - 0.4)
        # Room above the tallest bar (and its error bar) for the geometric means' values.
        # A negative mean (a difference metric) keeps its bar below 0.
        top = max([h + (e or 0) for bars in panel["bars"].values() for _, h, e in bars] +
                  list((panel["geomean"] or {}).values()) + [1.0 if baseline else 0.0])
        low = min([h - (e or 0) for bars in panel["bars"].values() for _, h, e in bars] + [0.0])
        ax.set_ylim(low * 1.2, top * 1.2 if top > 0 else 1)
        ax.set_xlabel(_label(p, "xlabel", column_label(results, x)))
        ylabel = (f"{without_unit(column_label(results, y))}\nrelative to {baseline[0]} = {baseline[1]}"
                  if baseline else column_label(results, y))
        ax.set_ylabel(_label(p, "ylabel", ylabel))
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        _facet_title(ax, facet, fv)
    if series:
        # Right of the first row's last panel, even with one panel: the bars fill their axes.
        axes[min(len(axes), 3) - 1].legend(title=column_label(results, series), loc="upper left",
                                           bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    keys = [k for k in (facet, x, series) if k]
    note = _note(averaging_note(results, set(keys), [y]), f"error bars: {SPREAD}" if with_error else "")
    caption = (f"{y} relative to {baseline[0]} = {baseline[1]}" if baseline else y) + f" per {x}" + \
        (f", one bar per {series}" if series else "") + \
        (", and their geometric means" if p.get("geomean") else "") + \
        (f", one panel per {facet}" if facet else "")
    return fig, caption, note, None


DRAW = {"line": draw_line, "heatmap": draw_heatmap, "pareto": draw_pareto, "bars": draw_bars}
REQUIRED = {"line": ("x", "y"), "heatmap": ("x", "y", "value"), "pareto": ("x", "y"), "bars": ("x", "y")}


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
    elif k == "bars":
        n = f"bars-{p['y']}-by-{p['x']}" + (f"-per-bar-{p['series']}" if p.get("series") else "") + \
            (f"-rel-{'-'.join(str(v) for kv in p['baseline'].items() for v in kv)}"
             if isinstance(p.get("baseline"), dict) else "")
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
        for c in (p.get("baseline") or {}):
            _check_name(str(c), columns, f"{where}: baseline")
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
        raise PlotError(f"{where}: kind must be one of {', '.join(DRAW)}; got {kind!r}")
    known = {"kind", "name", "title", "facet", "x", "y", "series", "value", "label",
             "minimize", "maximize", "reference", "logy", "speedup", "where", "xlabel", "ylabel",
             "baseline", "geomean"}
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
    for k in ("baseline", "geomean"):
        if p.get(k) is not None and kind != "bars":
            raise PlotError(f"{where}: {k} belongs to a bars plot")
    if kind == "bars" and p.get("logy"):
        raise PlotError(f"{where}: logy: a bars plot has a linear axis from 0 (bar lengths compare)")
    if kind in ("heatmap", "pareto") and p.get("logy"):  # it would be ignored: refused rather than dropped
        raise PlotError(f"{where}: logy belongs to a line plot (a {kind} plot has no log y axis)")
    if p.get("geomean") is not None and not isinstance(p["geomean"], bool):
        raise PlotError(f"{where}: geomean is true or false, got {p['geomean']!r}")
    base = p.get("baseline")
    if base is not None:
        if not (isinstance(base, dict) and len(base) == 1):
            raise PlotError(f"{where}: baseline is one column: value, the series value the bars are "
                            f"divided by (baseline: {{{p.get('series') or 'SERIES'}: VALUE}}), got {base!r}")
        (col, val), = base.items()
        if not p.get("series"):
            raise PlotError(f"{where}: baseline needs a series: the bars of {col} = {val} are the baseline "
                            f"(series: {col})")
        if col != p.get("series"):
            raise PlotError(f"{where}: baseline: '{col}' is not the series '{p.get('series')}': the baseline is "
                            "one of the series' values, whose bars become 1")
        if isinstance(val, (list, dict)) or val is None or val == "":
            raise PlotError(f"{where}: baseline: {col} needs one value, got {val!r}")
    for k in ("xlabel", "ylabel"):
        if p.get(k) is not None and not isinstance(p[k], str):
            raise PlotError(f"{where}: {k} is text, got {p[k]!r}")
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
    for k in {"line": ("y",), "heatmap": ("value",), "pareto": ("x", "y"), "bars": ("y",)}[kind]:
        col = q.get(k)
        if col and not any(as_number(r.get(col)) is not None for r in results.ok):
            raise PlotError(f"{where}: column '{col}' has no numeric value in the ok rows")
    if kind == "bars":
        for col in q.get("baseline") or {}:
            results.check_column(str(col), f"{where}: baseline")
        bar_values(results, q, where)  # refuses a missing baseline or an undefined geometric mean now
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


def selected(results, q):
    """The results a checked plot description shows: only the rows its
    where: keeps."""
    if q.get("_keep"):
        return results.subset(lambda r: all(r.get(c, "").lower() in w for c, w in q["_keep"]))
    return results


def render(results, q, plt, title, dpi=DEFAULT_DPI):
    """Draws one checked plot description (normalise) at its final size and
    dpi: the figure, its caption, and the footnote written under it (what
    its values are means over, what the bands or error bars are)."""
    rows = selected(results, q)
    fig, caption, note, finish = DRAW[q["kind"]](rows, q, plt)
    fig.set_dpi(dpi)
    if q.get("where"):
        caption += "; only " + ", ".join(
            f"{c} = {' or '.join(str(w) for w in v) if isinstance(v, list) else v}" for c, v in q["where"].items())
    if note:
        caption += f" ({note})"
    n_ok = len(rows.ok)
    caption += f"; {n_ok} ok point{'s' if n_ok != 1 else ''} of {len(results.rows)}"
    fig.suptitle(title)
    renderer = fig.canvas.get_renderer()
    bottom = 0.0
    if note:
        bottom = _footnote(fig, renderer, note)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    if finish:
        finish(fig, renderer)
    return fig, caption


def _footnote(fig, renderer, note):
    """Writes note at the figure's foot: on one line if it fits the width,
    else each of its '; ' parts on a line of its own (wrapped if still too
    long); returns the height it takes (a fraction of the figure) for the
    layout to keep free."""
    width = fig.bbox.width * 0.98
    text = fig.text(0.01, 0.005, note, ha="left", va="bottom", fontsize=6.5, color="0.25")

    def fits():
        return text.get_window_extent(renderer).width <= width

    if not fits():
        parts = note.split("; ")
        text.set_text("\n".join(parts))
        chars = max(len(p) for p in parts)
        while not fits() and chars > 20:
            chars = int(chars * 0.9)
            text.set_text("\n".join(textwrap.fill(p, chars) for p in parts))
    return (text.get_window_extent(renderer).height + 4 * fig.dpi / 72) / fig.bbox.height


# What each format's metadata leaves out: the date, so that the same results
# give the same files.
SAVE_METADATA = {"png": None, "svg": {"Date": None}, "pdf": {"CreationDate": None}}


def _draw(results, checked, plt, d, out, dpi):
    made = []
    for q in checked:
        title = q.get("title") or results.spec.get("name") or os.path.basename(
            os.path.abspath(out))
        fig, caption = render(results, q, plt, title, dpi)
        for ext in FORMATS:
            # Drawn in memory, written through the plots directory held open (never through a link).
            buf = io.BytesIO()
            fig.savefig(buf, dpi=dpi, format=ext, metadata=SAVE_METADATA[ext])
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
                     f"<figcaption><b>{n}</b>: {html.escape(manifest[name])} "
                     f"(<a href=\"{n}.png\">PNG</a>, <a href=\"{n}.svg\">SVG</a>, "
                     f"<a href=\"{n}.pdf\">PDF</a>)</figcaption></figure>")
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
            raise PlotError(f"{opt} must follow --line, --heatmap, --pareto or --bars\n{USAGE}")
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
        elif a == "--bars":
            x, y = take(2, a)
            plots.append({"kind": "bars", "x": x, "y": y})
        elif a in ("--series", "--facet", "--name", "--title", "--xlabel", "--ylabel"):
            current(a)[a[2:]] = take(1, a)[0]
        elif a == "--baseline":
            cond = take(1, a)[0]
            if "=" not in cond:
                raise PlotError(f"--baseline takes PARAMETER=VALUE, not '{cond}'")
            p = current(a)
            if p["kind"] != "bars":
                raise PlotError(f"{a} belongs to a --bars plot")
            if p.get("baseline"):
                raise PlotError(f"{a} given twice: one baseline per plot")
            col, val = cond.split("=", 1)
            p["baseline"] = {col: val}
        elif a == "--geomean":
            p = current(a)
            if p["kind"] != "bars":
                raise PlotError(f"{a} belongs to a --bars plot")
            p["geomean"] = True
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
            opts = ["--line", "--heatmap", "--pareto", "--bars", "--series", "--facet", "--label", "--reference",
                    "--logy", "--speedup", "--baseline", "--geomean", "--where", "--xlabel", "--ylabel",
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
                                "--line, --heatmap, --pareto or --bars")
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
