"""The parameter space: axis forms, sampling, constraints, repeats (pure)."""
import types
import unittest

from tessera_sweep import SweepError
from tessera_sweep import space


class Axes(unittest.TestCase):
    def test_list_is_kept_in_order(self):
        self.assertEqual(space.axis_values("a", ["lrr", "gto", "two_level"]), ["lrr", "gto", "two_level"])

    def test_range_includes_stop(self):
        self.assertEqual(space.axis_values("a", {"range": [8, 64, 8]}), [8, 16, 24, 32, 40, 48, 56, 64])
        self.assertEqual(space.axis_values("a", {"range": [1, 10, 4]}), [1, 5, 9])
        self.assertEqual(space.axis_values("a", {"range": [0.5, 1.5, 0.5]}), [0.5, 1.0, 1.5])

    def test_log2_range_is_the_powers_of_two_between(self):
        self.assertEqual(space.axis_values("a", {"log2_range": [16, 128]}), [16, 32, 64, 128])
        self.assertEqual(space.axis_values("a", {"log2_range": [3, 40]}), [4, 8, 16, 32])

    def test_linspace_and_logspace(self):
        self.assertEqual(space.axis_values("a", {"linspace": [0.1, 0.5, 5]}), [0.1, 0.2, 0.3, 0.4, 0.5])
        self.assertEqual(space.axis_values("a", {"logspace": [1, 1000, 4]}), [1.0, 10.0, 100.0, 1000.0])

    def test_bad_forms_are_refused(self):
        for bad in ({"range": [8, 1, 2]}, {"range": [1, 8, 0]}, {"log2_range": [5, 7]}, {"linspace": [0, 1, 0]},
                    {"logspace": [0, 10, 3]}, {"steps": [1, 2]}, []):
            with self.subTest(bad=bad), self.assertRaises(SweepError):
                space.axis_values("a", bad)


AXES = [("x", [1, 2, 3]), ("y", ["a", "b"])]


class Sampling(unittest.TestCase):
    def test_grid_is_the_full_product_first_axis_slowest(self):
        self.assertEqual(space.sample(AXES, "grid"),
                         [{"x": 1, "y": "a"}, {"x": 1, "y": "b"}, {"x": 2, "y": "a"}, {"x": 2, "y": "b"},
                          {"x": 3, "y": "a"}, {"x": 3, "y": "b"}])

    def test_random_is_reproducible_distinct_and_seeded(self):
        axes = [("x", list(range(20))), ("y", list(range(20)))]
        a = space.sample(axes, {"method": "random", "points": 50, "seed": 1})
        b = space.sample(axes, {"method": "random", "points": 50, "seed": 1})
        c = space.sample(axes, {"method": "random", "points": 50, "seed": 2})
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        self.assertEqual(len(a), 50)
        self.assertEqual(len({(p["x"], p["y"]) for p in a}), 50)
        grid = space.grid(axes)
        for p in a:
            self.assertIn(p, grid)

    def test_random_with_more_points_than_the_grid_is_the_grid(self):
        self.assertEqual(space.sample(AXES, {"method": "random", "points": 100, "seed": 3}), space.grid(AXES))

    def test_random_over_a_huge_grid(self):
        axes = [(f"p{i}", list(range(100))) for i in range(5)]  # 1e10 points
        a = space.sample(axes, {"method": "random", "points": 1000, "seed": 7})
        self.assertEqual(len({tuple(p.values()) for p in a}), 1000)
        self.assertEqual(a, space.sample(axes, {"method": "random", "points": 1000, "seed": 7}))

    def test_lhs_uses_each_stratum_once(self):
        n = 10
        axes = [("x", list(range(10))), ("y", [i * 0.1 for i in range(20)]), ("z", list(range(5)))]
        pts = space.sample(axes, {"method": "lhs", "points": n, "seed": 5})
        self.assertEqual(len(pts), n)
        # 10 values, 10 strata: every value exactly once.
        self.assertEqual(sorted(p["x"] for p in pts), list(range(10)))
        # 20 values, 10 strata: stratum s holds value index 2s; each once.
        self.assertEqual(sorted(axes[1][1].index(p["y"]) for p in pts), list(range(0, 20, 2)))
        # 5 values over 10 strata: each value in exactly 2 points.
        self.assertEqual(sorted(p["z"] for p in pts), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4])
        perms = space.lhs_strata(3, n, 5)
        for perm in perms:
            self.assertEqual(sorted(perm), list(range(n)))

    def test_lhs_is_reproducible_and_seeded(self):
        axes = [("x", list(range(10))), ("y", list(range(10)))]
        a = space.sample(axes, {"method": "lhs", "points": 10, "seed": 1})
        self.assertEqual(a, space.sample(axes, {"method": "lhs", "points": 10, "seed": 1}))
        self.assertNotEqual(a, space.sample(axes, {"method": "lhs", "points": 10, "seed": 2}))

    def test_a_value_listed_twice_is_refused(self):
        with self.assertRaisesRegex(SweepError, r"parameter 'a': the value 4 is listed twice"):
            space.axis("a", [4, 8, 4])
        self.assertEqual(len(space.axis("a", [4, 4.5, "4"])), 3)  # distinct values

    def test_a_short_sample_says_what_it_dropped(self):
        # 3 x 2 values, 20 Latin-hypercube points: at most 6 distinct.
        axes = [("x", [1, 2, 3]), ("y", [10, 20])]
        dropped = {}
        pts = list(space.iter_sample(axes, {"method": "lhs", "points": 20, "seed": 1}, (), dropped))
        self.assertEqual(len({tuple(p.values()) for p in pts}), len(pts))
        self.assertEqual(dropped, {"repeated": 20 - len(pts), "rejected": 0})
        c = space.Expr("x + y != 21")
        dropped = {}
        kept = list(space.iter_sample(axes, {"method": "lhs", "points": 20, "seed": 1}, [c], dropped))
        self.assertEqual(len(kept) + dropped["repeated"] + dropped["rejected"], 20)
        self.assertEqual(dropped["rejected"], 1)  # (1, 20), once: its repeats are counted as repeated
        self.assertNotIn({"x": 1, "y": 20}, kept)

    def test_unknown_method_is_refused(self):
        with self.assertRaisesRegex(SweepError, "unknown method 'sobol'"):
            space.sample(AXES, {"method": "sobol", "points": 4})
        with self.assertRaisesRegex(SweepError, "positive integer"):
            space.sample(AXES, {"method": "random", "points": 0})


