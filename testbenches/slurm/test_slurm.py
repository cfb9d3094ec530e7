"""The Slurm executor of `tessera sweep`, against a real one-node Slurm started here.

Environment (set by CTest): TESSERA_BIN (the tessera binary), TESSERA_SOURCE_DIR
(the source tree: tools/tessera-sweep). SlurmCluster needs root, munge and
slurm-wlm; without them it fails saying why (slurm_cluster.SlurmHarnessError).
"""

import csv
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("TESSERA_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
TOOLS = os.path.join(SOURCE, "tools")
sys.path.insert(0, TOOLS)
sys.path.insert(0, HERE)

from tessera_sweep import slurm  # noqa: E402
import slurm_cluster  # noqa: E402

TESSERA = os.environ.get("TESSERA_BIN", os.path.join(SOURCE, "build", "tessera"))
SWEEP_TOOL = os.path.join(TOOLS, "tessera-sweep")


def twelve_point_spec(directory):
    """The 12-point spec of the local executor's acceptance test (testbenches/sweep/test_local.py:
    vecadd and saxpy on sm1 x 6 memory latencies), written to directory; this directory's own
    twelve_points.yaml (the same points) when that test is not in the tree."""
    sweep_tests = os.path.join(SOURCE, "testbenches", "sweep")
    if os.path.exists(os.path.join(sweep_tests, "test_local.py")):
        import yaml
        sys.path.insert(0, sweep_tests)
        os.environ.setdefault("TESSERA_FIRMWARE", os.path.join(os.path.dirname(TESSERA), "firmware"))
        from test_local import twelve_points
        path = os.path.join(directory, "twelve.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(twelve_points(), f, sort_keys=False)
        return path
    return os.path.join(HERE, "twelve_points.yaml")


def sweep(args, env=None, timeout=500):
    return subprocess.run(["/usr/bin/python3", SWEEP_TOOL, "--tessera", TESSERA] + args, capture_output=True,
                          text=True, env=env, timeout=timeout)


def start_cluster(prefix, **limits):
    """(a temporary directory, a started one-node Slurm with slurm_cluster.LocalSlurm's limits);
    both are cleaned up when the start fails."""
    tmp = tempfile.TemporaryDirectory(prefix=prefix)
    cluster = slurm_cluster.LocalSlurm(start_timeout=60, **limits)
    try:
        cluster.start()
    except BaseException:
        cluster.stop()
        tmp.cleanup()
        raise
    return tmp, cluster


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class SlurmPieces(unittest.TestCase):
    """The executor's pure parts: chunking, the batch script, squeue/scontrol parsing."""

    def test_chunk_size_3_makes_4_chunks_of_consecutive_ids(self):
        self.assertEqual(slurm.make_chunks(range(12), 3), [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]])

    def test_default_chunking_keeps_at_most_100_tasks(self):
        # 250 points: ceil(250 / 100) = 3 per task -> ceil(250 / 3) = 84 tasks, the last holding 250 - 83*3 = 1.
        chunks = slurm.make_chunks(range(250))
        self.assertEqual(len(chunks), 84)
        self.assertEqual(chunks[-1], [249])
        self.assertEqual(len(slurm.make_chunks(range(100))), 100)
        self.assertEqual(len(slurm.make_chunks(range(101))), 51)  # 2 per task
        self.assertEqual(slurm.make_chunks([]), [])

    def test_unfinished_ids_keep_their_order_in_chunks(self):
        self.assertEqual(slurm.make_chunks([1, 4, 5, 9, 11], 2), [[1, 4], [5, 9], [11]])

    def test_chunk_size_0_is_refused(self):
        with self.assertRaisesRegex(slurm.SlurmError, "--chunk-size must be at least 1"):
            slurm.make_chunks(range(3), 0)

    def test_the_clusters_limits_are_read_from_scontrol_and_sinfo(self):
        self.assertEqual(slurm.parse_config_limits("MaxArraySize            = 1001\nMaxJobCount             = 10000\n"
                                                   "MaxStepCount            = 40000\n"),
                         {"MaxArraySize": 1001, "MaxJobCount": 10000})
        self.assertEqual(slurm.parse_partitions("debug*|1:00:00|0/8/0/8\nlong|2-00:00:00|4/60/0/64\n"
                                                "any|infinite|0/2/0/2\n"),
                         ({"debug": (60, 8), "long": (2880, 64), "any": (None, 2)}, "debug"))
        for text, minutes in (("30", 30), ("30:30", 30.5), ("1:30:00", 90), ("1-0", 1440), ("1-2:30", 1590),
                              ("UNLIMITED", None)):
            self.assertEqual(slurm.parse_minutes(text), minutes, text)

    def test_100000_points_are_planned_within_every_limit(self):
        limits = {"partition": "batch", "max_array_size": 1001, "max_job_count": 10000, "max_time": 24 * 60,
                  "cpus": 512}
        chunk, tasks, minutes = slurm.plan(100_000, 600, limits)
        self.assertEqual((chunk, tasks), (100, 1000))  # 2,048 tasks wanted (4 a CPU), 1,001 allowed
        self.assertLessEqual(tasks, 1001)  # array indices 0..1000: less than MaxArraySize
        self.assertEqual(minutes, 100 * 10 + 5)  # 100 points at 600 s, + 5 minutes, within 24 h
        # a shorter MaxTime shrinks the chunks, until they are more than an array holds
        with self.assertRaisesRegex(slurm.SlurmError, r"100,000 points in chunks of 5 make 20,000 array tasks, more "
                                    r"than the cluster allows in one array \(1,001: MaxArraySize 1,001, MaxJobCount "
                                    r"10,000\); even 100 points a task would outlast partition batch's MaxTime "
                                    r"\(1:00:00\)"):
            slurm.plan(100_000, 600, dict(limits, max_time=60))
        self.assertEqual(slurm.plan(100_000, 30, dict(limits, max_time=60)), (100, 1000, 55))
        # the cluster's width sets the default chunks of a small sweep
        self.assertEqual(slurm.plan(1_000, 60, dict(limits, cpus=8))[:2], (10, 100))
        self.assertEqual(slurm.plan(1_000, 60, dict(limits, cpus=64))[:2], (4, 250))

    def test_options_beyond_the_limits_are_refused_with_what_would_fit(self):
        limits = {"partition": "debug", "max_array_size": 11, "max_job_count": 10000, "max_time": 60, "cpus": 2}
        with self.assertRaisesRegex(slurm.SlurmError, r"--time 2:00:00 is more than partition debug's MaxTime "
                                    r"\(1:00:00\); give --time 1:00:00 or less"):
            slurm.plan(12, 60, limits, time_limit="2:00:00")
        with self.assertRaisesRegex(slurm.SlurmError, r"12 points in chunks of 1 make 12 array tasks, more than the "
                                    r"cluster allows in one array \(11: .*\); give --chunk-size 2 or more"):
            slurm.plan(12, 60, limits, chunk_size=1)
        with self.assertRaisesRegex(slurm.SlurmError, r"--chunk-size 12 at the spec's timeout \(600 s a point\) needs "
                                    r"2:05:00 a task, more than partition debug's MaxTime \(1:00:00\); give a "
                                    r"--chunk-size of at most 5"):
            slurm.plan(12, 600, limits, chunk_size=12)
        with self.assertRaisesRegex(slurm.SlurmError, r"the spec's timeout \(3600 s\) plus 5 minutes is more than "
                                    r"partition debug's MaxTime"):
            slurm.plan(12, 3600, limits)

    def test_progress_counts_the_points_of_the_tasks_squeue_no_longer_lists(self):
        import io
        out = io.StringIO()
        p = slurm._Progress(list(range(12)), None, out)
        p.resubmitted([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]])
        p.update({0: "RUNNING", 1: "PENDING", None: "PENDING"})  # tasks 2 and 3 have finished
        self.assertEqual(p.done, 6)
        p.show(42, {0: "RUNNING", 1: "PENDING"}, force=True)
        self.assertRegex(out.getvalue(), r"^slurm job 42: 6/12 points done; tasks 1 pending, 1 running; ")
        p.resubmitted([[3, 4, 5]])  # a retry of one chunk: the other 9 points are finished
        p.update({0: "PENDING"})
        self.assertEqual(p.done, 9)
        p.final(10, 2)
        p.show(43, {}, force=True)
        self.assertIn("slurm job 43: 12/12 points done, 2 failed; tasks 0 pending, 0 running;", out.getvalue())

    def test_default_time_limit_covers_every_point_at_its_timeout(self):
        self.assertEqual(slurm.default_time_limit(3, 120), 6 + 5)  # 3 x 120 s = 6 min, + 5 min slack
        self.assertEqual(slurm.default_time_limit(1, 61), 2 + 5)  # 61 s rounds up to 2 min

    def test_batch_script_has_the_options_and_runs_the_chunk_of_its_task(self):
        s = slurm.batch_script(name="w", out_dir="/s/out", stage="/s/stage", chunks_file="/s/out/slurm/chunks-0.txt",
                               ntasks=4, max_running=2, output_pattern="/s/out/slurm/task-%A_%a.out",
                               partition="debug", time_limit="30", mem="2G")
        lines = s.splitlines()
        self.assertEqual(lines[0], "#!/bin/bash")
        for want in ("#SBATCH --array=0-3%2", "#SBATCH --output=/s/out/slurm/task-%A_%a.out",
                     "#SBATCH --partition=debug", "#SBATCH --time=30", "#SBATCH --mem=2G",
                     "#SBATCH --job-name=tessera-w"):
            self.assertIn(want, lines)
        self.assertIn('sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" /s/out/slurm/chunks-0.txt', s)
        self.assertEqual(lines[-1], 'exec /usr/bin/python3 /s/stage/tools/tessera-sweep run-points /s/out '
                         '--ids "$ids" --stage /s/stage')
        unthrottled = slurm.batch_script(name="w", out_dir="/o", stage="/t", chunks_file="/c", ntasks=1,
                                         max_running=None, output_pattern="/o/x")
        self.assertIn("#SBATCH --array=0-0", unthrottled.splitlines())
        self.assertNotIn("--partition", unthrottled)

    def test_a_path_with_a_space_is_refused_in_sbatch_lines(self):
        with self.assertRaisesRegex(slurm.SlurmError, "contains a space"):
            slurm.batch_script(name="w", out_dir="/o", stage="/t", chunks_file="/c", ntasks=1, max_running=None,
                               output_pattern="/my dir/x")

    def test_squeue_lines_give_each_task_its_state(self):
        text = "17_[4-7%2] PENDING\n17_0 RUNNING\n17_1 RUNNING\n17_2 COMPLETING\n"
        got = slurm.parse_squeue(text)
        self.assertEqual({k: v for k, v in got.items() if k is not None},
                         {0: "RUNNING", 1: "RUNNING", 2: "COMPLETING", 4: "PENDING", 5: "PENDING", 6: "PENDING",
                          7: "PENDING"})

    def test_scontrol_lines_give_each_task_its_final_state(self):
        text = ("JobId=21 ArrayJobId=20 ArrayTaskId=1 JobName=x JobState=FAILED Reason=NonZeroExitCode ExitCode=2:0\n"
                "JobId=20 ArrayJobId=20 ArrayTaskId=0 JobName=x JobState=COMPLETED Reason=None ExitCode=0:0\n")
        self.assertEqual(slurm.parse_scontrol_tasks(text), {0: ("COMPLETED", "0:0"), 1: ("FAILED", "2:0")})


