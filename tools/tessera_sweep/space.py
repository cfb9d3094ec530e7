"""The parameter space of a sweep: axis values, sampling (grid, random,
Latin hypercube), constraints and repeats. Pure functions, no I/O."""
import ast
import itertools
import json
import math
import operator
import random
import re
import time

from . import SweepError

# ---------------------------------------------------------------- axes


def _number(x, what):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise SweepError(f"{what}: {x!r} is not a number")
    if isinstance(x, float) and not math.isfinite(x):
        raise SweepError(f"{what}: {x!r} is not a finite number")
    return x


def _tidy(x):
    """Round away binary noise (0.30000000000000004 -> 0.3) and give
    integral results of integer inputs as ints."""
    if isinstance(x, float):
        if x == 0 or not math.isfinite(x):
            return x
        x = float(f"{x:.12g}")
    return x


class Axis:
    """The values of one parameter axis, computed when asked: `count` is known
    from the spec alone (range: [0, 1e11] is counted, never built), so a
    space too large to run is refused before anything is expanded."""

    def __init__(self, count, value):
        self.count = count
        self._value = value

    def __len__(self):
        return self.count

    def __getitem__(self, i):
        if not 0 <= i < self.count:
            raise IndexError(i)
        return self._value(i)

    def __iter__(self):
        return (self._value(i) for i in range(self.count))


def _range_count(what, a, b, step):
    if step == 0 or (b - a) * step < 0:
        raise SweepError(f"{what}: range [{a}, {b}, {step}] is empty (step 0 or pointing away from stop)")
    if all(isinstance(v, int) for v in (a, b, step)):
        return (b - a) // step + 1
    q = (b - a) / step
    if not math.isfinite(q):
        raise SweepError(f"{what}: range [{a}, {b}, {step}] has more values than can be counted")
    return int(math.floor(q + 1e-9)) + 1


def axis(key, spec):
    """The values of one parameter axis as an Axis: a list, or one of {range: [a, b, step]},
    {log2_range: [a, b]}, {linspace: [a, b, n]}, {logspace: [a, b, n]}."""
    what = f"parameter '{key}'"
    if isinstance(spec, list):
        if not spec:
            raise SweepError(f"{what}: empty list of values")
        seen = set()
        for v in spec:
            key = json.dumps(v, sort_keys=True, default=repr)
            if key in seen:
                raise SweepError(f"{what}: the value {v!r} is listed twice (each point would run twice)")
            seen.add(key)
        return Axis(len(spec), spec.__getitem__)
    if not isinstance(spec, dict) or len(spec) != 1:
        if isinstance(spec, (str, int, float, bool)):
            return Axis(1, lambda i: spec)
        raise SweepError(f"{what}: expected a list or one of range, log2_range, linspace, logspace; got {spec!r}")
    kind, args = next(iter(spec.items()))
    if not isinstance(args, list):
        raise SweepError(f"{what}: {kind} takes a list, got {args!r}")
    if kind == "range":
        if len(args) not in (2, 3):
            raise SweepError(f"{what}: range takes [start, stop, step] (stop inclusive)")
        a, b = _number(args[0], what), _number(args[1], what)
        step = _number(args[2], what) if len(args) == 3 else 1
        n = _range_count(what, a, b, step)
        if all(isinstance(v, int) for v in (a, b, step)):
            return Axis(n, lambda i: a + i * step)
        return Axis(n, lambda i: _tidy(a + i * step))
    if kind == "log2_range":
        if len(args) != 2:
            raise SweepError(f"{what}: log2_range takes [from, to]")
        a, b = _number(args[0], what), _number(args[1], what)
        if a <= 0 or b < a:
            raise SweepError(f"{what}: log2_range [{a}, {b}] needs 0 < from <= to")
        # At most a few thousand powers of two: b is a finite float or a YAML integer (at most 4300 digits).
        out, p = [], 1
        while p < a:
            p *= 2
        while p <= b:
            out.append(p)
            p *= 2
        if not out:
            raise SweepError(f"{what}: log2_range [{a}, {b}] holds no power of two")
        return Axis(len(out), out.__getitem__)
    if kind in ("linspace", "logspace"):
        if len(args) != 3 or not isinstance(args[2], int) or isinstance(args[2], bool) or args[2] < 1:
            raise SweepError(f"{what}: {kind} takes [start, stop, count] with a positive integer count")
        a, b, n = _number(args[0], what), _number(args[1], what), args[2]
        if kind == "logspace" and (a <= 0 or b <= 0):
            raise SweepError(f"{what}: logspace [{a}, {b}, {n}] needs positive start and stop (they are values)")
        if n == 1:
            return Axis(1, lambda i: a)
        if kind == "linspace":
            return Axis(n, lambda i: _tidy(a + (b - a) * i / (n - 1)))
        return Axis(n, lambda i: _tidy(a * (b / a) ** (i / (n - 1))))
    raise SweepError(f"{what}: unknown value form '{kind}' (expected range, log2_range, linspace or logspace)")


