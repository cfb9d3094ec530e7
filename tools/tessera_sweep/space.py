"""The parameter space of a sweep: axis values, sampling (grid, random,
Latin hypercube), constraints and repeats. Pure functions, no I/O."""
import ast
import itertools
import math
import operator
import random
import re

from . import SweepError

# ---------------------------------------------------------------- axes


def _number(x, what):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise SweepError(f"{what}: {x!r} is not a number")
    return x


def _tidy(x):
    """Round away binary noise (0.30000000000000004 -> 0.3) and give
    integral results of integer inputs as ints."""
    if isinstance(x, float):
        if x == 0 or not math.isfinite(x):
            return x
        x = float(f"{x:.12g}")
    return x


def axis_values(key, spec):
    """The values of one parameter axis: a list, or one of {range: [a, b, step]},
    {log2_range: [a, b]}, {linspace: [a, b, n]}, {logspace: [a, b, n]}."""
    what = f"parameter '{key}'"
    if isinstance(spec, list):
        if not spec:
            raise SweepError(f"{what}: empty list of values")
        return list(spec)
    if not isinstance(spec, dict) or len(spec) != 1:
        if isinstance(spec, (str, int, float, bool)):
            return [spec]
        raise SweepError(f"{what}: expected a list or one of range, log2_range, linspace, logspace; got {spec!r}")
    kind, args = next(iter(spec.items()))
    if not isinstance(args, list):
        raise SweepError(f"{what}: {kind} takes a list, got {args!r}")
    if kind == "range":
        if len(args) not in (2, 3):
            raise SweepError(f"{what}: range takes [start, stop, step] (stop inclusive)")
        a, b = _number(args[0], what), _number(args[1], what)
        step = _number(args[2], what) if len(args) == 3 else 1
        if step == 0 or (b - a) * step < 0:
            raise SweepError(f"{what}: range [{a}, {b}, {step}] is empty (step 0 or pointing away from stop)")
        n = int(math.floor((b - a) / step + 1e-9)) + 1
        ints = all(isinstance(v, int) for v in (a, b, step))
        return [a + i * step if ints else _tidy(a + i * step) for i in range(n)]
    if kind == "log2_range":
        if len(args) != 2:
            raise SweepError(f"{what}: log2_range takes [from, to]")
        a, b = _number(args[0], what), _number(args[1], what)
        if a <= 0 or b < a:
            raise SweepError(f"{what}: log2_range [{a}, {b}] needs 0 < from <= to")
        out, p = [], 1
        while p < a:
            p *= 2
        while p <= b:
            out.append(p)
            p *= 2
        if not out:
            raise SweepError(f"{what}: log2_range [{a}, {b}] holds no power of two")
        return out
    if kind in ("linspace", "logspace"):
        if len(args) != 3 or not isinstance(args[2], int) or isinstance(args[2], bool) or args[2] < 1:
            raise SweepError(f"{what}: {kind} takes [start, stop, count] with a positive integer count")
        a, b, n = _number(args[0], what), _number(args[1], what), args[2]
        if kind == "logspace" and (a <= 0 or b <= 0):
            raise SweepError(f"{what}: logspace [{a}, {b}, {n}] needs positive start and stop (they are values)")
        if n == 1:
            return [a]
        if kind == "linspace":
            return [_tidy(a + (b - a) * i / (n - 1)) for i in range(n)]
        return [_tidy(a * (b / a) ** (i / (n - 1))) for i in range(n)]
    raise SweepError(f"{what}: unknown value form '{kind}' (expected range, log2_range, linspace or logspace)")


# ---------------------------------------------------------------- expressions

_NAME_OR_STRING = re.compile(r"""('[^']*'|"[^"]*")|(?<![\w.])([A-Za-z_]\w*(?:\.\w+)*)""")
_RESERVED = {"and", "or", "not", "min", "max", "True", "False", "true", "false"}
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_CMPOPS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Gt: operator.gt, ast.GtE: operator.ge}


