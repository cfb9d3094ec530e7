"""Pure parts of tools/compare: cases, BookSim2 configuration text, DRAMsim3
traces, both peers' output parsers and the table maker. The peer outputs
below are small samples written in each peer's output format."""

import json
import math
import os
import sys
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


BOOKSIM_STABLE = """\
BEGIN Configuration File: c.cfg
topology = mesh;
END Configuration File: c.cfg
Class 0:
Packet latency average = 33.5 (1 samples)
\tminimum = 7
\tmaximum = 80
Accepted flit rate average= 0.0991
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
Simulation unstable, ending ...
Total run time 1.5
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

    def test_unstable_is_saturated(self):
        r = peers.parse_booksim(BOOKSIM_UNSTABLE)
        self.assertTrue(r["saturated"])
        self.assertIsNone(r["latency"])
        self.assertIsNone(r["simulated_cycles"])
        self.assertEqual(r["host_seconds"], 1.5)

    def test_no_output_is_saturated(self):
        self.assertTrue(peers.parse_booksim("")["saturated"])


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

    def test_tessera_trace(self):
        self.assertEqual(peers.tessera_trace_from_dramsim3("0x40 WRITE 9\n0x80 READ 9\n"),
                         "0 W 0x40\n1 R 0x80\n")


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
