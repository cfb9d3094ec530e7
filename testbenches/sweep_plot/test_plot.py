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
import csv
import importlib.util
import io
import json
import math
import os
import re
import shutil
import struct
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
                                           "area_kb (KiB; lower is better)", "Pareto front"])
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
        self.assert_plot(names[2], ["cycles (lower is better)", "area_kb (KiB; lower is better)"])
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


def png_info(path):
    """(width, height, dots per inch) of a PNG: its IHDR and pHYs chunks."""
    with open(path, "rb") as f:
        data = f.read()
    width, height = struct.unpack(">II", data[16:24])
    i = data.find(b"pHYs")
    x_ppm, y_ppm, unit = struct.unpack(">IIB", data[i + 4:i + 13])
    if unit != 1 or x_ppm != y_ppm:
        return width, height, None
    return width, height, round(x_ppm * 0.0254)


def rewrite_results(out, change):
    """Rewrites OUT/results.csv: change(rows) edits the list of row dicts in place (or returns a new one)."""
    path = os.path.join(out, "results.csv")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        cols, rows = reader.fieldnames, list(reader)
    rows = change(rows) or rows
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)


def edit_meta(out, change):
    path = os.path.join(out, "sweep.json")
    with open(path) as f:
        meta = json.load(f)
    change(meta)
    with open(path, "w") as f:
        json.dump(meta, f)


