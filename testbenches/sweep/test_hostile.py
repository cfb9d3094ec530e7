"""Hostile input to `tessera sweep`: metrics that cannot be computed, spaces
too large to expand, and links planted in a sweep directory. Each case of the
review that found them is reproduced exactly (the real tessera where the
report used it), then its class is closed with the stand-in fake_tessera.py.
A sweep that used to hang is run with a generous timeout: finishing at all is
the assertion, never how fast."""
import argparse
import contextlib
import importlib.util
import io
import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import tracemalloc
import unittest
import unittest.mock

import yaml

from sweeptest import SweepCase, firmware, records, set_record

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SWEEP_TOOL = os.path.join(REPO, "tools", "tessera-sweep")
sys.path.insert(0, os.path.join(REPO, "tools"))

from tessera_sweep import SweepError, local, results, runner, slurm  # noqa: E402
from tessera_sweep import spec as spec_mod  # noqa: E402

# The address space a refused sweep runs in: expanding range: [0, 1e11] took
# 6.6 GB, repeats 1e12 6.4 GB; counting them takes nothing.
ADDRESS_SPACE = 1 << 30


def two_points():
    return {"name": "hostile", "platforms": ["sm1"], "programs": [firmware("vecadd")],
            "parameters": {"memory.latency": [100, 200]}, "metrics": {"cycles": "summary.sim_cycles"}}


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


