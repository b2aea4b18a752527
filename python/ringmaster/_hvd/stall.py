# SPDX-License-Identifier: GPL-3.0-or-later
"""The stall inspector: when a rank has waited in a collective for HOROVOD_STALL_CHECK_TIME_SECONDS (5 s here;
Horovod's own waits 60 s), it names the ranks that have not called it.

Every rank counts the collectives it has launched on each of its process groups (the program's, the
gradients'), and a thread of its own publishes those counts and the collectives it waits in to the job's
key-value store once a second (its own connection to the store at MASTER_ADDR:MASTER_PORT, so that it works
while the training thread waits). A rank that has waited past the limit reads every rank's and judges
(`culprits`): a rank that lacks the collective and waits in none, or whose publishing stopped (frozen, gone),
holds the job up; when every rank waits, it is a mismatch, and the ranks waiting in the collective the fewest
ranks have called are the ones that called what the others did not. The waiting ranks then report those
ranks, with what they lack, to the console (a stall report) and say it in their log.
"""

from __future__ import annotations

import itertools
import json
import os
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple, Union

from ringmaster._environment import warn

PUBLISH_S = 1.0            # how often each rank publishes its state (s)
STALE_PUBLISHES = 3        # a rank whose state has not changed for this many reads is frozen or gone
DEFAULT_CHECK_S = 5.0      # HOROVOD_STALL_CHECK_TIME_SECONDS unset (s)
_PREFIX = "ringmaster/horovod/stall"

_lock = threading.Lock()
_launched: Dict[str, int] = {}                 # process group -> collectives launched on it
_pending: Dict[int, "Waiting"] = {}            # token -> a collective launched and not yet finished
_tokens = itertools.count(1)
_inspector: Optional["_Inspector"] = None


@dataclass(frozen=True)
class Waiting:
    group: str          # "program" or "gradients"
    seq: int            # its place among the group's collectives on this rank (1 = the first)
    names: Tuple[str, ...]
    since: float        # time.monotonic() at launch


def launched(group: str, names: Union[str, Sequence[str]]) -> int:
    """A collective was launched on `group`; returns the token that finished() takes."""
    labels = (names,) if isinstance(names, str) else tuple(names)
    with _lock:
        seq = _launched.get(group, 0) + 1
        _launched[group] = seq
        token = next(_tokens)
        _pending[token] = Waiting(group, seq, labels, time.monotonic())
    return token


def finished(token: int) -> None:
    with _lock:
        _pending.pop(token, None)


def _snapshot() -> Tuple[Dict[str, int], List[Waiting]]:
    with _lock:
        return dict(_launched), list(_pending.values())


# -- the judgement (a pure function of every rank's state) ---------------------------------------------------

@dataclass
class RankState:
    launched: Dict[str, int]
    waiting: List[Tuple[str, int, List[str]]]   # (group, seq, names) of each collective it waits in
    stale: bool = False                         # its publishing stopped


def _missing(states: Dict[int, RankState], group: str, seq: int) -> Set[int]:
    return {r for r, s in states.items() if s.launched.get(group, 0) < seq}


def culprits(states: Dict[int, RankState]) -> Set[int]:
    """The ranks holding the job up, from every rank's state (see the module's docstring)."""
    lacking: Set[int] = set()
    for s in states.values():
        for group, seq, _ in s.waiting:
            lacking |= _missing(states, group, seq)
    behind = {r for r in lacking if states[r].stale or not states[r].waiting}
    if behind:
        return behind
    if not lacking:
        return set()
    # Every rank lacking something waits in something else: each is ahead of the others somewhere. The ones
    # waiting in what the fewest ranks have called made the call the others did not.
    def support(r: int) -> Tuple[int, int]:
        fewest = min(len(states) - len(_missing(states, g, q)) for g, q, _ in states[r].waiting)
        gradients_only = all(g == "gradients" for g, _, _ in states[r].waiting)
        return fewest, 1 if gradients_only else 0  # on a tie, a program's own collective is the odd call

    ranked = {r: support(r) for r in states if states[r].waiting}
    least = min(ranked.values())
    return {r for r, v in ranked.items() if v == least}


def _ranks(ranks: Sequence[int]) -> str:
    ordered = sorted(ranks)
    return ("rank " if len(ordered) == 1 else "ranks ") + ", ".join(str(r) for r in ordered)


