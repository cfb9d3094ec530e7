"""Run one point of a sweep: the tessera command, its timeout, its status
and metrics; `run-points` runs a list of them one after another."""
import json
import math
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time

from . import STOP_SIGNALS, SweepError
from . import provenance, results, safefile
from .space import Expr, ExprError, MissingName

STATUS_FAULT = 3  # tessera run: the guest faulted
STATUS_HOST_TIMEOUT = 11  # tessera run: its own --host-timeout was reached
HOST_TIMEOUT_GRACE = 10  # seconds a run's own limit lies beyond the spec's timeout


def flatten(obj, prefix="", out=None):
    """A stats JSON as {dotted path: leaf value}."""
    out = {} if out is None else out
    if isinstance(obj, dict):
        for k, v in obj.items():
            flatten(v, f"{prefix}{k}.", out)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            flatten(v, f"{prefix}{i}.", out)
    else:
        out[prefix[:-1]] = _number(obj) if isinstance(obj, str) else obj
    return out


def _number(text):
    """A parameter value as the stats JSON writes it ("16", "0.5") as a number, so that metric
    expressions can compute with config.parameters.*; other text unchanged."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def set_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def resolve_files(sweep, stage=None):
    """(tessera binary, {KEY: path}) of a sweep, or of its staged copy."""
    if stage:
        stage = os.path.abspath(stage)
        return os.path.join(stage, "tessera"), {k: os.path.join(stage, "files", k) for k in sweep.get("files", {})}
    return sweep["tessera"], dict(sweep.get("files", {}))


# A parameter named arg.NAME is the program's own: it only fills "{arg.NAME}"
# in program (or tool) arguments and is never passed to tessera.
PROGRAM_PARAM = "arg."


def model_params(point):
    """The point's parameters that configure the model (--set or a tool option)."""
    return {k: v for k, v in point["params"].items() if not k.startswith(PROGRAM_PARAM)}


def tool_command(tessera, tool, point):
    """`tessera TOOL TOOL_ARGS... --opt value... --set k=v... --json`: a
    parameter named --opt is the tool's option, any other a --set."""
    cmd = [tessera, tool] + [str(a) for a in point.get("args", [])]
    params = model_params(point)
    for k, v in params.items():
        if k.startswith("--"):
            cmd += [k, set_value(v)]
    for k, v in params.items():
        if not k.startswith("--"):
            cmd += ["--set", f"{k}={set_value(v)}"]
    return cmd + ["--json"]


def json_object(text):
    """The one JSON object a tool printed on stdout, or None."""
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def command(sweep, point, out_dir, stage=None):
    """The exact command line of a point."""
    tessera, files = resolve_files(sweep, stage)
    if point.get("tool"):
        return tool_command(tessera, point["tool"], point)
    cmd = [tessera, "run", files[point["platform"]], files[point["program"]]]
    for k, v in model_params(point).items():
        cmd += ["--set", f"{k}={set_value(v)}"]
    cmd += ["--stats", os.path.join(os.path.abspath(results.point_dir(out_dir, point["id"])), "stats.json"), "-q"]
    # The run's own limit, past the one this driver enforces: a run whose
    # driver died (and whose parent-death signal was lost) still ends.
    cmd += ["--host-timeout", f"{float(sweep.get('timeout') or 600) + HOST_TIMEOUT_GRACE:g}"]
    if sweep.get("fast_forward"):
        cmd.append("--fast-forward")
    if point.get("args"):
        cmd += ["--"] + [str(a) for a in point["args"]]
    return cmd