class RealCase(SweepCase):
    """The report's cases on the built tessera: `tessera sweep` as a user runs it."""

    def refused(self, spec, key, *fragments, limited=False):
        path = self.write_spec(spec)
        out = os.path.join(self.tmp, "OUT")
        # Limited, the sweep tool runs on its own (as `tessera sweep` execs it): a sanitizer's tessera
        # reserves terabytes of address space, and a refused sweep never runs tessera.
        cmd = ["/usr/bin/python3", SWEEP_TOOL, "--tessera", self.tessera] if limited else [self.tessera, "sweep"]
        r = subprocess.run(cmd + [path, "-o", out], capture_output=True, text=True, timeout=30, cwd=self.tmp,
                           preexec_fn=limit_memory if limited else None)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f"tessera sweep: error: {path}: {key}: ", r.stderr)
        for f in fragments:
            self.assertIn(f, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertFalse(os.path.exists(out), "a refused sweep created its directory")
        return r.stderr


class MetricReport(RealCase):
    def test_ten_to_the_ten_to_the_ten_is_refused_instead_of_hanging(self):
        # It blocked the interpreter after the first point, past SIGTERM.
        s = two_points()
        s["metrics"] = {"big": "10**10**10"}
        self.refused(s, "metrics.big", "10 ** 10000000000 is too large")

    def test_a_complex_metric_is_an_empty_cell_with_its_error_and_exit_status_1(self):
        # It killed the worker: results.csv had its header only, and the sweep exited 0.
        s = two_points()
        s["metrics"] = {"cycles": "summary.sim_cycles", "c": "(0 - summary.sim_cycles) ** 0.5"}
        out = os.path.join(self.tmp, "OUT")
        r = self.sweep(self.write_spec(s), "-o", out, "-q", timeout=60)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("tessera sweep: metric c could not be computed for 2 points", r.stderr)
        self.assertIn("2 ok, 0 failed, 0 fault, 0 timeout of 2", r.stderr)
        rows = self.read_csv(out)
        self.assertEqual([row["id"] for row in rows], ["0", "1"])
        for row in rows:
            self.assertEqual((row["status"], row["c"]), ("ok", ""))
            self.assertGreater(int(row["cycles"]), 0)
            self.assertEqual(row["message"], f"metric c: (-{row['cycles']}) ** 0.5 is not a real number")
            st = records(out)[int(row["id"])]
            self.assertEqual(st["metrics"]["c"], None)
            self.assertIn("not a real number", st["metric_errors"]["c"])

    def test_expression_overflow_and_recursion_exit_2_without_a_traceback(self):
        s = two_points()
        s["constraints"] = ["memory.latency ** 1000.0 > 0"]
        self.refused(s, "constraints", "cannot be evaluated at {'memory.latency': 100}")
        s = two_points()
        s["metrics"] = {"deep": "-" * 3000 + "summary.sim_cycles"}
        self.refused(s, "metrics.deep", "nested too deeply")
        s = two_points()
        s["metrics"] = {"long": "1" + "+1" * 50000}
        self.refused(s, "metrics.long", "100001 characters long")

    def test_timeout_nan_inf_and_negative_are_refused(self):
        for bad in (float("nan"), float("inf"), -5):
            with self.subTest(timeout=bad):
                s = two_points()
                s["timeout"] = bad
                self.refused(s, "timeout", "expected a positive, finite number of seconds")


class SizeReport(RealCase):
    """Counted before anything is expanded: each refusal runs in 1 GB of address space."""

    def test_a_range_of_1e11_values_is_refused(self):
        s = two_points()
        s["parameters"] = {"memory.latency": {"range": [0, 1e11]}}
        self.refused(s, "parameters.memory.latency", "the sweep would have 100,000,000,001 points (100,000,000,001 "
                     "values of memory.latency), more than max_points (1,000,000)", limited=True)

    def test_1e12_repeats_are_refused(self):
        s = two_points()
        s["parameters"] = {"memory.latency": [100]}
        s["repeats"] = {"count": 10 ** 12}
        self.refused(s, "repeats.count", "1,000,000,000,000 points (1,000,000,000,000 repeats)", "max_points",
                     limited=True)

    def test_an_lhs_of_1e12_samples_is_refused(self):
        s = two_points()
        s["sampling"] = {"method": "lhs", "points": 10 ** 12, "seed": 1}
        self.refused(s, "sampling.points", "1,000,000,000,000 points (1,000,000,000,000 sampled points)",
                     limited=True)

    def test_a_grid_over_a_million_points_is_refused_and_max_points_raises_the_limit(self):
        s = two_points()
        s["parameters"] = {"memory.latency": {"range": [0, 1000]}, "sm.max_warps": {"range": [1, 1000]}}
        self.refused(s, "parameters.memory.latency", "1,001,000 points (1,001 values of memory.latency x 1,000 "
                     "values of sm.max_warps), more than max_points (1,000,000)", limited=True)
        s = two_points()
        s["max_points"] = 1
        self.refused(s, "parameters.memory.latency", "2 points (2 values of memory.latency), more than max_points (1)")
        s["max_points"] = 2
        out = os.path.join(self.tmp, "RAISED")
        r = self.sweep(self.write_spec(s), "-o", out, "-q", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(self.read_csv(out)), 2)


class SweepJsonIsStreamed(unittest.TestCase):
    def test_writing_sweep_json_holds_no_copy_of_its_text(self):
        # json.dumps of a 1,000,000-point sweep held the text and its pieces:
        # 2.7 GB for 233 MB. Streamed, the peak is the 64 KB write buffer and
        # the encoder's state (0.6 MB), whatever the size: here less than half
        # the file (Python allocations, measured by tracemalloc: deterministic,
        # no timing; json.dumps peaks at eight times the file).
        points = [{"id": i, "platform": "platform-sm1", "platform_name": "sm1", "program": "elf-vecadd",
                   "program_name": "vecadd", "args": [], "params": {"memory.latency": i, "sm.scheduler": "gto"},
                   "repeat": 0} for i in range(20_000)]
        sweep = {"version": 1, "name": "big", "spec": {}, "points": points}
        with tempfile.TemporaryDirectory(prefix="sweep-json-") as out:
            tracemalloc.start()
            try:
                results.write_sweep(out, sweep)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            size = os.path.getsize(os.path.join(out, "sweep.json"))
            self.assertGreater(size, 4 << 20)
            self.assertLess(peak, 2 << 20, f"writing {size >> 10} KB of sweep.json peaked at {peak >> 10} KB")
            with open(os.path.join(out, "sweep.json")) as f:
                text = f.read()
            self.assertEqual(text, json.dumps(sweep, indent=1) + "\n")


class FakeCase(unittest.TestCase):
    """Sweeps run by the tool itself against fake_tessera.py (`run` exits 0
    with the stats of $FAKE_TESSERA_STATS): fast, and no simulator needed."""

    STATS = {"summary": {"sim_cycles": 5000, "host_seconds": 0.01}, "roi": {"sim_cycles": 4000}}

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="sweep-hostile-")
        self.tmp = self._tmp.name
        self.tessera = os.path.join(self.tmp, "bin", "tessera")
        os.makedirs(os.path.join(self.tmp, "bin", "firmware"))
        shutil.copy(os.path.join(HERE, "fake_tessera.py"), self.tessera)
        open(os.path.join(self.tmp, "bin", "firmware", "vecadd.elf"), "w").close()
        with open(os.path.join(self.tmp, "plat.yaml"), "w") as f:
            f.write("platform: {name: fake}\n")
        self.env = dict(os.environ, FAKE_TESSERA_LOG=os.path.join(self.tmp, "calls.log"),
                        FAKE_TESSERA_RUN_STATUS="0", FAKE_TESSERA_STATS=json.dumps(self.STATS))
        self.out = os.path.join(self.tmp, "OUT")

    def tearDown(self):
        self._tmp.cleanup()

    def spec(self, **kw):
        s = {"name": "fake", "platforms": ["plat.yaml"], "programs": ["vecadd"],
             "parameters": {"sm.max_warps": [8, 16]}, "metrics": {"cycles": "summary.sim_cycles"}}
        s.update(kw)
        path = os.path.join(self.tmp, "spec.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(s, f)
        return path

    def run_tool(self, *args, umask=None, cwd=None):
        def pre():
            if umask is not None:
                os.umask(umask)
        return subprocess.run(["/usr/bin/python3", SWEEP_TOOL, "--tessera", self.tessera] + list(args),
                              capture_output=True, text=True, timeout=60, env=self.env, cwd=cwd or self.tmp,
                              preexec_fn=pre)

    def sweep(self, *args, **kw):
        # The point files are what these tests are about: every point keeps them.
        return self.run_tool(self.spec(**kw), "-o", self.out, "-q", "--keep-point-files", *args)

    def unfinish(self, pid):
        """Makes a finished point unfinished: its stored record and its status.json gone."""
        set_record(self.out, pid, None)
        if os.path.lexists(self.point(pid, "status.json")):
            os.unlink(self.point(pid, "status.json"))

    def rows(self):
        import csv
        with open(os.path.join(self.out, "results.csv")) as f:
            return list(csv.DictReader(f))

    def point(self, pid, name=""):
        return os.path.join(self.out, "points", f"{pid:05d}", name)


class MetricFailures(FakeCase):
    def test_a_metric_too_large_to_compute_is_an_empty_cell_with_its_error(self):
        r = self.sweep(metrics={"cycles": "summary.sim_cycles", "huge": "summary.sim_cycles ** 10**10",
                                "inf": "summary.sim_cycles * 1e308", "text": "summary.sim_cycles + 'x'",
                                "ipc": "roi.sim_cycles / 0", "missing": "roi.warp_insts"})
        self.assertEqual(r.returncode, 1, r.stderr)
        rows = self.rows()
        self.assertEqual(len(rows), 2)
        for row in rows:
            self.assertEqual((row["status"], row["cycles"]), ("ok", "5000"))
            self.assertEqual({k: row[k] for k in ("huge", "inf", "text", "ipc", "missing")},
                             dict.fromkeys(("huge", "inf", "text", "ipc", "missing"), ""))
            # Division by zero and a missing statistic stay what they were: empty, and no error.
            self.assertEqual(row["message"], "metric huge: 5000 ** 10000000000 is too large (about 1.23e+11 bits; "
                                             "an integer result may have at most 1024); metric inf: the value inf "
                                             "is not a finite number; metric text: '+' needs numbers, got 'x'")
        for col in ("huge", "inf", "text"):
            self.assertIn(f"tessera sweep: metric {col} could not be computed for 2 points", r.stderr)
        self.assertNotIn("metric ipc", r.stderr)

    def test_run_points_exits_1_when_a_metric_fails(self):
        r = self.sweep(metrics={"c": "(0 - summary.sim_cycles) ** 0.5"})
        self.assertEqual(r.returncode, 1, r.stderr)
        self.unfinish(0)
        r = self.run_tool("run-points", self.out, "--ids", "0")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("tessera sweep: point 0: metric c: (-5000) ** 0.5 is not a real number", r.stderr)
        self.assertTrue(os.path.exists(self.point(0, "status.json")))

    def test_no_exception_of_a_metric_stops_the_worker(self):
        class Exhausting(float):
            """A statistic whose arithmetic runs out of memory."""

            def __add__(self, other):
                raise MemoryError

        errors = {}
        values = runner.metrics_of({"x": Exhausting(1.0), "y": 2}, {"m": "x + 1", "y": "y"}, errors)
        self.assertEqual(values, {"m": None, "y": 2})
        self.assertEqual(errors, {"m": "out of memory"})

    def test_a_point_that_cannot_run_stays_unfinished_and_the_sweep_exits_1(self):
        # A worker thread that died on an exception left its points unrun and the sweep exited 0.
        path = self.spec()
        real = local.run_point

        def flaky(out_dir, sweep_, point, **kw):
            if point["id"] == 0:
                raise RuntimeError("a bug in the worker")
            return real(out_dir, sweep_, point, **kw)

        err = io.StringIO()
        with unittest.mock.patch.dict(os.environ, self.env), unittest.mock.patch.object(local, "run_point", flaky):
            sweep = spec_mod.load(path, self.tessera)
            os.makedirs(os.path.join(self.out, "points"))
            results.write_sweep(self.out, sweep)
            with contextlib.redirect_stderr(err):
                status = local.run(self.out, sweep, argparse.Namespace(jobs=2, quiet=True, spec=path))
        self.assertEqual(status, 1, err.getvalue())
        self.assertIn("tessera sweep: point 0 not run: internal error: RuntimeError: a bug in the worker",
                      err.getvalue())
        self.assertIn("1 ok, 0 failed, 0 fault, 0 timeout, 1 unfinished of 2", err.getvalue())
        self.assertEqual([row["id"] for row in self.rows()], ["1"])


class SweepFiles(FakeCase):
    def make(self):
        r = self.sweep()
        self.assertEqual(r.returncode, 0, r.stderr)
        return self.rows()

    def victim(self, text="precious\n"):
        path = os.path.join(self.tmp, "victim.txt")
        with open(path, "w") as f:
            f.write(text)
        return path

    def assert_untouched(self, path, text="precious\n"):
        with open(path) as f:
            self.assertEqual(f.read(), text, f"{path} was written through a link")

    def test_a_symlinked_cmd_txt_is_not_followed_on_resume(self):
        # --resume followed it and overwrote its target.
        self.make()
        victim = self.victim()
        self.unfinish(0)
        os.unlink(self.point(0, "cmd.txt"))
        os.symlink(victim, self.point(0, "cmd.txt"))
        r = self.sweep("--resume")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(f"tessera sweep: point 0 not run: {self.point(0, 'cmd.txt')} is a symbolic link", r.stderr)
        self.assertIn("1 unfinished of 2", r.stderr)
        self.assert_untouched(victim)
        self.assertTrue(os.path.islink(self.point(0, "cmd.txt")))
        self.assertEqual([row["id"] for row in self.rows()], ["1"])
        os.unlink(self.point(0, "cmd.txt"))  # removed, the point runs again
        r = self.sweep("--resume")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([row["id"] for row in self.rows()], ["0", "1"])

    def test_no_file_of_a_point_is_written_through_a_link(self):
        self.make()
        for name in ("stdout.txt", "stderr.txt"):
            with self.subTest(name=name):
                victim = self.victim()
                self.unfinish(0)
                os.unlink(self.point(0, name))
                os.symlink(victim, self.point(0, name))
                r = self.sweep("--resume")
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn(f"{self.point(0, name)} is a symbolic link", r.stderr)
                self.assert_untouched(victim)
                os.unlink(self.point(0, name))
        # Files written whole are replaced: the link goes, its target stays.
        for name in ("status.json", "stats.json"):
            with self.subTest(name=name):
                victim = self.victim()
                self.unfinish(0)
                if os.path.lexists(self.point(0, name)):
                    os.unlink(self.point(0, name))
                os.symlink(victim, self.point(0, name))
                r = self.sweep("--resume")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assert_untouched(victim)
                self.assertFalse(os.path.islink(self.point(0, "status.json")))
        victim = self.victim()
        os.unlink(os.path.join(self.out, "results.csv"))
        os.symlink(victim, os.path.join(self.out, "results.csv"))
        self.unfinish(1)
        self.assertEqual(self.sweep("--resume").returncode, 0)
        self.assert_untouched(victim)
        self.assertEqual(len(self.rows()), 2)

    def test_a_hard_link_or_a_fifo_is_refused_not_written(self):
        self.make()
        victim = self.victim()
        self.unfinish(0)
        os.unlink(self.point(0, "cmd.txt"))
        os.link(victim, self.point(0, "cmd.txt"))
        r = self.sweep("--resume")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("is a hard link to another file", r.stderr)
        self.assert_untouched(victim)
        os.unlink(self.point(0, "cmd.txt"))
        os.unlink(self.point(0, "stdout.txt"))
        os.mkfifo(self.point(0, "stdout.txt"))
        r = self.sweep("--resume")  # a FIFO nobody reads would block the open
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(f"{self.point(0, 'stdout.txt')} is not a regular file", r.stderr)

    def test_a_linked_point_directory_or_points_directory_is_refused(self):
        self.make()
        elsewhere = os.path.join(self.tmp, "elsewhere")
        os.makedirs(elsewhere)
        shutil.rmtree(self.point(0))
        set_record(self.out, 0, None)
        os.symlink(elsewhere, self.point(0).rstrip("/"))
        r = self.sweep("--resume")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(f"{self.point(0).rstrip('/')} is a symbolic link", r.stderr)
        self.assertEqual(os.listdir(elsewhere), [])
        points = os.path.join(self.out, "points")
        os.rename(points, os.path.join(self.tmp, "moved"))
        os.symlink(elsewhere, points)
        r = self.sweep("--resume")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(f"{points} is a symbolic link", r.stderr)
        self.assertEqual(os.listdir(elsewhere), [])

    def test_name_dotdot_puts_nothing_in_the_working_directory(self):
        # name: .. made the default OUT sweeps/.., the working directory itself.
        work = os.path.join(self.tmp, "work")
        os.makedirs(work)
        for bad in ("..", ".", "a/b", "", "a\0b"):
            with self.subTest(name=bad):
                r = self.run_tool(self.spec(name=bad), cwd=work)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("spec.yaml: name: ", r.stderr)
                self.assertIn("is not a filesystem-safe name: one plain file name", r.stderr)
                self.assertEqual(os.listdir(work), [])

    def test_files_get_the_permissions_the_umask_gives(self):
        # They were 0600 (mkstemp) whatever the umask.
        for umask, file_mode, dir_mode in ((0o022, 0o644, 0o755), (0o027, 0o640, 0o750)):
            with self.subTest(umask=oct(umask)):
                shutil.rmtree(self.out, ignore_errors=True)
                r = self.run_tool(self.spec(), "-o", self.out, "-q", "--keep-point-files", umask=umask)
                self.assertEqual(r.returncode, 0, r.stderr)
                for path in ("sweep.json", "results.csv", "sweep.db", "points/00000/cmd.txt",
                             "points/00000/stdout.txt", "points/00000/stderr.txt", "points/00000/status.json"):
                    self.assertEqual(stat.S_IMODE(os.stat(os.path.join(self.out, path)).st_mode), file_mode, path)
                for path in ("", "points", "points/00000"):
                    self.assertEqual(stat.S_IMODE(os.stat(os.path.join(self.out, path)).st_mode), dir_mode, path)

    def test_plots_are_not_written_through_links(self):
        if importlib.util.find_spec("matplotlib") is None:
            self.skipTest("matplotlib (python3-matplotlib) is not installed")
        from tessera_sweep import plot
        self.make()
        plots = os.path.join(self.out, "plots")
        os.makedirs(plots)
        victim = self.victim()
        os.symlink(victim, os.path.join(plots, "index.html"))
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = plot.main([self.out, "--line", "sm.max_warps", "cycles"])
        self.assertEqual(status, 0, err.getvalue())
        self.assert_untouched(victim)
        self.assertFalse(os.path.islink(os.path.join(plots, "index.html")))
        shutil.rmtree(plots)
        elsewhere = os.path.join(self.tmp, "elsewhere")
        os.makedirs(elsewhere)
        os.symlink(elsewhere, plots)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = plot.main([self.out, "--line", "sm.max_warps", "cycles"])
        self.assertEqual(status, 2)
        self.assertIn(f"{plots} is a symbolic link", err.getvalue())
        self.assertEqual(os.listdir(elsewhere), [])
        with self.assertRaisesRegex(plot.PlotError, r"plots\[0\]: name '\.\.' does not make a file name"):
            plot.check_plots([{"kind": "line", "x": "sm.max_warps", "y": "cycles", "name": ".."}],
                             ["sm.max_warps", "cycles"])

    def test_slurm_files_are_not_written_through_links(self):
        # The Slurm executor's own files: its scripts, chunk lists, job list and staged copies.
        self.make()
        bindir = os.path.join(self.tmp, "slurm-bin")
        os.makedirs(bindir)
        with open(os.path.join(bindir, "sbatch"), "w") as f:
            f.write("#!/bin/sh\necho 42\n")
        os.chmod(os.path.join(bindir, "sbatch"), 0o755)
        with open(os.path.join(self.out, "sweep.json")) as f:
            sweep = json.load(f)
        args = argparse.Namespace(time=None, max_running=None, partition=None, mem=None, shared_dir=None)
        ex = slurm.Executor(self.out, sweep, args)
        sdir = os.path.join(self.out, "slurm")
        os.makedirs(sdir)
        victim = self.victim()
        os.symlink(victim, os.path.join(sdir, "job-0.sh"))
        os.symlink(victim, os.path.join(sdir, "chunks-0.txt"))
        with unittest.mock.patch.dict(os.environ, {"PATH": bindir + os.pathsep + os.environ["PATH"]}):
            self.assertEqual(ex.submit(0, [[0, 1]]), "42")
            self.assert_untouched(victim)
            self.assertTrue(os.access(os.path.join(sdir, "job-0.sh"), os.X_OK))
            os.unlink(os.path.join(sdir, "jobs.txt"))
            os.symlink(victim, os.path.join(sdir, "jobs.txt"))
            with self.assertRaisesRegex(SweepError, "jobs.txt is a symbolic link"):
                ex.submit(1, [[0, 1]])
        self.assert_untouched(victim)
        # OUT/stage is the sweep's own (not followed); a --shared-dir is the user's (followed).
        elsewhere = os.path.join(self.tmp, "elsewhere")
        os.makedirs(elsewhere)
        os.symlink(elsewhere, os.path.join(self.out, "stage"))
        with self.assertRaisesRegex(SweepError, "stage is a symbolic link"):
            slurm.stage_files(sweep, os.path.join(self.out, "stage"), own=True)
        self.assertEqual(os.listdir(elsewhere), [])
        slurm.stage_files(sweep, os.path.join(self.out, "stage"))
        self.assertTrue(os.access(os.path.join(elsewhere, "tessera"), os.X_OK))
        os.unlink(os.path.join(elsewhere, "files", "platform-plat"))
        os.symlink(victim, os.path.join(elsewhere, "files", "platform-plat"))
        slurm.stage_files(sweep, os.path.join(self.out, "stage"))
        self.assert_untouched(victim)
        with open(os.path.join(elsewhere, "files", "platform-plat")) as f:
            self.assertEqual(f.read(), "platform: {name: fake}\n")


if __name__ == "__main__":
    unittest.main()