class Constraints(unittest.TestCase):
    def test_constraints_filter_the_grid(self):
        axes = [("l1.size_kb", [16, 32, 64, 96]), ("sm.shared_bytes", [16384, 49152])]
        c = space.Expr("l1.size_kb + sm.shared_bytes / 1024 <= 96")
        pts = space.sample(axes, "grid", [c])
        # Sums: 16+16, 16+48, 32+16, 32+48, 64+16 are <= 96; 64+48, 96+16, 96+48 are not.
        self.assertEqual(pts, [{"l1.size_kb": 16, "sm.shared_bytes": 16384}, {"l1.size_kb": 16, "sm.shared_bytes": 49152},
                               {"l1.size_kb": 32, "sm.shared_bytes": 16384}, {"l1.size_kb": 32, "sm.shared_bytes": 49152},
                               {"l1.size_kb": 64, "sm.shared_bytes": 16384}])

    def test_expression_forms(self):
        env = {"a.b": 6, "c": 4, "s.sched": "gto"}
        self.assertEqual(space.Expr("a.b // c + a.b % c * 2 ** 3").eval(env), 1 + 2 * 8)
        self.assertEqual(space.Expr("max(a.b, c, 10) - min(a.b, c)").eval(env), 6)
        self.assertTrue(space.Expr("s.sched == 'gto' and not c > 5 or false").eval(env))
        self.assertTrue(space.Expr("1 < c < a.b").eval(env))
        self.assertEqual(space.Expr("a.b / c").eval(env), 1.5)
        self.assertEqual(space.Expr("roi.warp_insts / roi.sim_cycles").names, {"roi.warp_insts", "roi.sim_cycles"})
        with self.assertRaises(space.MissingName):
            space.Expr("roi.sim_cycles").eval({})

    def test_aggregates_over_instances(self):
        # Three SMs' hits (sm10 too: * is any run within one component) and
        # their hit rates; chip.smx.l1.hits.total is one component deeper.
        env = {"chip.sm0.l1.hits": 30, "chip.sm1.l1.hits": 10, "chip.sm10.l1.hits": 20,
               "chip.sm0.l1.misses": 10, "chip.sm1.l1.misses": 30, "chip.sm10.l1.misses": 20,
               "chip.smx.l1.hits.total": 1000, "chip.sm2.l1.hits": None, "s.name": "x"}
        hits = space.Expr("sum(chip.sm*.l1.hits)")
        self.assertEqual(hits.eval(env), 60)
        self.assertEqual(hits.names, set())
        self.assertEqual(list(hits.patterns), ["sum(chip.sm*.l1.hits)"])
        self.assertEqual(space.Expr("count(chip.sm*.l1.hits)").eval(env), 3)
        self.assertEqual(space.Expr("mean(chip.sm*.l1.hits)").eval(env), 20)
        self.assertEqual(space.Expr("max(chip.sm*.l1.hits) - min(chip.sm*.l1.hits)").eval(env), 20)
        self.assertEqual(space.Expr("max(max(chip.sm*.l1.hits), 100)").eval(env), 100)
        with self.assertRaises(SweepError):  # a path with * is an aggregate's only argument
            space.Expr("max(chip.sm*.l1.hits, 100)")
        self.assertEqual(space.Expr("max(c) + min(c, 2)").names, {"c"})  # no *: the plain min and max
        rate = space.Expr("sum(chip.sm*.l1.hits) / (sum(chip.sm*.l1.hits) + sum(chip.sm*.l1.misses))")
        self.assertEqual(rate.eval(env), 0.5)
        self.assertEqual(space.Expr("sum(chip.*.l1.hits) + c").eval({**env, "c": 1}), 61)
        self.assertEqual(space.Expr("'sum(a*)'").eval({}), "sum(a*)")  # a string is not an aggregate
        with self.assertRaises(space.MissingName):
            space.Expr("sum(chip.l2.slice*.hits)").eval(env)
        with self.assertRaisesRegex(space.ExprError, r"sum\(s.\*\) needs numbers"):
            space.Expr("sum(s.*)").eval(env)

    def test_bad_expressions_are_refused(self):
        for bad in ("a <=", "__import__('os').system('true')", "(1).real", "open('x')", "[1, 2]",
                    "a if b else c", "lambda: 1", "a in b", "x[0]", "", "sum(a, b)", "sum(a + b)", "mean()"):
            with self.subTest(bad=bad), self.assertRaises(SweepError):
                space.Expr(bad)


