"""Helpers of the sweep tests: the built tessera and firmware (from the
environment CTest sets), spec files in a temporary directory."""
import csv
import os
import subprocess
import tempfile
import unittest

import yaml


def env_path(name):
    v = os.environ.get(name)
    if not v:
        raise AssertionError(f"{name} is not set: run this test through ctest (Sweep.*)")
    return v


def tessera():
    t = env_path("TESSERA")
    if not os.access(t, os.X_OK):
        raise AssertionError(f"tessera binary {t} is missing: build the 'tessera' target")
    return t


def firmware(name):
    path = os.path.join(env_path("TESSERA_FIRMWARE"), name + ".elf")
    if not os.path.isfile(path):
        raise AssertionError(f"{path} is missing: build the fw_{name} target")
    return path


def bad_input_elf(name):
    path = os.path.join(env_path("TESSERA_BAD_INPUT_FW"), f"bad_input_{name}.elf")
    if not os.path.isfile(path):
        raise AssertionError(f"{path} is missing: build the fw_bad_input_{name} target")
    return path


def _db(out):
    import sqlite3
    path = os.path.join(out, "sweep.db")
    return sqlite3.connect(path, timeout=60) if os.path.exists(path) else None


def records(out):
    """{id: record} of a sweep's finished points, as the sweep reads them: the
    rows of OUT/sweep.db, and the status.json of any point directory (a point
    that did not end ok keeps one beside its files)."""
    import glob
    import json
    out_recs = {}
    db = _db(out)
    if db is not None:
        import sqlite3
        try:
            with db:
                for pid, text in db.execute("SELECT id, record FROM points"):
                    try:
                        out_recs[pid] = json.loads(text)
                    except ValueError:
                        pass
        except sqlite3.OperationalError:
            pass  # the table is not made yet
        db.close()
    for path in glob.glob(os.path.join(out, "points", "*", "status.json")):
        pid = int(os.path.basename(os.path.dirname(path)))
        if pid not in out_recs:
            try:
                with open(path) as f:
                    out_recs[pid] = json.load(f)
            except ValueError:
                pass
    return out_recs


def stored_stats(out, pid):
    """The statistics OUT/sweep.db holds for a point."""
    import json
    import zlib
    db = _db(out)
    with db:
        row = db.execute("SELECT stats FROM points WHERE id = ?", (pid,)).fetchone()
    db.close()
    return json.loads(zlib.decompress(row[0]))


def set_record(out, pid, text):
    """Replaces a point's stored record with text (None: removes the row, as if the point never finished)."""
    db = _db(out)
    with db:
        if text is None:
            db.execute("DELETE FROM points WHERE id = ?", (pid,))
        else:
            db.execute("UPDATE points SET record = ? WHERE id = ?", (text, pid))
    db.close()


class SweepCase(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="sweep-test-")
        self.tmp = self._tmp.name
        self.tessera = tessera()

    def tearDown(self):
        self._tmp.cleanup()

    def write_spec(self, spec, name="spec.yaml"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            yaml.safe_dump(spec, f, sort_keys=False)
        return path

    def sweep(self, *args, timeout=120):
        return subprocess.run([self.tessera, "sweep"] + list(args), capture_output=True, text=True,
                              timeout=timeout, cwd=self.tmp)

    def read_csv(self, out):
        with open(os.path.join(out, "results.csv")) as f:
            return list(csv.DictReader(f))
