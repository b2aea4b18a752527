# SPDX-License-Identifier: GPL-3.0-or-later
"""The sequence of collectives a rank calls, step by step: how many, a CRC-32 of what each was, and the first
calls themselves.

Ranks of one process group call the same collectives in the same order; a rank that calls one the others do not
(an all_reduce behind `if rank == 0`, a tensor of another size) leaves them waiting, or makes Gloo abort with a
size mismatch. With each step's count and CRC on its step record, and the step in progress's first calls on each
heartbeat, the console names the first collective where ranks differ. A step whose count and CRC are not the step
before's also sends its calls (the first step, a step that logs with an extra all_reduce), so that a difference in
a step that completed can be named too. The count and CRC cover the default group's calls (every rank makes
them; a subgroup's only its members), and what must match across ranks (op, reduction, dtype, elements), not
where the program called it; the calls kept are those of every group.

The training thread adds calls; a DDP communication hook may add them from the autograd engine's threads, and
heartbeats read from the sender thread: a lock keeps each view whole.
"""

from __future__ import annotations

import threading
import zlib
from typing import List, Optional, Tuple

from ringmaster._records import Collective

KEPT_CALLS = 32  # calls of one step that travel with a heartbeat or a step's calls
WORLD = "world"  # the default group's name


class CollectiveLog:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0  # on the default group
        self._crc = 0
        self._index = 0  # on any group
        self._step = 0   # the step the calls belong to
        self._calls: List[Collective] = []
        self._previous: Optional[Tuple[int, int, int]] = None  # the step before's count, CRC and calls kept
        self._previous_keys: Optional[List[tuple]] = None  # what the step before called, place by place
        self._keys: List[tuple] = []
        self._departed = False  # this step has made a call the step before did not make at its place

    def add(self, op: str, reduction: str, dtype: str, elements: int, group: str, site: str) -> bool:
        """Notes the call; True for the step's first call that the step before did not make at its place (the
        rank may be going out of step, and a Gloo size mismatch aborts the process at once: say it now)."""
        key = (op, reduction, dtype, elements, group)
        with self._lock:
            index = self._index
            departs = False
            if index < KEPT_CALLS:
                self._keys.append(key)
                previous = self._previous_keys
                if previous is not None and not self._departed and (index >= len(previous) or previous[index] != key):
                    departs = self._departed = True
            if group == WORLD:
                self._crc = zlib.crc32(f"{op}|{reduction}|{dtype}|{elements}".encode(), self._crc)
                self._count += 1
            if len(self._calls) < KEPT_CALLS:
                self._calls.append(Collective(self._index, op, reduction, dtype, elements, group, site))
            self._index += 1
        return departs

    def end_step(self, step: int) -> Tuple[int, int, Optional[Tuple[Collective, ...]]]:
        """The step that ended: its default-group count and CRC, and its calls when they are not the step
        before's (else None; also None for a step with none). The next step starts with none."""
        with self._lock:
            count, crc, calls = self._count, self._crc, tuple(self._calls)
            self._previous_keys, self._keys, self._departed = self._keys, [], False
            self._count, self._crc, self._index, self._calls = 0, 0, 0, []
            self._step = step + 1
        changed = (count, crc, len(calls)) != self._previous
        self._previous = (count, crc, len(calls))
        return count, crc, calls if changed and calls else None

    def in_progress(self) -> Tuple[int, int, Tuple[Collective, ...]]:
        """The step in progress, how many collectives it has called so far (on any group), and the first."""
        with self._lock:
            return self._step, self._index, tuple(self._calls)
