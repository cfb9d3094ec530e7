"""tessera sweep plot (tools/tessera_sweep/plot.py) on a hand-written sweep.

fixture/results.csv: sgemm and histogram on chip, sm.scheduler lrr|gto x
sm.max_warps 8|16|32 (a log2 range), two repeats per configuration at the
mean -10 and the mean +10 cycles, area_kb = sm.max_warps, and one failed
point (two_level, no metrics). The means per configuration (cycles):

                 warps 8   16   32
  sgemm     lrr     1000  800  700
  sgemm     gto      900  850  600
  histogram lrr      500  400  450
  histogram gto      520  380  300

Pareto fronts (minimise cycles and area_kb = warps), derived by hand:
  sgemm:     gto/8 (900, 8) beats lrr/8; lrr/16 (800, 16) beats gto/16;
             gto/32 (600, 32) beats lrr/32        -> {gto 8, lrr 16, gto 32}
  histogram: lrr/8 (500, 8) beats gto/8; gto/16 (380, 16) beats lrr/16;
             gto/32 (300, 32) beats lrr/32        -> {lrr 8, gto 16, gto 32}
"""

import contextlib
import importlib.util
import io
import os
import shutil
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("TESSERA_SOURCE_DIR", os.path.join(HERE, "..", ".."))
FIXTURE = os.path.join(HERE, "fixture")


