# SPDX-License-Identifier: GPL-3.0-or-later
"""What the Horovod layer tells the rank's telemetry session, and nothing when no session runs: each fused
gradient all-reduce with its bytes, the optimizer's wait for them, the program's own collectives as waits, the
model's forward (a Horovod script has no DDP model to say where a step begins), and HOROVOD_TIMELINE."""

from __future__ import annotations

import contextlib
import weakref
from typing import Any, Iterator, List, Optional

import torch

from ringmaster import _session
from ringmaster._environment import warn
from ringmaster._records import AllreduceRecord, StallRecord


def started(timeline_path: str) -> None:
    """hvd.init() is done: the session runs from the process group's start (ringmaster.torch)."""
    try:
        import ringmaster.torch as instrumentation

        session = instrumentation._start_safely()
    except Exception:  # telemetry never stops training
        return
    if session is not None and timeline_path:
        timeline(True, timeline_path)


def timeline(on: bool, path: str) -> None:
    """HOROVOD_TIMELINE and hvd.start_timeline() turn the run's timeline on: every rank's, in the run, rather
    than rank 0's file at `path`."""
    session = _session.current()
    if session is None:
        return
    if on and not session.control.timeline_on and session.rank == 0:
        warn(f"the Horovod timeline ({path}) is recorded as the run's timeline, for every rank: open it in the "
             f"console, or export it with `ringmaster export RUN --chrome-trace FILE`")
    session.control.timeline_on = on


def current_step() -> int:
    session = _session.current()
    return session.tracker.step if session is not None else 0


class BucketTiming:
    """One fused all-reduce: from its launch to the moment its result is there."""

    __slots__ = ("record", "session")

    def __init__(self, session: Any, record: AllreduceRecord) -> None:
        self.session = session
        self.record = record

    def done(self) -> None:
        try:
            self.record.end_ns = self.session.clock.now()
            self.session.allreduce(self.record)
        except Exception:  # telemetry never fails an all-reduce
            pass


def bucket_launched(index: int, nbytes: int, tensors: int, world_size: int) -> Optional[BucketTiming]:
    session = _session.current()
    if session is None:
        return None
    now = session.clock.now()
    return BucketTiming(session, AllreduceRecord(session.tracker.step, index, nbytes, now, now, tensors,
                                                 world_size))


@contextlib.contextmanager
def gradient_wait() -> Iterator[None]:
    """The optimizer waits for its gradients: the step's exposed communication."""
    session = _session.current()
    if session is None:
        yield
        return
    before = session.tracker.comm_begin()
    try:
        yield
    finally:
        session.tracker.comm_end(before)


@contextlib.contextmanager
def collective_wait() -> Iterator[None]:
    """The program waits in a collective of its own (heartbeats say it waits, not where it computes)."""
    session = _session.current()
    if session is None:
        yield
        return
    before = session.tracker.waiting()
    try:
        yield
    finally:
        session.tracker.done_waiting(before)


def stalled(missing: List[int], tensors: List[str], waited_s: float) -> None:
    session = _session.current()
    if session is not None:
        session.record(StallRecord(list(missing), list(tensors), waited_s))


class ModelFinder:
    """Watches, from its first training forward, the module that owns the optimizer's parameters: a global
    forward pre-hook that fires for the outermost module first, removed once the model is found (it would keep
    every module off its fast path)."""

    def __init__(self, parameters: List[torch.Tensor]) -> None:
        self._ids = {id(p) for p in parameters}
        self._handle: Any = None
        register = getattr(torch.nn.modules.module, "register_module_forward_pre_hook", None)
        if register is not None and _session.current() is not None and self._ids:
            self._handle = register(self._pre_forward)
        _finders.append(weakref.ref(self))

    def _pre_forward(self, module: torch.nn.Module, inputs: tuple) -> None:
        if not (module.training and torch.is_grad_enabled()):
            return
        owned = sum(1 for p in module.parameters() if id(p) in self._ids)
        if owned * 2 < len(self._ids):
            return  # a part of the model called alone, or another model
        self.close()
        try:
            import ringmaster.torch as instrumentation

            instrumentation.watch(module)
            instrumentation._forward_pre_hook(module, inputs)  # this forward began before the watch
        except Exception as e:  # telemetry never stops training
            warn(f"the model's forward is not timed ({type(e).__name__}: {e})")

    def close(self) -> None:
        if self._handle is not None:
            self._handle.remove()
            self._handle = None


_finders: List[weakref.ref] = []
