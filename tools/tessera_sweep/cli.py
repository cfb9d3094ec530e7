"""The command line of `tessera sweep` (tools/tessera-sweep)."""
import argparse
import fcntl
import json
import os
import signal
import sys

from . import STATUS_USAGE, SweepError
from . import provenance, results, safefile, store

USAGE = """tessera sweep SPEC.yaml [-o OUT] [-j N] [--resume [--allow-changed]] [--executor local|slurm] ...
       tessera sweep plot OUT ...
       tessera sweep run-points OUT --ids 0,5,7 [--stage DIR]"""


def _slurm():
    try:
        from . import slurm
    except ImportError:
        return None
    return slurm


def sweep_parser():
    p = argparse.ArgumentParser(
        prog="tessera sweep", usage=USAGE,
        description="Run a design-space sweep: every point of SPEC (platforms x programs x parameter values) is a "
                    "`tessera run`; results go to OUT/results.csv. With `search:` in SPEC, Optuna chooses which "
                    "configurations run (OUT/search.json, OUT/sweep.db). See docs/dse.md.")
    p.add_argument("spec", help="the sweep spec (YAML)")
    p.add_argument("-o", "--out", help="sweep directory (default sweeps/<name>)")
    p.add_argument("-j", "--jobs", type=int, default=None, help="points run at once (default: the cores)")
    p.add_argument("--resume", action="store_true", help="finish an interrupted sweep in OUT")
    p.add_argument("--allow-changed", action="store_true",
                   help="with --resume: go on although tessera, a platform, a program or the spec changed since "
                        "OUT was created (each point's status.json records what it ran with)")
    p.add_argument("--executor", choices=["local", "slurm"], default="local", help="where points run")
    p.add_argument("--keep-point-files", action="store_true",
                   help="keep every point's files (points/NNNNN/: command, output, stats.json); by default only "
                        "those of points that did not end ok are kept, the results being in OUT/sweep.db")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    slurm = _slurm()
    if slurm is not None and hasattr(slurm, "add_arguments"):
        slurm.add_arguments(p)
    return p


def run_points_parser():
    p = argparse.ArgumentParser(prog="tessera sweep run-points",
                                description="Run points of a sweep one after another (the Slurm worker)")
    p.add_argument("out", help="the sweep directory")
    p.add_argument("--ids", required=True, help="point ids: 0,5,7 or ranges 10-19")
    p.add_argument("--stage", help="staged copy: DIR/tessera and DIR/files/KEY")
    return p


# Configurations a search on Slurm asks for at once when neither search.batch
# nor --max-running says: each batch is one job array.
search_batch = 32


