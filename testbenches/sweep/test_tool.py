"""Sweeps over the standalone model tools (`tool: dram`, `tool: noc`): each
point is `tessera TOOL TOOL_ARGS... --opt value... --set k=v... --json`, its
JSON on stdout is the point's statistics. The metrics are checked against the
same command run here by hand; bad specs are refused before any point runs."""
import json
import os
import shlex
import stat
import subprocess
import sys

from sweeptest import SweepCase, set_record

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SWEEP_TOOL = os.path.join(REPO, "tools", "tessera-sweep")
sys.path.insert(0, os.path.join(REPO, "tools"))

from tessera_sweep import runner, slurm  # noqa: E402

PATTERNS = ["stream", "random"]
POLICIES = ["open", "closed", "adaptive"]


def dram_spec():
    return {"name": "dram_tool", "tool": "dram", "tool_args": ["--requests", 3000, "--read-ratio", "0.7"],
            "parameters": {"--pattern": PATTERNS, "page_policy": POLICIES},
            "metrics": {"bw": "bandwidth_gbps", "lat": "avg_read_latency_ns",
                        "hit_pct": "row_hit_rate * 100", "bytes_per_act": "bytes / acts"}}


class ToolCase(SweepCase):
    def run_sweep(self, *args, timeout=120):
        # The worktree's sweep tool itself, on the tessera under test.
        return subprocess.run(["/usr/bin/python3", SWEEP_TOOL, "--tessera", self.tessera] + list(args),
                              capture_output=True, text=True, timeout=timeout, cwd=self.tmp)

    def by_hand(self, *args):
        r = subprocess.run([self.tessera] + list(args), capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)