def load_plot():
    path = os.path.join(SOURCE, "tools", "tessera_sweep", "plot.py")
    spec = importlib.util.spec_from_file_location("tessera_sweep_plot", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


plot = load_plot()


def svg_texts(path):
    """Every text string in an SVG written with svg.fonttype none."""
    root = ET.parse(path).getroot()
    texts = []
    for el in root.iter():
        if el.tag.endswith("}text") or el.tag == "text":
            texts.append("".join(el.itertext()).strip())
    return texts


def run_main(argv):
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        status = plot.main(argv)
    return status, out.getvalue(), err.getvalue()


class SweepDir(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sweep_plot_")
        self.out = os.path.join(self.tmp, "fixture")
        shutil.copytree(FIXTURE, self.out)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def assert_plot(self, name, texts_expected):
        png = os.path.join(self.out, "plots", name + ".png")
        svg = os.path.join(self.out, "plots", name + ".svg")
        self.assertTrue(os.path.isfile(png), png)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertGreater(os.path.getsize(png), 10000, "a PNG of a real plot")
        texts = svg_texts(svg)
        for t in texts_expected:
            self.assertIn(t, texts)
        return texts


class Kinds(SweepDir):
    def test_line_has_axis_labels_legend_and_log2_ticks(self):
        status, _, err = run_main([self.out, "--line", "sm.max_warps", "cycles", "--series",
                                   "sm.scheduler", "--facet", "program", "--name", "line"])
        self.assertEqual(status, 0, err)
        texts = self.assert_plot("line", ["sm.max_warps", "cycles", "sm.scheduler", "lrr", "gto",
                                          "program = sgemm", "program = histogram", "8", "16",
                                          "32"])
        # The failed two_level point has no values: no line for it.
        self.assertNotIn("two_level", texts)

    def test_heatmap_cells_are_means_over_repeats(self):
        status, _, err = run_main([self.out, "--heatmap", "sm.max_warps", "sm.scheduler", "cycles",
                                   "--facet", "program", "--name", "heat"])
        self.assertEqual(status, 0, err)
        texts = self.assert_plot("heat", ["sm.max_warps", "sm.scheduler", "cycles", "lrr", "gto"])
        cells = {"1000", "800", "700", "900", "850", "600", "500", "400", "450", "520", "380",
                 "300"}
        self.assertTrue(cells <= set(texts), cells - set(texts))
        # No single repeat's value is drawn.
        self.assertNotIn("990", texts)
        self.assertNotIn("1010", texts)

    def test_pareto_annotates_exactly_the_front(self):
        status, _, err = run_main([self.out, "--pareto", "cycles", "area_kb", "--facet", "program",
                                   "--name", "front"])
        self.assertEqual(status, 0, err)
        texts = self.assert_plot("front", ["cycles (lower is better)",
                                           "area_kb (lower is better)", "Pareto front"])
        labels = {t for t in texts if t.startswith(("lrr, ", "gto, "))}
        # sgemm front {gto 8, lrr 16, gto 32} and histogram front {lrr 8, gto 16, gto 32}
        self.assertEqual(sorted(labels), sorted(["gto, 8", "lrr, 16", "gto, 32", "lrr, 8",
                                                 "gto, 16"]))
        self.assertEqual(texts.count("gto, 32"), 2)
        self.assertNotIn("lrr, 32", texts)

    def test_pareto_over_a_parameter(self):
        # area_kb equals sm.max_warps: the same fronts with the parameter as an axis.
        status, _, err = run_main([self.out, "--pareto", "cycles", "sm.max_warps", "--facet",
                                   "program", "--label", "sm.scheduler", "--label",
                                   "sm.max_warps", "--name", "front"])
        self.assertEqual(status, 0, err)
        texts = self.assert_plot("front", ["sm.max_warps (lower is better)"])
        labels = sorted(t for t in texts if t.startswith(("lrr, ", "gto, ")))
        self.assertEqual(labels, sorted(["gto, 8", "lrr, 16", "gto, 32", "lrr, 8", "gto, 16",
                                         "gto, 32"]))

    def test_where_keeps_only_matching_rows(self):
        status, _, err = run_main([self.out, "--heatmap", "sm.max_warps", "sm.scheduler", "cycles",
                                   "--where", "program=histogram", "--name", "heat"])
        self.assertEqual(status, 0, err)
        texts = self.assert_plot("heat", ["cycles"])
        self.assertTrue({"500", "400", "450", "520", "380", "300"} <= set(texts))
        self.assertNotIn("1000", texts)  # an sgemm cell
        status, _, err = run_main([self.out, "--line", "sm.max_warps", "cycles", "--where",
                                   "program=sgemmm"])
        self.assertEqual(status, 2)
        self.assertIn("leaves no ok rows", err)
        status, _, err = run_main([self.out, "--line", "sm.max_warps", "cycles", "--where",
                                   "progam=sgemm"])
        self.assertIn("nearest: program", err)

    def test_spec_plots_and_index(self):
        status, stdout, err = run_main([self.out])
        self.assertEqual(status, 0, err)
        names = ["line-cycles-vs-sm.max_warps-by-sm.scheduler-per-program",
                 "heatmap-cycles-sm.max_warps-sm.scheduler-per-program",
                 "pareto-cycles-area_kb-per-program"]
        self.assert_plot(names[0], ["cycles", "sm.max_warps", "sm.scheduler"])
        self.assert_plot(names[1], ["cycles", "sm.max_warps", "sm.scheduler"])
        self.assert_plot(names[2], ["cycles (lower is better)", "area_kb (lower is better)"])
        with open(os.path.join(self.out, "plots", "index.html")) as f:
            index = f.read()
        self.assertIn('href="../results.csv"', index)
        for n in names:
            self.assertIn(f'<img src="{n}.png"', index)
        # A later explicit plot is added to the index beside the earlier ones.
        status, _, err = run_main([self.out, "--line", "sm.scheduler", "area_kb", "--name", "x"])
        self.assertEqual(status, 0, err)
        with open(os.path.join(self.out, "plots", "index.html")) as f:
            index = f.read()
        self.assertEqual(index.count("<figure>"), 4)


class Reference(SweepDir):
    """A baseline sweep without the x parameter (a crossbar beside NoCs swept
    over VCs): one dashed level per platform and facet value, its mean."""

    def write_base(self):
        base = os.path.join(self.out, "base")
        os.makedirs(base)
        with open(os.path.join(base, "results.csv"), "w") as f:
            f.write("id,program,platform,repeat,cycles,status,exit_code,host_seconds,message\n"
                    "0,sgemm,xbar,0,740,ok,0,1,\n1,sgemm,xbar,1,760,ok,0,1,\n"
                    "2,histogram,xbar,0,410,ok,0,1,\n3,histogram,xbar,1,9999,timeout,,1,t\n")
        return base

    def test_reference_levels_and_legend(self):
        self.write_base()
        r = plot.Results(self.out)
        p = plot.normalise(r, {"kind": "line", "x": "sm.max_warps", "y": "cycles",
                               "facet": "program", "reference": "base"}, "plot 1")
        self.assertEqual(plot._reference_lines(r, p, "sgemm"), [("xbar (base)", 750)])
        self.assertEqual(plot._reference_lines(r, p, "histogram"), [("xbar (base)", 410)])
        status, _, err = run_main([self.out, "--line", "sm.max_warps", "cycles", "--series",
                                   "sm.scheduler", "--facet", "program", "--reference",
                                   os.path.join(self.out, "base"), "--logy", "--name", "ref"])
        self.assertEqual(status, 0, err)
        self.assert_plot("ref", ["xbar (base)", "lrr", "gto", "sm.scheduler", "cycles"])

    def test_speedup_divides_each_line_into_its_first_value(self):
        r = plot.Results(self.out)
        p = plot.normalise(r, {"kind": "line", "x": "sm.max_warps", "y": "cycles", "series": "sm.scheduler",
                               "facet": "program", "speedup": True}, "plot 1")
        lines = plot.line_points(r, p)
        # Means over the two repeats: sgemm lrr 1000, 800, 700; gto 900, 850, 600.
        self.assertEqual(lines["sgemm"]["lrr"], [("8", 1.0), ("16", 1000 / 800), ("32", 1000 / 700)])
        self.assertEqual(lines["sgemm"]["gto"], [("8", 1.0), ("16", 900 / 850), ("32", 900 / 600)])
        self.assertEqual(lines["histogram"]["gto"], [("8", 1.0), ("16", 520 / 380), ("32", 520 / 300)])
        # Over a non-numeric x, against its first value (lrr).
        p = plot.normalise(r, {"kind": "line", "x": "sm.scheduler", "y": "cycles", "series": "sm.max_warps",
                               "facet": "program", "speedup": True}, "plot 2")
        self.assertEqual(plot.line_points(r, p)["sgemm"]["32"], [("lrr", 1.0), ("gto", 700 / 600)])
        status, _, err = run_main([self.out, "--line", "sm.max_warps", "cycles", "--series", "sm.scheduler",
                                   "--facet", "program", "--speedup"])
        self.assertEqual(status, 0, err)
        self.assert_plot("line-speedup-cycles-vs-sm.max_warps-by-sm.scheduler-per-program",
                         ["speedup over sm.max_warps = 8", "lrr", "gto", "program = sgemm"])

    def test_missing_reference_is_refused(self):
        status, _, err = run_main([self.out, "--line", "sm.max_warps", "cycles", "--reference",
                                   os.path.join(self.tmp, "nowhere")])
        self.assertEqual(status, 2)
        self.assertIn("reference:", err)
        self.assertIn("results.csv: no such file", err)


class SpecCheck(unittest.TestCase):
    """plot.check_plots: a spec's plots: list checked against the columns the
    sweep will write, before any point runs."""

    COLUMNS = ["id", "program", "platform", "repeat", "sm.scheduler", "sm.max_warps", "cycles",
               "ipc", "status", "exit_code", "host_seconds", "message"]

    def refused(self, plots, *fragments):
        with self.assertRaises(plot.PlotError) as ctx:
            plot.check_plots(plots, self.COLUMNS)
        for f in fragments:
            self.assertIn(f, str(ctx.exception))

    def test_good_plots_pass(self):
        plot.check_plots([{"kind": "line", "x": "sm.max_warps", "y": "cycles",
                           "series": "sm.scheduler", "facet": "program"},
                          {"kind": "heatmap", "x": "sm.max_warps", "y": "sm.scheduler",
                           "value": "ipc", "where": {"program": "sgemm"}},
                          {"kind": "pareto", "x": "cycles", "y": "ipc", "maximize": ["ipc"],
                           "label": "sm.scheduler"}], self.COLUMNS)
        plot.check_plots(None, self.COLUMNS)

    def test_bad_plots_are_refused(self):
        self.refused([{"kind": "line", "x": "sm.max_warp", "y": "cycles"}],
                     "plots[0]: x: unknown column 'sm.max_warp' (nearest: sm.max_warps)")
        self.refused([{"kind": "line", "x": "sm.max_warps", "y": "cycles"},
                      {"kind": "heatmap", "x": "sm.max_warps", "y": "sm.scheduler",
                       "value": "ipcc"}], "plots[1]: value", "nearest: ipc")
        self.refused([{"kind": "scatter", "x": "a", "y": "b"}], "kind must be one of")
        self.refused([{"kind": "line", "x": "sm.max_warps", "y": "cycles", "serie": "program"}],
                     "unknown key 'serie' (nearest: series)")
        self.refused([{"kind": "heatmap", "x": "sm.max_warps", "y": "sm.scheduler"}],
                     "a heatmap plot needs 'value'")
        self.refused([{"kind": "pareto", "x": "cycles", "y": "ipc", "maximize": "program"}],
                     "maximize 'program' is neither axis")
        self.refused([{"kind": "line", "x": "sm.max_warps", "y": "cycles",
                       "where": {"programme": "x"}}], "where: unknown column", "nearest: program")
        self.refused({"kind": "line"}, "a list of plots")
        self.refused([{"kind": "heatmap", "x": "sm.max_warps", "y": "sm.scheduler", "value": "cycles",
                       "speedup": True}], "plots[0]: speedup belongs to a line plot")


class ParetoFront(unittest.TestCase):
    def test_minimise_both(self):
        pts = [(1, 5), (2, 3), (3, 4), (4, 1), (2, 3), (5, 5)]
        # (3,4) is beaten by (2,3), (5,5) by everything; equal points both stay.
        self.assertEqual(plot.pareto_front(pts), [0, 1, 4, 3])

    def test_maximise_second(self):
        pts = [(1, 5), (2, 3), (3, 4), (4, 1), (0.5, 2)]
        # Minimise x, maximise y: (1,5) beats all but (0.5,2), which has the lowest x.
        self.assertEqual(plot.pareto_front(pts, ("min", "max")), [4, 0])

    def test_maximise_both(self):
        pts = [(1, 5), (2, 3), (3, 4), (4, 1), (3, 1)]
        self.assertEqual(plot.pareto_front(pts, ("max", "max")), [0, 2, 3])

    def test_one_point_and_none(self):
        self.assertEqual(plot.pareto_front([(7, 7)]), [0])
        self.assertEqual(plot.pareto_front([]), [])

    def test_bad_sense(self):
        with self.assertRaises(ValueError):
            plot.pareto_front([(1, 2)], ("min", "smallest"))


class Aggregation(SweepDir):
    def test_mean_over_repeats_ok_rows_only(self):
        r = plot.Results(self.out)
        self.assertEqual(r.parameters, ["sm.scheduler", "sm.max_warps"])
        self.assertEqual(r.metrics, ["cycles", "area_kb"])
        self.assertEqual(len(r.ok), 24)
        m = plot.mean_by(r, ["program", "sm.scheduler", "sm.max_warps"], ["cycles"])
        self.assertEqual(m[("sgemm", "lrr", "8")]["cycles"], 1000)
        self.assertEqual(m[("histogram", "gto", "32")]["cycles"], 300)
        self.assertNotIn(("sgemm", "two_level", "8"), m)
        # Over both schedulers and programs: (1000+900+500+520)/4.
        m = plot.mean_by(r, ["sm.max_warps"], ["cycles"])
        self.assertEqual(m[("8",)]["cycles"], 730)

    def test_derived_and_platform_parameters_are_configuration_columns(self):
        # The fixture with a derived sm.max_threads (32 x warps) and an
        # l1.size_kb that only histogram's rows vary (16 for repeat 0, 32
        # for repeat 1), as a platform's own parameter would.
        import csv
        path = os.path.join(self.out, "results.csv")
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        cols = list(rows[0].keys())
        cols[cols.index("cycles"):cols.index("cycles")] = ["sm.max_threads", "l1.size_kb"]
        for r in rows:
            r["sm.max_threads"] = str(32 * int(r["sm.max_warps"]))
            r["l1.size_kb"] = ("16" if r["repeat"] == "0" else "32") if r["program"] == "histogram" else ""
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            w.writerows(rows)
        r = plot.Results(self.out)
        self.assertEqual(r.parameters, ["sm.scheduler", "sm.max_warps", "sm.max_threads", "l1.size_kb"])
        self.assertEqual(r.config_columns(["cycles"]),
                         ["program", "platform", "sm.scheduler", "sm.max_warps", "sm.max_threads", "l1.size_kb"])
        # Shown by warps and scheduler per program: sm.max_threads follows the
        # warps (nothing averaged over it); l1.size_kb varies within histogram's.
        used = {"program", "sm.scheduler", "sm.max_warps"}
        self.assertEqual(plot._averaged_over(r, used, ["cycles"]), ["l1.size_kb"])

    def test_value_order_and_log_axis(self):
        r = plot.Results(self.out)
        self.assertEqual(r.value_order("sm.scheduler", ["gto", "lrr", "gto"]), ["lrr", "gto"])
        self.assertEqual(r.value_order("sm.max_warps", ["16", "8", "32"]), ["8", "16", "32"])
        self.assertEqual(r.log_base("sm.max_warps", ["8", "16", "32"]), 2)
        self.assertIsNone(r.log_base("sm.scheduler", ["lrr", "gto"]))
        # Without a spec: a geometric run of values is a log axis, a linear one is not.
        r.spec = {}
        self.assertEqual(r.log_base("x", ["1", "10", "100", "1000"]), 10)
        self.assertEqual(r.log_base("x", ["16", "32", "64"]), 2)
        self.assertIsNone(r.log_base("x", ["8", "16", "24", "32"]))


class BadInput(SweepDir):
    def assert_refused(self, argv, *fragments):
        status, _, err = run_main(argv)
        self.assertEqual(status, 2)
        self.assertNotIn("Traceback", err)
        for f in fragments:
            self.assertIn(f, err)
        self.assertFalse(os.path.isdir(os.path.join(self.out, "plots")),
                         "nothing drawn when a plot is refused")

    def test_unknown_column_names_the_nearest(self):
        self.assert_refused([self.out, "--line", "sm.max_warp", "cycles"],
                            "unknown column 'sm.max_warp'", "nearest: sm.max_warps")
        self.assert_refused([self.out, "--heatmap", "sm.max_warps", "sm.schedular", "cycles"],
                            "nearest: sm.scheduler")
        self.assert_refused([self.out, "--pareto", "cycle", "area_kb"], "nearest: cycles")
        self.assert_refused([self.out, "--line", "sm.max_warps", "cycles", "--series", "prgram"],
                            "nearest: program")

    def test_unknown_column_in_the_spec(self):
        import json

        path = os.path.join(self.out, "sweep.json")
        with open(path) as f:
            meta = json.load(f)
        meta["spec"]["plots"] = [{"kind": "line", "x": "sm.max_warps", "y": "roi_cycles"}]
        with open(path, "w") as f:
            json.dump(meta, f)
        self.assert_refused([self.out], "plot 1: y: unknown column 'roi_cycles'",
                            "nearest: cycles")

    def test_no_ok_rows(self):
        path = os.path.join(self.out, "results.csv")
        with open(path) as f:
            lines = f.read().splitlines()
        with open(path, "w") as f:
            f.write("\n".join([lines[0]] + [l.replace(",ok,", ",timeout,") for l in lines[1:]]))
        self.assert_refused([self.out, "--line", "sm.max_warps", "cycles"], "no ok rows",
                            "24 timeout", "1 failed")

    def test_no_results_and_bad_options(self):
        self.assert_refused([os.path.join(self.tmp, "nothing"), "--line", "a", "b"],
                            "results.csv: no such file")
        self.assert_refused([self.out, "--line", "sm.max_warps"], "--line needs 2 arguments")
        self.assert_refused([self.out, "--lines", "a", "b"], "unknown option '--lines'",
                            "nearest: --line")
        self.assert_refused([self.out, "--pareto", "cycles", "area_kb", "--maximize", "ipc"],
                            "maximize 'ipc' is neither axis")
        self.assert_refused([self.out, "--series", "program"], "--series must follow")


if __name__ == "__main__":
    unittest.main()
