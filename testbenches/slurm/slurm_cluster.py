"""A real one-node Slurm cluster on localhost for tests: munged, slurmctld, slurmd.

LocalSlurm() is a context manager (as root): it makes a temp dir holding a
munge key, munged's socket/pid/log/seed files, slurm.conf, Slurm's state and
spool directories and the daemons' logs; starts munged, slurmctld and slurmd
in the foreground as child processes; exports SLURM_CONF; waits until sinfo
shows the node idle; and on exit (also on failure) stops the daemons it
started, restores SLURM_CONF and removes the temp dir.

When something is missing (not root, a package not installed, a daemon that
dies) it raises SlurmHarnessError saying why and how to fix it: the test that
uses it fails, it never skips.

Run it by hand to measure start-up or to hold a cluster for experiments:
  /usr/bin/python3 testbenches/slurm/slurm_cluster.py [--hold]
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

PACKAGES_HINT = "install them with: apt-get install -y slurm-wlm munge (tools/tessera-setup does)"
DAEMONS = {"munged": "munge", "mungekey": "munge", "slurmctld": "slurm-wlm", "slurmd": "slurm-wlm",
           "sinfo": "slurm-wlm", "sbatch": "slurm-wlm", "squeue": "slurm-wlm", "scancel": "slurm-wlm"}


class SlurmHarnessError(RuntimeError):
    pass


def _free_ports(count):
    """count distinct TCP ports free on localhost now (the kernel picks them)."""
    socks, ports = [], []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


def _die_with_parent():
    """In the daemon's child before exec: SIGTERM when the harness dies, even by SIGKILL (a CTest timeout)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _tail(path, lines=25):
    try:
        with open(path, errors="replace") as f:
            text = f.read().splitlines()
    except OSError as e:
        return f"    ({path}: {e.strerror})"
    return "\n".join("    " + line for line in text[-lines:]) or f"    ({path} is empty)"


def _real_memory_mb():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                # Below the total: slurmd drains a node whose RealMemory exceeds what it finds.
                return int(line.split()[1]) // 1024 * 9 // 10
    return 1024


