"""Pure parts of tools/compare: cases, BookSim2 configuration text, DRAMsim3
traces, both peers' output parsers, the saturation rules, the peer binary
lookup, process CPU-time accounting and the table maker. The peer outputs
below are small samples written in each peer's output format."""

import json
import math
import os
import subprocess
import sys
import tempfile
import time
import unittest

SRC = os.environ.get("TESSERA_SOURCE_DIR",
                     os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SRC, "tools", "compare"))
import peers  # noqa: E402


def parse_cfg(text):
    """BookSim 'key = value;' lines back into a dict (the test's own reader)."""
    out = {}
    for line in text.splitlines():
        assert line.endswith(";"), line
        k, v = line[:-1].split(" = ")
        assert k not in out, k
        out[k] = v
    return out


class Cases(unittest.TestCase):
    def test_noc_cases_cover_every_combination(self):
        cases = peers.noc_cases()
        self.assertEqual(len(cases), 3 * 2 * 2)
        got = {(c["traffic"], c["packet_flits"], c["vcs"]) for c in cases}
        want = {(t, p, v) for t in ("uniform", "transpose", "bitcomp") for p in (1, 4) for v in (2, 4)}
        self.assertEqual(got, want)
        self.assertTrue(all(c["k"] == 8 and c["vc_buf"] == 8 for c in cases))

    def test_case_name(self):
        self.assertEqual(peers.case_name({"traffic": "bitcomp", "packet_flits": 4, "vcs": 2}),
                         "bitcomp_p4_vc2")

    def test_hbm_cases(self):
        cases = {c["name"]: c for c in peers.hbm_cases()}
        self.assertEqual(set(cases), {"stream_read", "stream_2to1", "random_read", "random_2to1"})
        self.assertAlmostEqual(cases["random_2to1"]["read_ratio"], 2 / 3)
        self.assertEqual(cases["stream_read"]["read_ratio"], 1.0)

    def test_saturation_rate(self):
        self.assertEqual(peers.saturation_rate([(0.1, False), (0.3, True), (0.2, False)]), 0.2)
        self.assertIsNone(peers.saturation_rate([(0.1, True)]))
        self.assertIsNone(peers.saturation_rate([]))
        self.assertEqual(peers.saturation_rate([(0.1, False), (0.2, False)]), 0.2)

    def test_saturation_rate_stops_at_the_first_saturated_point(self):
        # A sweep that goes on past its first saturated point (to find the
        # other rule's) may meet an unsaturated one again: it does not count.
        self.assertEqual(peers.saturation_rate([(0.4, False), (0.2, False), (0.3, True), (0.1, False)]), 0.2)

    def test_ratio(self):
        self.assertEqual(peers.ratio(3.0, 4.0), 0.75)
        self.assertIsNone(peers.ratio(None, 4.0))
        self.assertIsNone(peers.ratio(1.0, 0))


class BookSimConfig(unittest.TestCase):
    CASE = {"traffic": "transpose", "packet_flits": 4, "vcs": 4, "vc_buf": 8, "k": 8}

    def test_config_fields(self):
        cfg = parse_cfg(peers.booksim_config(self.CASE, 0.3, seed=7))
        self.assertEqual(cfg["topology"], "mesh")
        self.assertEqual(cfg["k"], "8")
        self.assertEqual(cfg["n"], "2")
        self.assertEqual(cfg["routing_function"], "dim_order")
        self.assertEqual(cfg["num_vcs"], "4")
        self.assertEqual(cfg["vc_buf_size"], "8")
        self.assertEqual(cfg["traffic"], "transpose")
        self.assertEqual(cfg["packet_size"], "4")
        self.assertEqual(cfg["injection_rate"], "0.3")
        self.assertEqual(cfg["injection_rate_uses_flits"], "1")  # load in flits, as Tessera's
        self.assertEqual(cfg["wait_for_tail_credit"], "0")  # non-atomic VC reallocation
        self.assertEqual(cfg["sim_type"], "latency")
        self.assertEqual(cfg["seed"], "7")
        for d in ("routing_delay", "vc_alloc_delay", "sw_alloc_delay", "st_final_delay"):
            self.assertEqual(cfg[d], "1")

    def test_tessera_args_match(self):
        a = peers.tessera_noc_args(self.CASE, 0.3, atomic_vc=False)
        pairs = dict(zip(a[1::2], a[2::2]))
        self.assertEqual(a[0], "noc")
        self.assertEqual(pairs["--k"], "8")
        self.assertEqual(pairs["--vcs"], "4")
        self.assertEqual(pairs["--vc-buf"], "8")
        self.assertEqual(pairs["--routing"], "dor")
        self.assertEqual(pairs["--traffic"], "transpose")
        self.assertEqual(pairs["--packet-flits"], "4")
        self.assertEqual(pairs["--rate"], "0.3")
        self.assertIn("--json", a)
        self.assertEqual(a[a.index("--set") + 1], "noc.atomic_vc=false")
        self.assertNotIn("--set", peers.tessera_noc_args(self.CASE, 0.3))