class Figures(SweepDir):
    """Paper output: PNG at 300 dpi, SVG and PDF of every plot, the same
    files for the same results, axis labels with units, and the averaging
    written on the figure."""

    SPEC_NAMES = ["line-cycles-vs-sm.max_warps-by-sm.scheduler-per-program",
                  "heatmap-cycles-sm.max_warps-sm.scheduler-per-program",
                  "pareto-cycles-area_kb-per-program"]

    def test_png_svg_pdf_at_300_dpi(self):
        status, _, err = run_main([self.out])
        self.assertEqual(status, 0, err)
        with open(os.path.join(self.out, "plots", "index.html")) as f:
            index = f.read()
        for n in self.SPEC_NAMES:
            base = os.path.join(self.out, "plots", n)
            self.assertEqual(png_info(base + ".png")[2], plot.DEFAULT_DPI)
            with open(base + ".pdf", "rb") as f:
                self.assertEqual(f.read(5), b"%PDF-")
            self.assertTrue([t for t in svg_texts(base + ".svg") if t.startswith("cycles")], base)
            for ext in ("png", "svg", "pdf"):
                self.assertIn(f'href="{n}.{ext}"', index)
        self.assertEqual(plot.DEFAULT_DPI, 300)
        # Two panels of 3.6 x 2.7 inches at 300 dpi.
        self.assertEqual(png_info(os.path.join(self.out, "plots", self.SPEC_NAMES[0] + ".png")),
                         (2160, 810, 300))

    def test_dpi_option(self):
        status, _, err = run_main([self.out, "--line", "sm.max_warps", "cycles", "--name", "l", "--dpi", "100"])
        self.assertEqual(status, 0, err)
        self.assertEqual(png_info(os.path.join(self.out, "plots", "l.png")), (360, 270, 100))
        for bad, msg in (("700", "--dpi 700 is outside [20, 600]"), ("19", "--dpi 19 is outside [20, 600]"),
                         ("high", "--dpi needs a whole number")):
            status, _, err = run_main([self.out, "--line", "sm.max_warps", "cycles", "--dpi", bad])
            self.assertEqual(status, 2)
            self.assertIn(msg, err)

    def test_same_results_same_files(self):
        def drawn():
            status, _, err = run_main([self.out, "--bars", "program", "cycles", "--series", "sm.scheduler",
                                       "--baseline", "sm.scheduler=lrr", "--geomean", "--name", "bars"])
            self.assertEqual(status, 0, err)
            files = {}
            for n in self.SPEC_NAMES + ["bars"]:
                for ext in ("png", "svg", "pdf"):
                    path = os.path.join(self.out, "plots", f"{n}.{ext}")
                    if os.path.exists(path):
                        with open(path, "rb") as f:
                            files[(n, ext)] = f.read()
            return files

        self.assertEqual(run_main([self.out])[0], 0)
        first = drawn()
        self.assertEqual(run_main([self.out])[0], 0)
        self.assertEqual(len(first), 12)
        self.assertEqual(first, drawn())

    def test_footnote_says_what_is_averaged(self):
        # Without the program facet, each point is the mean over both programs and both repeats.
        status, _, err = run_main([self.out, "--line", "sm.max_warps", "cycles", "--series", "sm.scheduler",
                                   "--name", "flat"])
        self.assertEqual(status, 0, err)
        texts = svg_texts(os.path.join(self.out, "plots", "flat.svg"))
        self.assertIn("mean over program (2 values), repeat (2)", texts)
        self.assertIn("band: ±1 standard deviation of the repeats", texts)
        with open(os.path.join(self.out, "plots", "index.html")) as f:
            index = f.read()
        self.assertIn("(mean over program (2 values), repeat (2); band: ±1 standard deviation of the repeats)",
                      index)
        # Per program: only the repeats.
        status, _, err = run_main([self.out, "--heatmap", "sm.max_warps", "sm.scheduler", "cycles", "--facet",
                                   "program", "--name", "heat"])
        self.assertEqual(status, 0, err)
        texts = svg_texts(os.path.join(self.out, "plots", "heat.svg"))
        self.assertIn("mean over repeat (2)", texts)
        self.assertEqual([t for t in texts if t.startswith(("mean over", "band"))], ["mean over repeat (2)"])

    def test_no_footnote_when_nothing_is_averaged(self):
        rewrite_results(self.out, lambda rows: [r for r in rows if r["repeat"] == "0"])
        status, _, err = run_main([self.out, "--line", "sm.max_warps", "cycles", "--series", "sm.scheduler",
                                   "--facet", "program", "--name", "line"])
        self.assertEqual(status, 0, err)
        texts = svg_texts(os.path.join(self.out, "plots", "line.svg"))
        self.assertEqual([t for t in texts if "mean over" in t or "standard deviation" in t], [])
        with open(os.path.join(self.out, "plots", "line.svg")) as f:
            self.assertNotIn("PolyCollection", f.read(), "no band without repeats")

    def test_units_from_column_names(self):
        r = plot.Results(self.out)
        expected = {"l1.size_kb": "l1.size_kb (KiB)", "noc.flit_bytes": "noc.flit_bytes (bytes)",
                    "hbm.mem_mb": "hbm.mem_mb (MiB)", "sm.clock_mhz": "sm.clock_mhz (MHz)",
                    "core.clock_ghz": "core.clock_ghz (GHz)", "dram.t_rcd_ns": "dram.t_rcd_ns (ns)",
                    "read_latency_ns": "read_latency_ns (ns)", "xbar.latency": "xbar.latency (cycles)",
                    "l2.hit_latency": "l2.hit_latency (cycles)", "roi_cycles": "roi_cycles (cycles)",
                    "bandwidth_gbps": "bandwidth_gbps (GB/s)", "energy_pj_per_bit": "energy_pj_per_bit (pJ/bit)",
                    "wall_us": "wall_us (µs)", "cycles": "cycles", "sm.max_warps": "sm.max_warps",
                    "cycles_per_element": "cycles_per_element", "--pattern": "--pattern"}
        self.assertEqual({c: plot.column_label(r, c) for c in expected}, expected)

    def test_metric_labels_and_label_overrides(self):
        edit_meta(self.out, lambda m: m.update(metric_labels={
            "cycles": "cycles: cycles of the region of interest (cycles)"}))
        status, _, err = run_main([self.out, "--line", "sm.max_warps", "cycles", "--name", "line",
                                   "--heatmap", "sm.max_warps", "sm.scheduler", "cycles", "--name", "heat",
                                   "--line", "sm.scheduler", "area_kb", "--xlabel", "warp scheduler",
                                   "--ylabel", "area (KiB)", "--name", "own",
                                   "--bars", "program", "cycles", "--series", "sm.scheduler", "--baseline",
                                   "sm.scheduler=lrr", "--name", "bars"])
        self.assertEqual(status, 0, err)
        # The label, wrapped at a space to 40 characters a line.
        texts = svg_texts(os.path.join(self.out, "plots", "line.svg"))
        i = texts.index("cycles: cycles of the region of interest")
        self.assertEqual(texts[i + 1], "(cycles)")
        self.assertIn("sm.max_warps", texts)
        # The heatmap's colour bar.
        texts = svg_texts(os.path.join(self.out, "plots", "heat.svg"))
        i = texts.index("cycles: cycles of the region of interest")
        self.assertEqual(texts[i + 1], "(cycles)")
        texts = svg_texts(os.path.join(self.out, "plots", "own.svg"))
        self.assertIn("warp scheduler", texts)
        self.assertIn("area (KiB)", texts)
        self.assertNotIn("area_kb (KiB)", texts)
        self.assertNotIn("sm.scheduler", texts)
        # A ratio has no unit.
        texts = svg_texts(os.path.join(self.out, "plots", "bars.svg"))
        self.assertIn("cycles: cycles of the region of interest", texts)
        self.assertIn("relative to sm.scheduler = lrr", texts)
        # xlabel/ylabel in the spec.
        edit_meta(self.out, lambda m: m["spec"].update(plots=[
            {"kind": "pareto", "x": "cycles", "y": "area_kb", "xlabel": "time", "ylabel": "area", "name": "p"}]))
        status, _, err = run_main([self.out])
        self.assertEqual(status, 0, err)
        texts = svg_texts(os.path.join(self.out, "plots", "p.svg"))
        self.assertIn("time", texts)
        self.assertIn("area", texts)

    def test_bad_metric_labels_and_labels_are_refused(self):
        edit_meta(self.out, lambda m: m.update(metric_labels=["cycles"]))
        status, _, err = run_main([self.out, "--line", "sm.max_warps", "cycles"])
        self.assertEqual(status, 2)
        self.assertIn("metric_labels must map column names to label text", err)
        with self.assertRaises(plot.PlotError) as ctx:
            plot.check_plots([{"kind": "line", "x": "sm.max_warps", "y": "cycles", "ylabel": 3}], SpecCheck.COLUMNS)
        self.assertIn("plots[0]: ylabel is text, got 3", str(ctx.exception))


