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