def _same_spec(a, b):
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def cmd_sweep(argv, tessera):
    from . import spec as spec_mod
    args = sweep_parser().parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        raise SweepError(f"-j {args.jobs}: need at least one job")
    sweep = spec_mod.load(args.spec, tessera)
    plots = sweep["spec"].get("plots")
    if plots is not None:
        plot = _plot_module()
        try:
            plot.check_plots(plots, results.columns(sweep))
        except plot.PlotError as e:
            raise SweepError(f"{args.spec}: {e}") from None
    slurm = None
    if args.executor == "slurm":
        slurm = _slurm()
        if slurm is None:
            raise SweepError("--executor slurm: the Slurm executor (tessera_sweep/slurm.py) is not installed")
        slurm.preflight(args, sweep)  # an unreachable Slurm or a sweep beyond its limits: refused before OUT exists
        args.slurm_preflight_done = True
    out = args.out or os.path.join("sweeps", sweep["name"])
    lock = hold_lock(out)  # noqa: F841 - held until the driver exits
    sweep_json = os.path.join(out, "sweep.json")
    if os.path.exists(sweep_json):
        if not args.resume:
            raise SweepError(f"{out} already holds a sweep (sweep.json): add --resume to finish it, or choose "
                             "another directory with -o")
        old = results.load_sweep(out)
        if not _same_spec(old.get("spec"), sweep["spec"]):
            raise SweepError(f"{args.spec}: the spec changed since {sweep_json} was written; --resume needs the "
                             "same spec (run the new spec with another -o)")
        changed = provenance.changed(old)
        if changed and not args.allow_changed:
            raise SweepError(f"{out}: input{'s' if len(changed) > 1 else ''} changed since {sweep_json} was written: "
                             f"{'; '.join(changed)}. The finished points ran with the old content: run the sweep "
                             "again in another directory, or add --allow-changed to mix them (each point's "
                             "status.json records the hashes it ran with)")
        sweep = old
    else:
        if os.path.lexists(os.path.join(out, store.NAME)):
            # Its records are of points of another sweep, which a new sweep would take as its own.
            raise SweepError(f"{out} holds a results store ({store.NAME}) but no sweep.json: remove {store.NAME} "
                             "(the results of an earlier sweep there), or choose another directory with -o")
        if sweep.get("search") and sweep["search"]["batch"] is None:
            # Recorded, so that a --resume with another -j asks as this run would.
            sweep["search"]["batch"] = (args.max_running or search_batch) if slurm else \
                max(1, args.jobs or os.cpu_count() or 1)
        safefile.Dir(out, "points", create=True).close()
        store.of(out, create=True)  # OUT/sweep.db, the results store, from the start
        results.write_sweep(out, sweep)
    if sweep.get("search"):
        from . import search
        if slurm is not None:
            def execute(ids):
                return slurm.run(out, sweep, args, ids, final=False)
        else:
            from . import local

            def execute(ids):
                return local.run(out, sweep, args, ids, final=False)
        try:
            status = search.run(out, sweep, args, execute)
        finally:
            summary = results.write_csv(out, sweep)  # the points that ran, also when the search stopped
        for line in summary.report():
            print(line, file=sys.stderr)
        if status == 0 and summary.metric_failures:
            status = 1
    elif slurm is not None:
        status = slurm.run(out, sweep, args)
    else:
        from . import local
        status = local.run(out, sweep, args)
    if plots and status in (0, 1):
        draw_spec_plots(out, plots, args.quiet)
    return status


def hold_lock(out):
    """OUT/lock, locked (flock) for as long as this driver lives: one driver
    per sweep directory. A second (a --resume while the first still runs)
    is refused with the first one's pid; the kernel releases the lock of a
    driver that died, however it died."""
    d = safefile.Dir(out, create=True)
    try:
        f = d.open("lock", append=True)
    finally:
        d.close()
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        try:
            with open(os.path.join(out, "lock")) as r:
                pid = r.read().strip()
        except OSError:
            pid = "?"
        raise SweepError(f"{out}: another tessera sweep (pid {pid or '?'}) is running in this directory; wait for it "
                         "or stop it first") from None
    f.truncate(0)
    f.write(f"{os.getpid()}\n")
    f.flush()
    return f


def draw_spec_plots(out, plots, quiet):
    """The spec's plots of a finished sweep (plots/index.html); the results are written already, so
    a sweep without a successful point only says why there is no plot."""
    plot = _plot_module()
    try:
        plot.make_plots(out, plots)
    except plot.PlotError as e:
        print(f"tessera sweep: no plots: {e}", file=sys.stderr)
        return
    if not quiet:
        print(f"tessera sweep: plots in {os.path.join(out, 'plots', 'index.html')}", file=sys.stderr)


def cmd_run_points(argv):
    from . import runner
    args = run_points_parser().parse_args(argv)
    return runner.run_points(args.out, args.ids, args.stage)


def _plot_module():
    try:
        from . import plot
    except ImportError as e:
        raise SweepError(f"plot: the plotting module is not available ({e})") from None
    return plot


def cmd_plot(argv):
    return _plot_module().main(argv)


def main(argv):
    from .spec import default_tessera
    tessera = None
    if len(argv) >= 2 and argv[0] == "--tessera":
        tessera, argv = argv[1], argv[2:]
    tessera = tessera or os.environ.get("TESSERA") or default_tessera()

    def stop(signum, frame):
        raise KeyboardInterrupt

    # SIGTERM and SIGHUP stop the driver as Ctrl-C does, also between the
    # executors' runs (a search asking for its next batch); each executor
    # handles them itself while points run.
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, stop)
    try:
        if argv and argv[0] == "run-points":
            return cmd_run_points(argv[1:])
        if argv and argv[0] == "plot":
            return cmd_plot(argv[1:])
        return cmd_sweep(argv, tessera)
    except SweepError as e:
        print(f"tessera sweep: error: {e}", file=sys.stderr)
        return STATUS_USAGE
    except KeyboardInterrupt:
        print("tessera sweep: interrupted", file=sys.stderr)
        return 130