class Repeats(SweepDir):
    """The repeats of a configuration: their mean, and one sample standard
    deviation (n - 1) either side; the fixture's repeats are the mean -10 and
    +10, so sd = sqrt(200)."""

    SD = math.sqrt(200)

    def test_mean_and_standard_deviation(self):
        r = plot.Results(self.out)
        self.assertEqual(plot.repeat_counts(r, ["cycles"]), [2])
        stats = plot.aggregate(r, ["program", "sm.scheduler", "sm.max_warps"], ["cycles"])
        self.assertEqual(stats[("sgemm", "lrr", "8")]["cycles"], (1000, self.SD))
        # Averaged over both programs: the root mean square of the configurations' sds.
        stats = plot.aggregate(r, ["sm.scheduler", "sm.max_warps"], ["cycles"])
        self.assertEqual(stats[("lrr", "8")]["cycles"], (750, self.SD))

    def test_line_band(self):
        r = plot.Results(self.out)
        p = plot.normalise(r, {"kind": "line", "x": "sm.max_warps", "y": "cycles", "series": "sm.scheduler",
                               "facet": "program"}, "plot 1")
        lines = plot.line_series(r, p)
        self.assertEqual(lines["sgemm"]["lrr"][0], ("8", 1000, 1000 - self.SD, 1000 + self.SD))
        self.assertEqual(lines["histogram"]["gto"][2], ("32", 300, 300 - self.SD, 300 + self.SD))
        # A speedup carries mean +- sd through the division into the first value.
        p = plot.normalise(r, {"kind": "line", "x": "sm.max_warps", "y": "cycles", "series": "sm.scheduler",
                               "facet": "program", "speedup": True}, "plot 1")
        self.assertEqual(plot.line_series(r, p)["sgemm"]["lrr"][1],
                         ("16", 1000 / 800, 1000 / (800 + self.SD), 1000 / (800 - self.SD)))

    def test_no_repeats_no_spread(self):
        rewrite_results(self.out, lambda rows: [r for r in rows if r["repeat"] == "0"])
        r = plot.Results(self.out)
        self.assertEqual(plot.repeat_counts(r, ["cycles"]), [1])
        self.assertEqual(plot.aggregate(r, ["program", "sm.scheduler", "sm.max_warps"], ["cycles"])
                         [("sgemm", "lrr", "8")]["cycles"], (990, None))
        p = plot.normalise(r, {"kind": "line", "x": "sm.max_warps", "y": "cycles", "series": "sm.scheduler",
                               "facet": "program"}, "plot 1")
        self.assertEqual(plot.line_series(r, p)["sgemm"]["lrr"][0], ("8", 990, None, None))
        p = plot.normalise(r, {"kind": "bars", "x": "program", "y": "cycles", "series": "sm.scheduler"}, "plot 1")
        self.assertTrue(all(e is None for panel in plot.bar_values(r, p).values()
                            for bars in panel["bars"].values() for _, _, e in bars))

    def test_band_drawn(self):
        status, _, err = run_main([self.out, "--line", "sm.max_warps", "cycles", "--series", "sm.scheduler",
                                   "--facet", "program", "--name", "line"])
        self.assertEqual(status, 0, err)
        with open(os.path.join(self.out, "plots", "line.svg")) as f:
            svg = f.read()
        # One band per line: 2 schedulers x 2 programs.
        self.assertEqual(len(re.findall(r'id="PolyCollection_\d+"', svg)), 4)


