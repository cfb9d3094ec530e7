"""The local executor end to end: an interrupted and resumed sweep equals an
uninterrupted one; failing points are recorded and the others complete; a
killed driver leaves no run behind, a second driver in a directory is
refused, an unreadable point record is run again; the inputs' hashes are
recorded and a changed input stops a resume."""
import fcntl
import glob
import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
import unittest

from sweeptest import SweepCase, bad_input_elf, firmware, records, set_record, stored_stats

METRICS = {"cycles": "summary.sim_cycles", "roi_cycles": "roi.sim_cycles",
           "ipc": "roi.warp_insts / roi.sim_cycles", "warp_insts": "summary.warp_insts"}


def twelve_points():
    # 2 programs x 6 memory latencies on one SM: ~0.1 s a point.
    return {"name": "twelve", "platforms": ["sm1"], "programs": [firmware("vecadd"), firmware("saxpy")],
            "parameters": {"memory.latency": {"range": [100, 600, 100]}}, "metrics": METRICS, "timeout": 120}


class InterruptResume(SweepCase):
    def finished(self, out):
        return len(records(out))

    def test_interrupted_and_resumed_equals_uninterrupted(self):
        spec = self.write_spec(twelve_points())
        a, b = os.path.join(self.tmp, "A"), os.path.join(self.tmp, "B")
        r = self.sweep(spec, "-o", a, "-j", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stderr, r"12 ok, 0 failed, 0 fault, 0 timeout of 12")
        # Every point ended ok: its record and statistics are in sweep.db, and no file of it is left.
        self.assertEqual(sorted(os.listdir(a)), ["lock", "points", "results.csv", "sweep.db", "sweep.json"])
        self.assertEqual(os.listdir(os.path.join(a, "points")), [])

        # -j 1 so the interrupt lands with points still to run.
        proc = subprocess.Popen([self.tessera, "sweep", spec, "-o", b, "-j", "1", "-q"], cwd=self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while self.finished(b) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.005)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, err)
        done_before = self.finished(b)
        self.assertGreaterEqual(done_before, 3)
        self.assertLess(done_before, 12, "the sweep finished before the interrupt: cannot test resuming")
        self.assertIn("interrupted (SIGINT)", err)
        self.assertIn(f"{done_before} of 12 points finished", err)
        self.assertIn("--resume", err)
        self.assertEqual(len(self.read_csv(b)), done_before)
        # No tessera of the sweep is left running.
        self.assertEqual(subprocess.run(["pgrep", "-f", os.path.join(b, "points")], capture_output=True).stdout, b"")

        again = self.sweep(spec, "-o", b)
        self.assertEqual(again.returncode, 2)
        self.assertIn("--resume", again.stderr)

        r = self.sweep(spec, "-o", b, "--resume", "-j", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"{12 - done_before} run in", r.stderr)
        rows_a, rows_b = self.read_csv(a), self.read_csv(b)
        self.assertEqual([row["id"] for row in rows_b], [str(i) for i in range(12)])
        keep = ["id", "program", "platform", "repeat", "memory.latency", *METRICS, "status", "exit_code", "message"]
        self.assertEqual([{k: row[k] for k in keep} for row in rows_a], [{k: row[k] for k in keep} for row in rows_b])
        self.assertEqual({row["status"] for row in rows_b}, {"ok"})
        self.assertEqual([row["memory.latency"] for row in rows_b[:6]], ["100", "200", "300", "400", "500", "600"])

        # Each metric is its expression over the point's statistics (kept in OUT/sweep.db).
        self.assertEqual(os.listdir(os.path.join(b, "points")), [], "the files of points that ended ok are removed")
        for row in rows_b:
            stats = stored_stats(b, int(row["id"]))
            self.assertEqual(int(row["cycles"]), stats["summary"]["sim_cycles"])
            self.assertEqual(int(row["roi_cycles"]), stats["roi"]["sim_cycles"])
            self.assertEqual(float(row["ipc"]), stats["roi"]["warp_insts"] / stats["roi"]["sim_cycles"])
            self.assertEqual(stats["config"]["parameters"]["memory.latency"], row["memory.latency"])

        # A changed spec does not resume.
        changed = twelve_points()
        changed["timeout"] = 60
        r = self.sweep(self.write_spec(changed), "-o", b, "--resume")
        self.assertEqual(r.returncode, 2)
        self.assertIn("the spec changed", r.stderr)

    def test_a_closed_terminal_stops_the_sweep_as_ctrl_c_does(self):
        # SIGHUP (a closed terminal or SSH session): runs killed, results.csv written, 130, resumable.
        spec = self.write_spec(twelve_points())
        b = os.path.join(self.tmp, "B")
        proc = subprocess.Popen([self.tessera, "sweep", spec, "-o", b, "-j", "1", "-q"], cwd=self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while self.finished(b) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.005)
        proc.send_signal(signal.SIGHUP)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("interrupted (SIGHUP)", err)
        done_before = self.finished(b)
        self.assertLess(done_before, 12, "the sweep finished before the signal: cannot test it")
        self.assertEqual(len(self.read_csv(b)), done_before)
        self.assertEqual(subprocess.run(["pgrep", "-f", os.path.join(b, "points")], capture_output=True).stdout, b"")
        r = self.sweep(spec, "-o", b, "--resume", "-j", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(self.read_csv(b)), 12)

    def test_command_line_is_recorded(self):
        spec = self.write_spec(dict(twelve_points(), parameters={"memory.latency": [250]}, programs=[firmware("vecadd")]))
        out = os.path.join(self.tmp, "C")
        r = self.sweep(spec, "-o", out, "-q", "--keep-point-files")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "points", "00000", "cmd.txt")) as f:
            cmd = f.read().split()
        self.assertEqual(cmd[:4], [self.tessera, "run", os.path.join(os.path.dirname(os.path.dirname(
            os.path.dirname(os.path.abspath(__file__)))), "platforms", "sm1.yaml"), firmware("vecadd")])
        self.assertIn("memory.latency=250", cmd)
        # the run's own limit: the spec's timeout (120 s) plus 10 s
        self.assertEqual(cmd[cmd.index("--host-timeout") + 1], "130")
        with open(os.path.join(out, "sweep.json")) as f:
            sweep = json.load(f)
        self.assertEqual(sweep["version"], 1)
        self.assertEqual(sweep["points"][0]["params"], {"memory.latency": 250})
        # axis labels from the statistics' descriptions (`tessera run --stats-describe` of a probe)
        self.assertEqual(sweep["metric_labels"], {"cycles": "cycles: cycles simulated (SM clock)",
                                                  "roi_cycles": "roi_cycles: cycles in the region of interest (SM clock)",
                                                  "warp_insts": "warp_insts: warp instructions issued"})
        self.assertEqual(sweep["files"][sweep["points"][0]["program"]], firmware("vecadd"))

    def test_repeats_run_each_point_again(self):
        spec = self.write_spec(dict(twelve_points(), programs=[firmware("vecadd")],
                                    parameters={"memory.latency": [100, 300]}, repeats={"count": 2}))
        out = os.path.join(self.tmp, "R")
        r = self.sweep(spec, "-o", out, "-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.read_csv(out)
        self.assertEqual([(row["memory.latency"], row["repeat"]) for row in rows],
                         [("100", "0"), ("100", "1"), ("300", "0"), ("300", "1")])
        # The model is deterministic: a repeat without a seed parameter gives the same cycles.
        self.assertEqual(rows[0]["cycles"], rows[1]["cycles"])
        self.assertEqual(rows[2]["cycles"], rows[3]["cycles"])
        self.assertNotEqual(rows[0]["cycles"], rows[2]["cycles"])

    def test_fast_forward_points_run_the_set_up_functionally(self):
        # The same points with and without `fast_forward: true`: the control core's instructions before
        # the region of interest move from the detailed count to the fast-forward count, none is lost.
        base = dict(twelve_points(), programs=[firmware("vecadd"), firmware("saxpy")],
                    parameters={"memory.latency": [100, 300]},
                    metrics={"detailed": "chip.cluster.core0.instructions", "ff": "fast_forward.instructions"})
        full, ff = os.path.join(self.tmp, "full"), os.path.join(self.tmp, "ff")
        self.assertEqual(self.sweep(self.write_spec(base, "full.yaml"), "-o", full, "-q").returncode, 0)
        r = self.sweep(self.write_spec(dict(base, fast_forward=True), "ff.yaml"), "-o", ff, "-q", "--keep-point-files")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(ff, "points", "00000", "cmd.txt")) as f:
            self.assertIn("--fast-forward", f.read().split())
        full_rows, ff_rows = self.read_csv(full), self.read_csv(ff)
        self.assertEqual(len(ff_rows), 4)
        for a, b in zip(full_rows, ff_rows):
            self.assertEqual(a["ff"], "")  # a detailed run has no fast_forward object
            self.assertGreater(int(b["ff"]), 1000)
            self.assertLess(int(b["detailed"]), int(a["detailed"]))
            self.assertEqual(int(b["detailed"]) + int(b["ff"]), int(a["detailed"]), (a, b))

    def test_the_specs_plots_are_drawn_when_the_sweep_ends(self):
        spec = self.write_spec(dict(twelve_points(), plots=[{"kind": "line", "x": "memory.latency", "y": "cycles",
                                                              "series": "program"}]))
        out = os.path.join(self.tmp, "P")
        r = self.sweep(spec, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"plots in {os.path.join(out, 'plots', 'index.html')}", r.stderr)
        pngs = glob.glob(os.path.join(out, "plots", "*.png"))
        self.assertEqual(len(pngs), 1, pngs)
        self.assertGreater(os.path.getsize(pngs[0]), 8000)
        with open(os.path.join(out, "plots", "index.html")) as f:
            self.assertIn(os.path.basename(pngs[0]), f.read())

    def test_run_points_runs_only_the_ids_given(self):
        spec = self.write_spec(twelve_points())
        out = os.path.join(self.tmp, "D")
        # Create the sweep without running it: interrupt before any point.
        proc = subprocess.Popen([self.tessera, "sweep", spec, "-o", out, "-j", "1", "-q"], cwd=self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        while not os.path.exists(os.path.join(out, "sweep.json")):
            time.sleep(0.002)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        for f in glob.glob(os.path.join(out, "points", "*", "status.json")):
            os.unlink(f)
        tool = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                            "tools", "tessera-sweep")
        r = subprocess.run([tool, "run-points", out, "--ids", "1,5,7-8"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        done = sorted(int(os.path.basename(os.path.dirname(p)))
                      for p in glob.glob(os.path.join(out, "points", "*", "status.json")))
        self.assertEqual(done, [1, 5, 7, 8])
        r = subprocess.run([tool, "run-points", out, "--ids", "99"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no point 99", r.stderr)


class FailedPoints(SweepCase):
    def test_fault_and_timeout_are_recorded_and_the_others_complete(self):
        spec = self.write_spec({
            "name": "failing", "platforms": ["sm1"],
            "programs": [firmware("vecadd"), bad_input_elf("host_illegal"), bad_input_elf("long_running"),
                         bad_input_elf("barrier_deadlock"), firmware("saxpy")],
            # long_running spins; the watchdog would end it after 10 M cycles (~2 s), so push it far out.
            "parameters": {"watchdog.cycles": [1000000000]},
            "metrics": {"cycles": "summary.sim_cycles", "roi_cycles": "roi.sim_cycles"},
            "timeout": 3})
        out = os.path.join(self.tmp, "F")
        start = time.monotonic()
        r = self.sweep(spec, "-o", out, "-j", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(time.monotonic() - start, 30)
        rows = {row["program"]: row for row in self.read_csv(out)}
        self.assertEqual(rows["vecadd"]["status"], "ok")
        self.assertEqual(rows["saxpy"]["status"], "ok")
        self.assertEqual(rows["bad_input_host_illegal"]["status"], "fault")
        self.assertEqual(rows["bad_input_host_illegal"]["exit_code"], "3")
        self.assertIn("illegal instruction", rows["bad_input_host_illegal"]["message"])
        self.assertEqual(rows["bad_input_long_running"]["status"], "timeout")
        self.assertIn("3 s timeout", rows["bad_input_long_running"]["message"])
        self.assertGreaterEqual(float(rows["bad_input_long_running"]["host_seconds"]), 3)
        self.assertEqual(rows["bad_input_long_running"]["cycles"], "")
        # Threads wait at a barrier that exited threads never reach: tessera
        # reports the deadlock with status 5.
        self.assertEqual(rows["bad_input_barrier_deadlock"]["status"], "failed")
        self.assertEqual(rows["bad_input_barrier_deadlock"]["exit_code"], "5")
        self.assertIn("deadlock", rows["bad_input_barrier_deadlock"]["message"])
        self.assertIn("2 ok, 1 failed, 1 fault, 1 timeout of 5", r.stderr)

    def test_run_points_killed_leaves_the_point_unfinished(self):
        spec = self.write_spec({"name": "killed", "platforms": ["sm1"], "programs": [bad_input_elf("long_running")],
                                "parameters": {"watchdog.cycles": [1000000000]}, "timeout": 60})
        out = os.path.join(self.tmp, "K")
        proc = subprocess.Popen([self.tessera, "sweep", spec, "-o", out, "-q"], cwd=self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        while not os.path.exists(os.path.join(out, "sweep.json")):
            time.sleep(0.002)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        self.assertFalse(os.path.exists(os.path.join(out, "points", "00000", "status.json")))
        tool = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                            "tools", "tessera-sweep")
        worker = subprocess.Popen([tool, "run-points", out, "--ids", "0"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        while not os.path.exists(os.path.join(out, "points", "00000", "cmd.txt")):
            time.sleep(0.01)
        time.sleep(0.3)
        worker.send_signal(signal.SIGTERM)
        worker.communicate(timeout=30)
        self.assertEqual(worker.returncode, 143)
        self.assertFalse(os.path.exists(os.path.join(out, "points", "00000", "status.json")))
        self.assertEqual(subprocess.run(["pgrep", "-f", os.path.join(out, "points")], capture_output=True).stdout,
                         b"")


def long_runs(n):
    """n points that run until their 60 s timeout (a loop the watchdog does not stop)."""
    return {"name": "long", "platforms": ["sm1"], "programs": [bad_input_elf("long_running")],
            "parameters": {"watchdog.cycles": [1000000000 + i for i in range(n)]}, "timeout": 60}


class CrashSafety(SweepCase):
    def runs_of(self, out):
        r = subprocess.run(["pgrep", "-f", os.path.join(out, "points")], capture_output=True, text=True)
        return r.stdout.split()

    def start(self, spec, out, *args):
        proc = subprocess.Popen([self.tessera, "sweep", spec, "-o", out, "-q", *args], cwd=self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while len(self.runs_of(out)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        self.assertEqual(len(self.runs_of(out)), 2, "the sweep's two runs did not start")
        return proc

    def test_a_killed_driver_takes_its_runs_with_it(self):
        # SIGKILL gives the driver no chance to clean up: its runs die with it
        # (a parent-death signal), and its lock is released.
        out = os.path.join(self.tmp, "K")
        proc = self.start(self.write_spec(long_runs(2)), out, "-j", "2")
        proc.kill()
        proc.communicate(timeout=30)
        deadline = time.monotonic() + 10
        while self.runs_of(out) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(self.runs_of(out), [], "a run outlived the killed sweep")
        with open(os.path.join(out, "lock")) as f:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # free: raises if still held
        self.assertEqual(glob.glob(os.path.join(out, "points", "*", "status.json")), [])

    def test_a_second_driver_in_the_directory_is_refused(self):
        spec = self.write_spec(long_runs(2))
        out = os.path.join(self.tmp, "L")
        proc = self.start(spec, out, "-j", "2")
        try:
            r = self.sweep(spec, "-o", out, "--resume")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(f"{out}: another tessera sweep (pid {proc.pid}) is running in this directory", r.stderr)
            self.assertEqual(len(self.runs_of(out)), 2, "the refused driver touched the first one's runs")
        finally:
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130)

    def test_a_results_store_without_its_sweep_is_not_taken_for_a_new_ones(self):
        # Its records would make the new sweep's points look finished.
        spec = twelve_points()
        spec["parameters"] = {"memory.latency": [100]}
        spec["programs"] = [firmware("vecadd")]
        path = self.write_spec(spec)
        out = os.path.join(self.tmp, "S")
        self.assertEqual(self.sweep(path, "-o", out).returncode, 0)
        os.unlink(os.path.join(out, "sweep.json"))
        r = self.sweep(path, "-o", out)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f"{out} holds a results store (sweep.db) but no sweep.json", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "sweep.json")))

    def test_an_unreadable_point_record_is_run_again(self):
        spec = twelve_points()
        spec["parameters"] = {"memory.latency": [100, 200]}
        spec["programs"] = [firmware("vecadd")]
        path = self.write_spec(spec)
        out = os.path.join(self.tmp, "C")
        r = self.sweep(path, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        first = self.read_csv(out)
        # Point 0's record cut short (a full disk), point 1's without a status.
        set_record(out, 0, '{"id": 0, "status": "o')
        set_record(out, 1, '{"id": 1}')
        self.assertEqual(self.read_csv(out), first)  # results.csv is not rewritten until the resume
        r = self.sweep(path, "-o", out, "--resume")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 run in", r.stderr)
        again = self.read_csv(out)
        self.assertEqual([row["status"] for row in again], ["ok", "ok"])
        self.assertEqual([row["cycles"] for row in again], [row["cycles"] for row in first])


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Provenance(SweepCase):
    def test_inputs_are_hashed_and_a_changed_one_stops_a_resume(self):
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        plat = os.path.join(self.tmp, "plat.yaml")
        shutil.copy(os.path.join(repo, "platforms", "sm1.yaml"), plat)
        elf = firmware("vecadd")
        path = self.write_spec({"name": "prov", "platforms": ["plat.yaml"], "programs": [elf],
                                "parameters": {"memory.latency": [100, 200]},
                                "metrics": {"cycles": "summary.sim_cycles"}, "timeout": 120})
        out = os.path.join(self.tmp, "P")
        r = self.sweep(path, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "sweep.json")) as f:
            sweep = json.load(f)
        inputs = sweep["inputs"]
        self.assertEqual(inputs["tessera"]["sha256"], sha256(self.tessera))
        self.assertEqual(inputs["spec"]["sha256"], sha256(path))
        self.assertEqual(sorted(v["sha256"] for v in inputs["files"].values()), sorted([sha256(plat), sha256(elf)]))
        self.assertRegex(sweep["git_commit"] or "", r"^([0-9a-f]{40}(-dirty)?)?$")

        def status(i):
            return records(out)[i]
        old = {"tessera": sha256(self.tessera), "platform": sha256(plat), "program": sha256(elf)}
        self.assertEqual([status(i)["inputs"] for i in (0, 1)], [old, old])

        # The platform changes (one byte more) with point 1 unfinished.
        set_record(out, 1, None)
        with open(plat, "a") as f:
            f.write("# changed\n")
        r = self.sweep(path, "-o", out, "--resume")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("input changed since", r.stderr)
        self.assertIn(plat, r.stderr)
        self.assertNotIn(1, records(out), "refused yet ran")
        r = self.sweep(path, "-o", out, "--resume", "--allow-changed")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(status(0)["inputs"], old)
        self.assertEqual(status(1)["inputs"], {**old, "platform": sha256(plat)})
        self.assertNotEqual(sha256(plat), old["platform"])
        # results.csv carries each row's inputs: the two rows differ in the platform's.
        rows = self.read_csv(out)
        short = {k: v[:12] for k, v in old.items()}
        self.assertEqual(rows[0]["inputs"], f"tessera={short['tessera']} platform={short['platform']} "
                                            f"program={short['program']}")
        self.assertEqual(rows[1]["inputs"], f"tessera={short['tessera']} platform={sha256(plat)[:12]} "
                                            f"program={short['program']}")


if __name__ == "__main__":
    unittest.main()