def _bs_samples(changes, warmup=3):
    """BookSim2's per-sample lines (src/trafficmanager.cpp, _SingleSim) for
    the given (latency change, throughput change) pairs, 'Warmed up' after
    the first `warmup`."""
    out = []
    for i, (lat, acc) in enumerate(changes):
        out.append("Class 0:\nPacket latency average = 33.5\nlatency change    = %s\nthroughput change = %s\n"
                   % (lat, acc))
        if i + 1 == warmup:
            out.append("Warmed up ...Time used is 3000 cycles\n")
    return "".join(out)


BOOKSIM_STABLE = """\
BEGIN Configuration File: c.cfg
topology = mesh;
END Configuration File: c.cfg
Class 0:
Packet latency average = 33.5 (1 samples)
\tminimum = 7
\tmaximum = 80
Accepted flit rate average= 0.0991
latency change    = 1
throughput change = 1
Warmed up ...Time used is 3000 cycles
latency change    = 0.01
throughput change = 0.02
latency change    = 0.001
throughput change = 0.003
latency change    = 0.0499
throughput change = 0.0001
Draining all recorded packets ...
Draining remaining packets ...
Time taken is 6128 cycles
====== Overall Traffic Statistics ======
====== Traffic class 0 ======
Packet latency average = 34.0904 (1 samples)
\tminimum = 7 (1 samples)
\tmaximum = 82 (1 samples)
Network latency average = 34.0904 (1 samples)
\tminimum = 7 (1 samples)
\tmaximum = 82 (1 samples)
Injected flit rate average = 0.099849 (1 samples)
\tminimum = 0.0813333 (1 samples)
\tmaximum = 0.114 (1 samples)
Accepted flit rate average = 0.0999479 (1 samples)
\tminimum = 0.0843333 (1 samples)
\tmaximum = 0.111667 (1 samples)
Hops average = 6.23541 (1 samples)
Total run time 0.356035
"""

BOOKSIM_UNSTABLE = """\
Class 0:
Packet latency average = 512.3
Accepted flit rate average= 0.3101
latency change    = 1
throughput change = 1
Average latency for class 0 exceeded 500 cycles. Aborting simulation.
Too many sample periods needed to converge
Simulation unstable, ending ...
Total run time 1.5
"""

BOOKSIM_OVERALL = """\
Draining all recorded packets ...
Draining remaining packets ...
Time taken is 11858 cycles
====== Overall Traffic Statistics ======
====== Traffic class 0 ======
Packet latency average = 88.2 (1 samples)
Injected flit rate average = %s (1 samples)
Accepted flit rate average = %s (1 samples)
Hops average = 5.25 (1 samples)
Total run time 2.8
"""