class Bars(SweepDir):
    """Grouped bars normalised to a baseline, with a geometric mean.
    Means over warps 8, 16, 32 (cycles): sgemm lrr 2500/3, gto 2350/3;
    histogram lrr 450, gto 400. At 16 warps: sgemm lrr 800, gto 850;
    histogram lrr 400, gto 380."""

    def values(self, p):
        r = plot.Results(self.out)
        q = plot.normalise(r, p, "plot 1")
        return plot.bar_values(plot.selected(r, q), q, "plot 1")

    def test_heights_relative_to_the_baseline_and_geomean(self):
        panels = self.values({"kind": "bars", "x": "program", "y": "cycles", "series": "sm.scheduler",
                              "baseline": {"sm.scheduler": "lrr"}, "geomean": True,
                              "where": {"sm.max_warps": 16}})
        sd = math.sqrt(200)
        self.assertEqual(panels, {None: {
            "groups": ["sgemm", "histogram"], "series": ["lrr", "gto"],
            "bars": {"lrr": [("sgemm", 1.0, sd / 800), ("histogram", 1.0, sd / 400)],
                     "gto": [("sgemm", 850 / 800, sd / 800), ("histogram", 380 / 400, sd / 400)]},
            "geomean": {"lrr": 1.0, "gto": math.exp((math.log(850 / 800) + math.log(380 / 400)) / 2)}}})
        self.assertAlmostEqual(panels[None]["geomean"]["gto"], math.sqrt(1.0625 * 0.95), places=14)
        self.assertAlmostEqual(plot.geometric_mean([2, 8, 4]), 4, places=14)

    def test_over_every_warp_count(self):
        panels = self.values({"kind": "bars", "x": "program", "y": "cycles", "series": "sm.scheduler",
                              "baseline": {"sm.scheduler": "lrr"}, "geomean": True})
        bars = panels[None]["bars"]
        self.assertEqual([g for g, _, _ in bars["gto"]], ["sgemm", "histogram"])
        self.assertAlmostEqual(bars["gto"][0][1], 2350 / 2500, places=12)
        self.assertAlmostEqual(bars["gto"][1][1], 400 / 450, places=12)
        self.assertAlmostEqual(bars["gto"][1][2], math.sqrt(200) / 450, places=12)
        self.assertAlmostEqual(panels[None]["geomean"]["gto"], math.sqrt(0.94 * 400 / 450), places=12)
        # Without a baseline: the means themselves; per program facet: one group per warp count.
        panels = self.values({"kind": "bars", "x": "sm.max_warps", "y": "cycles", "series": "sm.scheduler",
                              "facet": "program", "geomean": True})
        self.assertEqual(panels["histogram"]["bars"]["gto"], [("8", 520, math.sqrt(200)), ("16", 380, math.sqrt(200)),
                                                             ("32", 300, math.sqrt(200))])
        self.assertAlmostEqual(panels["histogram"]["geomean"]["gto"], (520 * 380 * 300) ** (1 / 3), places=9)

    def test_drawn(self):
        status, stdout, err = run_main([self.out, "--bars", "program", "cycles", "--series", "sm.scheduler",
                                        "--baseline", "sm.scheduler=lrr", "--geomean"])
        self.assertEqual(status, 0, err)
        name = "bars-cycles-by-program-per-bar-sm.scheduler-rel-sm.scheduler-lrr"
        self.assertIn(name + ".png", stdout)
        texts = self.assert_plot(name, ["sgemm", "histogram", "geomean", "sm.scheduler", "lrr", "gto",
                                        "cycles", "relative to sm.scheduler = lrr", "program",
                                        "mean over sm.max_warps (3 values), repeat (2)",
                                        "error bars: ±1 standard deviation of the repeats"])
        # The geometric means written on their bars: lrr 1, gto sqrt(0.94 x 0.889) = 0.914.
        self.assertIn("1.00", texts)
        self.assertIn("0.91", texts)
        with open(os.path.join(self.out, "plots", name + ".svg")) as f:
            svg = f.read()
        # Error bars (one set per series) on the bars of the programs, not on the geometric means.
        self.assertEqual(len(re.findall(r'id="LineCollection_\d+"', svg)), 2)

    def test_spec_entry(self):
        edit_meta(self.out, lambda m: m["spec"].update(plots=[
            {"kind": "bars", "x": "program", "y": "cycles", "series": "sm.scheduler",
             "baseline": {"sm.scheduler": "gto"}, "geomean": True, "name": "b"}]))
        status, _, err = run_main([self.out])
        self.assertEqual(status, 0, err)
        self.assert_plot("b", ["cycles", "relative to sm.scheduler = gto", "geomean"])
        plot.check_plots([{"kind": "bars", "x": "program", "y": "cycles", "series": "sm.scheduler",
                           "baseline": {"sm.scheduler": "lrr"}, "geomean": True}], SpecCheck.COLUMNS)

    def refused(self, argv, *fragments):
        status, _, err = run_main([self.out] + argv)
        self.assertEqual(status, 2, err)
        self.assertNotIn("Traceback", err)
        for f in fragments:
            self.assertIn(f, err)
        self.assertFalse(os.path.isdir(os.path.join(self.out, "plots")), "nothing drawn when a plot is refused")

    def test_baseline_value_must_occur(self):
        self.refused(["--bars", "program", "cycles", "--series", "sm.scheduler", "--baseline", "sm.scheduler=lru"],
                     "plot 1: baseline: sm.scheduler = lru occurs in no ok row (nearest: lrr); "
                     "sm.scheduler has: lrr, gto")

    def test_group_without_its_baseline(self):
        # histogram's lrr points failed: no baseline for the histogram group.
        def fail(rows):
            for r in rows:
                if r["program"] == "histogram" and r["sm.scheduler"] == "lrr":
                    r["status"], r["cycles"] = "failed", ""
        rewrite_results(self.out, fail)
        self.refused(["--bars", "program", "cycles", "--series", "sm.scheduler", "--baseline", "sm.scheduler=lrr"],
                     "plot 1: baseline: program = histogram has no ok row with sm.scheduler = lrr to divide by")
        self.refused(["--bars", "sm.max_warps", "cycles", "--series", "sm.scheduler", "--facet", "program",
                      "--baseline", "sm.scheduler=lrr"],
                     "plot 1: baseline: program = histogram, sm.max_warps = 8 has no ok row with sm.scheduler = lrr")
        # Without a geometric mean or a baseline the missing bars are just missing...
        status, _, err = run_main([self.out, "--bars", "program", "cycles", "--series", "sm.scheduler"])
        self.assertEqual(status, 0, err)
        shutil.rmtree(os.path.join(self.out, "plots"))
        # ... but a geometric mean over different groups is refused.
        self.refused(["--bars", "program", "cycles", "--series", "sm.scheduler", "--geomean"],
                     "plot 1: geomean: sm.scheduler = lrr, program = histogram has no value")

    def test_geomean_needs_positive_values(self):
        def zero(rows):
            for r in rows:
                if r["program"] == "sgemm" and r["sm.scheduler"] == "gto":
                    r["cycles"] = "0"
        rewrite_results(self.out, zero)
        self.refused(["--bars", "program", "cycles", "--series", "sm.scheduler", "--baseline", "sm.scheduler=lrr",
                      "--geomean"],
                     "plot 1: geomean: cycles relative to the baseline is 0 at sm.scheduler = gto, program = sgemm; "
                     "a geometric mean needs positive values")
        # The baseline itself 0: nothing to divide by.
        self.refused(["--bars", "program", "cycles", "--series", "sm.scheduler", "--baseline", "sm.scheduler=gto"],
                     "plot 1: baseline: cycles is 0 at program = sgemm, sm.scheduler = gto: nothing to divide by")

    def test_bad_descriptions(self):
        self.refused(["--bars", "program", "cycles", "--series", "sm.scheduler", "--baseline", "program=sgemm"],
                     "plot 1: baseline: 'program' is not the series 'sm.scheduler'")
        self.refused(["--bars", "program", "cycles", "--baseline", "sm.scheduler=lrr"],
                     "plot 1: baseline needs a series")
        self.refused(["--bars", "program", "cycels"], "plot 1: y: unknown column 'cycels' (nearest: cycles)")
        self.refused(["--bars", "program", "cycles", "--series", "sm.scheduler", "--baseline", "sm.scheduler"],
                     "--baseline takes PARAMETER=VALUE, not 'sm.scheduler'")
        self.refused(["--line", "sm.max_warps", "cycles", "--geomean"], "--geomean belongs to a --bars plot")
        self.refused(["--bars", "program", "cycles", "--logy"], "plot 1: logy: a bars plot has a linear axis")
        self.refused(["--pareto", "cycles", "cycles", "--logy"], "plot 1: logy belongs to a line plot (a pareto plot")
        for p, msg in (({"kind": "line", "x": "sm.max_warps", "y": "cycles", "geomean": True},
                        "plots[0]: geomean belongs to a bars plot"),
                       ({"kind": "bars", "x": "program", "y": "cycles", "series": "sm.scheduler",
                         "baseline": {"sm.schedular": "lrr"}},
                        "plots[0]: baseline: 'sm.schedular' is not the series 'sm.scheduler'"),
                       ({"kind": "bars", "x": "program", "y": "cycles", "series": "sm.schedular",
                         "baseline": {"sm.schedular": "lrr"}},
                        "plots[0]: series: unknown column 'sm.schedular' (nearest: sm.scheduler)"),
                       ({"kind": "bars", "x": "program", "y": "cycles", "series": "sm.scheduler",
                         "baseline": "lrr"}, "plots[0]: baseline is one column: value"),
                       ({"kind": "bars", "x": "program", "y": "cycles", "geomean": "yes"},
                        "plots[0]: geomean is true or false"),
                       ({"kind": "bars", "x": "program"}, "plots[0]: a bars plot needs 'y'")):
            with self.assertRaises(plot.PlotError) as ctx:
                plot.check_plots([p], SpecCheck.COLUMNS)
            self.assertIn(msg, str(ctx.exception))


