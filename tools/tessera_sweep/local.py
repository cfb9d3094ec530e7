"""The local executor: a pool of -j workers (threads, each waiting on one
tessera process), a progress line, SIGINT/SIGTERM handling."""
import os
import queue
import signal
import sys
import threading
import time

from . import STATUS_INTERRUPTED, STOP_SIGNALS, SweepError
from . import results, store
from .runner import Killer, run_point


def _fmt_time(s):
    s = int(round(s))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    def __init__(self, total, already, stream=sys.stderr, quiet=False):
        self.total, self.already = total, already
        self.done = self.failed = self.running = 0
        self.start = time.monotonic()
        self.stream = stream
        self.tty = stream.isatty()
        self.quiet = quiet
        self.last_print = self.start
        self.lock = threading.Lock()

    def line(self):
        el = time.monotonic() - self.start
        finished = self.done + self.failed
        left = self.total - self.already - finished
        eta = f"{_fmt_time(el / finished * left)}" if finished else "?"
        return (f"[sweep] {self.already + finished}/{self.total} done, {self.failed} failed, {self.running} running,"
                f" elapsed {_fmt_time(el)}, ETA {eta}")

    def show(self, force=False):
        if self.quiet:
            return
        with self.lock:
            now = time.monotonic()
            if self.tty:
                self.stream.write("\r\033[K" + self.line())
                self.stream.flush()
            elif force or now - self.last_print >= 10:
                self.stream.write(self.line() + "\n")
                self.stream.flush()
                self.last_print = now

    def finish(self):
        if not self.quiet and self.tty:
            self.stream.write("\r\033[K" + self.line() + "\n")
            self.stream.flush()


def run(out_dir, sweep, args, ids=None, final=True):
    """Run the unfinished points of the sweep (of ids, when given) with
    args.jobs workers. Returns the exit status: 0, 1 when a point could not
    be run (it stays unfinished) or a metric could not be computed, 130 when
    interrupted. final: write results.csv and the summary (a search does so
    once, after its last batch)."""
    jobs = max(1, args.jobs or os.cpu_count() or 1)
    chosen = sweep["points"] if ids is None else [sweep["points"][i] for i in ids]
    recorded = results.finished_records(out_dir)
    todo = [p for p in chosen if p["id"] not in recorded]
    db = store.of(out_dir, create=True)
    keep = getattr(args, "keep_point_files", False)
    total = len(chosen)
    progress = Progress(total, total - len(todo), quiet=getattr(args, "quiet", False))
    killer = Killer()
    work = queue.Queue()
    for p in todo:
        work.put(p)
    host = []  # seconds of each tessera process
    sim = []  # seconds of each simulation (summary.host_seconds)
    signalled = []
    not_run = []  # (point id, reason): points that stay unfinished

    def worker():
        while not killer.stopping.is_set():
            try:
                p = work.get_nowait()
            except queue.Empty:
                return
            with progress.lock:
                progress.running += 1
            try:
                st = run_point(out_dir, sweep, p, killer=killer, store=db, keep_files=keep)
            except (SweepError, OSError) as e:
                # One point's trouble (a link planted in its directory, a full
                # disk) leaves it unfinished and the worker goes on.
                st = None
                with progress.lock:
                    not_run.append((p["id"], str(e)))
            except Exception as e:  # noqa: BLE001 - a dead worker would leave its points silently unrun
                st = None
                with progress.lock:
                    not_run.append((p["id"], f"internal error: {type(e).__name__}: {e}"))
            with progress.lock:
                progress.running -= 1
                if st is not None:
                    host.append(st["host_seconds"])
                    if "sim_host_seconds" in st:
                        sim.append(st["sim_host_seconds"])
                    if st["status"] == "ok":
                        progress.done += 1
                    else:
                        progress.failed += 1
            progress.show()

    def on_signal(signum, frame):
        signalled.append(signum)
        killer.stop()

    old = {s: signal.signal(s, on_signal) for s in STOP_SIGNALS}
    start = time.monotonic()
    try:
        threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(jobs, len(todo)))]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            for t in threads:
                t.join(timeout=0.5)
            progress.show()
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    wall = time.monotonic() - start
    progress.finish()
    if not final:
        for pid, reason in sorted(not_run):
            print(f"tessera sweep: point {pid} not run: {reason}", file=sys.stderr)
        return STATUS_INTERRUPTED if signalled else (1 if not_run else 0)
    summary = results.write_csv(out_dir, sweep)
    statuses = summary.statuses
    finished = summary.rows
    for pid, reason in sorted(not_run)[:10]:
        print(f"tessera sweep: point {pid} not run: {reason}", file=sys.stderr)
    if len(not_run) > 10:
        print(f"tessera sweep: ... and {len(not_run) - 10} more points not run", file=sys.stderr)
    for line in summary.report():
        print(line, file=sys.stderr)
    if signalled:
        name = signal.Signals(signalled[0]).name
        print(f"tessera sweep: interrupted ({name}): {finished} of {total} points finished; "
              f"`tessera sweep {args.spec} -o {out_dir} --resume` finishes the sweep", file=sys.stderr)
        return STATUS_INTERRUPTED
    n = len(host)
    overhead = ""
    if n:
        # A worker's share of the wall time per point, against the time of the
        # tessera process (and of the simulation inside it) per point.
        per_point = wall * min(jobs, n) / n
        proc = sum(host) / n
        overhead = f"; per point and worker {per_point * 1000:.1f} ms, tessera process {proc * 1000:.1f} ms"
        if sim:
            overhead += f", simulation {sum(sim) / len(sim) * 1000:.1f} ms"
        overhead += f": sweep overhead {(per_point - proc) * 1000:.1f} ms"
        if sim:
            overhead += f", {(per_point - sum(sim) / len(sim)) * 1000:.1f} ms beyond the simulation"
    unfinished = f", {summary.unfinished} unfinished" if summary.unfinished else ""
    print(f"tessera sweep: {sweep['name']}: {statuses.get('ok', 0)} ok, {statuses.get('failed', 0)} failed, "
          f"{statuses.get('fault', 0)} fault, {statuses.get('timeout', 0)} timeout{unfinished} of {total}; "
          f"{n} run in {wall:.1f} s with -j {jobs}{overhead}; {os.path.join(out_dir, 'results.csv')}",
          file=sys.stderr)
    if summary.unfinished:
        print(f"tessera sweep: {summary.unfinished} points are unfinished; `tessera sweep {args.spec} -o {out_dir} "
              "--resume` runs them again", file=sys.stderr)
    return 1 if summary.unfinished or summary.metric_failures else 0
