# SPDX-License-Identifier: GPL-3.0-or-later
"""The job clock: every record carries nanoseconds on it, as ringmaster-worker's records do (common/clock.h).

A rank's monotonic clock (CLOCK_MONOTONIC, the same clock as the worker's steady_clock) shifted by its offset to
rank 0 and counted from the job's epoch, rank 0's monotonic time once every rank has started. Ranks on one host
share CLOCK_MONOTONIC and need no offset; ranks on several hosts measure theirs against rank 0 once at start by
ping-pong through the process group's key-value store, as the worker does at its rendezvous.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

CLOCK_ROUNDS = 8  # ping-pong rounds per rank; the fastest round wins (as worker/rendezvous.cpp)
_PREFIX = "ringmaster/clock/"


class KeyValueStore(Protocol):
    """The part of torch.distributed.Store the alignment uses."""

    def set(self, key: str, value: str) -> None: ...
    def get(self, key: str) -> bytes: ...
    def wait(self, keys: list, timeout: timedelta) -> None: ...


class JobClock:
    def __init__(self) -> None:
        self._offset = 0  # added to the monotonic clock

    def calibrate(self, offset_ns: int, epoch_ns: int) -> None:
        """`offset_ns` takes this rank's monotonic time to rank 0's; `epoch_ns` is rank 0's time at the job's start."""
        self._offset = offset_ns - epoch_ns

    def now(self) -> int:
        return time.monotonic_ns() + self._offset


@dataclass(frozen=True)
class ClockAlignment:
    offset_ns: int  # add to this rank's monotonic clock to get rank 0's
    rtt_ns: int     # round trip the offset came from (its error is at most half of it); 0 on one host
    epoch_ns: int   # rank 0's monotonic time at the job's start


def align(store: KeyValueStore, rank: int, world_size: int, one_host: bool, timeout: timedelta) -> ClockAlignment:
    """Every rank calls this once, at the same point of the program. Raises the store's error (RuntimeError) when
    a rank does not answer within `timeout`."""

    def key(kind: str, r: int, round_: int) -> str:
        return f"{_PREFIX}{kind}/{r}/{round_}"

    def fetch(name: str) -> int:
        store.wait([name], timeout)
        return int(store.get(name))

    if rank == 0:
        if not one_host:
            for r in range(1, world_size):
                for round_ in range(CLOCK_ROUNDS):
                    store.wait([key("ping", r, round_)], timeout)
                    store.set(key("pong", r, round_), str(time.monotonic_ns()))
        epoch = time.monotonic_ns()
        store.set(_PREFIX + "epoch", str(epoch))
        return ClockAlignment(0, 0, epoch)
    offset, best_rtt = 0, 0
    if not one_host:
        best_rtt = 1 << 62
        for round_ in range(CLOCK_ROUNDS):
            sent = time.monotonic_ns()
            store.set(key("ping", rank, round_), "1")
            remote = fetch(key("pong", rank, round_))
            received = time.monotonic_ns()
            if received - sent < best_rtt:
                best_rtt = received - sent
                offset = remote - (sent + received) // 2
    return ClockAlignment(offset, best_rtt, fetch(_PREFIX + "epoch"))