class BookSimParse(unittest.TestCase):
    def test_overall_statistics_not_the_sample(self):
        r = peers.parse_booksim(BOOKSIM_STABLE)
        self.assertFalse(r["saturated"])
        self.assertEqual(r["latency"], 34.0904)  # the overall value, not the sample's 33.5
        self.assertEqual(r["accepted"], 0.0999479)
        self.assertEqual(r["injected"], 0.099849)
        self.assertEqual(r["hops"], 6.23541)
        self.assertEqual(r["simulated_cycles"], 6128)
        self.assertEqual(r["host_seconds"], 0.356035)

    def test_converged_sample_rules(self):
        r = peers.parse_booksim(BOOKSIM_STABLE)
        self.assertTrue(r["converged"])
        self.assertTrue(r["drained"])
        self.assertFalse(r["over_threshold"])

    def test_unstable_is_saturated(self):
        r = peers.parse_booksim(BOOKSIM_UNSTABLE)
        self.assertTrue(r["saturated"])
        self.assertTrue(r["over_threshold"])
        self.assertFalse(r["converged"])
        self.assertFalse(r["drained"])
        self.assertIsNone(r["latency"])
        self.assertIsNone(r["simulated_cycles"])
        self.assertEqual(r["host_seconds"], 1.5)

    def test_no_output_is_saturated(self):
        r = peers.parse_booksim("")
        self.assertTrue(r["saturated"])
        self.assertTrue(r["over_threshold"])

    def test_max_samples_without_converging_is_stable_for_booksim_only(self):
        # BookSim2 at uniform 0.30, 1-flit packets, 2 VCs: seven samples after
        # the warm-up, the latency still changing by 5-9 % in six of them,
        # then drained and reported (no "Simulation unstable").
        changes = [(1, 1), (0.16, 0.026), (0.29, 0.038), (0.082, 0.014), (0.087, 0.0057), (0.0503, 0.0013),
                   (0.0578, 0.0002), (0.0663, 0.0021), (0.0623, 0.0011), (0.0449, 0.0018)]
        r = peers.parse_booksim(_bs_samples(changes) + BOOKSIM_OVERALL % ("0.296592", "0.295971"))
        self.assertFalse(r["over_threshold"])
        self.assertFalse(r["converged"])  # only the last sample is within 5 %
        self.assertTrue(r["saturated"])
        self.assertFalse(peers.saturated(r, "latency_threshold"))
        self.assertEqual(r["latency"], 88.2)
        self.assertEqual(r["simulated_cycles"], 11858)

    def test_converges_on_the_last_allowed_sample(self):
        # The third sample within 5 % in a row is the tenth: converged.
        changes = [(1, 1), (0.2, 0.1), (0.2, 0.1), (0.3, 0.01), (0.3, 0.01), (0.3, 0.01), (0.3, 0.01),
                   (0.05, 0.05), (0.01, 0.01), ("nan", 0.0)]
        r = peers.parse_booksim(_bs_samples(changes) + BOOKSIM_OVERALL % ("0.1", "0.1"))
        self.assertTrue(r["converged"])
        self.assertFalse(r["saturated"])

    def test_warm_up_samples_do_not_count_as_converging(self):
        changes = [(0.01, 0.01), (0.01, 0.01), (0.01, 0.01), (0.2, 0.01)]
        r = peers.parse_booksim(_bs_samples(changes) + BOOKSIM_OVERALL % ("0.1", "0.1"))
        self.assertFalse(r["converged"])

    def test_accepted_below_injected(self):
        r = peers.parse_booksim(BOOKSIM_STABLE.replace("0.0999479", "0.0940"))
        # 0.0940 < 0.099849 x 0.95 = 0.09486: saturated by Tessera's rules only
        self.assertTrue(r["saturated"])
        self.assertFalse(peers.saturated(r, "latency_threshold"))


def _point(offered, over=False, converged=True, drained=True, injected=None, accepted=None):
    return {"offered": offered, "over_threshold": over, "converged": converged, "drained": drained,
            "injected": offered if injected is None else injected,
            "accepted": offered if accepted is None else accepted}