class DramSweep(ToolCase):
    def test_grid_metrics_cmd_and_resume(self):
        spec = self.write_spec(dram_spec())
        out = os.path.join(self.tmp, "OUT")
        r = self.run_sweep(spec, "-o", out, "-j", "2", "-q", "--keep-point-files")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.read_csv(out)
        self.assertEqual(len(rows), 6)
        # Grid order: the first parameter outermost.
        expect = [(p, q) for p in PATTERNS for q in POLICIES]
        self.assertEqual([(row["--pattern"], row["page_policy"]) for row in rows], expect)
        for row in rows:
            self.assertEqual((row["status"], row["exit_code"], row["message"]), ("ok", "0", ""))
            self.assertEqual((row["program"], row["platform"]), ("tessera dram", "dram"))
        for pid in (1, 3):  # stream/closed and random/open
            pattern, policy = expect[pid]
            cmd = [self.tessera, "dram", "--requests", "3000", "--read-ratio", "0.7", "--pattern", pattern,
                   "--set", f"page_policy={policy}", "--json"]
            pdir = os.path.join(out, "points", f"{pid:05d}")
            with open(os.path.join(pdir, "cmd.txt")) as f:
                self.assertEqual(f.read(), shlex.join(cmd) + "\n")
            hand = self.by_hand(*cmd[1:])
            with open(os.path.join(pdir, "stats.json")) as f:
                saved = json.load(f)
            for k in ("host_seconds", "requests_per_host_second"):  # wall-clock figures
                hand.pop(k)
                saved.pop(k)
            self.assertEqual(saved, hand)
            self.assertEqual(hand["requests"], 3000)
            self.assertEqual(hand["pattern"], pattern)
            want = {"bw": hand["bandwidth_gbps"], "lat": hand["avg_read_latency_ns"],
                    "hit_pct": hand["row_hit_rate"] * 100, "bytes_per_act": hand["bytes"] / hand["acts"]}
            with open(os.path.join(pdir, "status.json")) as f:
                st = json.load(f)
            self.assertEqual(st["metrics"], want)
            self.assertEqual({k: float(rows[pid][k]) for k in want}, want)
        # The two patterns differ (random traffic hits no open row).
        self.assertGreater(float(rows[0]["hit_pct"]), 50)
        self.assertEqual(float(rows[3]["hit_pct"]), 0)

        # Resume: two points lose their status; only they run again.
        first = os.path.join(out, "points", "00000", "status.json")
        mtime = os.stat(first).st_mtime_ns
        for pid in (2, 5):
            set_record(out, pid, None)
            os.unlink(os.path.join(out, "points", f"{pid:05d}", "status.json"))
        r = self.run_sweep(spec, "-o", out, "-q")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--resume", r.stderr)
        r = self.run_sweep(spec, "-o", out, "--resume", "-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.stat(first).st_mtime_ns, mtime, "a finished point ran again")
        again = self.read_csv(out)
        self.assertEqual([row["status"] for row in again], ["ok"] * 6)
        for a, b in zip(rows, again):
            self.assertEqual({k: a[k] for k in ("bw", "lat", "hit_pct", "bytes_per_act")},
                             {k: b[k] for k in ("bw", "lat", "hit_pct", "bytes_per_act")})

    def test_parameter_in_tool_args(self):
        s = dram_spec()
        s["metrics"] = {"n": "requests"}
        out = os.path.join(self.tmp, "OUT")
        s["parameters"] = {"dram.read_queue": [8, 16]}
        s["tool_args"] = ["--requests", "700", "--seed", "{dram.read_queue}"]
        r = self.run_sweep(self.write_spec(s), "-o", out, "-q", "--keep-point-files")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "points", "00001", "cmd.txt")) as f:
            self.assertEqual(f.read(), shlex.join([self.tessera, "dram", "--requests", "700", "--seed", "16", "--set",
                                                   "dram.read_queue=16", "--json"]) + "\n")
        self.assertEqual([row["n"] for row in self.read_csv(out)], ["700", "700"])


    def test_repeats_over_a_tool_option(self):
        s = {"tool": "dram", "tool_args": ["--requests", "500", "--pattern", "random"],
             "repeats": {"count": 2, "parameter": "--seed"}, "metrics": {"lat": "avg_read_latency_ns"}}
        out = os.path.join(self.tmp, "OUT")
        r = self.run_sweep(self.write_spec(s), "-o", out, "-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.read_csv(out)
        self.assertEqual([(row["repeat"], row["--seed"]) for row in rows], [("0", "1"), ("1", "2")])
        hand = self.by_hand("dram", "--requests", "500", "--pattern", "random", "--seed", "2", "--json")
        self.assertEqual(float(rows[1]["lat"]), hand["avg_read_latency_ns"])


class NocSweep(ToolCase):
    def test_noc_points_equal_the_tool(self):
        spec = {"tool": "noc", "parameters": {"--topology": ["mesh", "ring"], "noc.rate": [0.05]},
                "metrics": {"lat": "avg_packet_latency_cycles", "acc": "accepted_flits_per_node_cycle"}}
        out = os.path.join(self.tmp, "OUT")
        r = self.run_sweep(self.write_spec(spec), "-o", out, "-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.read_csv(out)
        self.assertEqual([(row["--topology"], row["status"], row["program"]) for row in rows],
                         [("mesh", "ok", "tessera noc"), ("ring", "ok", "tessera noc")])
        hand = self.by_hand("noc", "--topology", "ring", "--set", "noc.rate=0.05", "--json")
        self.assertEqual((float(rows[1]["lat"]), float(rows[1]["acc"])),
                         (hand["avg_packet_latency_cycles"], hand["accepted_flits_per_node_cycle"]))


class ToolPoint(ToolCase):
    def test_exit_0_without_json_fails_saying_so(self):
        fake = os.path.join(self.tmp, "quiet_tessera")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'not json'\nexit 0\n")
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
        out = os.path.join(self.tmp, "OUT")
        os.makedirs(os.path.join(out, "points"))
        sweep = {"tessera": fake, "files": {}, "metrics": {"bw": "bandwidth_gbps"}, "timeout": 10}
        point = {"id": 0, "tool": "dram", "args": [], "params": {"--pattern": "stream"}, "repeat": 0}
        st = runner.run_point(out, sweep, point)
        self.assertEqual((st["status"], st["exit_code"]), ("failed", 0))
        self.assertIn("printed no JSON object", st["message"])
        self.assertEqual(st["metrics"], {"bw": None})
        self.assertFalse(os.path.exists(os.path.join(out, "points", "00000", "stats.json")))

    def test_tool_failure_keeps_its_error_line(self):
        out = os.path.join(self.tmp, "OUT")
        os.makedirs(os.path.join(out, "points"))
        sweep = {"tessera": self.tessera, "metrics": {"bw": "bandwidth_gbps"}, "timeout": 30}  # no files map
        point = {"id": 0, "tool": "dram", "args": ["--requests", "10"], "params": {"dram.stacks": 3}, "repeat": 0}
        st = runner.run_point(out, sweep, point)
        self.assertEqual(st["status"], "failed")
        self.assertNotEqual(st["exit_code"], 0)
        self.assertIn("dram.stacks", st["message"])

    def test_slurm_staging_needs_only_the_binary(self):
        for sweep in ({"tessera": self.tessera, "files": {}}, {"tessera": self.tessera}):
            stage = os.path.join(self.tmp, f"stage{len(sweep)}")
            slurm.stage_files(sweep, stage)
            self.assertTrue(os.access(os.path.join(stage, "tessera"), os.X_OK))
            self.assertEqual(os.listdir(os.path.join(stage, "files")), [])
            cmd = runner.command({"tessera": self.tessera, **sweep}, {"id": 0, "tool": "noc", "args": [],
                                                                      "params": {}}, self.tmp, stage)
            self.assertEqual(cmd, [os.path.join(stage, "tessera"), "noc", "--json"])


class ToolBadInput(ToolCase):
    def refused(self, spec, key, *fragments):
        path = self.write_spec(spec)
        out = os.path.join(self.tmp, "OUT")
        r = self.run_sweep(path, "-o", out)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f"tessera sweep: error: {path}: {key}:", r.stderr)
        for f in fragments:
            self.assertIn(f, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertFalse(os.path.exists(out), "the sweep directory was created")
        return r.stderr

    def test_tool_and_platforms(self):
        s = dram_spec()
        s["platforms"] = ["chip"]
        self.refused(s, "tool", "tool and platforms are both given")
        s = dram_spec()
        s["programs"] = ["vecadd"]
        self.refused(s, "tool", "tool and programs are both given")

    def test_unknown_tool(self):
        s = dram_spec()
        s["tool"] = "drm"
        self.refused(s, "tool", "unknown tool 'drm'", "(nearest: dram)")

    def test_tool_args_without_tool(self):
        self.refused({"platforms": ["chip"], "programs": ["vecadd"], "tool_args": ["-x"]}, "tool_args",
                     "tool_args needs tool")

    def test_unknown_set_key_names_the_nearest(self):
        s = dram_spec()
        s["parameters"] = {"--pattern": PATTERNS, "page_polcy": POLICIES}
        self.refused(s, "parameters.page_polcy", "unknown parameter 'page_polcy' of `tessera dram`",
                     "(nearest: page_policy)")
        s = {"tool": "noc", "parameters": {"noc.rat": [0.1]}, "metrics": {"lat": "avg_packet_latency_cycles"}}
        self.refused(s, "parameters.noc.rat", "unknown parameter 'noc.rat' of `tessera noc`", "(nearest: noc.rate)")

    def test_unknown_option_names_the_nearest(self):
        s = dram_spec()
        s["parameters"] = {"--patern": PATTERNS}
        self.refused(s, "parameters.--patern", "unknown option '--patern' of `tessera dram`", "(nearest: --pattern)")
        s["parameters"] = {"--json": [1]}
        self.refused(s, "parameters.--json", "not an option of a sweep point")

    def test_bad_values(self):
        s = dram_spec()
        s["parameters"] = {"--pattern": PATTERNS, "page_policy": ["open", "shut"]}
        self.refused(s, "parameters.page_policy", "'shut' is not one of open|closed|adaptive")
        s["parameters"] = {"--pattern": ["stream", "zigzag"]}
        self.refused(s, "parameters.--pattern", "zigzag")
        s["parameters"] = {"--pattern": PATTERNS}
        s["tool_args"] = ["--requests", "-5"]
        self.refused(s, "tool_args", "--requests", "-5")

    def test_metric_not_in_the_json(self):
        s = dram_spec()
        s["metrics"] = {"hits": "row_hits / bytes"}
        self.refused(s, "metrics.hits", "'row_hits' is not in the JSON of `tessera dram --json`",
                     "(nearest: row_hit_rate)")
