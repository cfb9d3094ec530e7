"""The shipped studies (studies/*): every plot of each study's spec exists
as a PNG at 300 dpi, an SVG and a PDF, and names its axes with their units
(read back from the SVG text), from the committed files, without re-running
the studies."""

import csv
import json
import math
import os
import unittest

# The plot module, the SVG text reader and the PNG size/dpi reader of the plot tests.
from test_plot import plot, png_info, svg_texts

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("TESSERA_SOURCE_DIR", os.path.join(HERE, "..", ".."))
STUDIES = os.path.join(SOURCE, "studies")
# The studies of docs/dse.md and docs/vector.md; a missing one is a failure.
NAMES = ["warp_sched", "l1_cache", "interconnect", "hbm_policy", "coherence", "vector_lanes", "vector_stride"]


# The units docs/dse.md's table reads from column names, for the columns of
# the studies' plots.
UNITS = {"roi_cycles": "cycles", "l1.size_kb": "KiB", "avg_read_latency_ns": "ns", "bandwidth_gbps": "GB/s"}


def label(column):
    return f"{column} ({UNITS[column]})" if column in UNITS else column


def expected_labels(p):
    """The axis labels (and legend title) a plot of this description shows."""
    if p["kind"] == "line":
        # A speedup plot's y label is "speedup over X = FIRST VALUE".
        y = f"speedup over {p['x']} = " if p.get("speedup") else label(p["y"])
        return [label(p["x"]), y] + ([label(p["series"])] if p.get("series") else [])
    if p["kind"] == "heatmap":
        return [label(p["x"]), label(p["y"]), label(p["value"])]
    if p["kind"] == "bars":
        # The y label is two lines: the metric (a ratio has no unit), then the baseline.
        (col, value), = p["baseline"].items()
        return [p["x"], p["y"], f"relative to {col} = {value}", p["series"]] + \
            (["geomean"] if p.get("geomean") else [])

    def better(c):
        return f"{c} ({UNITS[c]}; lower is better)" if c in UNITS else f"{c} (lower is better)"

    return [better(p["x"]), better(p["y"]), "Pareto front"]