class SaturationRules(unittest.TestCase):
    def test_each_tessera_rule(self):
        self.assertFalse(peers.saturated(_point(0.1), "tessera"))
        self.assertTrue(peers.saturated(_point(0.1, over=True), "tessera"))
        self.assertTrue(peers.saturated(_point(0.1, converged=False), "tessera"))
        self.assertTrue(peers.saturated(_point(0.1, drained=False), "tessera"))
        # margin 5 %: 0.0951 of 0.1 is still accepted, 0.0949 is not
        self.assertFalse(peers.saturated(_point(0.1, injected=0.1, accepted=0.0951), "tessera"))
        self.assertTrue(peers.saturated(_point(0.1, injected=0.1, accepted=0.0949), "tessera"))

    def test_latency_threshold_rule_reads_only_the_threshold(self):
        self.assertTrue(peers.saturated(_point(0.1, over=True), "latency_threshold"))
        for p in (_point(0.1, converged=False), _point(0.1, drained=False),
                  _point(0.1, injected=0.1, accepted=0.01)):
            self.assertFalse(peers.saturated(p, "latency_threshold"))

    def test_unknown_rule(self):
        with self.assertRaises(ValueError):
            peers.saturated(_point(0.1), "booksim")

    def test_sweep_under_both_rules(self):
        # Not converged at 0.30, accepted short at 0.32 (after an unsaturated
        # 0.28), over the threshold at 0.34.
        points = [_point(0.26), _point(0.28), _point(0.30, converged=False), _point(0.32),
                  _point(0.34, over=True, converged=False, drained=False)]
        self.assertEqual(peers.saturation_rates(points), {"latency_threshold": 0.32, "tessera": 0.28})
        points[3] = _point(0.32, drained=False, injected=0.32, accepted=0.25)
        self.assertEqual(peers.saturation_rates(list(reversed(points))),
                         {"latency_threshold": 0.32, "tessera": 0.28})
        self.assertEqual(peers.saturation_rates([_point(0.02, over=True)]),
                         {"latency_threshold": None, "tessera": None})


def _channel(reads, writes, rd_hits, wr_hits, lat, energy, cycles=1000):
    return {"num_cycles": cycles, "num_reads_done": reads, "num_writes_done": writes,
            "num_read_cmds": reads, "num_write_cmds": writes, "num_read_row_hits": rd_hits,
            "num_write_row_hits": wr_hits, "average_read_latency": lat, "total_energy": energy,
            "channel": 0, "read_latency": {"31": 3}}


class DramsimParse(unittest.TestCase):
    def test_sum_of_channels(self):
        text = json.dumps({"0": _channel(100, 50, 80, 20, 40.0, 1000.0),
                           "1": _channel(300, 0, 150, 0, 60.0, 2000.0)})
        r = peers.parse_dramsim3_json(text)
        self.assertEqual(r["reads"], 400)
        self.assertEqual(r["writes"], 50)
        self.assertEqual(r["requests"], 450)
        self.assertEqual(r["cycles"], 1000)
        # 450 x 64 B in 1000 ns = 28.8 GB/s
        self.assertAlmostEqual(r["bandwidth_gbps"], 28.8)
        # read-weighted: (100 x 40 + 300 x 60) / 400 = 55 ns
        self.assertAlmostEqual(r["avg_read_latency_ns"], 55.0)
        # (80 + 20 + 150) hits / 450 column commands
        self.assertAlmostEqual(r["row_hit_rate"], 250 / 450)
        self.assertEqual(r["energy_pj"], 3000.0)
        self.assertAlmostEqual(r["energy_pj_per_bit"], 3000.0 / (450 * 64 * 8))

    def test_no_reads(self):
        r = peers.parse_dramsim3_json(json.dumps({"0": _channel(0, 10, 0, 5, 0.0, 10.0)}))
        self.assertIsNone(r["avg_read_latency_ns"])
        self.assertAlmostEqual(r["row_hit_rate"], 0.5)

    def test_no_channels_is_an_error(self):
        with self.assertRaises(ValueError):
            peers.parse_dramsim3_json("{}")

    def test_ini(self):
        ini = peers.parse_ini("[timing]\ntCK = 1\nCL = 14 ; comment\n\n[system]\nchannels = 8\n")
        self.assertEqual(ini, {"timing": {"tCK": "1", "CL": "14"}, "system": {"channels": "8"}})