class SlurmHarness(unittest.TestCase):
    """The harness refuses, saying why, where the daemons cannot start (here: not root)."""

    def test_not_root_fails_with_the_reason(self):
        if os.geteuid() != 0:
            argv = ["/usr/bin/python3", os.path.join(HERE, "slurm_cluster.py")]
        else:  # drop to an unprivileged user to see the refusal
            argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3",
                    os.path.join(HERE, "slurm_cluster.py")]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd="/")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("needs root", r.stderr)
        self.assertNotIn("Traceback", r.stderr)


class SlurmUnreachable(unittest.TestCase):
    """A controller that does not answer is refused before any point runs, naming the command."""

    def test_sweep_is_refused_naming_sinfo(self):
        with tempfile.TemporaryDirectory(prefix="tessera-slurm-down-") as d:
            port = slurm_cluster._free_ports(1)[0]  # nothing listens there
            conf = os.path.join(d, "slurm.conf")
            with open(conf, "w") as f:
                f.write(f"ClusterName=down\nSlurmctldHost=localhost\nSlurmctldPort={port}\n"
                        f"AuthType=auth/munge\nAuthInfo=socket={d}/no-munge.socket\n"
                        "NodeName=localhost CPUs=1 State=UNKNOWN\nPartitionName=debug Nodes=localhost Default=YES\n")
            env = dict(os.environ, SLURM_CONF=conf)
            out = os.path.join(d, "out")
            r = sweep([twelve_point_spec(d), "-o", out, "--executor", "slurm", "--chunk-size", "3"], env=env,
                      timeout=120)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("`sinfo", r.stderr)
            self.assertIn("failed with exit status", r.stderr)
            self.assertNotIn("Traceback", r.stderr)
            self.assertEqual(glob.glob(os.path.join(out, "points", "*", "status.json")), [])
            self.assertEqual(glob.glob(os.path.join(out, "points", "*", "stats.json")), [])
            self.assertFalse(os.path.exists(os.path.join(out, "slurm")), "nothing was submitted")
            self.assertFalse(os.path.exists(out), "a refused sweep leaves no sweep directory behind")

    def test_bad_executor_options_are_refused_before_slurm_is_asked(self):
        with tempfile.TemporaryDirectory(prefix="tessera-slurm-opts-") as d:
            env = dict(os.environ, SLURM_CONF=os.path.join(d, "absent.conf"))
            for opts, message in ((["--chunk-size", "0"], "--chunk-size 0: must be at least 1"),
                                  (["--max-running", "0"], "--max-running 0: must be at least 1"),
                                  (["--retries", "-1"], "--retries -1: must be at least 0"),
                                  (["--poll", "0"], "--poll 0.0: must be more than 0 seconds")):
                out = os.path.join(d, "out" + opts[0])
                r = sweep([twelve_point_spec(d), "-o", out, "--executor", "slurm"] + opts, env=env, timeout=60)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(f"tessera sweep: error: {message}", r.stderr)
                self.assertEqual(glob.glob(os.path.join(out, "points", "*", "status.json")), [])


