"""Adaptive search (`search:`) end to end with the built tessera: sgemm on
chip over 16 SM counts x 3 L2 slice counts (48 configurations), whose
optimum each test first learns from a grid sweep of the same space."""
import csv
import json
import os
import signal
import sqlite3
import subprocess
import time

from sweeptest import SweepCase, firmware, records, tessera

SPACE = {"gpu.num_sms": {"range": [1, 16]}, "l2.slices": [2, 4, 8]}
METRICS = {"kcycles": "sum(kernels.*.cycles)",
           "area": "config.parameters.gpu.num_sms + config.parameters.l2.slices",
           # the kernels' time x an area that grows with SMs and slices: an
           # optimum inside the space (more SMs shorten the kernels, less and less)
           "cycles_x_area": "sum(kernels.*.cycles) * (config.parameters.gpu.num_sms + config.parameters.l2.slices)"}


def spec(**extra):
    s = {"name": "s", "platforms": ["chip"], "programs": [firmware("sgemm")], "parameters": SPACE,
         "metrics": METRICS}
    s.update(extra)
    return s


def config(row):
    return (int(row["gpu.num_sms"]), int(row["l2.slices"]))


class Search(SweepCase):
    grid = None  # rows of the grid sweep, shared by the tests

    @classmethod
    def setUpClass(cls):
        import tempfile
        import yaml
        cls._grid_tmp = tempfile.TemporaryDirectory(prefix="sweep-search-grid-")
        path = os.path.join(cls._grid_tmp.name, "grid.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(spec(name="grid"), f)
        out = os.path.join(cls._grid_tmp.name, "out")
        r = subprocess.run([tessera(), "sweep", path, "-o", out, "-q"], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        with open(os.path.join(out, "results.csv")) as f:
            cls.grid = {config(row): row for row in csv.DictReader(f)}
        assert len(cls.grid) == 48

    @classmethod
    def tearDownClass(cls):
        cls._grid_tmp.cleanup()

    def search_json(self, out):
        with open(os.path.join(out, "search.json")) as f:
            return json.load(f)

    def test_the_search_finds_the_grids_optimum_in_a_third_of_its_points(self):
        best = min(self.grid, key=lambda c: int(self.grid[c]["cycles_x_area"]))
        path = self.write_spec(spec(search={"objectives": {"cycles_x_area": "minimize"}, "trials": 16, "seed": 0}))
        r = self.sweep(path, "-o", "out", "-j", "2", timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.read_csv(os.path.join(self.tmp, "out"))
        self.assertEqual(len(rows), 16)  # 16 of the 48 configurations ran, each once
        self.assertEqual(len({config(row) for row in rows}), 16)
        s = self.search_json(os.path.join(self.tmp, "out"))
        self.assertEqual(len(s["run"]), 16)
        self.assertEqual(s["configurations"], 48)
        self.assertEqual([(b["parameters"]["gpu.num_sms"], b["parameters"]["l2.slices"]) for b in s["best"]], [best])
        self.assertEqual(s["best"][0]["objectives"]["cycles_x_area"], int(self.grid[best]["cycles_x_area"]))
        # each configuration's values are those the grid measured
        for row in rows:
            self.assertEqual(row["kcycles"], self.grid[config(row)]["kcycles"])
        self.assertIn("best:\n  gpu.num_sms=%d, l2.slices=%d: cycles_x_area=" % best, r.stderr)
        # the study is in the sweep's database
        with sqlite3.connect(os.path.join(self.tmp, "out", "sweep.db")) as db:
            complete = db.execute("SELECT COUNT(*) FROM trials WHERE state = 'COMPLETE'").fetchone()[0]
        self.assertGreaterEqual(complete, 16)

    def test_nsga2_with_a_constraint_gives_the_grids_pareto_front(self):
        limit = 12000
        feasible = {c: (int(r["kcycles"]), int(r["area"])) for c, r in self.grid.items() if int(r["kcycles"]) <= limit}
        front = {c for c, v in feasible.items()
                 if not any(w[0] <= v[0] and w[1] <= v[1] and w != v for w in feasible.values())}
        self.assertGreater(len(front), 2)
        path = self.write_spec(spec(search={"objectives": [{"kcycles": "minimize"}, {"area": "minimize"}],
                                            "trials": 48, "seed": 3, "constraints": [f"kcycles <= {limit}"]}))
        r = self.sweep(path, "-o", "out", "-j", "2", timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        s = self.search_json(os.path.join(self.tmp, "out"))
        self.assertEqual(s["sampler"], "nsga2")
        self.assertEqual(len(s["run"]), 48)  # the budget covers the space: every configuration, once
        got = {(b["parameters"]["gpu.num_sms"], b["parameters"]["l2.slices"]) for b in s["best"]}
        self.assertEqual(got, front)
        infeasible = [e for e in s["run"] if not e["feasible"]]
        self.assertEqual(len(infeasible), 48 - len(feasible))

    def test_a_killed_search_resumes_without_running_a_point_twice(self):
        path = self.write_spec(spec(search={"objectives": {"cycles_x_area": "minimize"}, "trials": 10, "seed": 5}))
        out = os.path.join(self.tmp, "out")
        driver = subprocess.Popen([self.tessera, "sweep", path, "-o", out, "-j", "1", "-q"], cwd=self.tmp,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

        def finished():
            return sorted(records(out)) if os.path.exists(os.path.join(out, "sweep.db")) else []

        deadline = time.monotonic() + 120
        while len(finished()) < 4 and time.monotonic() < deadline and driver.poll() is None:
            time.sleep(0.05)
        driver.send_signal(signal.SIGKILL)
        driver.communicate()
        before = {p: records(out)[p]["host_seconds"] for p in finished()}  # a point run again would differ
        self.assertGreaterEqual(len(before), 4)
        self.assertLess(len(before), 10)
        r = self.sweep(path, "-o", "out", "-j", "1", "--resume", timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        after = {p: records(out)[p]["host_seconds"] for p in finished()}
        self.assertEqual({p: after[p] for p in before}, before)  # no finished point ran again
        self.assertEqual(len(after), 10)
        s = self.search_json(out)
        self.assertEqual(len(s["run"]), 10)
        self.assertEqual(len({tuple(e["parameters"].values()) for e in s["run"]}), 10)

    def test_an_objective_that_is_not_a_number_stops_the_search(self):
        metrics = dict(METRICS, platform="config.platform")
        path = self.write_spec(spec(metrics=metrics, search={"objectives": {"platform": "minimize"}, "trials": 3}))
        r = self.sweep(path, "-o", "out", "-j", "1", timeout=300)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertRegex(r.stderr, r"search.objectives.platform: the metric is 'chip' at point \d+ \(gpu.num_sms=\d+, "
                                   r"l2.slices=\d, sgemm on chip\), not a number")