class MissingName(Exception):
    """An expression names a value the environment does not hold."""


class Expr:
    """A safe expression over dotted names (`l1.size_kb + sm.shared_bytes / 1024 <= 96`,
    `roi.warp_insts / roi.sim_cycles`): numbers, strings, + - * / // % **,
    comparisons, and/or/not, min/max. Raises SweepError on anything else."""

    def __init__(self, text):
        if isinstance(text, (int, float)) and not isinstance(text, bool):
            text = str(text)
        if not isinstance(text, str) or not text.strip():
            raise SweepError(f"expression {text!r}: expected a non-empty string")
        self.text = text
        self._ids = {}

        def sub(m):
            if m.group(1):
                return m.group(1)
            name = m.group(2)
            if name in _RESERVED:
                return {"true": "True", "false": "False"}.get(name, name)
            ident = self._ids.setdefault(name, f"_v{len(self._ids)}")
            return ident

        mapped = _NAME_OR_STRING.sub(sub, text)
        self._names = {v: k for k, v in self._ids.items()}
        try:
            tree = ast.parse(mapped.strip(), mode="eval")
        except SyntaxError as e:
            raise SweepError(f"expression '{text}' does not parse ({e.msg})") from None
        self._check(tree.body)
        self._tree = tree.body

    @property
    def names(self):
        return set(self._ids)

    def _check(self, node):
        bad = None
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _BINOPS:
                bad = "operator"
            else:
                self._check(node.left)
                self._check(node.right)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
                bad = "operator"
            else:
                self._check(node.operand)
        elif isinstance(node, ast.BoolOp):
            for v in node.values:
                self._check(v)
        elif isinstance(node, ast.Compare):
            if any(type(op) not in _CMPOPS for op in node.ops):
                bad = "comparison"
            else:
                self._check(node.left)
                for c in node.comparators:
                    self._check(c)
        elif isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in ("min", "max")) or node.keywords \
                    or not node.args:
                bad = "call (only min(...) and max(...))"
            else:
                for a in node.args:
                    self._check(a)
        elif isinstance(node, ast.Name):
            if node.id not in self._names:
                bad = f"name '{node.id}'"
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float, str, bool)):
                bad = "constant"
        else:
            bad = type(node).__name__
        if bad:
            raise SweepError(f"expression '{self.text}': {bad} is not allowed "
                             "(numbers, names, + - * / // % **, comparisons, and/or/not, min/max)")

    def eval(self, env):
        """Evaluate with env: dotted name -> value. MissingName if a name is
        absent; ZeroDivisionError and TypeError propagate."""
        return self._eval(self._tree, env)

    def _eval(self, node, env):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            name = self._names[node.id]
            if name not in env or env[name] is None:
                raise MissingName(name)
            return env[name]
        if isinstance(node, ast.BinOp):
            return _BINOPS[type(node.op)](self._eval(node.left, env), self._eval(node.right, env))
        if isinstance(node, ast.UnaryOp):
            v = self._eval(node.operand, env)
            return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}[type(node.op)](v)
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.And):
                v = True
                for x in node.values:
                    v = self._eval(x, env)
                    if not v:
                        return v
                return v
            v = False
            for x in node.values:
                v = self._eval(x, env)
                if v:
                    return v
            return v
        if isinstance(node, ast.Compare):
            left = self._eval(node.left, env)
            for op, c in zip(node.ops, node.comparators):
                right = self._eval(c, env)
                if not _CMPOPS[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.Call):
            args = [self._eval(a, env) for a in node.args]
            return (min if node.func.id == "min" else max)(*args)
        raise AssertionError(node)


# ---------------------------------------------------------------- sampling


def grid(axes):
    """The full product of axes [(key, values), ...], first axis slowest."""
    keys = [k for k, _ in axes]
    return [dict(zip(keys, combo)) for combo in itertools.product(*[v for _, v in axes])]


