# SPDX-License-Identifier: GPL-3.0-or-later
"""What a rank records, as plain Python values, and their encoding into ringmaster.v1 records
(protocol/ringmaster/v1/records.proto).

The training thread only builds these small objects; the sender thread encodes them. Values that may still be
tensors (a loss, a logged scalar, a learning rate) are turned into floats there, so that reading a CUDA value
never stalls training.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from ringmaster._wire import Message


@dataclass(slots=True)
class StepRecord:
    step: int
    epoch: int
    start_ns: int
    data_ns: int = 0
    forward_ns: int = 0
    backward_ns: int = 0
    comm_wait_ns: int = 0
    optimizer_ns: int = 0
    total_ns: int = 0
    samples: int = 0
    losses: List[Any] = field(default_factory=list)  # what backward started from, summed (as the worker does)
    logged_loss: Any = None                          # what the program logged as "loss"; wins over `losses`
    lr: Any = None
    collectives: int = 0                             # collectives called in the step, and their CRC-32
    collectives_crc: int = 0


@dataclass(slots=True)
class AllreduceRecord:
    step: int
    bucket: int
    bytes: int
    start_ns: int
    end_ns: int
    tensors: int
    world_size: int
    # CUDA all-reduces finish on the device: the end is the start plus the time between these two events.
    device_events: Optional[Tuple[Any, Any]] = None
    timeline: bool = False  # also an ALLREDUCE event on the comm lane


@dataclass(slots=True)
class MemoryRecord:
    step: int
    time_ns: int
    rss_bytes: int
    heap_bytes: int
    device_used_bytes: int
    device_total_bytes: int
    host_total_bytes: int


@dataclass(slots=True)
class TimelineRecord:
    lane: str
    name: str
    start_ns: int
    end_ns: int
    step: int
    args: Optional[Dict[str, str]] = None


@dataclass(slots=True)
class ScalarRecord:
    step: int
    name: str
    value: Any


@dataclass(slots=True)
class SummaryRecord:
    last_step: Optional[StepRecord]  # its loss is the final loss
    test_accuracy: float
    param_checksum: str
    steps: int
    samples_per_s: float


@dataclass(slots=True, frozen=True)
class Collective:
    """One collective the rank called (records.proto's Collective)."""
    index: int            # its place among the step's collectives
    op: str               # "all_reduce", "broadcast", ...
    reduction: str        # "SUM", "MAX", ... or ""
    dtype: str            # "float32"
    elements: int
    group: str            # "world" or "ranks 0,2"
    site: str             # "train.py:28", "DDP bucket 0"


@dataclass(slots=True)
class HeartbeatRecord:
    last_step: int        # -1 before the first step ends
    phase: str            # "data", "forward", "backward", "comm_wait", "optimizer", "idle"
    phase_since_ns: int
    time_ns: int
    collectives_step: int = 0                                      # the step in progress, as the collectives see it
    step_collectives: int = 0                                      # its collectives so far
    collectives: Tuple[Collective, ...] = ()                       # the first of them


@dataclass(slots=True)
class CollectiveCallsRecord:
    """A step's collectives, sent when they are not the step before's."""
    step: int
    count: int
    crc: int
    calls: Tuple[Collective, ...]


@dataclass(slots=True)
class ReplicaHashesRecord:
    """The model's tensors as hashes at the start of a step."""
    step: int
    names: List[str]
    hashes: List[int]


@dataclass(slots=True)
class HealthRecord:
    records_sent: int
    records_dropped: int


@dataclass(slots=True)
class StallRecord:
    """Ranks that have not called a collective this rank has waited in for waited_s seconds."""
    missing_ranks: List[int]
    tensors: List[str]
    waited_s: float


@dataclass(slots=True)
class RuntimeRecord:
    """What the program runs on, sent once when the rank's telemetry starts."""
    host: str
    python: str
    torch: str
    cuda: str
    backend: str
    pid: int


def as_float(value: Any) -> float:
    """A Python number or a one-element tensor as a float (NaN when it is neither)."""
    try:
        return float(value)
    except (TypeError, ValueError, RuntimeError):
        return math.nan


def step_loss(record: StepRecord) -> float:
    if record.logged_loss is not None:
        return as_float(record.logged_loss)
    if record.losses:
        return math.fsum(as_float(loss) for loss in record.losses)
    return 0.0


def settle_allreduce(record: AllreduceRecord) -> None:
    """Fills a CUDA all-reduce's end from its device events (waits for them: the sender thread calls this)."""
    if record.device_events is None:
        return
    begin, end = record.device_events
    record.device_events = None
    end.synchronize()
    record.end_ns = record.start_ns + int(begin.elapsed_time(end) * 1e6)


# Field numbers of protocol/ringmaster/v1/records.proto: the Record's body, then each message's fields in order.
_STEP, _ALLREDUCE, _MEMORY, _TIMELINE, _HEALTH, _STALL, _SUMMARY, _SCALAR, _HEARTBEAT, _RUNTIME = (
    10, 11, 12, 13, 17, 18, 19, 20, 21, 22)
_COLLECTIVE_CALLS, _REPLICAS = 23, 24


def _collective(call: Collective) -> Message:
    m = Message().integer(1, call.index).text(2, call.op).text(3, call.reduction).text(4, call.dtype)
    return m.integer(5, call.elements).text(6, call.group).text(7, call.site)


def _record(body: int, message: Message) -> bytes:
    return Message().message(body, message).bytes()


class Encoder:
    """Turns records into encoded ringmaster.v1.Record messages for one rank."""

    def __init__(self, rank: int) -> None:
        self._rank = rank

    def encode(self, record: Any) -> List[bytes]:
        """The record as encoded ringmaster.v1.Record messages (an all-reduce on the timeline is two)."""
        rank = self._rank
        if isinstance(record, StepRecord):
            m = Message().integer(1, rank).integer(2, record.step).integer(3, record.epoch)
            m.integer(4, record.start_ns).integer(5, record.data_ns).integer(6, record.forward_ns)
            m.integer(7, record.backward_ns).integer(8, record.comm_wait_ns).integer(9, record.optimizer_ns)
            m.integer(10, record.total_ns).integer(11, min(record.samples, 0xFFFFFFFF))
            m.double(12, step_loss(record))
            if record.lr is not None:
                m.double(13, as_float(record.lr))
            m.integer(14, record.collectives).integer(15, record.collectives_crc)
            return [_record(_STEP, m)]
        if isinstance(record, AllreduceRecord):
            settle_allreduce(record)
            m = Message().integer(1, rank).integer(2, record.step).integer(3, record.bucket)
            m.integer(4, record.bytes).integer(5, record.start_ns).integer(6, record.end_ns)
            # nccl-tests' definitions, GB = 1e9 bytes (as worker/probe.cpp)
            seconds = (record.end_ns - record.start_ns) * 1e-9
            m.double(7, seconds * 1e6)
            if seconds > 0:
                algbw = record.bytes / seconds / 1e9
                n = record.world_size
                m.double(8, algbw).double(9, algbw * 2.0 * (n - 1) / n if n > 1 else 0.0)
            m.integer(10, record.tensors)
            out = [_record(_ALLREDUCE, m)]
            if record.timeline:
                args = {"bucket": str(record.bucket), "bytes": str(record.bytes), "tensors": str(record.tensors)}
                out.append(self._timeline("comm", "ALLREDUCE", record.start_ns, record.end_ns, record.step, args))
            return out
        if isinstance(record, MemoryRecord):
            m = Message().integer(1, rank).integer(2, record.step).integer(3, record.time_ns)
            m.integer(4, record.rss_bytes).integer(5, record.heap_bytes).integer(6, record.device_used_bytes)
            m.integer(7, record.device_total_bytes).integer(8, record.host_total_bytes)
            return [_record(_MEMORY, m)]
        if isinstance(record, TimelineRecord):
            return [self._timeline(record.lane, record.name, record.start_ns, record.end_ns, record.step,
                                   record.args)]
        if isinstance(record, ScalarRecord):
            m = Message().integer(1, rank).integer(2, record.step).text(3, record.name)
            return [_record(_SCALAR, m.double(4, as_float(record.value)))]
        if isinstance(record, SummaryRecord):
            final_loss = step_loss(record.last_step) if record.last_step is not None else 0.0
            m = Message().integer(1, rank).double(2, final_loss).double(3, record.test_accuracy)
            m.text(4, record.param_checksum).integer(5, record.steps).double(6, record.samples_per_s)
            return [_record(_SUMMARY, m)]
        if isinstance(record, HeartbeatRecord):
            m = Message().integer(1, rank).integer(2, record.last_step).text(3, record.phase)
            m.integer(4, record.phase_since_ns).integer(5, record.time_ns).integer(6, record.step_collectives)
            m.integer(8, record.collectives_step)
            for call in record.collectives:
                m.message(7, _collective(call))
            return [_record(_HEARTBEAT, m)]
        if isinstance(record, CollectiveCallsRecord):
            m = Message().integer(1, rank).integer(2, record.step).integer(3, record.count)
            for call in record.calls:
                m.message(4, _collective(call))
            return [_record(_COLLECTIVE_CALLS, m.integer(5, record.crc))]
        if isinstance(record, ReplicaHashesRecord):
            m = Message().integer(1, rank).integer(2, record.step).texts(3, record.names)
            return [_record(_REPLICAS, m.packed(4, record.hashes))]
        if isinstance(record, HealthRecord):
            m = Message().integer(1, rank).integer(2, record.records_sent).integer(3, record.records_dropped)
            return [_record(_HEALTH, m)]
        if isinstance(record, StallRecord):
            m = Message().integer(1, rank).packed(2, record.missing_ranks).texts(3, record.tensors)
            return [_record(_STALL, m.double(4, as_float(record.waited_s)))]
        if isinstance(record, RuntimeRecord):
            m = Message().integer(1, rank).text(2, record.host).text(3, record.python).text(4, record.torch)
            m.text(5, record.cuda).text(6, record.backend).integer(7, record.pid)
            return [_record(_RUNTIME, m)]
        raise TypeError(f"not a telemetry record: {type(record).__name__}")

    def _timeline(self, lane: str, name: str, start_ns: int, end_ns: int, step: int,
                  args: Optional[Dict[str, str]]) -> bytes:
        m = Message().integer(1, self._rank).text(2, lane).text(3, name)
        m.integer(4, start_ns).integer(5, end_ns).integer(6, step)
        if args:
            m.text_map(7, args)
        return _record(_TIMELINE, m)
