#!/usr/bin/python3
"""tools/timeline-check: a valid trace passes; each kind of broken trace
fails with exit status 1 and names the event at fault (its index in
traceEvents). The traces are written by hand, event by event."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tools", "timeline-check")


def meta(pid, tid, thread, process="p"):
    return [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": process}},
            {"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": thread}}]


def x(name, ts, dur, tid=1, **more):
    return dict({"ph": "X", "pid": 1, "tid": tid, "ts": ts, "dur": dur, "name": name}, **more)


def ev(ph, name, ts, tid=1, **more):
    return dict({"ph": ph, "pid": 1, "tid": tid, "ts": ts, "name": name}, **more)


class TimelineCheck(unittest.TestCase):
    def check(self, events, raw=None):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write(raw if raw is not None else json.dumps({"traceEvents": events}))
            path = f.name
        try:
            r = subprocess.run([sys.executable, CHECK, path], capture_output=True, text=True)
        finally:
            os.unlink(path)
        return r.returncode, r.stderr

    def fails_at(self, events, index, words):
        status, err = self.check(events)
        self.assertEqual(status, 1, err)
        self.assertIn("event %d: " % index, err)
        self.assertIn(words, err)

    def test_valid_trace_passes(self):
        events = meta(1, 1, "t") + [
            x("outer", 1.0, 4.0), x("inner", 1.0, 1.0), x("later", 3.0, 1.0), ev("i", "tick", 2.0, s="t"),
            ev("b", "read", 1.0, cat="mem", id="0x7"), ev("b", "l2", 2.0, cat="mem", id="0x7"),
            ev("n", "miss", 2.5, cat="mem", id="0x7", bind_id=1, flow_out=True),
            ev("b", "fill", 2.5, cat="mem", id="0x9", bind_id=1, flow_in=True),
            ev("e", "fill", 3.0, cat="mem", id="0x9"), ev("e", "l2", 3.5, cat="mem", id="0x7"),
            ev("e", "read", 4.0, cat="mem", id="0x7"),
            {"ph": "i", "ts": 5.0, "name": "failure", "s": "g", "args": {"message": "m"}},
            ev("B", "b", 6.0), ev("s", "go", 6.5, cat="c", id=3), ev("E", "b", 7.0),
            ev("f", "go", 8.0, cat="c", id=3, bp="e"), x("after", 7.5, 1.0)]
        status, err = self.check(events)
        self.assertEqual(status, 0, err)

    def test_overlapping_x_events(self):
        self.fails_at(meta(1, 1, "t") + [x("a", 1.0, 2.0), x("b", 2.0, 2.0)], 3, "overlaps")

    def test_longer_x_with_the_same_start_after_the_shorter(self):
        self.fails_at(meta(1, 1, "t") + [x("child", 1.0, 1.0), x("parent", 1.0, 2.0)], 3, "Chrome nests it inside")

    def test_b_without_e(self):
        self.fails_at(meta(1, 1, "t") + [ev("B", "open", 1.0)], 2, "never ends")

    def test_e_without_b(self):
        self.fails_at(meta(1, 1, "t") + [x("a", 0.0, 1.0), ev("E", "open", 1.0)], 3, "ends no B")

    def test_async_end_not_innermost_first(self):
        self.fails_at(meta(1, 1, "t") + [
            ev("b", "read", 1.0, cat="mem", id="0x7"), ev("b", "l2", 2.0, cat="mem", id="0x7"),
            ev("e", "read", 3.0, cat="mem", id="0x7"), ev("e", "l2", 4.0, cat="mem", id="0x7")], 4, "not innermost")

    def test_async_b_without_e(self):
        self.fails_at(meta(1, 1, "t") + [ev("b", "read", 1.0, cat="mem", id="0x7")], 2, "never ends")

    def test_flow_start_without_end(self):
        self.fails_at(meta(1, 1, "t") + [x("a", 0.0, 2.0), ev("s", "go", 1.0, cat="c", id=3)], 3, "has no f")

    def test_flow_v2_in_without_out(self):
        self.fails_at(meta(1, 1, "t") + [ev("b", "fill", 1.0, cat="mem", id="0x9", bind_id=4, flow_in=True),
                                         ev("e", "fill", 2.0, cat="mem", id="0x9")], 2, "no flow_out")

    def test_event_on_an_undeclared_track(self):
        self.fails_at(meta(1, 1, "t") + [x("a", 0.0, 1.0), x("b", 0.0, 1.0, tid=2)], 3, "no thread_name")

    def test_declared_track_without_events(self):
        self.fails_at(meta(1, 1, "t") + meta(1, 2, "empty")[1:] + [x("a", 0.0, 1.0)], 2, "which has no event")

    def test_ts_not_a_number(self):
        self.fails_at(meta(1, 1, "t") + [x("a", "1.0", 1.0)], 2, "not a number")

    def test_missing_fields(self):
        self.fails_at(meta(1, 1, "t") + [{"ph": "X", "pid": 1, "tid": 1, "ts": 1.0, "name": "a"}], 2, "no dur")
        self.fails_at(meta(1, 1, "t") + [ev("b", "read", 1.0, id="0x7")], 2, "no cat and id")
        self.fails_at(meta(1, 1, "t") + [{"ph": "X", "ts": 1.0, "dur": 1.0, "name": "a"}], 2, "no integer pid")

    def test_not_a_trace(self):
        status, err = self.check(None, raw="{not json")
        self.assertEqual(status, 2, err)


if __name__ == "__main__":
    unittest.main()