def axis_values(key, spec):
    """The values of one parameter axis as a list (axis() computes them lazily)."""
    return list(axis(key, spec))


# ---------------------------------------------------------------- expressions

_NAME_OR_STRING = re.compile(r"""('[^']*'|"[^"]*")|(?<![\w.])([A-Za-z_]\w*(?:\.\w+)*)""")
# sum(PATH), mean(PATH), count(PATH), and min(PATH) and max(PATH) of a PATH
# with a *: over the statistics whose path matches PATH, where a * stands for
# any run of characters within one component (chip.sm*.ipc: every SM's).
_AGGREGATE = re.compile(
    r"""('[^']*'|"[^"]*")|(?<![\w.])(sum|mean|count|min|max)\(\s*([A-Za-z_*][\w*]*(?:\.[\w*]+)*)\s*\)""")
_AGGREGATE_ID = "__aggregate{}"
_RESERVED = {"and", "or", "not", "min", "max", "True", "False", "true", "false"}
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_CMPOPS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Gt: operator.gt, ast.GtE: operator.ge}


# Bounds that keep every step of an expression cheap whatever the statistics
# hold. Python computes 10 ** 10 ** 10 in one C call that no signal interrupts
# (a sweep waited for it past SIGTERM), so a power or product is refused before
# it is computed when its integer result would exceed MAX_INT_BITS (a counter
# has 64 bits; a float cannot hold more than 1024). The text and nesting are
# bounded so that parsing and the recursive evaluation stay within Python's
# stack, and EVAL_SECONDS is a budget checked between steps.
MAX_INT_BITS = 1024
MAX_EXPR_CHARS = 4000
MAX_DEPTH = 200
EVAL_SECONDS = 2.0

_OP_SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
               ast.Pow: "**"}


class MissingName(Exception):
    """An expression names a value the environment does not hold."""


class ExprError(Exception):
    """An expression's value cannot be computed: beyond the bounds above, not
    a real number, an operand of the wrong type, or over the time budget."""


def _short(v):
    text = repr(v)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def _operand(v):
    """An operand in a message: a negative number in parentheses, as it was computed."""
    return f"({_short(v)})" if isinstance(v, (int, float)) and v < 0 else _short(v)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, complex)


def _binop(op, a, b):
    """a op b for numbers, bounded before it is computed."""
    sym = _OP_SYMBOLS[op]
    for v in (a, b):
        if not _is_number(v):
            raise ExprError(f"'{sym}' needs numbers, got {_short(v)}")
    if isinstance(a, int) and isinstance(b, int):
        if op is ast.Pow and b > 0 and abs(a) > 1:
            bits = b * math.log2(abs(a)) if b.bit_length() <= MAX_INT_BITS else math.inf
            if bits > MAX_INT_BITS:
                raise ExprError(f"{_operand(a)} ** {_operand(b)} is too large (about {bits:.3g} bits; an integer "
                                f"result may have at most {MAX_INT_BITS})")
        if op is ast.Mult and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
            raise ExprError(f"{_operand(a)} * {_operand(b)} is too large (an integer result may have at most "
                            f"{MAX_INT_BITS} bits)")
    try:
        r = _BINOPS[op](a, b)
    except (OverflowError, ValueError, TypeError) as e:
        raise ExprError(f"{_operand(a)} {sym} {_operand(b)}: {e}") from None
    if isinstance(r, complex):
        raise ExprError(f"{_operand(a)} {sym} {_operand(b)} is not a real number")
    if isinstance(r, int) and r.bit_length() > MAX_INT_BITS:
        raise ExprError(f"{_operand(a)} {sym} {_operand(b)} is too large (an integer result may have at most "
                        f"{MAX_INT_BITS} bits)")
    return r


