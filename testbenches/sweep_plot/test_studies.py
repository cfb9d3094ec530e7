"""The shipped studies (studies/*): every plot of each study's spec exists,
is a real image and names its axes (read back from the SVG text), from the
committed files, without re-running the studies."""

import csv
import json
import os
import unittest

from test_plot import plot, svg_texts  # the plot module and the SVG text reader of the plot tests

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("TESSERA_SOURCE_DIR", os.path.join(HERE, "..", ".."))
STUDIES = os.path.join(SOURCE, "studies")
# The five studies of docs/dse.md; a missing one is a failure.
NAMES = ["warp_sched", "l1_cache", "interconnect", "hbm_policy", "coherence"]


def expected_labels(p):
    """The axis labels (and legend title) a plot of this description shows."""
    if p["kind"] == "line":
        return [p["x"], p["y"]] + ([p["series"]] if p.get("series") else [])
    if p["kind"] == "heatmap":
        return [p["x"], p["y"], p["value"]]
    return [f"{p['x']} (lower is better)", f"{p['y']} (lower is better)", "Pareto front"]


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
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", png)
            self.assertGreater(os.path.getsize(png), 8000, f"{png}: a drawn plot")
            self.assertLess(os.path.getsize(png), 400000, f"{png}: small enough to commit")
            texts = svg_texts(svg)
            for label in expected_labels(p):
                self.assertIn(label, texts, f"{svg}: axis label")
            self.assertIn(f'<img src="{pname}.png"', index)

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

    def test_no_other_study_unchecked(self):
        found = sorted(d for d in os.listdir(STUDIES)
                       if os.path.isfile(os.path.join(STUDIES, d, "spec.yaml")))
        self.assertEqual(found, sorted(NAMES))


if __name__ == "__main__":
    unittest.main()
