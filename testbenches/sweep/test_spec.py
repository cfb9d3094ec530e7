"""Spec loading and validation against a stand-in tessera (fake_tessera.py)
whose noc.* parameters exist only with icnt.model=noc."""
import contextlib
import io
import os
import shutil
import tempfile
import unittest

import yaml

from tessera_sweep import SweepError
from tessera_sweep import runner
from tessera_sweep import spec as spec_mod

HERE = os.path.dirname(os.path.abspath(__file__))


class FakeTesseraCase(unittest.TestCase):
    """A spec loaded against fake_tessera.py, with a platform file and two programs."""

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
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [ln.split() for ln in f.read().splitlines()]


class Spec(FakeTesseraCase):

    def test_a_sample_that_falls_short_says_so(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            sweep = self.load(parameters={"sm.max_warps": [8, 16, 32]},
                              sampling={"method": "lhs", "points": 20, "seed": 1}, name="short")
        n = len(sweep["points"])
        self.assertEqual(n, 3)
        note = (f"sampling: lhs gave {n} distinct points of the 20 asked: {20 - n} repeated an earlier point "
                "(an axis has fewer values than points)")
        self.assertEqual(sweep["sampling_note"], note)
        self.assertIn(note, err.getvalue())
        with contextlib.redirect_stderr(io.StringIO()):
            full = self.load(parameters={"sm.max_warps": [8, 16, 32]}, name="full",
                             sampling={"method": "random", "points": 2, "seed": 1})
        self.assertNotIn("sampling_note", full)

    def test_a_parameter_selected_by_another_is_checked_with_it(self):
        sweep = self.load(parameters={"icnt.model": ["noc"], "noc.vcs": [1, 2, 4]},
                          metrics={"flits": "chip.noc.flits"})
        self.assertEqual(len(sweep["points"]), 3)
        config_calls = [c for c in self.calls() if c[0] == "config"]
        # One listing for the one distinct non-numeric combination, with it set.
        self.assertEqual(config_calls, [["config", "--list", os.path.join(self.tmp, "plat.yaml"),
                                         "--set", "icnt.model=noc"]])
        # Probes: the first point (noc.vcs 1, also the smallest) and the largest (4).
        run_calls = [c for c in self.calls() if c[0] == "run"]
        self.assertEqual(len(run_calls), 2)
        for c in run_calls:
            self.assertIn("icnt.model=noc", c)
        self.assertEqual(sorted(c[c.index("noc.vcs=1") if "noc.vcs=1" in c else c.index("noc.vcs=4")]
                                for c in run_calls), ["noc.vcs=1", "noc.vcs=4"])

    def test_a_subsystem_parameter_without_its_selector_is_refused(self):
        with self.assertRaisesRegex(SweepError, r"s.yaml: parameters.noc.vcs: unknown parameter 'noc.vcs'"):
            self.load(parameters={"icnt.model": ["xbar"], "noc.vcs": [2]})

    def test_value_out_of_a_selected_subsystems_range(self):
        with self.assertRaisesRegex(SweepError, r"parameters.noc.vcs: value 16 is out of range \[1, 8\]"):
            self.load(parameters={"icnt.model": ["noc"], "noc.vcs": [2, 16]})

    def test_a_value_that_is_not_a_finite_number_is_refused(self):
        # (found by fuzz_spec.py: .nan reached int() and ended the tool with a traceback)
        for bad in (float("nan"), float("inf"), float("-inf")):
            with self.assertRaisesRegex(SweepError, r"parameters.sm.max_warps: value '.*' is not a finite number"):
                self.load(parameters={"sm.max_warps": [bad]})

    def test_many_points_few_tessera_calls(self):
        sweep = self.load(parameters={"icnt.model": ["xbar", "noc"], "sm.max_warps": {"range": [1, 64]}},
                          programs=["vecadd", "saxpy"], repeats={"count": 8})
        self.assertEqual(len(sweep["points"]), 2 * 2 * 64 * 8)
        calls = self.calls()
        self.assertEqual(len([c for c in calls if c[0] == "config"]), 2)  # xbar, noc
        # Per program and interconnect, the points with the smallest and the
        # largest sm.max_warps (1 is also the first): 2 x 2 x 2 of 2,048.
        self.assertEqual(len([c for c in calls if c[0] == "run"]), 8)

    def test_a_metric_of_one_selected_subsystem_is_accepted(self):
        sweep = self.load(parameters={"icnt.model": ["xbar", "noc"]}, metrics={"flits": "chip.noc.flits"})
        self.assertEqual(sweep["metrics"], {"flits": "chip.noc.flits"})
        with self.assertRaisesRegex(SweepError, r"metrics.flits: 'chip.noc.flitz' is not a statistic of these runs "
                                                r"\(nearest: chip.noc.flits\)"):
            self.load(parameters={"icnt.model": ["xbar", "noc"]}, metrics={"flits": "chip.noc.flitz"})

    def test_a_metric_of_some_points_is_accepted_in_any_order_and_noted(self):
        # fake_tessera's chip has sm.max_warps / 8 SMs (chip.sm0 ... chip.smN):
        # chip.sm7 exists only with 64 warps, whichever value comes first.
        for values in ([8, 64], [64, 8]):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                sweep = self.load(parameters={"sm.max_warps": values}, metrics={"ipc7": "chip.sm7.ipc"})
            self.assertEqual(len(sweep["points"]), 2)
            self.assertIn("metrics.ipc7: chip.sm7.ipc does not exist in runs with plat vecadd sm.max_warps=8: "
                          "such points have no ipc7", err.getvalue())
        with self.assertRaisesRegex(SweepError, r"metrics.ipc: 'chip.sm9.ipc' is not a statistic of these runs"):
            self.load(parameters={"sm.max_warps": [8, 64]}, metrics={"ipc": "chip.sm9.ipc"})

    def test_aggregates_are_checked_against_the_probes(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            sweep = self.load(parameters={"sm.max_warps": [8, 64]}, metrics={"ipc": "sum(chip.sm*.ipc)"})
        self.assertEqual(sweep["metrics"], {"ipc": "sum(chip.sm*.ipc)"})
        self.assertNotIn("note", err.getvalue())
        with self.assertRaisesRegex(SweepError, r"metrics.ipc: sum\(chip.sm\*.ipcc\) matches no statistic of "
                                                r"these runs"):
            self.load(parameters={"sm.max_warps": [8, 64]}, metrics={"ipc": "sum(chip.sm*.ipcc)"})
        # Paths under roi. and kernels. are accepted unprobed (a probe of one cycle has neither).
        sweep = self.load(parameters={"sm.max_warps": [8]},
                          metrics={"r": "sum(roi.chip.sm*.ipc)", "k": "kernels.0.counters.sm.warp_insts"})
        self.assertEqual(sorted(sweep["metrics"]), ["k", "r"])
        with self.assertRaisesRegex(SweepError, r"constraints\[0\]: .*sum\(chip.sm\*.ipc\) is an aggregate of "
                                                r"statistics, for metrics"):
            self.load(parameters={"sm.max_warps": [8, 64]}, constraints=["sum(chip.sm*.ipc) > 1"])

    def test_derived_parameters_are_computed_at_each_point(self):
        sweep = self.load(parameters={"icnt.model": ["noc"], "sm.max_warps": [8, 16, 64]},
                          derived={"noc.vcs": "max(1, sm.max_warps // 16)"})
        self.assertEqual([p["params"]["noc.vcs"] for p in sweep["points"]], [1, 1, 4])
        run_sets = [c for c in self.calls() if c[0] == "run"]
        self.assertTrue(any("noc.vcs=4" in c for c in run_sets), run_sets)  # probed and validated with the others

    def test_bad_derived_parameters_are_refused(self):
        cases = [({"sm.max_warps": "1"}, r"derived.sm.max_warps: 'sm.max_warps' is swept under parameters"),
                 ({"noc.vcs": "sm.max_warpz * 2"}, r"derived.noc.vcs: 'sm.max_warpz \* 2' names 'sm.max_warpz', "
                                                   r"which is not a swept parameter or a derived one before it "
                                                   r"\(nearest: sm.max_warps\)"),
                 ({"noc.vcs": "8 // (sm.max_warps - 8)"}, r"derived.noc.vcs: '8 // \(sm.max_warps - 8\)' cannot be "
                                                          r"computed at icnt.model=noc, sm.max_warps=8"),
                 ({"noc.vcs": "sm.max_warps > 8"}, r"derived.noc.vcs: 'sm.max_warps > 8' gives False at "),
                 ({"noc.vcs": "sum(chip.sm*.ipc)"}, r"derived.noc.vcs: sum\(chip.sm\*.ipc\) is an aggregate"),
                 ({"noc.vcs": "sm.max_warps * 2"}, r"derived.noc.vcs: value 16 is out of range \[1, 8\]"),
                 ("x", r"derived: expected a mapping")]
        for derived, message in cases:
            with self.subTest(derived=derived), self.assertRaisesRegex(SweepError, message):
                self.load(parameters={"icnt.model": ["noc"], "sm.max_warps": [8, 16]}, derived=derived)

    def test_a_platform_with_fixed_values_and_parameters_of_its_own(self):
        # plat as is; "noc" is plat with icnt.model=noc and noc.vcs swept for it
        # alone; both sweep sm.max_warps.
        sweep = self.load(platforms=["plat.yaml", {"name": "noc", "platform": "plat.yaml",
                                                   "set": {"icnt.model": "noc"}, "parameters": {"noc.vcs": [1, 4]}}],
                          parameters={"sm.max_warps": [8, 16]})
        got = [(p["platform_name"], p["params"]) for p in sweep["points"]]
        self.assertEqual(got, [("plat", {"sm.max_warps": 8}), ("plat", {"sm.max_warps": 16}),
                               ("noc", {"icnt.model": "noc", "noc.vcs": 1, "sm.max_warps": 8}),
                               ("noc", {"icnt.model": "noc", "noc.vcs": 4, "sm.max_warps": 8}),
                               ("noc", {"icnt.model": "noc", "noc.vcs": 1, "sm.max_warps": 16}),
                               ("noc", {"icnt.model": "noc", "noc.vcs": 4, "sm.max_warps": 16})])
        self.assertEqual(len(set(p["platform"] for p in sweep["points"])), 1)  # one file, two names

    def test_bad_platform_mappings_are_refused(self):
        noc = {"platform": "plat.yaml", "set": {"icnt.model": "noc"}}
        cases = [([{"platform": "plat.yaml", "sets": {}}], r"platforms\[0\]: unknown key 'sets'"),
                 ([{"name": "x"}], r"platforms\[0\]: a platform given as a mapping needs platform:"),
                 (["plat.yaml", {"platform": "plat.yaml"}], r"platforms\[1\]: a second platform named 'plat'"),
                 ([{"platform": "plat.yaml", "set": {"sm.max_warps": [8]}}],
                  r"platforms\[0\].set.sm.max_warps: expected one number or text, got \[8\]"),
                 ([{"platform": "plat.yaml", "set": {"sm.max_warps": 8}}],
                  r"platforms\[0\]: 'sm.max_warps' is swept under parameters for every platform"),
                 ([dict(noc, set={"icnt.model": "noc", "noc.vcs": 16})],
                  r"platforms\[0\].set.noc.vcs: value 16 is out of range \[1, 8\]"),
                 ([dict(noc, parameters={"noc.vcz": [1]})], r"platforms\[0\].parameters.noc.vcz: unknown parameter"),
                 ([dict(noc, name="a/b")], r"platforms\[0\].name: expected a name of letters")]
        for platforms, message in cases:
            with self.subTest(platforms=platforms), self.assertRaisesRegex(SweepError, message):
                self.load(platforms=platforms, parameters={"sm.max_warps": [8, 16]})

    def test_a_platforms_own_parameters_count_toward_max_points(self):
        with self.assertRaisesRegex(SweepError, r"the sweep would have 102 points \(51 platform configurations "
                                                r"\(with their own parameters\) x 2 values of sm.max_warps\)"):
            self.load(platforms=["plat.yaml", {"name": "n", "platform": "plat.yaml", "set": {"icnt.model": "noc"},
                                               "parameters": {"noc.vcs": {"range": [1, 50]}}}],
                      parameters={"sm.max_warps": [8, 16]}, max_points=100)

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


class SweepSize(FakeTesseraCase):
    """Points are counted from the spec and refused above max_points before
    any is made (and before tessera is asked anything)."""

    def refused(self, key, *fragments, **spec):
        with self.assertRaises(SweepError) as e:
            self.load(**spec)
        self.assertIn(f"s.yaml: {key}: ", str(e.exception))
        for f in fragments:
            self.assertIn(f, str(e.exception))
        self.assertEqual(self.calls(), [], "tessera was run for a refused sweep")
        return str(e.exception)

    def test_a_range_of_1e11_values_is_refused_naming_the_count_and_max_points(self):
        self.refused("parameters.sm.max_warps", "the sweep would have 100,000,000,001 points (100,000,000,001 "
                     "values of sm.max_warps), more than max_points (1,000,000)", "raise max_points",
                     parameters={"sm.max_warps": {"range": [0, 1e11]}})

    def test_repeats_and_samples_count_too(self):
        self.refused("repeats.count", "1,000,000,000,000 points (1,000,000,000,000 repeats)",
                     parameters={"sm.max_warps": [8]}, repeats={"count": 10 ** 12})
        self.refused("sampling.points", "1,000,000,000,000 points (1,000,000,000,000 sampled points)",
                     parameters={"sm.max_warps": {"range": [1, 64]}}, sampling={"method": "lhs", "points": 10 ** 12})
        # random: at most the grid (1e11 values), whatever the points asked.
        self.refused("sampling.points", "100,000,000,001 points", parameters={"sm.max_warps": {"range": [0, 1e11]}},
                     sampling={"method": "random", "points": 10 ** 12})
        self.assertEqual(len(self.load(parameters={"sm.max_warps": {"range": [1, 64]}},
                                       sampling={"method": "random", "points": 10 ** 12})["points"]), 64)

    def test_the_largest_factor_is_named(self):
        self.refused("parameters.sm.max_warps", "the sweep would have 1,000,001 points (1,000,001 values of "
                     "sm.max_warps)", parameters={"sm.max_warps": {"range": [1, 1000001]}})
        self.refused("repeats.count", "384 points (3 programs x 2 values of icnt.model x 64 repeats)",
                     "more than max_points (100)", programs=["vecadd", "saxpy", "vecadd.elf"],
                     parameters={"icnt.model": ["xbar", "noc"]}, repeats={"count": 64}, max_points=100)

    def test_a_max_points_past_this_machines_memory_is_refused_before_expanding(self):
        # (found by fuzz_spec.py: max_points 1e30 let 1e12 repeats be expanded until MemoryError)
        self.refused("repeats.count", "the sweep's 1,000,000,000,000 points (1,000,000,000,000 repeats) would take "
                     "about 931,322.6 GiB of this tool's memory (1000 bytes a point), more than the",
                     max_points=10 ** 30, repeats={"count": 10 ** 12})

    def test_max_points_raises_or_lowers_the_limit(self):
        spec = {"programs": ["vecadd", "saxpy"], "parameters": {"sm.max_warps": {"range": [1, 64]}}}
        self.refused("parameters.sm.max_warps", "128 points (2 programs x 64 values of sm.max_warps), more than "
                     "max_points (127)", max_points=127, **spec)
        self.assertEqual(len(self.load(max_points=128, **spec)["points"]), 128)
        for bad in (0, -1, True, "1000", 1.5):
            with self.subTest(max_points=bad), self.assertRaisesRegex(SweepError, "max_points: expected a positive "
                                                                                   "integer"):
                self.load(max_points=bad, **spec)

    def test_constraints_filter_a_grid_that_fits(self):
        # The grid before constraints is what is counted (and checked point by point).
        sweep = self.load(parameters={"sm.max_warps": {"range": [1, 64]}, "icnt.model": ["xbar", "noc"]},
                          constraints=["sm.max_warps <= 2"], max_points=128)
        self.assertEqual(len(sweep["points"]), 4)


class SpecInput(FakeTesseraCase):
    """Hostile spec values are refused with the key, not a traceback."""

    def test_a_name_must_be_one_plain_file_name(self):
        for bad in ("..", ".", "a/b", "", "a\0b", "x" * 201, 7):
            with self.subTest(name=bad), self.assertRaisesRegex(
                    SweepError, r"s.yaml: name: .* is not a filesystem-safe name: one plain file name"):
                self.load(name=bad)
        self.assertEqual(self.load(name="...")["name"], "...")  # three dots are a plain name
        path = os.path.join(self.tmp, "my sweep.yaml")
        with open(path, "w") as f:
            yaml.safe_dump({"platforms": ["plat.yaml"], "programs": ["vecadd"]}, f)
        with self.assertRaisesRegex(SweepError, r"name: 'my sweep' \(the spec file's name; give the sweep a name: "
                                                r"key\)"):
            spec_mod.load(path, self.tessera)

    def test_timeout_must_be_finite_and_positive(self):
        for bad in (float("nan"), float("inf"), float("-inf"), -1, 0, 1e300, 10 ** 400, True, "10"):
            with self.subTest(timeout=bad), self.assertRaisesRegex(SweepError, "timeout: expected a positive, "
                                                                               "finite number of seconds"):
                self.load(timeout=bad)
        self.assertEqual(self.load(timeout=0.5)["timeout"], 0.5)

    def write(self, text):
        path = os.path.join(self.tmp, "s.yaml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_yaml_that_would_exhaust_memory_or_the_stack_is_refused(self):
        base = "platforms: [plat.yaml]\nprograms: [vecadd]\n"
        laughs = "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]\n" for i in range(1, 9))
        for text, why in ((base + "timeout: " + "9" * 5000 + "\n", "not valid YAML"),
                          (base + "description: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply to read"),
                          (base + "description: " + "[" * 100 + "]" * 100 + "\n", "description: nested more than 64"),
                          (base + "description:\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n" +
                           "".join("  " + ln + "\n" for ln in laughs.splitlines()),
                           "description: the spec holds more than 1,000,000 values"),
                          (base + "description: '" + "x" * (4 << 20) + "'\n", "larger than 4 MB")):
            with self.subTest(why=why), self.assertRaisesRegex(SweepError, why):
                spec_mod.load(self.write(text), self.tessera)

    def test_a_date_in_the_spec_is_kept_as_text(self):
        sweep = spec_mod.load(self.write("platforms: [plat.yaml]\nprograms: [vecadd]\ndescription: 2024-01-31\n"),
                              self.tessera)
        self.assertEqual(sweep["spec"]["description"], "2024-01-31")

    def test_expression_overflow_and_nesting_name_the_key(self):
        with self.assertRaisesRegex(SweepError, r"s.yaml: metrics.big: expression '10\*\*10\*\*10': .* too large"):
            self.load(metrics={"big": "10**10**10"})
        with self.assertRaisesRegex(SweepError, r"s.yaml: constraints: constraint 'sm.max_warps \*\* 1000.0 > 0' "
                                                r"cannot be evaluated at \{'sm.max_warps': 64\}: .*"):
            self.load(parameters={"sm.max_warps": [64]}, constraints=["sm.max_warps ** 1000.0 > 0"])
        with self.assertRaisesRegex(SweepError, r"s.yaml: metrics.m: expression .* nested too deeply"):
            self.load(metrics={"m": "- " * 1500 + "summary.sim_cycles"})


class SearchSpec(FakeTesseraCase):
    """`search:` checked when the spec is loaded: every refusal names its key."""

    def load_search(self, search, **kw):
        kw.setdefault("parameters", {"sm.max_warps": [8, 16, 32]})
        kw.setdefault("metrics", {"cycles": "summary.sim_cycles", "ipc": "chip.sm0.ipc"})
        return self.load(search=search, **kw)

    def test_the_search_is_recorded_with_its_defaults(self):
        sweep = self.load_search({"objectives": {"cycles": "minimize"}, "trials": 2})
        self.assertEqual(sweep["search"], {"objectives": [["cycles", "minimize"]], "sampler": "tpe", "trials": 2,
                                           "seed": 0, "batch": None, "combine": "geomean", "constraints": [],
                                           "axes": [["sm.max_warps", [8, 16, 32]]]})
        self.assertEqual(len(sweep["points"]), 3)  # the whole space, validated as a grid's
        two = self.load_search({"objectives": [{"cycles": "minimize"}, {"ipc": "maximize"}], "trials": 2})
        self.assertEqual(two["search"]["sampler"], "nsga2")

    def test_bad_searches_are_refused_naming_the_key(self):
        cases = [
            ("x", {}, r"search: expected a mapping"),
            ({"objectives": {"cycles": "minimize"}, "trials": 2, "budget": 3}, {}, r"search.budget: unknown key"),
            ({"trials": 2}, {}, r"search.objectives: expected metric columns"),
            ({"objectives": {"cycels": "minimize"}, "trials": 2}, {},
             r"search.objectives.cycels: 'cycels' is not a metric column of the spec \(metrics: cycles, ipc\)"),
            ({"objectives": {"cycles": "lowest"}, "trials": 2}, {}, r"search.objectives.cycles: expected minimize"),
            ({"objectives": {"cycles": "minimize"}}, {}, r"search.trials: missing"),
            ({"objectives": {"cycles": "minimize"}, "trials": 0}, {}, r"search.trials: expected a positive integer"),
            ({"objectives": {"cycles": "minimize"}, "trials": 2, "batch": -1}, {}, r"search.batch: expected a posit"),
            ({"objectives": {"cycles": "minimize"}, "trials": 2, "seed": "x"}, {}, r"search.seed: expected an int"),
            ({"objectives": {"cycles": "minimize"}, "trials": 2, "sampler": "bayes"}, {},
             r"search.sampler: unknown sampler 'bayes' \(samplers: tpe, cmaes, random, nsga2\)"),
            ({"objectives": {"cycles": "minimize", "ipc": "maximize"}, "trials": 2, "sampler": "cmaes"}, {},
             r"search.sampler: cmaes optimises one objective"),
            ({"objectives": {"cycles": "minimize"}, "trials": 2, "combine": "median"}, {},
             r"search.combine: expected one of geomean, mean, sum, min, max"),
            ({"objectives": {"cycles": "minimize"}, "trials": 2, "constraints": ["ipcc > 1"]}, {},
             r"search.constraints\[0\]: 'ipcc > 1' names 'ipcc', which is neither a metric column nor a parameter"),
            ({"objectives": {"cycles": "minimize"}, "trials": 2, "constraints": ["sum(chip.sm*.ipc) > 1"]}, {},
             r"search.constraints\[0\]: .*an aggregate belongs in a metric"),
            ({"objectives": {"cycles": "minimize"}, "trials": 2, "sampler": "cmaes", "constraints": ["ipc > 1"]}, {},
             r"search.constraints: the cmaes sampler takes no constraints"),
            ({"objectives": {"cycles": "minimize"}, "trials": 2}, {"parameters": {"sm.max_warps": [8]}},
             r"search: no parameter has more than one value: there is nothing to search"),
            ({"objectives": {"cycles": "minimize"}, "trials": 2}, {"sampling": {"method": "random", "points": 2}},
             r"search: sampling and search are both given"),
        ]
        for search, kw, message in cases:
            with self.subTest(search=search, kw=kw), self.assertRaisesRegex(SweepError, message):
                self.load_search(search, **kw)

    def test_a_platforms_own_parameters_are_not_searched(self):
        with self.assertRaisesRegex(SweepError, r"platforms\[1\].parameters: a search chooses among the values"):
            self.load_search({"objectives": {"cycles": "minimize"}, "trials": 2},
                             platforms=["plat.yaml", {"name": "noc", "platform": "plat.yaml",
                                                      "set": {"icnt.model": "noc"}, "parameters": {"noc.vcs": [1, 4]}}])


class MetricLabels(unittest.TestCase):
    """Axis labels of metric columns from the statistics' descriptions."""
    D = {"chip.sm0.l1_half0.hit_sectors": "sectors that hit in L1", "chip.sm1.l1_half0.hit_sectors": "sectors that hit",
         "chip.sm0.ipc": "warp instructions per cycle", "summary.sim_cycles": "cycles simulated (SM clock)",
         "kernels.*.cycles": "cycles of the kernel launch (SM clock)"}

    def label(self, text):
        from tessera_sweep import space
        return spec_mod.metric_label("m", space.Expr(text), self.D)

    def test_one_statistic_or_one_aggregate_is_described(self):
        self.assertEqual(self.label("summary.sim_cycles"), "m: cycles simulated (SM clock)")
        self.assertEqual(self.label("roi.chip.sm0.ipc"), "m: warp instructions per cycle, in the region of interest")
        self.assertEqual(self.label("kernels.0.cycles"), "m: cycles of the kernel launch (SM clock)")
        self.assertEqual(self.label("sum(kernels.*.cycles)"), "m: sum of cycles of the kernel launch (SM clock)")
        self.assertEqual(self.label("mean(chip.sm*.ipc)"), "m: mean of warp instructions per cycle")
        self.assertEqual(self.label("kernels.2.counters.sm.l1_half.hit_sectors"),
                         "m: sectors that hit in L1, during the kernel launch")

    def test_other_expressions_and_unknown_paths_have_none(self):
        self.assertIsNone(self.label("summary.sim_cycles / 1000"))
        self.assertIsNone(self.label("sum(chip.sm*.ipc) / 2"))
        self.assertIsNone(self.label("chip.sm9.ipc"))


class SearchParts(unittest.TestCase):
    """The search's pure parts: combining a configuration's points, constraint
    violations, dominance and the best configurations."""

    def test_combine(self):
        from tessera_sweep import search
        self.assertAlmostEqual(search.combine([2, 8], "geomean"), 4.0)
        self.assertEqual(search.combine([2, 8], "mean"), 5)
        self.assertEqual(search.combine([2, 8], "sum"), 10)
        self.assertEqual(search.combine([2, 8], "max"), 8)
        with self.assertRaisesRegex(ValueError, "positive"):
            search.combine([0, 8], "geomean")

    def test_a_constraints_violation_is_its_gap(self):
        from tessera_sweep import search
        env = {"area": 12, "cycles": 100}
        self.assertEqual(search.violation("area <= 10", env), 2)
        self.assertEqual(search.violation("area >= 10", env), 0)
        self.assertEqual(search.violation("cycles > area * 10", env), 20)
        self.assertEqual(search.violation("cycles > area * 10 - 20", env), 1e-12)  # equal: false by the least amount
        self.assertEqual(search.violation("area == 10", env), 1)
        self.assertEqual(search.violation("area == 12 and cycles < 200", env), 0)

    def test_the_pareto_front_and_the_single_best(self):
        from tessera_sweep import search
        ev = {"a": {"values": [1, 9], "feasible": True}, "b": {"values": [2, 2], "feasible": True},
              "c": {"values": [3, 3], "feasible": True}, "d": {"values": [0, 0], "feasible": False},
              "e": {"values": None, "feasible": False}, "f": {"values": [9, 1], "feasible": True}}
        self.assertEqual(search.best(ev, ["minimize", "minimize"]), ["a", "b", "f"])
        self.assertEqual(search.best(ev, ["minimize"]), ["a"])
        self.assertEqual(search.best(ev, ["maximize"]), ["f"])
        self.assertEqual(search.best(ev, ["maximize", "minimize"]), ["f"])


if __name__ == "__main__":
    unittest.main()