def error_line(stderr_text):
    """tessera's error line: the last `tessera: error:` line, else the last
    non-empty line."""
    lines = [ln.strip() for ln in stderr_text.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if ln.startswith("tessera: error:"):
            return ln[len("tessera: error:"):].strip()
    return lines[-1] if lines else ""


def load_stats(stats_file, d=None):
    """The flattened stats JSON of a run, or {} when it wrote none (read
    through the point directory d, never through a link, when given)."""
    try:
        if d is not None:
            text = d.read(os.path.basename(stats_file))
            return flatten(json.loads(text)) if text is not None else {}
        with open(stats_file) as f:
            return flatten(json.load(f))
    except (OSError, ValueError, RecursionError):
        return {}


def metric_value(text, flat):
    """A metric's value from flattened stats: a number or a string; None when
    it is missing (roi.* of a program without ROI) or undefined (division by
    zero). ExprError when it cannot be computed: too large, not a real or
    finite number, the wrong type, over its time budget."""
    try:
        v = Expr(text).eval(flat)
    except (MissingName, ZeroDivisionError):
        return None
    except ExprError:
        raise
    except SweepError as e:  # a sweep.json edited by hand
        raise ExprError(str(e)) from None
    except MemoryError:
        raise ExprError("out of memory") from None
    except Exception as e:  # noqa: BLE001 - no metric may stop the sweep's worker
        raise ExprError(f"{type(e).__name__}: {e}") from None
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float) and not math.isfinite(v):
        raise ExprError(f"the value {v} is not a finite number")
    if isinstance(v, (int, float, str)):
        return v
    raise ExprError(f"the value {v!r} is not a real number")


def metrics_of(flat, metrics, errors=None):
    """{column: value} from flattened stats (metric_value); a metric that
    cannot be computed is None, and its reason goes to errors[column]."""
    out = {}
    for col, text in metrics.items():
        try:
            out[col] = metric_value(text, flat)
        except ExprError as e:
            out[col] = None
            if errors is not None:
                errors[col] = str(e)
    return out


class Killer:
    """The running tessera processes of this process, so a signal handler can
    kill them (each in its own process group)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.procs = set()
        self.stopping = threading.Event()

    def add(self, proc):
        with self.lock:
            self.procs.add(proc)
            if self.stopping.is_set():
                _kill_group(proc)

    def remove(self, proc):
        with self.lock:
            self.procs.discard(proc)

    def stop(self):
        with self.lock:
            self.stopping.set()
            for p in self.procs:
                _kill_group(p)


def guarded(cmd):
    """cmd run through util-linux's setpriv with a parent-death signal: a
    tessera dies with the sweep that started it (a SIGKILLed driver leaves no
    run behind, which a --resume would run a second time beside it)."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise SweepError("setpriv is missing (Debian package util-linux): it makes each run die with the sweep")
    return [setpriv, "--pdeathsig", "KILL", "--"] + cmd


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# The files of a point directory (points/NNNNN/).
POINT_FILES = ("cmd.txt", "stdout.txt", "stderr.txt", "stats.json", "status.json")


def run_point(out_dir, sweep, point, stage=None, killer=None, store=None, keep_files=False):
    """Run one point and record it: in store (the driver's results store,
    store.py) when given, else in its status.json (written last,
    atomically: a Slurm task's). Returns the status dict, or None when the
    run was stopped by killer (the point stays unfinished). With a store, the
    point's directory is removed when it ended ok, unless keep_files. Every
    file is written through the point directory held open
    (results.open_point_dir): a link planted there is refused, not followed."""
    with results.open_point_dir(out_dir, point["id"], create=True) as d:
        st = _run_point(d, out_dir, sweep, point, stage, killer)
        if st is None:
            return None
        if store is None:
            d.write_atomic("status.json", json.dumps(st, indent=1) + "\n")
            return st
        store.put(st, d.read("stats.json"))
        if st["status"] != "ok" or keep_files:
            d.write_atomic("status.json", json.dumps(st, indent=1) + "\n")  # beside the files, for people
            return st
    with safefile.Dir(out_dir, "points") as points:
        points.remove_tree(f"{int(point['id']):05d}", POINT_FILES)
    return st