def _decode(index, axes):
    point = {}
    for key, values in reversed(axes):
        index, r = divmod(index, len(values))
        point[key] = values[r]
    return {k: point[k] for k, _ in axes}


def random_points(axes, n, seed, accept=None):
    """n distinct points drawn from the grid with random.Random(seed); all of
    the (accepted) grid when it has at most n points."""
    total = math.prod(len(v) for _, v in axes)
    rng = random.Random(seed)
    if total <= 1_000_000:
        pool = [p for p in grid(axes) if accept is None or accept(p)]
        if len(pool) <= n:
            return pool
        picked = sorted(rng.sample(range(len(pool)), n))
        return [pool[i] for i in picked]
    seen, out = set(), []
    attempts = 0
    while len(out) < n and attempts < 100 * n:
        attempts += 1
        i = rng.randrange(total)
        if i in seen:
            continue
        seen.add(i)
        p = _decode(i, axes)
        if accept is None or accept(p):
            out.append((i, p))
    return [p for _, p in sorted(out, key=lambda t: t[0])]


def lhs_strata(n_axes, n, seed):
    """Latin hypercube: for each axis a permutation of the strata 0..n-1;
    point i lies in stratum perm[axis][i] of every axis."""
    rng = random.Random(seed)
    perms = []
    for _ in range(n_axes):
        p = list(range(n))
        rng.shuffle(p)
        perms.append(p)
    return perms


def lhs_points(axes, n, seed):
    """n Latin-hypercube points: each axis cut into n strata, each stratum
    used once; a stratum s of an axis with k values maps to value s*k//n
    (so the values are used evenly). Points may repeat when an axis has
    fewer values than n."""
    perms = lhs_strata(len(axes), n, seed)
    out = []
    for i in range(n):
        out.append({key: values[perms[a][i] * len(values) // n] for a, (key, values) in enumerate(axes)})
    return out


def sample(axes, sampling, constraints=()):
    """Points of the parameter space: sampling is 'grid' or {method, points,
    seed}; constraints are Expr that every point must satisfy."""

    def accept(p):
        for c in constraints:
            try:
                if not c.eval(p):
                    return False
            except MissingName as e:
                raise SweepError(f"constraint '{c.text}' names '{e}', which is not a swept parameter") from None
            except (TypeError, ZeroDivisionError) as e:
                raise SweepError(f"constraint '{c.text}' cannot be evaluated at {p}: {e}") from None
        return True

    if sampling in (None, "grid") or (isinstance(sampling, dict) and sampling.get("method") == "grid"):
        return [p for p in grid(axes) if accept(p)]
    if isinstance(sampling, str):
        sampling = {"method": sampling}
    if not isinstance(sampling, dict):
        raise SweepError(f"sampling: expected grid or {{method, points, seed}}, got {sampling!r}")
    method = sampling.get("method")
    unknown = set(sampling) - {"method", "points", "seed"}
    if unknown:
        raise SweepError(f"sampling: unknown key '{sorted(unknown)[0]}' (method, points, seed)")
    if method not in ("random", "lhs"):
        raise SweepError(f"sampling: unknown method '{method}' (grid, random or lhs)")
    n = sampling.get("points")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise SweepError(f"sampling: {method} needs points: a positive integer (got {n!r})")
    seed = sampling.get("seed", 0)
    if method == "random":
        return random_points(axes, n, seed, accept)
    return [p for p in lhs_points(axes, n, seed) if accept(p)]


def with_repeats(points, repeats):
    """Each point R times: [(params, repeat index)], the repeat parameter (if
    any) set to 1..R."""
    if not repeats:
        return [(p, 0) for p in points]
    count, param = repeats
    out = []
    for p in points:
        for r in range(count):
            q = dict(p)
            if param:
                q[param] = r + 1
            out.append((q, r))
    return out
