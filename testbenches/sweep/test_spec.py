"""Spec loading and validation against a stand-in tessera (fake_tessera.py)
whose noc.* parameters exist only with icnt.model=noc."""
import os
import shutil
import tempfile
import unittest

import yaml

from tessera_sweep import SweepError
from tessera_sweep import runner
from tessera_sweep import spec as spec_mod

HERE = os.path.dirname(os.path.abspath(__file__))


class Spec(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="sweep-spec-")
        self.tmp = self._tmp.name
        self.tessera = os.path.join(self.tmp, "bin", "tessera")
        os.makedirs(os.path.join(self.tmp, "bin", "firmware"))
        shutil.copy(os.path.join(HERE, "fake_tessera.py"), self.tessera)
        for name in ("vecadd", "saxpy"):
            open(os.path.join(self.tmp, "bin", "firmware", name + ".elf"), "w").close()
        with open(os.path.join(self.tmp, "plat.yaml"), "w") as f:
            f.write("platform: {name: fake}\n")
        self.log = os.path.join(self.tmp, "calls.log")
        os.environ["FAKE_TESSERA_LOG"] = self.log

    def tearDown(self):
        self._tmp.cleanup()

    def load(self, **kw):
        spec = {"platforms": ["plat.yaml"], "programs": ["vecadd"], "metrics": {"cycles": "summary.sim_cycles"}}
        spec.update(kw)
        path = os.path.join(self.tmp, "s.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(spec, f)
        return spec_mod.load(path, self.tessera)

    def calls(self):
        with open(self.log) as f:
            return [ln.split() for ln in f.read().splitlines()]

    def test_a_parameter_selected_by_another_is_checked_with_it(self):
        sweep = self.load(parameters={"icnt.model": ["noc"], "noc.vcs": [1, 2, 4]},
                          metrics={"flits": "chip.noc.flits"})
        self.assertEqual(len(sweep["points"]), 3)
        config_calls = [c for c in self.calls() if c[0] == "config"]
        # One listing for the one distinct non-numeric combination, with it set.
        self.assertEqual(config_calls, [["config", "--list", os.path.join(self.tmp, "plat.yaml"),
                                         "--set", "icnt.model=noc"]])
        run_calls = [c for c in self.calls() if c[0] == "run"]
        self.assertEqual(len(run_calls), 1)
        self.assertIn("icnt.model=noc", run_calls[0])

    def test_a_subsystem_parameter_without_its_selector_is_refused(self):
        with self.assertRaisesRegex(SweepError, r"s.yaml: parameters.noc.vcs: unknown parameter 'noc.vcs'"):
            self.load(parameters={"icnt.model": ["xbar"], "noc.vcs": [2]})

    def test_value_out_of_a_selected_subsystems_range(self):
        with self.assertRaisesRegex(SweepError, r"parameters.noc.vcs: value 16 is out of range \[1, 8\]"):
            self.load(parameters={"icnt.model": ["noc"], "noc.vcs": [2, 16]})

    def test_many_points_few_tessera_calls(self):
        sweep = self.load(parameters={"icnt.model": ["xbar", "noc"], "sm.max_warps": {"range": [1, 64]}},
                          programs=["vecadd", "saxpy"], repeats={"count": 8})
        self.assertEqual(len(sweep["points"]), 2 * 2 * 64 * 8)
        calls = self.calls()
        self.assertEqual(len([c for c in calls if c[0] == "config"]), 2)  # xbar, noc
        # vecadd and saxpy with xbar (their first points), vecadd with noc.
        self.assertEqual(len([c for c in calls if c[0] == "run"]), 3)

    def test_a_metric_of_one_selected_subsystem_is_accepted(self):
        sweep = self.load(parameters={"icnt.model": ["xbar", "noc"]}, metrics={"flits": "chip.noc.flits"})
        self.assertEqual(sweep["metrics"], {"flits": "chip.noc.flits"})
        with self.assertRaisesRegex(SweepError, r"metrics.flits: 'chip.noc.flitz' is not a statistic of these runs "
                                                r"\(nearest: chip.noc.flits\)"):
            self.load(parameters={"icnt.model": ["xbar", "noc"]}, metrics={"flits": "chip.noc.flitz"})

    def test_points_and_files(self):
        sweep = self.load(parameters={"sm.max_warps": [8, 16]}, programs=["vecadd", {"name": "sx", "elf": "saxpy",
                                                                                       "args": [4, "x"]}])
        self.assertEqual(sweep["files"], {"platform-plat": os.path.join(self.tmp, "plat.yaml"),
                                          "elf-vecadd": os.path.join(self.tmp, "bin", "firmware", "vecadd.elf"),
                                          "elf-sx": os.path.join(self.tmp, "bin", "firmware", "saxpy.elf")})
        self.assertEqual([(p["id"], p["program_name"], p["params"]["sm.max_warps"], p["args"])
                          for p in sweep["points"]],
                         [(0, "vecadd", 8, []), (1, "vecadd", 16, []), (2, "sx", 8, ["4", "x"]),
                          (3, "sx", 16, ["4", "x"])])
        self.assertEqual(sweep["name"], "s")
        self.assertEqual(sweep["timeout"], 600)
        self.assertEqual(sweep, self.load(parameters={"sm.max_warps": [8, 16]},
                                          programs=["vecadd", {"name": "sx", "elf": "saxpy", "args": [4, "x"]}]))

    def test_a_parameter_named_in_an_argument_is_the_points_value(self):
        sweep = self.load(parameters={"sm.max_warps": [8, 16]},
                          programs=[{"name": "sx", "elf": "saxpy", "args": ["w{sm.max_warps}", "{sm.max_warps}", 7]}])
        self.assertEqual([p["args"] for p in sweep["points"]], [["w8", "8", "7"], ["w16", "16", "7"]])

    def test_an_argument_naming_no_parameter_is_refused(self):
        with self.assertRaises(SweepError) as e:
            self.load(parameters={"sm.max_warps": [8]},
                      programs=[{"name": "sx", "elf": "saxpy", "args": ["{sm.max_warp}"]}])
        self.assertIn("programs[0].args: '{sm.max_warp}' names no parameter of the sweep (nearest: sm.max_warps)",
                      str(e.exception))

    def test_a_program_parameter_fills_arguments_and_is_not_set(self):
        sweep = self.load(parameters={"sm.max_warps": [8], "arg.stride": [1, 32]},
                          programs=[{"name": "sx", "elf": "saxpy", "args": ["column", "{arg.stride}"]}])
        self.assertEqual([(p["params"], p["args"]) for p in sweep["points"]],
                         [({"sm.max_warps": 8, "arg.stride": 1}, ["column", "1"]),
                          ({"sm.max_warps": 8, "arg.stride": 32}, ["column", "32"])])
        cmd = runner.command(sweep, sweep["points"][1], self.tmp)
        self.assertIn("sm.max_warps=8", cmd)
        self.assertFalse([a for a in cmd if a.startswith("arg.")], cmd)
        self.assertEqual(cmd[-3:], ["--", "column", "32"])
        # Neither the parameter check nor the probe run hands it to tessera.
        self.assertFalse([c for c in self.calls() if any("arg.stride" in a for a in c)], self.calls())

    def test_a_program_parameter_no_argument_names_is_refused(self):
        with self.assertRaises(SweepError) as e:
            self.load(parameters={"arg.stride": [1, 2]}, programs=[{"name": "sx", "elf": "saxpy", "args": ["column"]}])
        self.assertIn("parameters.arg.stride: 'arg.stride' is a program parameter (only substituted into "
                      "arguments), but no program args name '{arg.stride}'", str(e.exception))


if __name__ == "__main__":
    unittest.main()
