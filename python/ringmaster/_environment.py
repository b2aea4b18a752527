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


@dataclass(frozen=True)
class RankEnvironment:
    agent: str                         # RINGMASTER_AGENT: host:port of the agent's Telemetry service; "" for none
    job_id: str                        # RINGMASTER_JOB_ID
    secret: str                        # RINGMASTER_JOB_SECRET: presented in every Telemetry call
    instrument: bool                   # RINGMASTER_INSTRUMENT=1: instrument the program without changing it
    timeline: bool                     # RINGMASTER_TIMELINE=1: record the timeline from the start
    rank: Optional[int]                # RANK
    group_world_size: Optional[int]    # GROUP_WORLD_SIZE: hosts (agents) in the job

    @staticmethod
    def from_environ(environ: Mapping[str, str] = os.environ) -> "RankEnvironment":
        return RankEnvironment(
            agent=environ.get("RINGMASTER_AGENT", "").strip(),
            job_id=environ.get("RINGMASTER_JOB_ID", ""),
            secret=environ.get("RINGMASTER_JOB_SECRET", ""),
            instrument=environ.get("RINGMASTER_INSTRUMENT", "") == "1",
            timeline=environ.get("RINGMASTER_TIMELINE", "") == "1",
            rank=_integer(environ, "RANK"),
            group_world_size=_integer(environ, "GROUP_WORLD_SIZE"),
        )