class SlurmCluster(unittest.TestCase):
    """The 12-point sweep as a job array on a real slurmctld + slurmd, against the local executor."""

    @classmethod
    def setUpClass(cls):
        # The sweep directory must be readable by slurmd's tasks: they run as root here too.
        t0 = time.monotonic()
        cls.tmp, cls.cluster = start_cluster("tessera-slurm-test-")
        print(f"\nlocal Slurm started in {time.monotonic() - t0:.2f} s", file=sys.stderr)
        cls.local_dir = os.path.join(cls.tmp.name, "local")
        cls.spec = twelve_point_spec(cls.tmp.name)
        t0 = time.monotonic()
        r = sweep([cls.spec, "-o", cls.local_dir, "-j", "2"])
        print(f"12-point local sweep: {time.monotonic() - t0:.2f} s", file=sys.stderr)
        if r.returncode != 0:
            cls.cluster.stop()
            raise AssertionError(f"the local sweep failed ({r.returncode}): {r.stderr}")

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stop()
        cls.tmp.cleanup()

    def slurm_sweep(self, out, extra=(), **kw):
        return sweep([self.spec, "-o", out, "--executor", "slurm", "--chunk-size", "3", "--poll", "0.5"] + list(extra),
                     env=self.cluster.env(), **kw)

    def assert_same_results(self, out):
        a = read_csv(os.path.join(self.local_dir, "results.csv"))
        b = read_csv(os.path.join(out, "results.csv"))
        self.assertEqual([row["id"] for row in b], [str(i) for i in range(12)], "every point exactly once, by id")
        self.assertEqual(len(a), 12)
        columns = [c for c in a[0] if c != "host_seconds"]
        self.assertEqual(list(b[0]), list(a[0]))
        for ra, rb in zip(a, b):
            self.assertEqual({c: rb[c] for c in columns}, {c: ra[c] for c in columns})
            self.assertEqual(rb["status"], "ok")
        for metric in ("cycles", "roi_cycles", "ipc"):
            if metric in a[0]:
                self.assertTrue(all(row[metric] for row in b), f"{metric} filled in every row")

    def test_twelve_points_as_4_array_tasks_equal_the_local_run(self):
        out = os.path.join(self.tmp.name, "slurm")
        t0 = time.monotonic()
        r = self.slurm_sweep(out, ["--keep-point-files"])
        print(f"12-point Slurm sweep (4 tasks of 3): {time.monotonic() - t0:.2f} s", file=sys.stderr)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_same_results(out)
        with open(os.path.join(out, "slurm", "chunks-0.txt")) as f:
            self.assertEqual(f.read(), "0,1,2\n3,4,5\n6,7,8\n9,10,11\n")
        with open(os.path.join(out, "slurm", "jobs.txt")) as f:
            jobs = [line.split() for line in f]
        self.assertEqual(len(jobs), 1, "no resubmission when every point finished")
        job = jobs[0][1]
        self.assertEqual(jobs[0], ["0", job, "4"])
        for task in range(4):
            with open(os.path.join(out, "slurm", f"task-{job}_{task}.out")) as f:
                first = f.readline()
            ids = ",".join(str(3 * task + k) for k in range(3))
            self.assertRegex(first, rf"^array task {task} on .*: points {ids}$")
        # The nodes ran the staged binary, not the build tree's.
        with open(os.path.join(out, "points", "00007", "cmd.txt")) as f:
            self.assertIn(os.path.join(out, "stage", "tessera"), f.read())
        self.assertIn("12 ok", r.stderr)

    def test_failed_points_are_recorded_once_and_not_resubmitted(self):
        # vecadd and saxpy launch 2048 threads = 64 warps: with sm.max_warps=16 tessera refuses the
        # configuration (exit 2, "failed"); with 64 they run.
        spec = os.path.join(self.tmp.name, "failing.yaml")
        with open(spec, "w") as f:
            f.write("name: failing\nplatforms: [sm1]\nprograms: [vecadd, saxpy]\n"
                    "parameters: {sm.max_warps: [64, 16]}\nmetrics: {cycles: summary.sim_cycles}\ntimeout: 60\n")
        out = os.path.join(self.tmp.name, "failing")
        r = sweep([spec, "-o", out, "--executor", "slurm", "--chunk-size", "2", "--poll", "0.5"],
                  env=self.cluster.env())
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = read_csv(os.path.join(out, "results.csv"))
        self.assertEqual([(row["id"], row["program"], row["sm.max_warps"], row["status"], row["exit_code"])
                          for row in rows],
                         [("0", "vecadd", "64", "ok", "0"), ("1", "vecadd", "16", "failed", "2"),
                          ("2", "saxpy", "64", "ok", "0"), ("3", "saxpy", "16", "failed", "2")])
        self.assertIn("sm.max_warps=16", rows[1]["message"])
        self.assertEqual(rows[1]["cycles"], "")
        with open(os.path.join(out, "slurm", "jobs.txt")) as f:
            self.assertEqual(len(f.readlines()), 1, "a failed point is finished: no resubmission")
        self.assertIn("2 ok, 2 failed, 0 fault, 0 timeout of 4", r.stderr)

    def start_and_cancel_last_task(self, out, retries):
        """Runs tasks one at a time and cancels the last (pending) task: its 3 points stay unfinished."""
        p = subprocess.Popen(["/usr/bin/python3", SWEEP_TOOL, "--tessera", TESSERA, self.spec, "-o", out, "--executor",
                              "slurm", "--chunk-size", "3", "--max-running", "1", "--retries", str(retries), "--poll",
                              "0.5"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=self.cluster.env())
        jobs = os.path.join(out, "slurm", "jobs.txt")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not os.path.exists(jobs):
            time.sleep(0.05)
        with open(jobs) as f:
            job = f.readline().split()[1]
        c = subprocess.run(["scancel", f"{job}_3"], capture_output=True, text=True, env=self.cluster.env())
        self.assertEqual(c.returncode, 0, c.stderr)
        _, err = p.communicate(timeout=300)
        return p.returncode, err, job

    def test_a_chunk_whose_task_was_cancelled_is_resubmitted(self):
        out = os.path.join(self.tmp.name, "retried")
        rc, err, job = self.start_and_cancel_last_task(out, retries=2)
        self.assertEqual(rc, 0, err)
        self.assertIn("3 points of job", err)
        # A pending task cancelled leaves no job record (scontrol), and there is no accounting (sacct).
        self.assertIn("task 3: no record left (cancelled before it started", err)
        self.assertIn("resubmitting 1 chunks (retry 1 of 2)", err)
        with open(os.path.join(out, "slurm", "chunks-1.txt")) as f:
            self.assertEqual(f.read(), "9,10,11\n")
        with open(os.path.join(out, "slurm", "jobs.txt")) as f:
            jobs = [line.split() for line in f]
        self.assertEqual([(j[0], j[2]) for j in jobs], [("0", "4"), ("1", "1")])
        self.assert_same_results(out)

    def test_points_left_after_the_retries_are_reported_unfinished(self):
        out = os.path.join(self.tmp.name, "no_retry")
        rc, err, job = self.start_and_cancel_last_task(out, retries=0)
        self.assertEqual(rc, 1, err)
        self.assertIn("3 points did not finish after 0 retries", err)
        self.assertIn("--resume", err)
        self.assertIn("9 ok, 0 failed, 0 fault, 0 timeout, 3 unfinished of 12", err)
        rows = read_csv(os.path.join(out, "results.csv"))
        self.assertEqual([row["id"] for row in rows], [str(i) for i in range(9)])
        r = self.slurm_sweep(out, ["--resume"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_same_results(out)

    def start_slow_sweep(self, out):
        """The 12 points as one point per task, at most one task at a time (so
        the sweep is still running when stopped), once a point has finished."""
        p = subprocess.Popen(["/usr/bin/python3", SWEEP_TOOL, "--tessera", TESSERA, self.spec, "-o", out, "--executor",
                              "slurm", "--chunk-size", "1", "--max-running", "1", "--poll", "0.5"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.cluster.env())
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not glob.glob(os.path.join(out, "points", "*", "status.json")):
            time.sleep(0.1)
        return p

    def test_interrupted_slurm_sweep_is_cancelled_and_resumed(self):
        out = os.path.join(self.tmp.name, "interrupted")
        p = self.start_slow_sweep(out)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("cancelled Slurm job", err)
        self.assertIn("--resume", err)
        with open(os.path.join(out, "slurm", "jobs.txt")) as f:
            job = f.readline().split()[1]
        # scancel is asynchronous: wait until the controller has no task of the job left.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            q = subprocess.run(["squeue", "-h", "-j", job], capture_output=True, text=True, env=self.cluster.env())
            if not q.stdout.strip():
                break
            time.sleep(0.2)
        self.assertEqual(q.stdout.strip(), "", "the cancelled array left the queue")
        finished = len(glob.glob(os.path.join(out, "points", "*", "status.json")))
        self.assertLess(finished, 12, "interrupted before the end")
        r = self.slurm_sweep(out, ["--resume"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_same_results(out)

    def test_a_killed_drivers_array_is_waited_for_not_submitted_again(self):
        out = os.path.join(self.tmp.name, "killed")
        p = self.start_slow_sweep(out)
        p.kill()  # no chance to cancel its array
        p.communicate(timeout=60)
        with open(os.path.join(out, "slurm", "jobs.txt")) as f:
            job = f.readline().split()[1]
        self.assertLess(len(glob.glob(os.path.join(out, "points", "*", "status.json"))), 12, "killed before the end")
        r = self.slurm_sweep(out, ["--resume"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"Slurm job {job} of an earlier run of this sweep is still there", r.stderr)
        with open(os.path.join(out, "slurm", "jobs.txt")) as f:
            self.assertEqual(len(f.read().splitlines()), 1, "--resume submitted a second array")
        self.assert_same_results(out)

    def test_a_search_asks_for_the_same_configurations_as_on_the_local_executor(self):
        import yaml
        with open(self.spec) as f:
            spec = yaml.safe_load(f)
        spec["name"] = "slurm_search"
        spec["search"] = {"objectives": {"cycles": "minimize"}, "trials": 4, "seed": 2, "batch": 2}
        path = os.path.join(self.tmp.name, "search.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(spec, f)
        reports = []
        for executor, out in (("local", "search-local"), ("slurm", "search-slurm")):
            out = os.path.join(self.tmp.name, out)
            extra = ["--executor", "slurm", "--poll", "0.5"] if executor == "slurm" else ["-j", "2"]
            r = sweep([path, "-o", out] + extra, env=self.cluster.env())
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(out, "search.json")) as f:
                reports.append(json.load(f))
            self.assertEqual(len(read_csv(os.path.join(out, "results.csv"))), 8)  # 4 configurations x 2 programs
        local, slurm = reports
        self.assertEqual(len(local["run"]), 4)
        self.assertEqual(slurm["run"], local["run"])  # the same configurations, in order, with the same values
        self.assertEqual(slurm["best"], local["best"])
        with open(os.path.join(self.tmp.name, "search-slurm", "slurm", "jobs.txt")) as f:
            self.assertEqual(len(f.read().splitlines()), 2, "one job array per batch of 2 configurations")


class SlurmLimits(unittest.TestCase):
    """A one-node Slurm with lowered limits (MaxArraySize 4, the partition's MaxTime 15 minutes):
    sweeps beyond them are refused before anything is created, naming the limit and what would
    fit, and the default chunking fits within them."""

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.cluster = start_cluster("tessera-slurm-limits-", max_array_size=4, max_time=15)
        cls.spec = twelve_point_spec(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stop()
        cls.tmp.cleanup()

    def refused(self, extra, message):
        out = os.path.join(self.tmp.name, "refused")
        r = sweep([self.spec, "-o", out, "--executor", "slurm"] + extra, env=self.cluster.env())
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertRegex(r.stderr, message)
        self.assertFalse(os.path.exists(out), "nothing is created for a refused sweep")

    def test_beyond_the_limits_is_refused_before_anything_is_created(self):
        self.refused(["--chunk-size", "2"], r"12 points in chunks of 2 make 6 array tasks, more than the cluster "
                     r"allows in one array \(4: MaxArraySize 4, MaxJobCount [\d,]+\); give --chunk-size 3 or more")
        self.refused(["--time", "30"], r"--time 30 is more than partition debug's MaxTime \(0:15:00\)")
        self.refused(["--chunk-size", "12"], r"--chunk-size 12 at the spec's timeout \(120 s a point\) needs 0:29:00 "
                     r"a task, more than partition debug's MaxTime \(0:15:00\); give a --chunk-size of at most 5")

    def test_the_default_chunks_fit_the_limits_and_run(self):
        out = os.path.join(self.tmp.name, "fits")
        r = sweep([self.spec, "-o", out, "--executor", "slurm", "--poll", "0.5"], env=self.cluster.env())
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "slurm", "chunks-0.txt")) as f:
            self.assertEqual(len(f.read().splitlines()), 4)  # 4 tasks of 3: MaxArraySize 4
        with open(os.path.join(out, "slurm", "job-0.sh")) as f:
            self.assertIn("#SBATCH --time=11\n", f.read())  # 3 points at 120 s, + 5 minutes, within 15
        self.assertEqual(len(read_csv(os.path.join(out, "results.csv"))), 12)


if __name__ == "__main__":
    unittest.main()