class Labels(unittest.TestCase):
    """Labels of Pareto front points: merged where points coincide, placed
    where they overlap no other label and no marker."""

    def test_merge_labels(self):
        self.assertEqual(plot.merge_labels([(1, 2), (3, 4), (1, 2), (1, 2)], ["a", "b", "c", "a"]),
                         [((1, 2), "a / c"), ((3, 4), "b")])

    def test_label_box(self):
        # Right of and above the point for (4, 4); left and centred for (-4, 0); at 2 units per point.
        self.assertEqual(plot.label_box((100, 100), (30, 10), (4, 4), scale=2), (108, 108, 138, 118))
        self.assertEqual(plot.label_box((100, 100), (30, 10), (-4, 0), scale=2), (62, 95, 92, 105))
        self.assertEqual(plot.label_box((100, 100), (30, 10), (0, -10)), (85, 80, 115, 90))

    def test_place_labels(self):
        # Two labels at one point: the second goes to the next offset (below, right).
        placed = plot.place_labels([(100, 100), (100, 100)], [(30, 10), (30, 10)], [])
        self.assertEqual([off for off, _ in placed], [(4, 4), (4, -4)])
        self.assertEqual(plot.overlap(placed[0][1], placed[1][1]), 0)
        # A marker in the first place, and the axes' edge above: below right, then below left.
        marker = (104, 104, 110, 110)
        placed = plot.place_labels([(100, 100), (100, 100)], [(30, 10), (30, 10)], [marker],
                                   bounds=(0, 0, 200, 112))
        self.assertEqual([off for off, _ in placed], [(4, -4), (-4, -4)])
        # Nowhere clear inside the bounds: the first clear place outside them.
        placed = plot.place_labels([(100, 100)], [(30, 10)], [], bounds=(95, 95, 105, 105))
        self.assertEqual(placed[0][0], (4, 4))
        # The same input, the same places.
        args = ([(10 * i, 100 + i) for i in range(8)], [(40, 10)] * 8, [(0, 0, 5, 5)], (0, 0, 300, 300))
        self.assertEqual(plot.place_labels(*args), plot.place_labels(*args))

    def test_tied_front_labels_do_not_overlap(self):
        import matplotlib.text

        tmp = tempfile.mkdtemp(prefix="sweep_plot_tied_")
        self.addCleanup(shutil.rmtree, tmp)
        # c0, c1 and c2 tie; c3, c4, c5, c9 lie within 2% of the x range and 0.2
        # of the y range of them (a few pixels): labels at one fixed offset overprint.
        pts = {"c0": (100, 20), "c1": (100, 20), "c2": (100, 20), "c3": (100.4, 19.95), "c4": (100.8, 19.9),
               "c5": (101.2, 19.85), "c9": (101.6, 19.8), "c7": (150, 15), "c6": (200, 10), "c8": (190, 19)}
        with open(os.path.join(tmp, "results.csv"), "w") as f:
            f.write("id,program,platform,repeat,cfg,time,area,status,exit_code,host_seconds,message\n")
            for i, (c, (t, a)) in enumerate(pts.items()):
                f.write(f"{i},p,chip,0,{c},{t},{a},ok,0,1,\n")
        with open(os.path.join(tmp, "sweep.json"), "w") as f:
            json.dump({"version": 1, "spec": {"parameters": {"cfg": list(pts)},
                                              "metrics": {"time": "", "area": ""}}}, f)
        r = plot.Results(tmp)
        q = plot.normalise(r, {"kind": "pareto", "x": "time", "y": "area"}, "plot 1")
        plt = plot._pyplot()
        fig, _ = plot.render(r, q, plt, "tied", dpi=300)
        self.addCleanup(plt.close, fig)
        fig.canvas.draw()
        ax = fig.axes[0]
        labels = {t.get_text(): matplotlib.text.Text.get_window_extent(t) for t in ax.texts}
        self.assertEqual(sorted(labels), sorted(["c0 / c1 / c2", "c3", "c4", "c5", "c9", "c7", "c6"]))
        boxes = [(b.x0, b.y0, b.x1, b.y1) for b in labels.values()]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                self.assertEqual(plot.overlap(a, b), 0, (a, b))
        # Nor over a front marker.
        r_px = plot.PARETO_FRONT_POINT / 2 * fig.dpi / 72
        for x, y in ax.transData.transform([pts[c] for c in ("c0", "c3", "c4", "c5", "c9", "c7", "c6")]):
            for b in boxes:
                self.assertEqual(plot.overlap(b, (x - r_px, y - r_px, x + r_px, y + r_px)), 0)
        # The same labels all at the nearest offset would overprint: the fixture is a real test.
        sizes = [(b[2] - b[0], b[3] - b[1]) for b in boxes]
        anchors = [tuple(ax.transData.transform(pts[c])) for c in ("c0", "c3", "c4", "c5", "c9", "c7", "c6")]
        fixed = [plot.label_box(a, s, (4, 4), fig.dpi / 72) for a, s in zip(anchors, sizes)]
        self.assertTrue(any(plot.overlap(a, b) for i, a in enumerate(fixed) for b in fixed[i + 1:]))


if __name__ == "__main__":
    unittest.main()
