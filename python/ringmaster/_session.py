# SPDX-License-Identifier: GPL-3.0-or-later
"""This process's telemetry session: the rank's clock, buffer, sender thread and step tracker.

One per process, started lazily (by ringmaster.torch when the program initialises its process group or builds
its DDP model, or by the first call of the explicit API) and only where the agent's rank socket
(RINGMASTER_TELEMETRY_SOCKET) or a record folder (RINGMASTER_RECORD_DIR) takes its records. A forked child (a
DataLoader worker) forgets the session: it never touches the parent's socket or file; a child that becomes a rank
of its own (mp.spawn starts a fresh interpreter) starts its own session.
"""

from __future__ import annotations

import atexit
import math
import os
import platform
import threading
from typing import Any, Callable, Optional

from ringmaster import _memory
from ringmaster._clock import JobClock
from ringmaster._collectives import CollectiveLog
from ringmaster._environment import RankEnvironment, warn
from ringmaster._records import (AllreduceRecord, CollectiveCallsRecord, HeartbeatRecord, MemoryRecord,
                                 RuntimeRecord, ScalarRecord, StepRecord, SummaryRecord)
from ringmaster._steps import StepTracker
from ringmaster._telemetry import ChannelError, Control, Hello, RecordBuffer, Sender, open_channel


FLUSH_TIMEOUT_S = 0.5  # the longest a collective waits for its heartbeat to go out


class Session:
    def __init__(self, env: RankEnvironment, rank: int, clock: JobClock, world_size: int = 0,
                 runtime: Optional[RuntimeRecord] = None) -> None:
        self.env = env
        self.rank = rank
        self.clock = clock
        self.pid = os.getpid()
        self.buffer = RecordBuffer()
        self.control = Control(timeline_on=env.timeline)
        self.tracker = StepTracker(self, clock.now)
        self.collectives = CollectiveLog()
        self.device_memory: Optional[_memory.DeviceMemory] = None
        self.parameter_checksum: Callable[[], str] = lambda: ""
        self._accuracy = -1.0
        self._steps = 0
        self._samples = 0
        self._step_ns = 0
        self._closed = False
        hello = Hello(env, rank, world_size)
        if runtime is None:
            runtime = RuntimeRecord(hello.host, platform.python_version(), "", "", "", hello.pid)
        self._sender = Sender(open_channel(env, hello), rank, self.buffer, self.control, self._heartbeat, runtime)

    # -- what the tracker and the instrumentation hand over ----------------------------------------------------

    @property
    def timeline_on(self) -> bool:
        return self.control.timeline_on

    def record(self, record: Any) -> None:
        self.buffer.push(record)

    def step_ended(self, step: StepRecord, now: int) -> None:
        step.collectives, step.collectives_crc, calls = self.collectives.end_step(step.step)
        if calls:
            self.record(CollectiveCallsRecord(step.step, step.collectives, step.collectives_crc, calls))
        self._steps += 1
        self._samples += step.samples
        self._step_ns += step.total_ns
        used, total = 0, 0
        if self.device_memory is not None:
            used, total = self.device_memory() or (0, 0)
        self.record(MemoryRecord(step.step, now, _memory.rss_bytes(), _memory.heap_bytes(), used, total,
                                 _memory.HOST_TOTAL_BYTES))

    def _heartbeat(self) -> HeartbeatRecord:
        last_step, phase, since = self.tracker.where()
        step, count, calls = self.collectives.in_progress()
        return HeartbeatRecord(last_step, phase, since, self.clock.now(), step, count, calls)

    def collective(self, op: str, reduction: str, dtype: str, elements: int, group: str, site: str) -> None:
        """A collective the rank calls now. The first in a step that the step before did not make there goes
        out with a heartbeat before the call is made: if it is out of step, Gloo may abort the process in it."""
        if self.collectives.add(op, reduction, dtype, elements, group, site):
            self.record(self._heartbeat())
            self._sender.flush(FLUSH_TIMEOUT_S)

    def allreduce(self, record: AllreduceRecord) -> None:
        record.timeline = self.timeline_on
        self.record(record)

    def log(self, step: Optional[int], scalars: dict) -> None:
        at = self.tracker.logging_step() if step is None else step
        for name, value in scalars.items():
            if hasattr(value, "detach"):
                value = value.detach()  # the value only, not the graph that made it
            self.record(ScalarRecord(at, name, value))
            if name == "loss" and step is None:
                self.tracker.log_loss(value)
            if name in ("accuracy", "test_accuracy"):
                self._accuracy = value

    def close(self) -> None:
        """At exit: the last step, the rank's summary, then everything left goes out (a few seconds at most)."""
        if self._closed or self.pid != os.getpid():
            return
        self._closed = True
        try:
            self.tracker.close()
            self.record(self._summary())
        finally:
            self._sender.close()

    def _summary(self) -> SummaryRecord:
        try:
            checksum = self.parameter_checksum()
        except Exception as e:  # parameters gone or unreadable at exit: the summary goes without
            warn(f"no parameter checksum in the summary ({e})")
            checksum = ""
        accuracy = _finite_or(self._accuracy, -1.0)
        rate = self._samples / (self._step_ns * 1e-9) if self._step_ns > 0 else 0.0
        return SummaryRecord(self.tracker.last, accuracy, checksum, self._steps, rate)


def _finite_or(value: Any, fallback: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError, RuntimeError):
        return fallback
    return number if math.isfinite(number) else fallback


_current: Optional[Session] = None
_failed = False  # the telemetry could not start in this process; said once, not tried again
_lock = threading.Lock()
_starter: Optional[Callable[[], Optional[Session]]] = None


def current() -> Optional[Session]:
    """The session of this process, if one runs."""
    session = _current
    return session if session is not None and session.pid == os.getpid() else None


def start(env: RankEnvironment, rank: int, clock: JobClock, world_size: int = 0,
          runtime: Optional[RuntimeRecord] = None) -> Optional[Session]:
    """Starts this process's session (once); None when it has nowhere to report or the telemetry cannot start."""
    global _current, _failed
    with _lock:
        if current() is not None:
            return _current
        if not env.reports or _failed:
            return None
        try:
            session = Session(env, rank, clock, world_size, runtime)
        except ChannelError as e:
            _failed = True
            warn(f"telemetry is off: {e}")
            return None
        _current = session
    atexit.register(session.close)
    return session


def set_starter(starter: Callable[[], Optional[Session]]) -> None:
    """How ensure_started() starts the session when a layer knows more than the environment does
    (ringmaster.torch knows the process group: rank, size, and the store to align clocks through)."""
    global _starter
    _starter = starter


def ensure_started() -> Optional[Session]:
    session = current()
    if session is not None:
        return session
    if _starter is not None:
        return _starter()
    env = RankEnvironment.from_environ()
    return start(env, env.rank or 0, JobClock())


def _forget_in_child() -> None:
    global _current
    _current = None


os.register_at_fork(after_in_child=_forget_in_child)