class DramsimTrace(unittest.TestCase):
    def test_stream_reads(self):
        case = {"pattern": "stream", "read_ratio": 1.0}
        self.assertEqual(peers.dramsim3_trace(case, 3, 1 << 20),
                         "0x0 READ 0\n0x40 READ 1\n0x80 READ 2\n")

    def test_stream_wraps_at_capacity(self):
        case = {"pattern": "stream", "read_ratio": 1.0}
        lines = peers.dramsim3_trace(case, 5, 256).splitlines()
        self.assertEqual([l.split()[0] for l in lines], ["0x0", "0x40", "0x80", "0xc0", "0x0"])

    def test_random_mix(self):
        case = {"pattern": "random", "read_ratio": 2 / 3}
        lines = peers.dramsim3_trace(case, 3000, 1 << 30, seed=3).splitlines()
        self.assertEqual(len(lines), 3000)
        addrs = [int(l.split()[0], 16) for l in lines]
        self.assertTrue(all(a % 64 == 0 and a < (1 << 30) for a in addrs))
        self.assertGreater(len(set(addrs)), 2900)
        reads = sum(1 for l in lines if l.split()[1] == "READ")
        self.assertTrue(1900 <= reads <= 2100, reads)  # 2000 expected
        self.assertEqual([int(l.split()[2]) for l in lines], list(range(3000)))
        self.assertEqual(lines, peers.dramsim3_trace(case, 3000, 1 << 30, seed=3).splitlines())

    def test_tessera_trace_keeps_each_request_cycle(self):
        # Same clock (DRAMsim3 tCK 1 ns, Tessera hbm2 tck_ps 1000): the cycles
        # pass unchanged, gaps and repeats included.
        self.assertEqual(peers.tessera_trace_from_dramsim3("0x40 WRITE 9\n0x80 READ 9\n\n0xc0 READ 250\n"),
                         "9 W 0x40\n9 R 0x80\n250 R 0xc0\n")

    def test_tessera_trace_of_the_generated_trace(self):
        text = peers.dramsim3_trace({"pattern": "stream", "read_ratio": 1.0}, 3, 1 << 20)
        self.assertEqual(peers.tessera_trace_from_dramsim3(text), "0 R 0x0\n1 R 0x40\n2 R 0x80\n")

    def test_tessera_trace_converts_clock_domains(self):
        # DRAMsim3 at tCK 1.25 ns, Tessera at 1.0 ns: cycle c is 1.25 c ns,
        # entering Tessera at the first cycle not before it.
        text = "0x0 READ 0\n0x40 READ 1\n0x80 WRITE 4\n0xc0 READ 7\n"
        self.assertEqual(peers.tessera_trace_from_dramsim3(text, 1250, 1000),
                         "0 R 0x0\n2 R 0x40\n5 W 0x80\n9 R 0xc0\n")
        # and the other way: 1 ns cycles into 1.6 GHz (625 ps) cycles
        self.assertEqual(peers.tessera_trace_from_dramsim3(text, 1000, 625),
                         "0 R 0x0\n2 R 0x40\n7 W 0x80\n12 R 0xc0\n")

    def test_tessera_trace_keeps_order_of_an_early_stamp(self):
        # DRAMsim3 reads in file order: a line stamped before the one above
        # enters after it.
        self.assertEqual(peers.tessera_trace_from_dramsim3("0x0 READ 10\n0x40 WRITE 3\n0x80 READ 12\n"),
                         "10 R 0x0\n10 W 0x40\n12 R 0x80\n")

    def test_tessera_trace_bad_clock(self):
        with self.assertRaises(ValueError):
            peers.tessera_trace_from_dramsim3("0x0 READ 1\n", 0, 1000)

    def test_trace_cycles(self):
        self.assertEqual(peers.dramsim3_trace_cycles("0x0 READ 0\n0x40 READ 1\n0x80 READ 2\n"), 3)
        self.assertEqual(peers.dramsim3_trace_cycles("0x0 READ 7\n0x40 READ 3\n\n"), 8)

    def test_ps_of_ns(self):
        self.assertEqual(peers.ps_of_ns("1"), 1000)
        self.assertEqual(peers.ps_of_ns("0.625"), 625)
        self.assertEqual(peers.ps_of_ns("0.833"), 833)


