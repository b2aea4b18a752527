#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ringmaster wheel in a fresh venv (`python3 -m venv --system-site-packages`, which sees Debian's torch and
none of Ringmaster's build tree): pip installs it with no other package and no network, the venv imports it from
its own site-packages, and an instrumented rank started from the venv records its steps to a file."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
WHEEL = Path(os.environ.get("RINGMASTER_PYTHON_WHEEL", ""))


class WheelInAVenv(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not WHEEL.is_file():
            raise AssertionError(f"no wheel at {WHEEL} (RINGMASTER_PYTHON_WHEEL): build the ringmaster-python-wheel "
                                 f"target")
        cls.folder = tempfile.TemporaryDirectory(prefix="ringmaster-venv-")
        cls.venv = Path(cls.folder.name) / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", cls.venv], check=True)
        cls.python = cls.venv / "bin" / "python"
        cls.env = {k: v for k, v in os.environ.items() if not k.startswith(("RINGMASTER_", "PYTHON"))}
        cls.install = subprocess.run([cls.python, "-m", "pip", "install", "--no-index", "--no-deps", WHEEL],
                                     capture_output=True, text=True, env=cls.env, cwd=cls.folder.name)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def run_python(self, *args: str, **extra: str) -> subprocess.CompletedProcess:
        # From a folder of its own: `python -c` puts the working folder first on sys.path.
        return subprocess.run([self.python, *args], capture_output=True, text=True, env={**self.env, **extra},
                              cwd=self.folder.name, timeout=240)

    def test_pip_installs_it_with_nothing_else(self):
        self.assertEqual(self.install.returncode, 0, self.install.stdout + self.install.stderr)
        shown = self.run_python("-m", "pip", "show", "ringmaster")
        self.assertIn("Requires: \n", shown.stdout + "\n")
        self.assertIn("License: GPL-3.0-or-later", shown.stdout)

    def test_the_venv_imports_its_own_copy_and_no_rpc_library(self):
        code = ("import sys, ringmaster, ringmaster.torch, ringmaster._telemetry; print(ringmaster.__file__); "
                "print(sorted(m for m in sys.modules if m.split('.')[0] in ('grpc', 'google')))")
        result = self.run_python("-c", code)
        self.assertEqual(result.returncode, 0, result.stderr)
        where, rpc = result.stdout.split("\n")[:2]
        self.assertTrue(where.startswith(str(self.venv)), where)
        self.assertEqual(rpc, "[]")

    def test_a_rank_from_the_venv_records_its_steps(self):
        site = self.run_python("-c", "import ringmaster, os; print(os.path.dirname(ringmaster.__file__))")
        package = Path(site.stdout.strip())
        records = Path(self.folder.name) / "records"
        result = self.run_python(str(HERE / "programs" / "train_ddp.py"), "--steps", "3",
                                 RINGMASTER_RECORD_DIR=str(records), PYTHONPATH=str(package / "_bootstrap"),
                                 RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()),
                                 OMP_NUM_THREADS="1")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("rank 0 rpc modules: none", result.stdout)
        files = list(records.glob("rank0-*.rmrecs"))
        self.assertEqual(len(files), 1, list(records.iterdir()) if records.exists() else "no record folder")
        data = files[0].read_bytes()
        self.assertTrue(data.startswith(b"RMRECS1\n"))
        self.assertGreater(len(data), 200)

    def test_a_horovod_script_from_the_venv_runs_on_the_wheels_layer_only_when_asked(self):
        site = self.run_python("-c", "import ringmaster, os; print(os.path.dirname(ringmaster.__file__))")
        package = Path(site.stdout.strip())
        records = Path(self.folder.name) / "horovod-records"
        rank = dict(PYTHONPATH=str(package / "_bootstrap"), RANK="0", WORLD_SIZE="1", LOCAL_RANK="0",
                    MASTER_ADDR="127.0.0.1", OMP_NUM_THREADS="1")
        script = str(HERE / "programs" / "train_hvd.py")
        plain = self.run_python(script, "--steps", "1", MASTER_PORT=str(_free_port()), **rank)
        self.assertNotEqual(plain.returncode, 0)
        self.assertIn("No module named 'horovod'", plain.stderr)
        result = self.run_python(script, "--steps", "3", RINGMASTER_HOROVOD="1", RINGMASTER_RECORD_DIR=str(records),
                                 MASTER_PORT=str(_free_port()), **rank)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("rank 0 trained 3 steps", result.stdout)
        said = [line for line in result.stderr.splitlines() if "Horovod-compatible layer" in line]
        self.assertEqual(len(said), 1, result.stderr)
        self.assertIn(str(package / "_horovod" / "horovod"), said[0])
        files = list(records.glob("rank0-*.rmrecs"))
        self.assertEqual(len(files), 1, list(records.iterdir()) if records.exists() else "no record folder")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    unittest.main()
