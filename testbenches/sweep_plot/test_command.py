"""`tessera sweep plot` through the simulator binary (the subcommand execs
tools/tessera-sweep, which hands `plot` to tools/tessera_sweep/plot.py)."""

import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TESSERA = os.environ.get("TESSERA_BIN", "")


class Command(unittest.TestCase):
    def setUp(self):
        if not (TESSERA and os.access(TESSERA, os.X_OK)):
            self.fail(f"TESSERA_BIN must name the built tessera binary (got '{TESSERA}')")
        self.tmp = tempfile.mkdtemp(prefix="sweep_plot_cmd_")
        self.out = os.path.join(self.tmp, "fixture")
        shutil.copytree(os.path.join(HERE, "fixture"), self.out)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_plot(self, *args):
        return subprocess.run([TESSERA, "sweep", "plot", self.out, *args], capture_output=True,
                              text=True, timeout=120)

    def test_spec_plots(self):
        r = self.run_plot()
        self.assertEqual(r.returncode, 0, r.stderr)
        for name in ["line-cycles-vs-sm.max_warps-by-sm.scheduler-per-program",
                     "heatmap-cycles-sm.max_warps-sm.scheduler-per-program",
                     "pareto-cycles-area_kb-per-program"]:
            png = os.path.join(self.out, "plots", name + ".png")
            self.assertGreater(os.path.getsize(png), 10000, png)
            self.assertIn(png, r.stdout)
        self.assertTrue(os.path.isfile(os.path.join(self.out, "plots", "index.html")))

    def test_unknown_column(self):
        r = self.run_plot("--line", "sm.max_warps", "cycels")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown column 'cycels' (nearest: cycles)", r.stderr)
        self.assertNotIn("Traceback", r.stderr)


if __name__ == "__main__":
    unittest.main()