class Repeats(unittest.TestCase):
    def test_each_point_repeats_with_its_seed(self):
        pts = space.with_repeats([{"x": 1}, {"x": 2}], (3, "noc.seed"))
        self.assertEqual(pts, [({"x": 1, "noc.seed": 1}, 0), ({"x": 1, "noc.seed": 2}, 1), ({"x": 1, "noc.seed": 3}, 2),
                               ({"x": 2, "noc.seed": 1}, 0), ({"x": 2, "noc.seed": 2}, 1), ({"x": 2, "noc.seed": 3}, 2)])


class ExpressionBounds(unittest.TestCase):
    """Every step of an expression is bounded before it is computed: Python
    computes a power in one C call that no signal interrupts, so an unbounded
    10 ** 10 ** 10 held a sweep past SIGTERM. (A regression here hangs the
    test until CTest's timeout instead of failing it quickly.)"""

    def test_ten_to_the_ten_to_the_ten_is_refused_when_parsed(self):
        with self.assertRaisesRegex(SweepError, r"'10\*\*10\*\*10': 10 \*\* 10 \*\* 10 cannot be computed: "
                                                r"10 \*\* 10000000000 is too large \(about 3.32e\+10 bits; an "
                                                r"integer result may have at most 1024\)"):
            space.Expr("10**10**10")

    def test_a_power_of_statistics_is_bounded_when_evaluated(self):
        e = space.Expr("summary.sim_cycles ** x")
        with self.assertRaisesRegex(space.ExprError, r"5000 \*\* 10000000000 is too large"):
            e.eval({"summary.sim_cycles": 5000, "x": 10 ** 10})
        self.assertEqual(e.eval({"summary.sim_cycles": 5000, "x": 3}), 5000 ** 3)
        self.assertEqual(space.Expr("2 ** 64").eval({}), 2 ** 64)
        self.assertEqual(space.Expr("1 ** x + (-1) ** x").eval({"x": 10 ** 300}), 2)

    def test_a_product_of_huge_integers_is_refused(self):
        with self.assertRaisesRegex(space.ExprError, "an integer result may have at most 1024 bits"):
            space.Expr("x * x").eval({"x": 2 ** 1000})

    def test_a_complex_result_is_not_a_number(self):
        with self.assertRaisesRegex(space.ExprError, r"\(-4\) \*\* 0.5 is not a real number"):
            space.Expr("(0 - x) ** 0.5").eval({"x": 4})
        with self.assertRaisesRegex(SweepError, "not a real number"):
            space.Expr("(-1) ** 0.5")

    def test_float_overflow_is_an_expression_error(self):
        with self.assertRaisesRegex(space.ExprError, "Numerical result out of range|too large"):
            space.Expr("x ** 1000.0").eval({"x": 10.0})
        with self.assertRaisesRegex(space.ExprError, "too large"):
            space.Expr("x / 3").eval({"x": 10 ** 400})

    def test_arithmetic_needs_numbers(self):
        # A string repeated or %-formatted could take any memory.
        for text in ("'a' * 10", "'%0999999999d' % 1", "'a' + 'b'"):
            with self.subTest(text=text), self.assertRaisesRegex(SweepError, "needs numbers"):
                space.Expr(text)
        for text, env in (("s * n", {"s": "ab", "n": 10 ** 9}), ("s % n", {"s": "%0999999999d", "n": 1}),
                          ("-s", {"s": "x"})):
            with self.subTest(text=text), self.assertRaisesRegex(space.ExprError, "needs (numbers|a number)"):
                space.Expr(text).eval(env)
        self.assertTrue(space.Expr("s == 'gto'").eval({"s": "gto"}))

    def test_shifts_and_other_operators_are_not_in_the_language(self):
        for text in ("x << 10000000000", "1 << 10 ** 10", "x >> 1", "x & 1", "x | 1", "x ^ 1", "~x", "x @ x"):
            with self.subTest(text=text), self.assertRaisesRegex(SweepError, "is not allowed"):
                space.Expr(text)

    def test_a_constant_that_cannot_be_computed_is_refused(self):
        for text, why in (("1 / 0", "division by zero"), ("x + 1e999", "not finite"),
                          ("x + " + "9" * 400, "more than 1024 bits")):
            with self.subTest(text=text), self.assertRaisesRegex(SweepError, why):
                space.Expr(text)

    def test_deep_nesting_and_long_text_are_refused_not_a_recursion_error(self):
        for text in ("-" * 3000 + "1", "not " * 900 + "x", "2**" * 1000 + "1", "- " * 250 + "1",
                     "1" + "+ 1" * 250):
            with self.subTest(text=text[:20]), self.assertRaisesRegex(SweepError, "nested too deeply"):
                space.Expr(text)
        with self.assertRaisesRegex(SweepError, "100001 characters long"):
            space.Expr("1" + "+1" * 50000)
        # A sum of 150 counters is a long metric, but an ordinary one.
        self.assertEqual(space.Expr(" + ".join(f"c{i}" for i in range(150))).eval({f"c{i}": i for i in range(150)}),
                         sum(range(150)))

    def test_the_time_budget_is_checked_between_steps(self):
        with self.assertRaisesRegex(space.ExprError, "took longer than"):
            space.Expr("x + 1").eval({"x": 1}, seconds=-1)

    def test_a_constraint_that_overflows_is_a_sweep_error(self):
        c = space.Expr("x ** 1000.0 > 0")
        with self.assertRaisesRegex(SweepError, r"constraint 'x \*\* 1000.0 > 0' cannot be evaluated at \{'x': 10\}"):
            space.sample([("x", [10])], "grid", [c])


