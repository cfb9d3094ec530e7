"""The Slurm executor: a sweep's unfinished points become one Slurm job array.

Slurm is the scheduler; this module only stages the files, writes the batch
script, submits it, watches it and resubmits chunks whose points did not
finish. Each array task runs a chunk of points with
`tessera-sweep run-points OUT --ids ... --stage STAGE`, exactly as the local
executor runs one point, and writes OUT/points/<id>/status.json on the shared
filesystem; those files are the only results, so a sweep interrupted here is
finished by `--resume` with either executor.

Layout under OUT:
  stage/                  (or --shared-dir) tessera, files/KEY, tools/ (the sweep tool itself)
  slurm/chunks-<n>.txt    line i: the comma-separated point ids of array task i of submission n
  slurm/job-<n>.sh        the sbatch script of submission n (n = 0 first, 1.. resubmissions)
  slurm/task-<job>_<i>.out the tasks' output
  slurm/jobs.txt          one line per submission: n, job id, tasks
"""

import math
import os
import re
import shlex
import signal
import stat
import subprocess
import sys
import time

MAX_TASKS = 100  # default chunking keeps an array at most this many tasks
ACTIVE_STATES = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING",
                 "SIGNALING", "STAGE_OUT", "STOPPED", "RESV_DEL_HOLD", "REQUEUE_FED", "REQUEUE_HOLD"}
TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3"


try:
    from tessera_sweep import SweepError as _Base
except ImportError:  # imported on its own (unit tests of the pure parts)
    _Base = Exception


class SlurmError(_Base):
    """A refusal or failure for the user: `tessera sweep: error: ...`, exit status 2."""


def add_arguments(parser):
    g = parser.add_argument_group("Slurm executor (--executor slurm)")
    g.add_argument("--partition", help="Slurm partition (sbatch --partition); default: the cluster's default")
    g.add_argument("--time", help="time limit per array task (sbatch --time, e.g. 30 or 2:00:00); "
                   "default: chunk size x the spec's timeout + 5 minutes")
    g.add_argument("--mem", help="memory per array task (sbatch --mem, e.g. 2G); default: the cluster's default")
    g.add_argument("--chunk-size", type=int, metavar="N",
                   help=f"points per array task; default: 4 tasks per CPU of the partition (at least {MAX_TASKS} tasks), "
                   "within the cluster's MaxArraySize, MaxJobCount and MaxTime")
    g.add_argument("--max-running", type=int, metavar="M",
                   help="at most M array tasks run at once (the %%M of sbatch --array)")
    g.add_argument("--retries", type=int, default=2, metavar="R",
                   help="resubmit chunks with unfinished points up to R times (default 2)")
    g.add_argument("--shared-dir", metavar="DIR",
                   help="where tessera, the firmware and the sweep tool are staged for the nodes; default OUT/stage. "
                   "OUT and DIR must be on a filesystem every node sees")
    g.add_argument("--poll", type=float, default=5.0, metavar="S", help="seconds between squeue polls (default 5)")


# --- helpers (pure) -----------------------------------------------------------------------------


def point_dir(out_dir, pid):
    return os.path.join(out_dir, "points", f"{pid:05d}")


def is_finished(out_dir, pid):
    """As results.is_finished: a status.json record the sweep wrote (an unreadable one: the point runs again)."""
    from tessera_sweep import results
    return results.is_finished(out_dir, pid)


def make_chunks(ids, chunk_size=None, max_tasks=MAX_TASKS):
    """Consecutive chunks of ids; chunk_size None: the smallest size giving at most max_tasks chunks."""
    ids = list(ids)
    if not ids:
        return []
    if chunk_size is None:
        chunk_size = max(1, math.ceil(len(ids) / max_tasks))
    if chunk_size < 1:
        raise SlurmError(f"--chunk-size must be at least 1 (got {chunk_size})")
    return [ids[i:i + chunk_size] for i in range(0, len(ids), chunk_size)]


