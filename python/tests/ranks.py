# SPDX-License-Identifier: GPL-3.0-or-later
"""Starts a training program once per rank with the environment Ringmaster's agent gives a rank (python/README.md)."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
# The package as the build tree holds it (sources and generated ringmaster.v1); ctest says where.
PACKAGE_ROOT = Path(os.environ.get("RINGMASTER_PYTHON_ROOT", HERE.parents[1] / "build" / "dev" / "python"))
# The interpreter ranks run: Debian's, unless RINGMASTER_TEST_PYTHON names another (the torch2 tests: Debian 13's).
PYTHON = os.environ.get("RINGMASTER_TEST_PYTHON") or "/usr/bin/python3"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class RankResult:
    rank: int
    returncode: int
    stdout: str
    stderr: str


@dataclass
class Job:
    agent: str  # the rank socket (RINGMASTER_TELEMETRY_SOCKET); "" for none
    job_id: str = "job-python-test"
    secret: str = ""
    world_size: int = 2
    instrument: bool = True
    timeline: bool = False
    extra_path: Optional[Path] = None  # a folder after the package on PYTHONPATH
    record_dir: str = ""               # RINGMASTER_RECORD_DIR

    def __post_init__(self) -> None:
        self.secret = self.secret or secrets.token_hex(16)
        self.processes: List[subprocess.Popen] = []

    def environment(self, rank: int, master_port: int) -> Dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RINGMASTER_")}
        path = [str(PACKAGE_ROOT)]
        if self.instrument:
            path.insert(0, str(PACKAGE_ROOT / "ringmaster" / "_bootstrap"))
        if self.extra_path:
            path.append(str(self.extra_path))
        env.update({
            "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(self.world_size),
            "LOCAL_WORLD_SIZE": str(self.world_size), "GROUP_RANK": "0", "GROUP_WORLD_SIZE": "1",
            "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": str(self.world_size),
            "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(master_port), "TORCHELASTIC_RUN_ID": self.job_id,
            "RINGMASTER_TELEMETRY_SOCKET": self.agent, "RINGMASTER_JOB_ID": self.job_id,
            "RINGMASTER_JOB_SECRET": self.secret,
            "PYTHONPATH": os.pathsep.join(path), "OMP_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1",
        })
        if self.instrument and not self.record_dir:  # a record folder is enough, as `ringmaster python-path` says
            env["RINGMASTER_INSTRUMENT"] = "1"
        if self.timeline:
            env["RINGMASTER_TIMELINE"] = "1"
        if self.record_dir:
            env["RINGMASTER_RECORD_DIR"] = self.record_dir
        return env

    def start(self, program: str, *args: str) -> None:
        port = free_port()
        for rank in range(self.world_size):
            self.processes.append(subprocess.Popen(
                [PYTHON, str(PROGRAMS / program), *args], env=self.environment(rank, port),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))

    def wait(self, timeout: float = 120) -> List[RankResult]:
        results = []
        try:
            for rank, process in enumerate(self.processes):
                stdout, stderr = process.communicate(timeout=timeout)
                results.append(RankResult(rank, process.returncode, stdout, stderr))
        finally:
            for process in self.processes:
                if process.poll() is None:
                    process.kill()
                    process.wait()
        return results

    def run(self, program: str, *args: str, timeout: float = 120) -> List[RankResult]:
        self.start(program, *args)
        return self.wait(timeout)


# Where torch's TCPStore would fail for want of libuv, install() sets USE_LIBUV=0 and says so in a line holding this.
LIBUV_NOTICE = "USE_LIBUV=0 is set"


def ringmaster_lines(stderr: str, but_libuv_notice: bool = False) -> List[str]:
    """The lines Ringmaster wrote on a rank's stderr; without the USE_LIBUV notice when asked."""
    lines = [line for line in stderr.splitlines() if line.startswith("ringmaster:")]
    return [line for line in lines if LIBUV_NOTICE not in line] if but_libuv_notice else lines


def check_exit(test, results: List[RankResult]) -> None:
    for r in results:
        test.assertEqual(r.returncode, 0, f"rank {r.rank} failed:\n{r.stdout}\n{r.stderr}")

