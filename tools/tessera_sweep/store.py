"""OUT/sweep.db: the sweep's results store (SQLite, Python's sqlite3).

One row per finished point: its record (what status.json holds) and its
statistics (the stats JSON, zlib-compressed), written by the driver in one
transaction per point, so a driver killed at any moment loses no finished
point and leaves no half-written one. results.csv is exported from it. The
points' own files (points/NNNNN/: cmd.txt, stdout.txt, stderr.txt,
stats.json) are kept only for points that did not end ok, unless
--keep-point-files: a sweep of 100,000 points that all succeed leaves a
handful of files. A search's study (Optuna's tables) lives in the same file.

Only the driver writes the store. Slurm array tasks, on other nodes, write
their points' records as files (status.json) as before; the driver ingests
them when the array has left the queue (SQLite on a network filesystem is
safe for one writer, not for many).

A sweep made before the store existed, or a point whose record has not been
ingested yet, is read from its status.json (results.load_status)."""
import json
import os
import sqlite3
import stat
import threading
import zlib

from . import SweepError

NAME = "sweep.db"
SCHEMA = """
CREATE TABLE IF NOT EXISTS points (
  id INTEGER PRIMARY KEY,
  status TEXT NOT NULL,
  record TEXT NOT NULL,
  stats BLOB
)"""


def _refuse_link(path):
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise SweepError(f"cannot read {path}: {e.strerror}") from None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        raise SweepError(f"{path} is not a regular file; the sweep keeps its results there and does not follow "
                         "links inside its directory (remove it)")


class Store:
    """The results store of the sweep in out_dir (created when create)."""

    def __init__(self, out_dir, create=True):
        self.path = os.path.join(out_dir, NAME)
        for name in (self.path, self.path + "-journal"):
            _refuse_link(name)
        if not create and not os.path.exists(self.path):
            raise FileNotFoundError(self.path)
        try:
            # One connection shared by the local executor's worker threads, serialised by the lock.
            self.db = sqlite3.connect(self.path, timeout=120, check_same_thread=False)
            with self.db:
                self.db.execute(SCHEMA)
        except sqlite3.Error as e:
            raise SweepError(f"{self.path}: {e}") from None
        self.lock = threading.Lock()

    def close(self):
        self.db.close()

    def put(self, record, stats_text=None):
        """Records a finished point (replacing an earlier record of it) in one transaction."""
        blob = zlib.compress(stats_text.encode(), 6) if stats_text else None
        with self.lock:
            try:
                with self.db:
                    self.db.execute("INSERT OR REPLACE INTO points (id, status, record, stats) VALUES (?, ?, ?, ?)",
                                    (int(record["id"]), record["status"], json.dumps(record), blob))
            except sqlite3.Error as e:
                raise SweepError(f"{self.path}: cannot record point {record['id']}: {e}") from None

    def records(self):
        """{id: record} of every point recorded."""
        with self.lock:
            rows = self.db.execute("SELECT id, record FROM points").fetchall()
        out = {}
        for pid, text in rows:
            try:
                rec = json.loads(text)
            except ValueError:
                continue  # unreadable: the point runs again
            if isinstance(rec, dict):
                out[pid] = rec
        return out

    def get(self, pid):
        with self.lock:
            row = self.db.execute("SELECT record FROM points WHERE id = ?", (int(pid),)).fetchone()
        if row is None:
            return None
        try:
            rec = json.loads(row[0])
        except ValueError:
            return None
        return rec if isinstance(rec, dict) else None

    def stats(self, pid):
        """The point's statistics (the stats JSON as an object), or None."""
        with self.lock:
            row = self.db.execute("SELECT stats FROM points WHERE id = ?", (int(pid),)).fetchone()
        if row is None or row[0] is None:
            return None
        try:
            return json.loads(zlib.decompress(row[0]))
        except (zlib.error, ValueError):
            return None


_open = {}  # absolute out_dir -> Store, one per process


def of(out_dir, create=False):
    """The store of out_dir, opened once per process; None when the sweep has none (yet) and not create."""
    key = os.path.abspath(out_dir)
    s = _open.get(key)
    if s is None:
        if not create and not os.path.exists(os.path.join(key, NAME)):
            return None
        s = _open[key] = Store(key)
    return s
