# SPDX-License-Identifier: GPL-3.0-or-later
"""What the agent tells a rank of a user program through its environment (python/README.md, "The contract")."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Mapping, Optional


def warn(message: str) -> None:
    """One line on stderr, prefixed so that it reads as Ringmaster's, never as the program's."""
    print(f"ringmaster: {message}", file=sys.stderr, flush=True)


def _integer(environ: Mapping[str, str], name: str) -> Optional[int]:
    text = environ.get(name, "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        warn(f"{name}={text!r} is not a whole number; telemetry ignores it (set it as torchrun does, e.g. {name}=0)")
        return None
    if value < 0:
        warn(f"{name}={value} is negative; telemetry ignores it")
        return None
    return value


DEFAULT_CHECK_REPLICAS_EVERY = 100  # as the console's --check-replicas-every


def _or(value: Optional[int], fallback: int) -> int:
    return fallback if value is None else value


def _launcher_run_id(environ: Mapping[str, str]) -> str:
    """The id every rank of one launch shares, where a launcher gives one (torchrun, Slurm); "" otherwise."""
    if environ.get("TORCHELASTIC_RUN_ID"):
        return "torchrun-" + environ["TORCHELASTIC_RUN_ID"]
    if environ.get("SLURM_JOB_ID"):
        step = environ.get("SLURM_STEP_ID", "")
        return "slurm-" + environ["SLURM_JOB_ID"] + (f".{step}" if step else "")
    return ""


@dataclass(frozen=True)
class RankEnvironment:
    socket: str                        # RINGMASTER_TELEMETRY_SOCKET: the agent's rank socket; "" for none
    record_dir: str                    # RINGMASTER_RECORD_DIR: where ranks write record files when no agent runs
    job_id: str                        # RINGMASTER_JOB_ID, else a launcher's run id (torchrun, Slurm)
    secret: str                        # RINGMASTER_JOB_SECRET: presented in the rank's hello
    instrument: bool                   # RINGMASTER_INSTRUMENT=1, or a record folder: instrument the program as is
    timeline: bool                     # RINGMASTER_TIMELINE=1: record the timeline from the start
    rank: Optional[int]                # RANK
    group_world_size: Optional[int]    # GROUP_WORLD_SIZE: hosts (agents) in the job
    check_replicas_every: int = DEFAULT_CHECK_REPLICAS_EVERY  # RINGMASTER_CHECK_REPLICAS_EVERY: steps; 0 = never

    @property
    def reports(self) -> bool:
        """Whether this rank has somewhere to send its records."""
        return bool(self.socket or self.record_dir)

    @staticmethod
    def from_environ(environ: Mapping[str, str] = os.environ) -> "RankEnvironment":
        record_dir = environ.get("RINGMASTER_RECORD_DIR", "").strip()
        return RankEnvironment(
            socket=environ.get("RINGMASTER_TELEMETRY_SOCKET", "").strip(),
            record_dir=record_dir,
            job_id=environ.get("RINGMASTER_JOB_ID", "") or _launcher_run_id(environ),
            secret=environ.get("RINGMASTER_JOB_SECRET", ""),
            instrument=environ.get("RINGMASTER_INSTRUMENT", "") == "1" or bool(record_dir),
            timeline=environ.get("RINGMASTER_TIMELINE", "") == "1",
            rank=_integer(environ, "RANK"),
            group_world_size=_integer(environ, "GROUP_WORLD_SIZE"),
            check_replicas_every=_or(_integer(environ, "RINGMASTER_CHECK_REPLICAS_EVERY"),
                                     DEFAULT_CHECK_REPLICAS_EVERY),
        )
