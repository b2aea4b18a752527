#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""ringmaster.torch on the torch this interpreter has (Debian 12's 1.13, Debian 13's 2.6 in the torch2 tests): what
it imports, the TCPStore backend it chooses for the program, and its fallbacks where torch's API is private."""

from __future__ import annotations

import os
import subprocess
import sys
import unittest
from datetime import timedelta
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ranks import LIBUV_NOTICE, PACKAGE_ROOT, PYTHON, Job, free_port, ringmaster_lines  # noqa: E402

sys.path.insert(1, str(PACKAGE_ROOT))
import torch.distributed as dist  # noqa: E402

import ringmaster.torch  # noqa: E402

def python(code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RINGMASTER_", "PYTHON"))}
    # The program's own choice of TCPStore backend, so that install() has nothing to say about it (TcpStoreBackend)
    env.update({"PYTHONPATH": str(PACKAGE_ROOT), "USE_LIBUV": "0"})
    return subprocess.run([PYTHON, "-W", "default", "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)


class Imports(unittest.TestCase):
    LOADED = "import sys; print(' '.join(sorted(m for m in sys.modules if m.startswith('torch'))))"

    def test_installing_imports_nothing_the_program_does_not_and_warns_of_nothing(self):
        plain = python("import torch\n" + self.LOADED)
        installed = python("import torch, ringmaster.torch\nringmaster.torch.install()\n" + self.LOADED)
        self.assertEqual(plain.returncode, 0, plain.stderr)
        self.assertEqual(installed.returncode, 0, installed.stderr)
        added = set(installed.stdout.split()) - set(plain.stdout.split())
        self.assertFalse([m for m in added if m.startswith("torch.distributed.algorithms")], sorted(added))
        self.assertEqual(installed.stderr, plain.stderr, "install() printed what torch alone does not")


class TcpStoreBackend(unittest.TestCase):
    """torch 2.4 and later make init_process_group's TCPStore with libuv unless USE_LIBUV=0; a torch built
    without libuv (Debian's 2.6) then fails. Under instrumentation such a program runs, and one that runs
    without it runs as it is."""

    def run_ranks(self, instrument: bool, environ: dict = {}) -> list:
        with mock.patch.dict(os.environ, environ):
            return Job("", instrument=instrument).run("init_process_group.py", timeout=120)

    def test_a_program_that_initialises_its_group_runs_under_instrumentation(self):
        plain = self.run_ranks(instrument=False)
        instrumented = self.run_ranks(instrument=True)
        for r in instrumented:
            self.assertEqual(r.returncode, 0, f"rank {r.rank}:\n{r.stdout}\n{r.stderr}")
            self.assertIn(f"rank {r.rank} sum 3", r.stdout)
        if all(r.returncode == 0 for r in plain):
            for r in instrumented:
                self.assertIn("USE_LIBUV=unset", r.stdout, "torch's own choice stands where it works")
                self.assertEqual(ringmaster_lines(r.stderr), [])
            return
        for r in plain:
            self.assertIn("without libuv support", r.stderr, f"rank {r.rank} fails for another reason")
        for r in instrumented:
            self.assertIn("USE_LIBUV=0", r.stdout)
        notices = [ringmaster_lines(r.stderr) for r in instrumented]
        self.assertEqual(len(notices[0]), 1, notices)
        self.assertIn(LIBUV_NOTICE, notices[0][0])
        self.assertEqual(notices[1], [], "said once per host, by its local rank 0")

    def test_the_programs_own_choice_is_kept_without_a_word(self):
        for choice in ("0", "1"):
            for r in self.run_ranks(instrument=True, environ={"USE_LIBUV": choice}):
                self.assertIn(f"USE_LIBUV={choice}", r.stdout)
                self.assertEqual(ringmaster_lines(r.stderr), [], f"USE_LIBUV={choice}")


class PrivateApiFallbacks(unittest.TestCase):
    def test_without_torchs_default_store_the_clock_aligns_through_torchruns_store(self):
        options = {"use_libuv": False} if ringmaster.torch._tcp_store_takes_libuv() else {}
        master = dist.TCPStore("127.0.0.1", free_port(), 2, True, timedelta(seconds=10), wait_for_workers=False,
                               **options)
        environ = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(master.port), "USE_LIBUV": "0"}
        with mock.patch.dict(os.environ, environ), \
                mock.patch.object(dist.distributed_c10d, "_get_default_store", None):
            store = ringmaster.torch._default_store(2)
            store.set("ringmaster/test", "through torchrun's store")
        self.assertEqual(master.get("ringmaster/test"), b"through torchrun's store")


if __name__ == "__main__":
    unittest.main()