class LocalSlurm:
    def __init__(self, start_timeout=60.0, keep_dir=False, max_array_size=100001, max_time="INFINITE"):
        """max_array_size and max_time (minutes, or INFINITE): the limits of slurm.conf and its partition."""
        self.start_timeout = start_timeout
        self.max_array_size = max_array_size
        self.max_time = max_time
        self.keep_dir = keep_dir
        self.dir = None
        self.conf = None
        self.procs = {}  # name -> Popen
        self.logs = {}
        self._old_conf = None
        self.startup_seconds = None

    # --- public -----------------------------------------------------------------------------

    def env(self):
        """The environment for Slurm clients (sbatch, squeue ...) talking to this cluster."""
        env = dict(os.environ)
        env["SLURM_CONF"] = self.conf
        return env

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        t0 = time.monotonic()
        self._check_prerequisites()
        self.dir = tempfile.mkdtemp(prefix="tessera-slurm-")
        os.chmod(self.dir, 0o700)  # munged refuses key/socket directories others may write
        self._start_munge()
        self._write_slurm_conf()
        self._old_conf = os.environ.get("SLURM_CONF")
        os.environ["SLURM_CONF"] = self.conf
        self._spawn("slurmctld", ["slurmctld", "-D", "-i", "-f", self.conf, "-L", self.logs["slurmctld"]])
        self._wait_controller()
        self._spawn("slurmd", ["slurmd", "-D", "-N", "localhost", "-f", self.conf, "-L", self.logs["slurmd"]])
        self._wait_node_idle()
        self.startup_seconds = time.monotonic() - t0

    def stop(self):
        # slurmd before slurmctld before munged: each still has its peers while it shuts down.
        for name in ("slurmd", "slurmctld", "munged"):
            p = self.procs.pop(name, None)
            if p is None or p.poll() is not None:
                continue
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if self._old_conf is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = self._old_conf
        self._old_conf = None
        if self.dir and not self.keep_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    # --- steps ------------------------------------------------------------------------------

    def _check_prerequisites(self):
        if os.geteuid() != 0:
            raise SlurmHarnessError(
                "the Slurm test starts munged, slurmctld and slurmd itself and needs root "
                f"(running as uid {os.geteuid()}): run ctest as root, e.g. in .ci/run or with sudo")
        missing = sorted({f"{exe} (package {pkg})" for exe, pkg in DAEMONS.items() if not shutil.which(exe)
                          and not os.path.exists(f"/usr/sbin/{exe}")})
        if missing:
            raise SlurmHarnessError(f"not installed: {', '.join(missing)}; {PACKAGES_HINT}")
        os.environ["PATH"] = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"

    def _spawn(self, name, argv, log=None):
        out = open(os.path.join(self.dir, f"{name}.console"), "w")
        self.logs.setdefault(name + ".console", out.name)
        try:
            self.procs[name] = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                                stdin=subprocess.DEVNULL, start_new_session=True,
                                                preexec_fn=_die_with_parent)
        except OSError as e:
            raise SlurmHarnessError(f"cannot start {argv[0]}: {e.strerror}; {PACKAGES_HINT}")
        finally:
            out.close()

    def _fail(self, what):
        parts = [f"local Slurm: {what}"]
        for name in ("munged", "slurmctld", "slurmd"):
            p = self.procs.get(name)
            if p is not None:
                state = "running" if p.poll() is None else f"exited with status {p.returncode}"
                parts.append(f"  {name}: {state}")
            for key in (name, name + ".console"):
                if key in self.logs and os.path.exists(self.logs[key]):
                    parts.append(f"  last lines of {self.logs[key]}:\n{_tail(self.logs[key])}")
        raise SlurmHarnessError("\n".join(parts))

    def _start_munge(self):
        d = self.dir
        key = os.path.join(d, "munge.key")
        self.munge_socket = os.path.join(d, "munge.socket")
        self.logs["munged"] = os.path.join(d, "munged.log")
        r = subprocess.run(["mungekey", "--create", "--keyfile", key], capture_output=True, text=True)
        if r.returncode != 0:
            with open(key, "wb") as f:
                f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        # As root munged wants --force; its files stay under our 0700 temp dir.
        self._spawn("munged", ["munged", "--foreground", "--force", "--key-file", key, "--socket", self.munge_socket,
                               "--pid-file", os.path.join(d, "munged.pid"), "--log-file", self.logs["munged"],
                               "--seed-file", os.path.join(d, "munged.seed")])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.procs["munged"].poll() is not None:
                self._fail("munged exited at start-up")
            r = subprocess.run(["munge", "--socket", self.munge_socket, "-n"], capture_output=True)
            if r.returncode == 0:
                return
            time.sleep(0.1)
        self._fail("munged did not answer on its socket within 10 s")

    def _write_slurm_conf(self):
        d = self.dir
        for sub in ("state", "spool"):
            os.makedirs(os.path.join(d, sub))
        self.logs["slurmctld"] = os.path.join(d, "slurmctld.log")
        self.logs["slurmd"] = os.path.join(d, "slurmd.log")
        ctld_port, slurmd_port = _free_ports(2)
        self.conf = os.path.join(d, "slurm.conf")
        conf = f"""\
# One-node cluster on localhost for the Tessera Slurm executor test.
ClusterName=tessera
SlurmctldHost=localhost
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.munge_socket}
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={self.logs["slurmctld"]}
SlurmdLogFile={self.logs["slurmd"]}
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SchedulerType=sched/backfill
# Short intervals: a test waits on these.
SchedulerParameters=sched_interval=1
MinJobAge=30
SlurmdTimeout=30
SlurmctldTimeout=30
InactiveLimit=0
KillWait=5
MaxArraySize={self.max_array_size}
NodeName=localhost CPUs={os.cpu_count()} RealMemory={_real_memory_mb()} State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime={self.max_time} State=UP
"""
        with open(self.conf, "w") as f:
            f.write(conf)
        # Slurm reads cgroup.conf beside slurm.conf when a cgroup plugin is configured; none is,
        # but an empty one keeps slurmd quiet on distributions whose defaults load one.
        with open(os.path.join(d, "cgroup.conf"), "w") as f:
            f.write("CgroupPlugin=autodetect\n")

    def _wait_controller(self):
        deadline = time.monotonic() + self.start_timeout
        last = ""
        while time.monotonic() < deadline:
            if self.procs["slurmctld"].poll() is not None:
                self._fail("slurmctld exited at start-up")
            r = subprocess.run(["scontrol", "ping"], capture_output=True, text=True, env=self.env())
            last = (r.stdout + r.stderr).strip()
            if r.returncode == 0 and "UP" in r.stdout:
                return
            time.sleep(0.2)
        self._fail(f"slurmctld did not answer `scontrol ping` within {self.start_timeout:.0f} s (last: {last})")

    def _wait_node_idle(self):
        deadline = time.monotonic() + self.start_timeout
        state = ""
        while time.monotonic() < deadline:
            for name in ("slurmctld", "slurmd"):
                if self.procs[name].poll() is not None:
                    self._fail(f"{name} exited at start-up")
            r = subprocess.run(["sinfo", "-h", "-N", "-n", "localhost", "-o", "%T"], capture_output=True, text=True,
                               env=self.env())
            state = (r.stdout.strip() or r.stderr.strip())
            if r.returncode == 0 and state.rstrip("*~#$@%!-") == "idle":
                return
            time.sleep(0.2)
        self._fail(f"the node did not become idle within {self.start_timeout:.0f} s (sinfo says: {state!r})")


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="start a one-node Slurm on localhost (as root), report, stop it")
    ap.add_argument("--hold", action="store_true", help="keep it running until Ctrl-C (prints SLURM_CONF)")
    a = ap.parse_args(argv)
    # SIGTERM (and SIGINT, ignored in background jobs of a script) stop the cluster cleanly.
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupt)
    try:
        with LocalSlurm(keep_dir=False) as cluster:
            print(f"local Slurm up in {cluster.startup_seconds:.2f} s; SLURM_CONF={cluster.conf}", flush=True)
            if a.hold:
                try:
                    signal.pause()
                except KeyboardInterrupt:
                    pass
            t0 = time.monotonic()
        print(f"stopped in {time.monotonic() - t0:.2f} s")
    except SlurmHarnessError as e:
        print(f"slurm_cluster: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