class Counting(unittest.TestCase):
    """A space is counted from the spec, never built to be counted."""

    def test_a_range_of_1e11_values_is_counted_not_built(self):
        a = space.axis("a", {"range": [0, 1e11]})
        self.assertEqual(a.count, 100_000_000_001)
        self.assertEqual((a[0], a[5], a[a.count - 1]), (0, 5, 100_000_000_000))
        self.assertEqual(space.axis("a", {"range": [0, 10 ** 30, 3]}).count, 10 ** 30 // 3 + 1)
        self.assertEqual(space.axis("a", {"linspace": [0, 1, 10 ** 12]}).count, 10 ** 12)

    def test_counts_of_each_sampling(self):
        axes = [("a", space.axis("a", {"range": [1, 10 ** 6]})), ("b", space.axis("b", {"range": [1, 10 ** 4]}))]
        self.assertEqual(space.count(axes, "grid"), 10 ** 10)
        self.assertEqual(space.count(axes, {"method": "lhs", "points": 10 ** 12}), 10 ** 12)
        self.assertEqual(space.count(axes, {"method": "random", "points": 10 ** 12}), 10 ** 10)
        self.assertEqual(space.count(AXES, {"method": "random", "points": 100}), 6)

    def test_non_finite_bounds_are_refused(self):
        for bad in ({"range": [0, float("inf")]}, {"range": [0, 1, float("nan")]}, {"log2_range": [1, float("inf")]},
                    {"linspace": [float("nan"), 1, 3]}, {"logspace": [1, float("inf"), 3]},
                    {"range": [-1e308, 1e308, 1e-300]}):
            with self.subTest(bad=bad), self.assertRaisesRegex(SweepError, "finite|counted"):
                space.axis("a", bad)

    def test_points_are_produced_one_at_a_time(self):
        axes = [("a", space.axis("a", {"range": [1, 1000]})), ("b", space.axis("b", {"range": [1, 1000]}))]
        for sampling in ("grid", {"method": "lhs", "points": 1000, "seed": 1},
                         {"method": "random", "points": 10, "seed": 1}):
            with self.subTest(sampling=sampling):
                points = space.iter_sample(axes, sampling)
                self.assertIsInstance(points, types.GeneratorType)
                self.assertIn(next(points)["a"], range(1, 1001))
        self.assertIsInstance(space.iter_repeats(iter([{"a": 1}]), (10 ** 12, "seed")), types.GeneratorType)


if __name__ == "__main__":
    unittest.main()