def _depth(tree):
    """The nesting depth of an AST, without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in ast.iter_child_nodes(node))
    return deepest


class Expr:
    """A safe expression over dotted names (`l1.size_kb + sm.shared_bytes / 1024 <= 96`,
    `roi.warp_insts / roi.sim_cycles`): numbers, strings, + - * / // % **,
    comparisons, and/or/not, min/max, and the aggregates sum/mean/count/min/max
    of the values whose names match a path with * (`sum(chip.sm*.l1.hits)`). Raises
    SweepError on anything else, and on a part without names that cannot be
    computed (`10 ** 10 ** 10`, `1 / 0`)."""

    def __init__(self, text):
        if isinstance(text, (int, float)) and not isinstance(text, bool):
            text = str(text)
        if not isinstance(text, str) or not text.strip():
            raise SweepError(f"expression {text!r}: expected a non-empty string")
        if len(text) > MAX_EXPR_CHARS:
            raise SweepError(f"expression '{text[:40]}...' is {len(text)} characters long (at most {MAX_EXPR_CHARS})")
        self.text = text
        self._ids = {}
        self._aggregates = {}  # identifier -> (function, pattern, compiled pattern)

        def aggregate(m):
            if m.group(1):
                return m.group(1)
            func, pattern = m.group(2), m.group(3)
            if func in ("min", "max") and "*" not in pattern:
                return m.group(0)  # min(x) of one value, as min(a, b)
            ident = _AGGREGATE_ID.format(len(self._aggregates))
            regex = re.compile("^" + "[^.]*".join(re.escape(part) for part in pattern.split("*")) + "$")
            self._aggregates[ident] = (func, pattern, regex)
            return ident

        def sub(m):
            if m.group(1):
                return m.group(1)
            name = m.group(2)
            if name in _RESERVED:
                return {"true": "True", "false": "False"}.get(name, name)
            if name in self._aggregates:
                return name
            ident = self._ids.setdefault(name, f"_v{len(self._ids)}")
            return ident

        mapped = _NAME_OR_STRING.sub(sub, _AGGREGATE.sub(aggregate, text))
        self._names = {v: k for k, v in self._ids.items()}
        try:
            tree = ast.parse(mapped.strip(), mode="eval")
        except SyntaxError as e:
            raise SweepError(f"expression '{text}' does not parse ({e.msg})") from None
        except ValueError as e:  # a NUL character
            raise SweepError(f"expression {text!r} does not parse ({e})") from None
        except (RecursionError, MemoryError):
            raise SweepError(f"expression '{text}' is nested too deeply to parse (at most {MAX_DEPTH} levels)") \
                from None
        if _depth(tree.body) > MAX_DEPTH:
            raise SweepError(f"expression '{text}' is nested too deeply (more than {MAX_DEPTH} levels)")
        self._check(tree.body)
        self._tree = tree.body
        self._fold(self._tree)

    @property
    def names(self):
        """The plain names (not the aggregates' paths)."""
        return set(self._ids)

    @property
    def patterns(self):
        """{"sum(chip.sm*.ipc)": compiled pattern} of the aggregates."""
        return {f"{func}({pattern})": regex for func, pattern, regex in self._aggregates.values()}

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
                bad = "call (only min(...), max(...), and sum, mean, count, min or max of one path)"
            else:
                for a in node.args:
                    self._check(a)
        elif isinstance(node, ast.Name):
            if node.id not in self._names and node.id not in self._aggregates:
                bad = f"name '{node.id}'"
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float, str, bool)):
                bad = "constant"
            elif isinstance(node.value, float) and not math.isfinite(node.value):
                raise SweepError(f"expression '{self.text}': the number {node.value} is not finite")
            elif isinstance(node.value, int) and node.value.bit_length() > MAX_INT_BITS:
                raise SweepError(f"expression '{self.text}': the number {_short(node.value)} has more than "
                                 f"{MAX_INT_BITS} bits")
        else:
            bad = type(node).__name__
        if bad:
            raise SweepError(f"expression '{self.text}': {bad} is not allowed "
                             "(numbers, names, + - * / // % **, comparisons, and/or/not, min/max, "
                             "sum/mean/count/min/max(path with *))")

    def _fold(self, node):
        """Computes every part without names once, now: a constant that cannot
        be computed is refused with the spec rather than at every point.
        Returns whether node has no names."""
        if isinstance(node, ast.Name):
            return False
        if isinstance(node, ast.Constant):
            return True
        children = node.args if isinstance(node, ast.Call) else \
            [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
        constant = all([self._fold(c) for c in children])
        if constant:
            try:
                self._eval(node, {}, time.monotonic() + EVAL_SECONDS)
            except (ExprError, ZeroDivisionError) as e:
                raise SweepError(f"expression '{self.text}': {ast.unparse(node)} cannot be computed: "
                                 f"{e or type(e).__name__}") from None
        return constant

    def eval(self, env, seconds=EVAL_SECONDS):
        """Evaluate with env: dotted name -> value. MissingName if a name is
        absent; ZeroDivisionError propagates; ExprError for anything else that
        cannot be computed, or when it takes more than seconds (checked
        between steps, each of which the bounds keep short)."""
        return self._eval(self._tree, env, time.monotonic() + seconds)

    def _eval(self, node, env, deadline):
        if time.monotonic() > deadline:
            raise ExprError("took longer than its time budget")
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self._aggregates:
                return self._aggregate(*self._aggregates[node.id], env)
            name = self._names[node.id]
            if name not in env or env[name] is None:
                raise MissingName(name)
            return env[name]
        if isinstance(node, ast.BinOp):
            return _binop(type(node.op), self._eval(node.left, env, deadline), self._eval(node.right, env, deadline))
        if isinstance(node, ast.UnaryOp):
            v = self._eval(node.operand, env, deadline)
            if isinstance(node.op, ast.Not):
                return not v
            if not _is_number(v):
                raise ExprError(f"unary '{'-' if isinstance(node.op, ast.USub) else '+'}' needs a number, "
                                f"got {_short(v)}")
            return -v if isinstance(node.op, ast.USub) else +v
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.And):
                v = True
                for x in node.values:
                    v = self._eval(x, env, deadline)
                    if not v:
                        return v
                return v
            v = False
            for x in node.values:
                v = self._eval(x, env, deadline)
                if v:
                    return v
            return v
        if isinstance(node, ast.Compare):
            left = self._eval(node.left, env, deadline)
            for op, c in zip(node.ops, node.comparators):
                right = self._eval(c, env, deadline)
                try:
                    if not _CMPOPS[type(op)](left, right):
                        return False
                except TypeError:
                    raise ExprError(f"cannot compare {_short(left)} with {_short(right)}") from None
                left = right
            return True
        if isinstance(node, ast.Call):
            args = [self._eval(a, env, deadline) for a in node.args]
            try:
                return (min if node.func.id == "min" else max)(*args)
            except TypeError:
                raise ExprError(f"{node.func.id}() of {', '.join(_short(a) for a in args)}: cannot compare "
                                "them") from None
        raise AssertionError(node)


    @staticmethod
    def _aggregate(func, pattern, regex, env):
        values = [v for k, v in env.items() if v is not None and regex.match(k)]
        if not values:
            raise MissingName(f"{func}({pattern})")
        for v in values:
            if not _is_number(v) or isinstance(v, bool):
                raise ExprError(f"{func}({pattern}) needs numbers, got {_short(v)}")
        if func == "count":
            return len(values)
        if func in ("min", "max"):
            return (min if func == "min" else max)(values)
        total = math.fsum(values) if any(isinstance(v, float) for v in values) else sum(values)
        return total / len(values) if func == "mean" else total