class PeerBinaries(unittest.TestCase):
    def _touch(self, root, rel, mode=0o755):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("")
        os.chmod(path, mode)
        return path

    def test_cmake_build(self):
        with tempfile.TemporaryDirectory() as d:
            exe = self._touch(d, os.path.join("build", "dramsim3main"))
            self.assertEqual(peers.find_dramsim3(d), exe)

    def test_makefile_build(self):
        with tempfile.TemporaryDirectory() as d:
            exe = self._touch(d, "dramsim3main.out")  # the Makefile's EXE_NAME
            self.assertEqual(peers.find_dramsim3(d), exe)

    def test_root_dramsim3main(self):
        with tempfile.TemporaryDirectory() as d:
            exe = self._touch(d, "dramsim3main")
            self.assertEqual(peers.find_dramsim3(d), exe)

    def test_cmake_build_first_when_both(self):
        with tempfile.TemporaryDirectory() as d:
            self._touch(d, "dramsim3main.out")
            exe = self._touch(d, os.path.join("build", "dramsim3main"))
            self.assertEqual(peers.find_dramsim3(d), exe)

    def test_neither_names_every_path(self):
        with tempfile.TemporaryDirectory() as d:
            self._touch(d, os.path.join("build", "dramsim3main"), mode=0o644)  # not executable
            os.makedirs(os.path.join(d, "dramsim3main.out"))  # a directory
            with self.assertRaises(peers.PeerNotBuilt) as ctx:
                peers.find_dramsim3(d)
            msg = str(ctx.exception)
            self.assertIn("DRAMsim3", msg)
            self.assertIn(os.path.join(d, "build", "dramsim3main"), msg)
            self.assertIn(os.path.join(d, "dramsim3main.out"), msg)
            self.assertEqual(msg, "DRAMsim3: %s is not built: no executable at %s/build/dramsim3main, "
                                  "%s/dramsim3main.out or %s/dramsim3main (build it as its README says)"
                             % (d, d, d, d))

    def test_one_candidate(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(peers.PeerNotBuilt) as ctx:
                peers.find_peer(d, [os.path.join("src", "booksim")], "BookSim2")
            self.assertIn("no executable at %s (build" % os.path.join(d, "src", "booksim"), str(ctx.exception))


class CpuTime(unittest.TestCase):
    PY = sys.executable

    def test_cpu_seconds_adds_user_and_system(self):
        class Usage:
            ru_utime, ru_stime = 1.25, 0.5
        self.assertEqual(peers.cpu_seconds(Usage()), 1.75)

    def test_busy_child(self):
        # The child burns >= 0.3 s of its own CPU time and prints what it
        # counted; the helper sees at least that (plus interpreter start-up).
        code = ("import time\nt=time.process_time()\nwhile time.process_time()-t<0.3: pass\n"
                "print(time.process_time())")
        p, cpu, wall = peers.run_measured([self.PY, "-c", code], capture_output=True, text=True, check=True)
        own = float(p.stdout)
        self.assertGreaterEqual(cpu, own - 0.011)  # rusage and process_time tick differently
        self.assertLess(cpu, own + 1.0)
        self.assertGreaterEqual(wall, 0.3)

    def test_sleeping_child_is_not_charged_its_wall_time(self):
        p, cpu, wall = peers.run_measured([self.PY, "-c", "import time; time.sleep(0.6)"], check=True)
        self.assertGreaterEqual(wall, 0.6)
        self.assertLess(cpu, 0.4)

    def test_only_the_children_of_the_call(self):
        # A busy child reaped before the call is not charged to the next.
        subprocess.run([self.PY, "-c", "import time\nt=time.process_time()\n"
                        "while time.process_time()-t<0.3: pass"], check=True)
        _, cpu, _ = peers.run_measured([self.PY, "-c", "pass"], check=True)
        self.assertLess(cpu, 0.25)


class Tables(unittest.TestCase):
    def test_markdown(self):
        md = peers.markdown_table(["a", "b"], [[1, 0.123456], [None, float("nan")], ["x", 1234567.0]])
        self.assertEqual(md, "| a | b |\n|---|---|\n| 1 | 0.1235 |\n| - | - |\n| x | 1.235e+06 |\n")

    def test_csv(self):
        self.assertEqual(peers.csv_table(["a", "b"], [[1, None], ["x,y", 0.5]]),
                         'a,b\n1,\n"x,y",0.5\n')

    def test_cell(self):
        self.assertTrue(math.isnan(float("nan")))
        self.assertEqual(peers.markdown_table(["v"], [[2.0]]).splitlines()[2], "| 2 |")


if __name__ == "__main__":
    unittest.main()