def _run_point(d, out_dir, sweep, point, stage, killer):
    cmd = command(sweep, point, out_dir, stage)
    tool = point.get("tool")
    # A tool prints its statistics (one JSON object) on stdout; they are saved as stats.json.
    stats_file = os.path.join(os.path.abspath(d.path), "stats.json") if tool else cmd[cmd.index("--stats") + 1]
    d.unlink("stats.json")  # of an earlier, interrupted run
    with d.open("cmd.txt") as f:
        f.write(shlex.join(cmd) + "\n")
    timeout = sweep.get("timeout")
    start = time.monotonic()
    timed_out = False
    with d.open("stdout.txt", "wb") as out, d.open("stderr.txt", "wb") as err:
        try:
            proc = subprocess.Popen(guarded(cmd), stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=d.path,
                                    start_new_session=True)
        except OSError as e:
            proc = None
            err.write(f"tessera: error: cannot run {cmd[0]}: {e.strerror}\n".encode())
            rc = 127
        if proc is not None:
            if killer:
                killer.add(proc)
            try:
                rc = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(proc)
                rc = proc.wait()
            finally:
                if killer:
                    killer.remove(proc)
    host_seconds = time.monotonic() - start
    if killer and killer.stopping.is_set() and not timed_out and rc != 0 and rc != STATUS_FAULT:
        return None
    no_json = False
    if tool and rc == 0 and not timed_out:
        text = d.read("stdout.txt") or ""
        if json_object(text) is None:
            no_json = True
        else:
            d.write_atomic("stats.json", text)
    flat = load_stats(stats_file, d)
    message = error_line(d.read("stderr.txt") or "")
    if no_json:
        message = f"`tessera {tool}` exited 0 but printed no JSON object on stdout"
    if timed_out:
        status, message = "timeout", f"killed after the {timeout} s timeout"
    elif rc == STATUS_HOST_TIMEOUT and not tool:
        status = "timeout"
    elif no_json:
        status = "failed"
    elif rc == 0:
        status, message = "ok", ""
    elif rc == STATUS_FAULT and not tool:
        status = "fault"
    else:
        status = "failed"
        if rc < 0:
            message = f"killed by signal {-rc}" + (f" ({message})" if message else "")
        elif not message:
            message = f"exit status {rc}"
    errors = {}
    st = {"id": point["id"], "status": status, "exit_code": rc, "message": message,
          "host_seconds": round(host_seconds, 6), "metrics": metrics_of(flat, sweep.get("metrics", {}), errors)}
    tessera, files = resolve_files(sweep, stage)
    st["inputs"] = provenance.point_inputs(tessera, None if tool else files.get(point["platform"]),
                                           None if tool else files.get(point["program"]))
    if errors:
        # The cells stay empty; the reasons go to results.csv's message column and the sweep's exit status.
        st["metric_errors"] = errors
    sim = flat.get("summary.host_seconds")
    if isinstance(sim, (int, float)) and not isinstance(sim, bool) and math.isfinite(sim):
        st["sim_host_seconds"] = sim  # the simulation alone, inside tessera
    return st


def parse_ids(text, sweep):
    ids = []
    known = {p["id"] for p in sweep["points"]}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if "-" in part:
                a, b = part.split("-", 1)
                ids += list(range(int(a), int(b) + 1))
            else:
                ids.append(int(part))
        except ValueError:
            raise SweepError(f"--ids: '{part}' is not an id or a range a-b") from None
    for i in ids:
        if i not in known:
            raise SweepError(f"--ids: no point {i} in this sweep (ids 0..{len(known) - 1})")
    return ids


def run_points(out_dir, ids, stage=None):
    """The worker: run the given points one after another, skipping finished
    ones. On SIGTERM, SIGINT or SIGHUP the running point is killed and stays unfinished."""
    sweep = results.load_sweep(out_dir)
    by_id = {p["id"]: p for p in sweep["points"]}
    killer = Killer()

    def on_signal(signum, frame):
        killer.stop()

    old = {s: signal.signal(s, on_signal) for s in STOP_SIGNALS}
    troubled = 0
    try:
        for i in parse_ids(ids, sweep) if isinstance(ids, str) else ids:
            if killer.stopping.is_set():
                break
            st = results.load_status_file(out_dir, i)  # a task never opens the driver's store
            if st is not None and st.get("status") in results.STATUSES:
                continue
            try:
                st = run_point(out_dir, sweep, by_id[i], stage, killer)
            except (SweepError, OSError) as e:
                # This point stays unfinished (a --resume runs it again); the others still run.
                print(f"tessera sweep: point {i} not run: {e}", file=sys.stderr)
                troubled += 1
                continue
            if st and st.get("metric_errors"):
                for col, err in st["metric_errors"].items():
                    print(f"tessera sweep: point {i}: metric {col}: {err}", file=sys.stderr)
                troubled += 1
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if killer.stopping.is_set():
        return 128 + signal.SIGTERM
    return 1 if troubled else 0