def _label(names: Sequence[str]) -> str:
    shown = ", ".join(names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


# -- the inspector ----------------------------------------------------------------------------------------------

def _store_client() -> Any:
    import torch.distributed as dist

    address, port = os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")
    if not address or not port:
        raise RuntimeError("MASTER_ADDR and MASTER_PORT are unset")
    options = {}
    from ringmaster.torch import _tcp_store_takes_libuv

    if _tcp_store_takes_libuv():
        options["use_libuv"] = os.environ.get("USE_LIBUV", "1") == "1"
    return dist.TCPStore(address, int(port), None, False, timedelta(seconds=30), **options)


class _Inspector(threading.Thread):
    def __init__(self, rank: int, size: int, check_s: float) -> None:
        super().__init__(name="ringmaster-horovod-stall", daemon=True)
        self.rank = rank
        self.size = size
        self.check_s = check_s
        self.stop = threading.Event()
        self._said: Optional[tuple] = None
        self._seen: Dict[int, Tuple[int, int]] = {}  # rank -> (its last beat, reads it has stayed the same)

    def run(self) -> None:
        try:
            self._inspect()
        except Exception as e:  # the store went away with rank 0, or never answered: training goes on
            if not self.stop.is_set():
                warn(f"rank {self.rank}: the Horovod stall inspector stopped ({type(e).__name__}: {e})")

    def _inspect(self) -> None:
        store = _store_client()
        beat = 0
        self._publish(store, beat, [])
        store.add(f"{_PREFIX}/started", 1)
        everyone = False
        while not self.stop.wait(PUBLISH_S):
            beat += 1
            launched_now, pending = _snapshot()
            self._publish(store, beat, pending, launched_now)
            now = time.monotonic()
            oldest = min(pending, key=lambda w: w.since, default=None)
            if oldest is None or now - oldest.since < self.check_s:
                self._said = None
                continue
            everyone = everyone or int(store.add(f"{_PREFIX}/started", 0)) >= self.size
            if everyone:
                self._judge(self._read(store), oldest, now - oldest.since)

    def _publish(self, store: Any, beat: int, pending: List[Waiting],
                 launched_now: Optional[Dict[str, int]] = None) -> None:
        state = {"beat": beat, "launched": launched_now or {},
                 "waiting": [[w.group, w.seq, list(w.names)] for w in pending]}
        store.set(f"{_PREFIX}/{self.rank}", json.dumps(state))

    def _read(self, store: Any) -> Dict[int, RankState]:
        states = {}
        for r in range(self.size):
            raw = json.loads(bytes(store.get(f"{_PREFIX}/{r}")).decode())
            last, same = self._seen.get(r, (-1, 0))
            same = same + 1 if raw["beat"] == last else 0
            self._seen[r] = (raw["beat"], same)
            states[r] = RankState({str(k): int(v) for k, v in raw["launched"].items()},
                                  [(str(g), int(q), [str(n) for n in names]) for g, q, names in raw["waiting"]],
                                  stale=same >= STALE_PUBLISHES)
        return states

    def _judge(self, states: Dict[int, RankState], oldest: Waiting, waited_s: float) -> None:
        from ringmaster._hvd import telemetry

        held_by = culprits(states)
        lacking = sorted(_missing(states, oldest.group, oldest.seq) & held_by)
        if lacking:
            telemetry.stalled(lacking, list(oldest.names), waited_s)
        situation = (tuple(sorted(held_by)), oldest.group, oldest.seq)
        if situation == self._said:
            return
        self._said = situation
        if lacking:
            what = []
            for r in lacking:
                s = states[r]
                if s.stale:
                    what.append(f"rank {r} has stopped answering (frozen, stopped or gone)")
                elif s.waiting:
                    g, q, names = s.waiting[0]
                    others = sorted(_missing(states, g, q))
                    what.append(f"rank {r} waits in {_label(names)}, which {_ranks(others)} "
                                f"{'has' if len(others) == 1 else 'have'} not called")
                else:
                    what.append(f"rank {r} calls no collective")
            warn(f"rank {self.rank} has waited {waited_s:.1f} s in {_label(oldest.names)}, which {_ranks(lacking)} "
                 f"{'has' if len(lacking) == 1 else 'have'} not called: {'; '.join(what)}. Every rank must call "
                 f"the same collectives in the same order")
        elif self.rank in held_by:
            others = sorted(_missing(states, oldest.group, oldest.seq))
            if others:
                warn(f"rank {self.rank} waits in {_label(oldest.names)}, which {_ranks(others)} "
                     f"{'has' if len(others) == 1 else 'have'} not called: this rank called a collective the "
                     f"others do not (every rank must call the same collectives in the same order)")


def _check_seconds() -> Optional[float]:
    if os.environ.get("HOROVOD_STALL_CHECK_DISABLE", "").strip() in ("1", "true", "True"):
        return None
    text = os.environ.get("HOROVOD_STALL_CHECK_TIME_SECONDS", "").strip()
    if not text:
        return DEFAULT_CHECK_S
    try:
        seconds = float(text)
    except ValueError:
        warn(f"HOROVOD_STALL_CHECK_TIME_SECONDS={text!r} is not a number of seconds; the stall inspector waits "
             f"{DEFAULT_CHECK_S:g} s")
        return DEFAULT_CHECK_S
    return max(seconds, PUBLISH_S)


def start(rank: int, size: int) -> None:
    global _inspector
    if size < 2 or _inspector is not None:
        return
    check_s = _check_seconds()
    if check_s is None:
        return
    if os.environ.get("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS", "").strip() and rank == 0:
        warn("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS is ignored: `ringmaster run --stall-timeout-s S` stops a job "
             "that has stalled for S seconds")
    _inspector = _Inspector(rank, size, check_s)
    _inspector.start()


def stop() -> None:
    global _inspector
    if _inspector is not None:
        _inspector.stop.set()
        _inspector = None
