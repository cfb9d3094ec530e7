"""The sweep directory: sweep.json, points/NNNNN/status.json and results.csv."""
import csv
import io
import json
import os
import tempfile

from . import SweepError


def atomic_write(path, text):
    """Write text to path through a temporary file in the same directory and a
    rename, so a reader (or a killed sweep) sees the old file or the new one."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix="-" + os.path.basename(path))
    try:
        with os.fdopen(fd, "w", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def point_dir(out_dir, point_id):
    return os.path.join(out_dir, "points", f"{int(point_id):05d}")


def status_path(out_dir, point_id):
    return os.path.join(point_dir(out_dir, point_id), "status.json")


def is_finished(out_dir, point_id):
    """A point is finished iff its status.json exists."""
    return os.path.exists(status_path(out_dir, point_id))


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
    try:
        with open(status_path(out_dir, point_id)) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


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
        ["status", "exit_code", "host_seconds", "message"]


def rows(out_dir, sweep=None):
    """(header, [row, ...]) of the finished points, by id."""
    sweep = sweep or load_sweep(out_dir)
    params = parameter_columns(sweep)
    metrics = list(sweep.get("metrics", {}))
    header = columns(sweep)
    out = []
    for p in sorted(sweep["points"], key=lambda p: p["id"]):
        st = load_status(out_dir, p["id"])
        if st is None:
            continue
        m = st.get("metrics", {})
        out.append([p["id"], p.get("program_name", p["program"]), p.get("platform_name", p["platform"]),
                    p.get("repeat", 0)] + [p["params"].get(k) for k in params] + [m.get(k) for k in metrics] +
                   [st.get("status"), st.get("exit_code"), st.get("host_seconds"), st.get("message", "")])
    return header, out


def write_csv(out_dir, sweep=None):
    """Rewrite OUT/results.csv (atomically) from the points' status.json files;
    returns the number of rows."""
    header, body = rows(out_dir, sweep)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in body:
        w.writerow([_cell(v) for v in r])
    atomic_write(os.path.join(out_dir, "results.csv"), buf.getvalue())
    return len(body)