# ---------------------------------------------------------------- sampling
#
# Each function below yields points one at a time: a sweep's points are
# counted from the spec (count) and refused above its max_points before any
# is made, and a grid is filtered by the constraints as it is produced.


def _size(values):
    return values.count if isinstance(values, Axis) else len(values)


def iter_grid(axes):
    """The full product of axes [(key, values), ...], first axis slowest."""
    keys = [k for k, _ in axes]
    return (dict(zip(keys, combo)) for combo in itertools.product(*[v for _, v in axes]))


def grid(axes):
    return list(iter_grid(axes))


def _decode(index, axes):
    point = {}
    for key, values in reversed(axes):
        index, r = divmod(index, _size(values))
        point[key] = values[r]
    return {k: point[k] for k, _ in axes}


def iter_random_points(axes, n, seed, accept=None):
    """n distinct points drawn from the grid with random.Random(seed); all of
    the (accepted) grid when it has at most n points."""
    total = math.prod(_size(v) for _, v in axes)
    rng = random.Random(seed)
    if total <= 1_000_000:
        # The accepted grid as indices (not points), drawn from as before.
        pool = [i for i in range(total) if accept is None or accept(_decode(i, axes))]
        if len(pool) > n:
            pool = [pool[i] for i in sorted(rng.sample(range(len(pool)), n))]
        return (_decode(i, axes) for i in pool)
    seen, out = set(), []
    attempts = 0
    while len(out) < n and attempts < 100 * n:
        attempts += 1
        i = rng.randrange(total)
        if i in seen:
            continue
        seen.add(i)
        if accept is None or accept(_decode(i, axes)):
            out.append(i)
    return (_decode(i, axes) for i in sorted(out))