def parse_config_limits(text):
    """`scontrol show config` -> {"MaxArraySize": int, "MaxJobCount": int} (those it lists)."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^\s*(MaxArraySize|MaxJobCount)\s*=\s*(\d+)", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def parse_minutes(text):
    """A Slurm time limit (`infinite`, `30`, `30:00`, `1:00:00`, `2-12:00:00`) in minutes; None: unlimited."""
    text = text.strip()
    if text.lower() in ("infinite", "unlimited", "n/a", ""):
        return None
    days = 0
    if "-" in text:
        d, text = text.split("-", 1)
        days = int(d)
    parts = [int(x) for x in text.split(":")]
    if len(parts) == 1:
        minutes = parts[0] if not days else parts[0] * 60  # "M", or "D-H"
    elif len(parts) == 2:
        minutes = parts[0] + parts[1] / 60 if not days else parts[0] * 60 + parts[1]  # "M:S", or "D-H:M"
    else:
        minutes = parts[0] * 60 + parts[1] + parts[2] / 60
    return days * 24 * 60 + minutes


def parse_partitions(text):
    """`sinfo -h -o "%P|%l|%C"` -> ({partition: (MaxTime minutes or None, CPUs)}, the default's name)."""
    parts, default = {}, None
    for line in text.splitlines():
        fields = line.strip().split("|")
        if len(fields) != 3:
            continue
        name = fields[0]
        if name.endswith("*"):
            name = name[:-1]
            default = name
        cpus = fields[2].split("/")[-1]
        parts[name] = (parse_minutes(fields[1]), int(cpus) if cpus.isdigit() else 0)
    return parts, default


def cluster_limits(partition=None):
    """What the cluster allows an array: MaxArraySize and MaxJobCount (scontrol show config), and the
    partition's MaxTime and CPUs (sinfo)."""
    limits = parse_config_limits(_run(["scontrol", "show", "config"]).stdout)
    parts, default = parse_partitions(_run(["sinfo", "-h", "-o", "%P|%l|%C"]).stdout)
    name = partition or default
    max_time, cpus = parts.get(name, (None, 0))
    return {"partition": name, "max_array_size": limits.get("MaxArraySize", 1001),
            "max_job_count": limits.get("MaxJobCount", 10000), "max_time": max_time, "cpus": cpus}


def _fmt_minutes(m):
    m = int(math.ceil(m))
    return f"{m // 60}:{m % 60:02d}:00"


def plan(n_points, point_timeout, limits, chunk_size=None, time_limit=None):
    """(chunk size, tasks, minutes per task) of one job array of n_points within the cluster's limits,
    or a SlurmError saying which limit and what to change. By default the chunks are as small as
    the cluster is wide (4 tasks per CPU of the partition, at least MAX_TASKS) and no smaller than
    MaxArraySize and MaxJobCount force; each task's time is its chunk at the spec's timeout per
    point, plus 5 minutes."""
    max_tasks = max(1, min(limits["max_array_size"], limits["max_job_count"] // 2 or 1))
    where = f"partition {limits['partition']}" if limits.get("partition") else "the default partition"
    max_time = limits["max_time"]
    if time_limit is not None:
        given = parse_minutes(str(time_limit))
        if max_time is not None and given is not None and given > max_time:
            raise SlurmError(f"--time {time_limit} is more than {where}'s MaxTime ({_fmt_minutes(max_time)}); "
                             f"give --time {_fmt_minutes(max_time)} or less (and a --chunk-size whose points fit)")
    if max_time is not None and point_timeout / 60 + 5 > max_time:
        raise SlurmError(f"the spec's timeout ({point_timeout:g} s) plus 5 minutes is more than {where}'s MaxTime "
                         f"({_fmt_minutes(max_time)}): a point could be killed by Slurm and never finish; lower "
                         "the spec's timeout or use a partition with a longer MaxTime (--partition)")
    if chunk_size is None:
        want = max(MAX_TASKS, 4 * limits.get("cpus", 0))
        chunk_size = max(1, math.ceil(n_points / min(want, max_tasks)))
        if max_time is not None and time_limit is None:
            fit = max(1, int((max_time - 5) * 60 // point_timeout))  # points a task's MaxTime holds
            chunk_size = min(chunk_size, fit)
    tasks = math.ceil(n_points / chunk_size)
    if tasks > max_tasks:
        least = math.ceil(n_points / max_tasks)
        if max_time is not None and time_limit is None and least * point_timeout / 60 + 5 > max_time:
            fix = (f"even {least} points a task would outlast {where}'s MaxTime ({_fmt_minutes(max_time)}) at the "
                   "spec's timeout: lower the timeout, or split the sweep")
        else:
            fix = f"give --chunk-size {least} or more"
        raise SlurmError(f"{n_points:,} points in chunks of {chunk_size} make {tasks:,} array tasks, more than the "
                         f"cluster allows in one array ({max_tasks:,}: MaxArraySize {limits['max_array_size']:,}, "
                         f"MaxJobCount {limits['max_job_count']:,}); {fix}")
    minutes = parse_minutes(str(time_limit)) if time_limit is not None else default_time_limit(chunk_size,
                                                                                              point_timeout)
    if time_limit is None and max_time is not None and minutes > max_time:
        raise SlurmError(f"--chunk-size {chunk_size} at the spec's timeout ({point_timeout:g} s a point) needs "
                         f"{_fmt_minutes(minutes)} a task, more than {where}'s MaxTime ({_fmt_minutes(max_time)}); "
                         f"give a --chunk-size of at most {max(1, int((max_time - 5) * 60 // point_timeout))}")
    return chunk_size, tasks, minutes


def default_time_limit(chunk_len, point_timeout):
    """Minutes for one task: every point of the chunk at its timeout, plus 5 minutes of slack."""
    return int(math.ceil(chunk_len * float(point_timeout) / 60.0)) + 5


def _sbatch_value(v):
    v = str(v)
    if any(c.isspace() or c in "\"'" for c in v):
        raise SlurmError(f"sbatch option value {v!r} contains a space or quote; use a path without them")
    return v


def batch_script(*, name, out_dir, stage, chunks_file, ntasks, max_running, output_pattern, partition=None,
                 time_limit=None, mem=None, python=PYTHON):
    """The sbatch script of one submission (a bash script with #SBATCH lines)."""
    array = f"0-{ntasks - 1}" + (f"%{max_running}" if max_running else "")
    lines = ["#!/bin/bash", f"#SBATCH --job-name={_sbatch_value('tessera-' + name)}", f"#SBATCH --array={array}",
             f"#SBATCH --output={_sbatch_value(output_pattern)}", "#SBATCH --ntasks=1", "#SBATCH --cpus-per-task=1"]
    if partition:
        lines.append(f"#SBATCH --partition={_sbatch_value(partition)}")
    if time_limit:
        lines.append(f"#SBATCH --time={_sbatch_value(time_limit)}")
    if mem:
        lines.append(f"#SBATCH --mem={_sbatch_value(mem)}")
    worker = os.path.join(stage, "tools", "tessera-sweep")
    lines += [
        "# Array task i runs the points on line i+1 of the chunks file, one after another.",
        "set -euo pipefail",
        f'ids=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" {shlex.quote(chunks_file)})',
        'if [ -z "$ids" ]; then echo "no chunk for array task $SLURM_ARRAY_TASK_ID" >&2; exit 2; fi',
        'echo "array task $SLURM_ARRAY_TASK_ID on $(hostname): points $ids"',
        f"exec {shlex.quote(python)} {shlex.quote(worker)} run-points {shlex.quote(out_dir)} "
        f'--ids "$ids" --stage {shlex.quote(stage)}',
    ]
    return "\n".join(lines) + "\n"


def parse_squeue(text):
    """`squeue -h -r -o "%i %T"` output -> {task index or None: state}."""
    states = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        m = re.match(r"^\d+_(\d+)$", parts[0])
        if m:
            states[int(m.group(1))] = parts[1]
        else:  # an unsplit pending remainder such as 12_[3-9%2]
            states.setdefault(None, parts[1])
            m = re.match(r"^\d+_\[(.*)\]$", parts[0])
            if m:
                for idx in _expand_ranges(m.group(1).split("%")[0]):
                    states[idx] = parts[1]
    return states


def _expand_ranges(text):
    out = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        elif part.strip():
            out.append(int(part))
    return out


def parse_scontrol_tasks(text):
    """`scontrol show job -o J` output -> {task index: (state, exit code)} for the array's tasks."""
    tasks = {}
    for line in text.splitlines():
        f = dict(tok.split("=", 1) for tok in line.split() if "=" in tok)
        if "ArrayTaskId" in f and f["ArrayTaskId"].isdigit():
            tasks[int(f["ArrayTaskId"])] = (f.get("JobState", "?"), f.get("ExitCode", "?"))
    return tasks


# --- Slurm commands -----------------------------------------------------------------------------


def _run(argv, check=True, timeout=60):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise SlurmError(f"`{argv[0]}` not found: Slurm's client commands are not installed on this machine "
                         "(Debian: apt-get install slurm-client; tools/tessera-setup installs slurm-wlm)")
    except subprocess.TimeoutExpired:
        raise SlurmError(f"`{shlex.join(argv)}` did not answer within {timeout} s")
    if check and r.returncode != 0:
        err = (r.stderr.strip() or r.stdout.strip() or "(no output)").splitlines()
        raise SlurmError(f"`{shlex.join(argv)}` failed with exit status {r.returncode}: {' / '.join(err[-3:])}")
    return r


def check_reachable(partition=None):
    """Refuse (SlurmError naming the command) when the controller does not answer."""
    argv = ["sinfo", "-h", "-o", "%P %a"]
    if partition:
        argv[1:1] = ["--partition", partition]
    r = _run(argv, timeout=30)
    lines = r.stdout.split()
    if partition and not lines:
        raise SlurmError(f"`{shlex.join(argv)}`: Slurm has no partition {partition!r}")
    return r.stdout


def check_options(args):
    for opt, value, least in (("--chunk-size", args.chunk_size, 1), ("--max-running", args.max_running, 1),
                              ("--retries", args.retries, 0)):
        if value is not None and value < least:
            raise SlurmError(f"{opt} {value}: must be at least {least}")
    if not args.poll > 0:
        raise SlurmError(f"--poll {args.poll}: must be more than 0 seconds")


def preflight(args, sweep=None):
    """Every refusal of the Slurm executor that needs no sweep directory: the options, whether
    the controller answers, and (given the sweep) whether its points fit the cluster's limits
    (plan). run() calls it first; a caller may call it earlier, before it creates the sweep
    directory, so that a refused sweep leaves nothing behind."""
    check_options(args)
    check_reachable(getattr(args, "partition", None))
    args.slurm_limits = cluster_limits(getattr(args, "partition", None))
    if sweep is not None and not sweep.get("search"):  # a search plans each batch
        plan(len(sweep["points"]), float(sweep.get("timeout") or 600), args.slurm_limits, args.chunk_size, args.time)


# --- the executor -------------------------------------------------------------------------------


def _copy_if_changed(src, d, name):
    """src copied to name in d (a safefile.Dir), with src's mode (less the umask) and times."""
    try:
        s = os.stat(src)
    except OSError:
        raise SlurmError(f"cannot stage {src}: it does not exist") from None
    t = d.lstat(name)
    if t is not None and stat.S_ISREG(t.st_mode) and t.st_size == s.st_size and int(t.st_mtime) == int(s.st_mtime):
        return
    with open(src, "rb") as f:
        d.write_atomic(name, f, mode=stat.S_IMODE(s.st_mode), times_ns=(s.st_atime_ns, s.st_mtime_ns))


def stage_files(sweep, stage, own=False):
    """tessera, every file of sweep["files"] and the sweep tool into stage (what a node runs).
    Nothing below stage is reached through a link, nor stage itself when it is the sweep's
    own (OUT/stage; own) rather than the user's --shared-dir."""
    from tessera_sweep import safefile

    def _stage_dir(*names):
        if own:
            return safefile.Dir(os.path.dirname(stage), os.path.basename(stage), *names, create=True)
        return safefile.Dir(stage, *names, create=True)

    with _stage_dir() as d:
        _copy_if_changed(sweep["tessera"], d, "tessera")
    with _stage_dir("files") as d:
        for key, path in sorted(sweep.get("files", {}).items()):
            _copy_if_changed(path, d, key)
    with _stage_dir("tools") as d:
        _copy_if_changed(os.path.join(TOOLS_DIR, "tessera-sweep"), d, "tessera-sweep")
    pkg = os.path.join(TOOLS_DIR, "tessera_sweep")
    with _stage_dir("tools", "tessera_sweep") as d:
        for f in sorted(os.listdir(pkg)):
            if f.endswith(".py"):
                _copy_if_changed(os.path.join(pkg, f), d, f)


class _Progress:
    """The progress line of an array, from Slurm alone: a task squeue no
    longer lists has finished, and its chunk's points with it (whether each
    ended ok is known when the driver ingests their records, at the end).
    The driver reads no file of a point while the array runs."""

    def __init__(self, ids, chunks=None, stream=sys.stderr, quiet=False):
        self.total, self.chunks, self.stream, self.quiet = len(ids), chunks, stream, quiet
        self.done = self.before = 0
        self.failed = None  # known at the end
        self.t0 = time.monotonic()
        self.tty = stream.isatty()
        self.last_print = 0.0
        self.last_line = None

    def resubmitted(self, chunks):
        """A new array of these chunks: the points outside them are finished."""
        self.chunks, self.before = chunks, self.total - sum(map(len, chunks))
        self.done, self.failed = self.before, None

    def update(self, states):
        if self.chunks is not None and states:
            active = {k for k in states if k is not None}
            self.done = self.before + sum(len(c) for i, c in enumerate(self.chunks) if i not in active)

    def final(self, ok, failed):
        self.done, self.failed = ok + failed, failed

    def show(self, job, states, force=False):
        done = self.done
        pending = sum(1 for k, s in states.items() if k is not None and s == "PENDING")
        running = sum(1 for k, s in states.items() if k is not None and s in ("RUNNING", "CONFIGURING", "COMPLETING"))
        el = time.monotonic() - self.t0
        eta = ""
        if 0 < done < self.total:
            eta = f", ETA {_hms(el / done * (self.total - done))}"
        failed = f", {self.failed} failed" if self.failed is not None else ""
        line = (f"slurm job {job}: {done}/{self.total} points done{failed}; "
                f"tasks {pending} pending, {running} running; {_hms(el)} elapsed{eta}")
        now = time.monotonic()
        if self.quiet:
            pass
        elif self.tty:
            self.stream.write("\r\033[K" + line)
            self.stream.flush()
        elif force or (line != self.last_line and now - self.last_print >= 10):
            print(line, file=self.stream, flush=True)
            self.last_print = now
        self.last_line = line

    def end_line(self):
        if self.tty and not self.quiet:
            self.stream.write("\n")
            self.stream.flush()


def _hms(s):
    s = int(s)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def _task_states(job):
    """Final states of the array's tasks: sacct when accounting works, else scontrol (recent jobs only)."""
    r = _run(["sacct", "-n", "-P", "-X", "-j", str(job), "-o", "JobID,State,ExitCode"], check=False)
    tasks = {}
    if r.returncode == 0 and r.stdout.strip():
        for line in r.stdout.splitlines():
            parts = line.split("|")
            m = re.match(r"^\d+_(\d+)$", parts[0]) if parts else None
            if m and len(parts) >= 3:
                tasks[int(m.group(1))] = (parts[1].split()[0], parts[2])
        if tasks:
            return tasks
    r = _run(["scontrol", "show", "job", "-o", str(job)], check=False)
    if r.returncode == 0:
        return parse_scontrol_tasks(r.stdout)
    return {}


class Executor:
    def __init__(self, out_dir, sweep, args, stream=sys.stderr):
        self.out = os.path.abspath(out_dir)
        self.sweep = sweep
        self.args = args
        self.stream = stream
        self.stage = os.path.abspath(getattr(args, "shared_dir", None) or os.path.join(self.out, "stage"))
        self.slurm_dir = os.path.join(self.out, "slurm")
        self.job = None
        self.interrupted = False
        self.final = True
        self.minutes = None  # each task's time limit (plan)

    def log(self, msg):
        print(msg, file=self.stream, flush=True)

    def unfinished(self, ids):
        return [i for i in ids if not is_finished(self.out, i)]

    def outcome(self, ids):
        """(ok, otherwise finished) among ids, from their records."""
        from tessera_sweep import results
        ok = failed = 0
        for pid in ids:
            st = results.load_status(self.out, pid)
            if st is not None and st.get("status") in results.STATUSES:
                ok, failed = (ok + 1, failed) if st["status"] == "ok" else (ok, failed + 1)
        return ok, failed

    def ingest(self, ids):
        """The records the array tasks wrote (status.json, stats.json) into the
        driver's store; the directory of a point that ended ok is then removed
        (unless --keep-point-files). Returns how many were ingested."""
        from tessera_sweep import results, runner, safefile, store
        db = store.of(self.out, create=True)
        keep = getattr(self.args, "keep_point_files", False)
        n = 0
        for pid in ids:
            st = results.load_status_file(self.out, pid)
            if st is None or st.get("status") not in results.STATUSES or db.get(pid) is not None:
                continue
            with results.open_point_dir(self.out, pid) as d:
                db.put(st, d.read("stats.json"))
            n += 1
            if st["status"] == "ok" and not keep:
                with safefile.Dir(self.out, "points") as points:
                    points.remove_tree(f"{int(pid):05d}", runner.POINT_FILES)
        return n

    def slurm_files(self):
        """OUT/slurm held open: its files are written without following links."""
        from tessera_sweep import safefile
        return safefile.Dir(self.out, "slurm", create=True)

    def submit(self, n, chunks):
        chunks_file = os.path.join(self.slurm_dir, f"chunks-{n}.txt")
        with self.slurm_files() as d:
            d.write_atomic(os.path.basename(chunks_file), "".join(",".join(str(i) for i in c) + "\n" for c in chunks))
        a = self.args
        time_limit = a.time or self.minutes
        script = batch_script(name=self.sweep.get("name", "sweep"), out_dir=self.out, stage=self.stage,
                              chunks_file=chunks_file, ntasks=len(chunks), max_running=a.max_running,
                              output_pattern=os.path.join(self.slurm_dir, "task-%A_%a.out"), partition=a.partition,
                              time_limit=time_limit, mem=a.mem)
        path = os.path.join(self.slurm_dir, f"job-{n}.sh")
        with self.slurm_files() as d:
            d.write_atomic(os.path.basename(path), script, mode=0o777)  # executable, less the umask
        r = _run(["sbatch", "--parsable", path])
        job = r.stdout.strip().split(";")[0]
        if not job.isdigit():
            raise SlurmError(f"`sbatch --parsable {path}` printed {r.stdout.strip()!r}, not a job id")
        with self.slurm_files() as d, d.open("jobs.txt", append=True) as f:
            f.write(f"{n} {job} {len(chunks)}\n")
        return job

    def poll(self, job):
        """{task: state} of the array's tasks still known to squeue; {} when the array is gone."""
        failures = 0
        while True:
            r = _run(["squeue", "-h", "-r", "-j", job, "-o", "%i %T"], check=False)
            if r.returncode == 0:
                return {k: s for k, s in parse_squeue(r.stdout).items() if s in ACTIVE_STATES}
            if "Invalid job id" in r.stderr:
                return {}  # purged: the array is gone
            failures += 1
            if failures >= 10:
                raise SlurmError(f"`squeue -h -r -j {job}` keeps failing: {r.stderr.strip()}")
            time.sleep(min(self.args.poll, 5))

    def wait(self, job, progress):
        while True:
            states = self.poll(job)
            progress.update(states)
            progress.show(job, states)
            if not states:
                return
            time.sleep(self.args.poll)

    def run(self, ids=None, final=True):
        a = self.args
        if not getattr(a, "slurm_preflight_done", False):
            preflight(a)
            a.slurm_preflight_done = True
        self.final = final
        all_ids = [p["id"] for p in self.sweep["points"]] if ids is None else list(ids)
        t0 = time.monotonic()
        n = 0
        earlier = []  # job ids an earlier driver of this sweep submitted
        if os.path.exists(os.path.join(self.slurm_dir, "jobs.txt")):  # a resumed sweep: keep earlier scripts
            with open(os.path.join(self.slurm_dir, "jobs.txt")) as f:
                lines = [line.split() for line in f if line.strip()]
            n = 1 + max((int(parts[0]) for parts in lines), default=-1)
            earlier = [parts[1] for parts in lines if len(parts) > 1]
        # An earlier driver that died (SIGKILL, a lost login node) left its
        # array in Slurm: wait for it rather than run its points a second time.
        for job in earlier:
            states = self.poll(job)
            if not states:
                continue
            pending = self.unfinished(all_ids)
            self.log(f"Slurm job {job} of an earlier run of this sweep is still there ({len(states)} tasks "
                     f"queued or running): waiting for it instead of submitting its points again")
            self.job = job
            progress = _Progress(pending, None, self.stream, quiet=getattr(a, "quiet", False))
            self.wait(job, progress)
            progress.end_line()
            self.job = None
        self.ingest(all_ids)  # what earlier arrays of this sweep left
        todo = self.unfinished(all_ids)
        if not todo:
            self.log(f"all {len(all_ids)} points of {self.out} are finished")
            return self.finish(all_ids, t0)
        chunk_size, _, self.minutes = plan(len(todo), float(self.sweep.get("timeout") or 600), a.slurm_limits,
                                           a.chunk_size, a.time)  # refused before anything is staged
        self.slurm_files().close()
        stage_files(self.sweep, self.stage, own=not getattr(a, "shared_dir", None))
        chunks = make_chunks(todo, chunk_size)
        progress = _Progress(todo, chunks, self.stream, quiet=getattr(a, "quiet", False))
        for attempt in range(a.retries + 1):
            progress.resubmitted(chunks)
            self.job = self.submit(n, chunks)
            self.log(f"submitted Slurm job {self.job}: {len(chunks)} array tasks, {sum(map(len, chunks))} points, "
                     f"script {os.path.join(self.slurm_dir, f'job-{n}.sh')}")
            self.wait(self.job, progress)
            self.ingest([i for c in chunks for i in c])
            progress.final(*self.outcome(todo))
            progress.show(self.job, {}, force=True)
            progress.end_line()
            left_tasks = [(i, u) for i, u in enumerate(self.unfinished(c) for c in chunks) if u]
            if not left_tasks:
                break
            left = [u for _, u in left_tasks]
            states = _task_states(self.job)
            detail = "; ".join(
                f"task {i}: {states[i][0]}, exit {states[i][1]}" if i in states else
                f"task {i}: no record left (cancelled before it started, or purged)" for i, _ in left_tasks)
            npts = sum(map(len, left))
            if attempt < a.retries:
                self.log(f"{npts} points of job {self.job} did not finish ({detail}); resubmitting "
                         f"{len(left)} chunks (retry {attempt + 1} of {a.retries})")
            else:
                self.log(f"{npts} points did not finish after {a.retries} retries ({detail}); their tasks' output "
                         f"is in {self.slurm_dir}/task-*.out; `--resume` runs them again")
            chunks = left
            n += 1
            self.job = None
        return self.finish(all_ids, t0)

    def finish(self, all_ids, t0):
        from tessera_sweep import results
        if not self.final:  # a search's batch: its driver writes results.csv at the end
            return 0 if not self.unfinished(all_ids) else 1
        summary = results.write_csv(self.out, self.sweep)
        for line in summary.report():
            self.log(line)
        counts = {}
        host = 0.0
        for pid in all_ids:
            st = results.load_status(self.out, pid)
            if not st:
                counts["unfinished"] = counts.get("unfinished", 0) + 1
                continue
            counts[st.get("status", "?")] = counts.get(st.get("status", "?"), 0) + 1
            host += float(st.get("host_seconds") or 0)
        unfinished = f", {counts['unfinished']} unfinished" if counts.get("unfinished") else ""
        self.log(f"tessera sweep: {self.sweep.get('name', 'sweep')}: {counts.get('ok', 0)} ok, "
                 f"{counts.get('failed', 0)} failed, {counts.get('fault', 0)} fault, {counts.get('timeout', 0)} timeout"
                 f"{unfinished} of {len(all_ids)}; Slurm wall {time.monotonic() - t0:.1f} s, tessera host time "
                 f"{host:.1f} s; results in {os.path.join(self.out, 'results.csv')}")
        return 0 if not counts.get("unfinished") and not summary.metric_failures else 1

    def cancel(self):
        if self.job:
            r = _run(["scancel", self.job], check=False)
            if r.returncode != 0:
                self.log(f"`scancel {self.job}` failed: {r.stderr.strip()}; cancel it by hand")
            else:
                self.log(f"cancelled Slurm job {self.job}")


def run(out_dir, sweep, args, ids=None, final=True):
    """Run the sweep's unfinished points (of ids, when given) as Slurm job
    arrays; the process exit status (0 all finished, 1 some unfinished after
    the retries or a metric that could not be computed, 130 interrupted;
    SlurmError: refused). final: write results.csv and the summary."""
    ex = Executor(out_dir, sweep, args)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    old = {s: signal.signal(s, interrupt) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return ex.run(ids, final)
    except _Base:  # SlurmError, or a file of the sweep refused (safefile): the job must not outlive it
        ex.cancel()
        raise
    except KeyboardInterrupt:
        ex.stream.write("\n")
        ex.cancel()
        from tessera_sweep import results
        results.write_csv(ex.out, sweep)
        done = sum(1 for p in sweep["points"] if is_finished(ex.out, p["id"]))
        spec = getattr(args, "spec", "SPEC")
        ex.log(f"tessera sweep: interrupted: {done} of {len(sweep['points'])} points finished (results.csv written); "
               f"`tessera sweep {spec} -o {out_dir} --resume` finishes the sweep")
        return 130
    finally:
        for s, h in old.items():
            signal.signal(s, h)