class Studies(unittest.TestCase):
    def check_study(self, name):
        out = os.path.join(STUDIES, name)
        with open(os.path.join(out, "sweep.json")) as f:
            meta = json.load(f)
        with open(os.path.join(out, "results.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        if not meta.get("derived_from"):
            self.assertEqual(len(rows), len(meta["points"]), f"{name}: every point has a row")
        ok = [r for r in rows if r["status"] == "ok"]
        self.assertGreater(len(ok), 0, f"{name}: ok points")
        plots = meta["spec"].get("plots") or []
        self.assertGreater(len(plots), 0, f"{name}: the spec names its plots")
        with open(os.path.join(out, "plots", "index.html")) as f:
            index = f.read()
        self.assertIn('href="../results.csv"', index)
        for p in plots:
            pname = p.get("name") or plot.default_name(p)
            png = os.path.join(out, "plots", pname + ".png")
            svg = os.path.join(out, "plots", pname + ".svg")
            pdf = os.path.join(out, "plots", pname + ".pdf")
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", png)
            width, height, dpi = png_info(png)
            self.assertEqual(dpi, 300, f"{png}: drawn at 300 dpi")
            # Panels of at least 3.6 x 2.7 inches: at 300 dpi, not an 80 dpi picture relabelled.
            self.assertGreaterEqual(min(width, height), 800, png)
            self.assertGreater(os.path.getsize(png), 50000, f"{png}: a drawn plot")
            self.assertLess(os.path.getsize(png), 600000, f"{png}: small enough to commit")
            with open(pdf, "rb") as f:
                self.assertEqual(f.read(5), b"%PDF-", pdf)
            self.assertGreater(os.path.getsize(pdf), 5000, f"{pdf}: a drawn plot")
            texts = svg_texts(svg)
            for label in expected_labels(p):
                if label.endswith(" = "):
                    self.assertTrue([t for t in texts if t.startswith(label)], f"{svg}: axis label {label}...")
                else:
                    self.assertIn(label, texts, f"{svg}: axis label")
            self.assertIn(f'<img src="{pname}.png"', index)
            self.assertIn(f'<a href="{pname}.pdf">PDF</a>', index)

    def test_warp_sched(self):
        self.check_study("warp_sched")

    def test_l1_cache(self):
        self.check_study("l1_cache")

    def test_interconnect(self):
        self.check_study("interconnect")
        # The crossbar baseline is drawn in the VC plot.
        svg = os.path.join(STUDIES, "interconnect", "plots",
                           "line-roi_cycles-vs-noc.vcs-by-platform-per-program.svg")
        self.assertIn("xbar16 (crossbar)", svg_texts(svg))

    def test_hbm_policy(self):
        self.check_study("hbm_policy")

    def test_hbm_policy_synthetic(self):
        # A `tool: dram` sweep: tessera dram standalone, stream and random.
        self.check_study(os.path.join("hbm_policy", "dram"))
        with open(os.path.join(STUDIES, "hbm_policy", "dram", "sweep.json")) as f:
            meta = json.load(f)
        self.assertEqual(meta["tool"], "dram")
        self.assertEqual(len(meta["points"]), 2 * 3 * 2)
        with open(os.path.join(STUDIES, "hbm_policy", "dram", "results.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual({(r["platform"], r["program"]) for r in rows}, {("dram", "tessera dram")})
        self.assertEqual({r["--pattern"] for r in rows}, {"stream", "random"})

    def test_coherence(self):
        self.check_study("coherence")
        # The protocols at 16 cores relative to MSI: MESI is MSI to the cycle
        # (both geometric means 1.00); Dragon's is the lowest.
        texts = svg_texts(os.path.join(STUDIES, "coherence", "plots", "protocols-16-cores.svg"))
        self.assertEqual(texts.count("1.00"), 2)
        rows = [r for r in self.rows("coherence") if r["cluster.cores"] == "16"]
        per = {(r["program"], r["cluster.protocol"]): float(r["cycles_per_acquire"]) for r in rows}
        locks = sorted({p for p, _ in per})
        dragon = math.exp(sum(math.log(per[(lock, "dragon")] / per[(lock, "msi")]) for lock in locks) / len(locks))
        self.assertIn(f"{dragon:.2f}", texts)

    def rows(self, name):
        with open(os.path.join(STUDIES, name, "results.csv"), newline="") as f:
            return [r for r in csv.DictReader(f) if r["status"] == "ok"]

    def test_vector_lanes(self):
        self.check_study("vector_lanes")
        rows = self.rows("vector_lanes")
        self.assertEqual(len(rows), 6 * 2 * 4 * 3, "every routine at every point passed its scalar check")
        cycles = {(r["program"], r["vector.banks"], r["vector.chaining"], r["vector.lanes"]): int(r["roi_cycles"])
                  for r in rows}
        for (program, banks, chaining, lanes), c in cycles.items():
            if lanes != "1":
                # More lanes never slow a routine down; chaining never either.
                half = str(int(lanes) // 2)
                self.assertLessEqual(c, cycles[(program, banks, chaining, half)], (program, banks, chaining, lanes))
            if chaining != "none":
                self.assertLessEqual(c, cycles[(program, banks, "none", lanes)], (program, banks, chaining, lanes))
            # 16 banks busy 12 cycles each serve 1.33 words per cycle: 128 banks are never slower.
            self.assertLessEqual(cycles[(program, "128", chaining, lanes)], cycles[(program, "16", chaining, lanes)])

    def test_vector_stride(self):
        self.check_study("vector_stride")
        rows = self.rows("vector_stride")
        self.assertEqual(len(rows), 3 * 64)
        per = {(int(r["vector.banks"]), int(r["arg.stride"])): float(r["cycles_per_element"]) for r in rows}
        stalls = {(int(r["vector.banks"]), int(r["arg.stride"])): int(r["bank_conflict_stalls"]) for r in rows}
        for banks in (8, 16, 32):
            worst = per[(banks, banks)]
            for stride in range(1, 65):
                # Strides that share the factor of the bank count revisit the same banks alike.
                same = math.gcd(stride, banks)
                self.assertEqual(per[(banks, stride)], per[(banks, same)], (banks, stride))
                # A stride that is a multiple of the bank count hits one bank: the slowest.
                self.assertLessEqual(per[(banks, stride)], worst)
            # With at least as many banks as busy cycles (12), stride 1 never waits for a bank.
            if banks >= 12:
                self.assertEqual(stalls[(banks, 1)], 0, banks)
            self.assertGreater(stalls[(banks, banks)], 0, banks)

    def test_no_other_study_unchecked(self):
        found = sorted(d for d in os.listdir(STUDIES)
                       if os.path.isfile(os.path.join(STUDIES, d, "spec.yaml")))
        self.assertEqual(found, sorted(NAMES))


if __name__ == "__main__":
    unittest.main()