def random_points(axes, n, seed, accept=None):
    return list(iter_random_points(axes, n, seed, accept))


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


def iter_lhs_points(axes, n, seed):
    """n Latin-hypercube points: each axis cut into n strata, each stratum
    used once; a stratum s of an axis with k values maps to value s*k//n
    (so the values are used evenly). Points may repeat when an axis has
    fewer values than n."""
    perms = lhs_strata(len(axes), n, seed)
    for i in range(n):
        yield {key: values[perms[a][i] * _size(values) // n] for a, (key, values) in enumerate(axes)}


def lhs_points(axes, n, seed):
    return list(iter_lhs_points(axes, n, seed))


def parse_sampling(sampling):
    """(method, points, seed) of a spec's sampling: 'grid' or {method, points, seed}."""
    if sampling in (None, "grid") or (isinstance(sampling, dict) and sampling.get("method") == "grid"):
        return "grid", None, None
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
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, float, str))):
        raise SweepError(f"sampling: seed must be a number or a string (got {seed!r})")
    return method, n, seed


def count(axes, sampling):
    """How many parameter points sample() can give, from the spec alone
    (before constraints, which only drop points): the grid's size, or the
    sample's, at most the grid's for random."""
    method, n, _ = parse_sampling(sampling)
    total = math.prod(_size(v) for _, v in axes)
    if method == "grid":
        return total
    return min(n, total) if method == "random" else n


def iter_sample(axes, sampling, constraints=(), report=None):
    """Points of the parameter space, one at a time: sampling is 'grid' or
    {method, points, seed}; constraints are Expr that every point must satisfy.
    A Latin hypercube point equal to an earlier one (an axis with fewer values
    than points) is dropped; `report`, a dict, counts what a sample dropped:
    "repeated" and "rejected" (by the constraints)."""
    report = report if report is not None else {}
    report.setdefault("repeated", 0)
    report.setdefault("rejected", 0)

    def accept(p):
        for c in constraints:
            try:
                if not c.eval(p):
                    return False
            except MissingName as e:
                raise SweepError(f"constraint '{c.text}' names '{e}', which is not a swept parameter") from None
            except (ExprError, ZeroDivisionError) as e:
                raise SweepError(f"constraint '{c.text}' cannot be evaluated at {p}: {e}") from None
        return True

    method, n, seed = parse_sampling(sampling)
    if method == "grid":
        return (p for p in iter_grid(axes) if accept(p))
    if method == "random":
        return iter_random_points(axes, n, seed, accept)

    def lhs():
        seen = set()
        for p in iter_lhs_points(axes, n, seed):
            key = json.dumps(p, sort_keys=True, default=repr)
            if key in seen:
                report["repeated"] += 1
                continue
            seen.add(key)
            if not accept(p):
                report["rejected"] += 1
                continue
            yield p
    return lhs()


def sample(axes, sampling, constraints=()):
    return list(iter_sample(axes, sampling, constraints))


def iter_repeats(points, repeats):
    """Each point R times: (params, repeat index), the repeat parameter (if
    any) set to 1..R."""
    if not repeats:
        for p in points:
            yield p, 0
        return
    count_, param = repeats
    for p in points:
        for r in range(count_):
            q = dict(p)
            if param:
                q[param] = r + 1
            yield q, r


def with_repeats(points, repeats):
    return list(iter_repeats(points, repeats))
