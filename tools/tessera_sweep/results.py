"""The sweep directory: sweep.json, points/NNNNN/status.json and results.csv."""
import csv
import io
import itertools
import json
import os
import stat

from . import SweepError
from . import safefile, store


def atomic_write(path, text):
    """Write text (a str or an iterable of str) to path, a file of the sweep
    directory, through a temporary file and a rename (safefile.Dir.write_atomic)."""
    safefile.write_atomic(path, text)


def write_sweep(out_dir, sweep):
    """OUT/sweep.json, streamed: the text of a large sweep (~230 bytes a point)
    is never one string in memory (json.dumps of 1,000,000 points peaked at
    2.7 GB; streamed, writing adds nothing to the ~700 MB the points take)."""
    atomic_write(os.path.join(out_dir, "sweep.json"),
                 itertools.chain(json.JSONEncoder(indent=1).iterencode(sweep), ["\n"]))


def point_dir(out_dir, point_id):
    return os.path.join(out_dir, "points", f"{int(point_id):05d}")


def open_point_dir(out_dir, point_id, create=False):
    """OUT/points/NNNNN held open, reached without following links (safefile.Dir)."""
    return safefile.Dir(out_dir, "points", f"{int(point_id):05d}", create=create)


def status_path(out_dir, point_id):
    return os.path.join(point_dir(out_dir, point_id), "status.json")


STATUSES = ("ok", "failed", "fault", "timeout")


def is_finished(out_dir, point_id):
    """A point is finished iff its status.json is a record the sweep wrote: a
    regular file (a link planted there finishes nothing) holding a JSON object
    with a known status. An unreadable or corrupt record (a disk that filled,
    a node that died while a cache flushed) means the point runs again."""
    st = load_status(out_dir, point_id)
    return st is not None and st.get("status") in STATUSES


def load_sweep(out_dir):
    path = os.path.join(out_dir, "sweep.json")
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise SweepError(f"{out_dir}: no sweep here (sweep.json is missing)") from None
    except (OSError, ValueError) as e:
        raise SweepError(f"{path}: cannot read: {e}") from None


def load_status(out_dir, point_id):
    """The point's record: from the results store (store.py) when it holds it,
    else from its status.json (a sweep made before the store, or a Slurm
    task's point not ingested yet); None while it is unfinished (neither, or a
    status.json that is not a regular file holding a JSON object)."""
    s = store.of(out_dir)
    if s is not None:
        rec = s.get(point_id)
        if rec is not None:
            return rec
    return load_status_file(out_dir, point_id)


def load_status_file(out_dir, point_id):
    """The point's status.json as load_status reads it."""
    try:
        fd = os.open(status_path(out_dir, point_id), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        try:
            st = json.loads(f.read())
        except (ValueError, RecursionError):
            return None
    return st if isinstance(st, dict) else None


def parameter_columns(sweep):
    """Every parameter of any point, in the order of first appearance."""
    cols = {}
    for p in sweep["points"]:
        for k in p["params"]:
            cols.setdefault(k, None)
    return list(cols)


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def columns(sweep):
    """The header of results.csv."""
    return ["id", "program", "platform", "repeat"] + parameter_columns(sweep) + list(sweep.get("metrics", {})) + \
        ["status", "exit_code", "host_seconds", "inputs", "message"]


def inputs_cell(st):
    """The inputs column: the first 12 hex digits of each input's SHA-256
    the point ran with (tessera, platform file, program), so that rows of a
    resumed sweep whose inputs changed (--allow-changed) tell themselves apart."""
    recorded = st.get("inputs")
    if not isinstance(recorded, dict):
        return None
    return " ".join(f"{k}={v[:12] if isinstance(v, str) else 'unreadable'}" for k, v in recorded.items())


def message(st):
    """The message column of a finished point: tessera's error line, then
    every metric that could not be computed with its reason."""
    parts = [st.get("message") or ""] + [f"metric {c}: {e}" for c, e in (st.get("metric_errors") or {}).items()]
    return "; ".join(p for p in parts if p)


def finished_records(out_dir):
    """{id: record} of every finished point: the store's, and the status.json
    of each point directory the store does not hold (one listing of points/,
    not a lookup per point)."""
    s = store.of(out_dir)
    recs = s.records() if s is not None else {}
    try:
        names = os.listdir(os.path.join(out_dir, "points"))
    except OSError:
        names = []
    for name in names:
        if name.isdigit() and int(name) not in recs:
            st = load_status_file(out_dir, int(name))
            if st is not None:
                recs[int(name)] = st
    return {i: st for i, st in recs.items() if st.get("status") in STATUSES}


def iter_rows(out_dir, sweep):
    """The rows of the finished points, by id, one at a time."""
    params = parameter_columns(sweep)
    metrics = list(sweep.get("metrics", {}))
    recs = finished_records(out_dir)
    for p in sorted(sweep["points"], key=lambda p: p["id"]):
        st = recs.get(p["id"])
        if st is None or st.get("status") not in STATUSES:
            continue
        m = st.get("metrics", {})
        yield p, st, [p["id"], p.get("program_name", p["program"]), p.get("platform_name", p["platform"]),
                      p.get("repeat", 0)] + [p["params"].get(k) for k in params] + [m.get(k) for k in metrics] + \
            [st.get("status"), st.get("exit_code"), st.get("host_seconds"), inputs_cell(st), message(st)]


def rows(out_dir, sweep=None):
    """(header, [row, ...]) of the finished points, by id."""
    sweep = sweep or load_sweep(out_dir)
    return columns(sweep), [r for _, _, r in iter_rows(out_dir, sweep)]


class Summary:
    """What write_csv found: points per status, unfinished points, and per
    metric the points where it could not be computed."""

    def __init__(self, total):
        self.total = total
        self.rows = 0
        self.statuses = {}
        self.metric_failures = {}  # column -> [count, first point id, its error]

    @property
    def unfinished(self):
        return self.total - self.rows

    def add(self, point, st):
        self.rows += 1
        self.statuses[st.get("status")] = self.statuses.get(st.get("status"), 0) + 1
        for col, err in (st.get("metric_errors") or {}).items():
            f = self.metric_failures.setdefault(col, [0, point["id"], err])
            f[0] += 1

    def report(self):
        """One line per metric that failed somewhere, for standard error."""
        return [f"tessera sweep: metric {col} could not be computed for {n} point{'s' if n != 1 else ''} "
                f"(empty cells; the reason is in results.csv's message column), e.g. point {pid}: {err}"
                for col, (n, pid, err) in self.metric_failures.items()]


def write_csv(out_dir, sweep=None):
    """Rewrite OUT/results.csv (atomically, streamed) from the points'
    status.json files; returns a Summary of them."""
    sweep = sweep or load_sweep(out_dir)
    summary = Summary(len(sweep["points"]))

    def lines():
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(columns(sweep))
        for p, st, r in iter_rows(out_dir, sweep):
            summary.add(p, st)
            w.writerow([_cell(v) for v in r])
            if buf.tell() >= 1 << 16:
                yield buf.getvalue()
                buf.seek(0)
                buf.truncate()
        yield buf.getvalue()

    atomic_write(os.path.join(out_dir, "results.csv"), lines())
    return summary
