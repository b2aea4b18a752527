# SPDX-License-Identifier: GPL-3.0-or-later
"""What a rank records, as plain Python values, and their encoding into ringmaster.v1 records.

The training thread only builds these small objects; the sender thread encodes them. Values that may still be
tensors (a loss, a logged scalar, a learning rate) are turned into floats there, so that reading a CUDA value
never stalls training.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple


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


@dataclass(slots=True)
class HeartbeatRecord:
    last_step: int        # -1 before the first step ends
    phase: str            # "data", "forward", "backward", "comm_wait", "optimizer", "idle"
    phase_since_ns: int
    time_ns: int


@dataclass(slots=True)
class HealthRecord:
    records_sent: int
    records_dropped: int


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


class Encoder:
    """Turns records into ringmaster.v1.Record messages for one rank."""

    def __init__(self, rank: int) -> None:
        from ringmaster.v1 import records_pb2

        self._pb = records_pb2
        self._rank = rank

    def encode(self, record: Any) -> List[Any]:
        """The record as ringmaster.v1.Record messages (an all-reduce on the timeline is two)."""
        pb, rank = self._pb, self._rank
        out = pb.Record()
        if isinstance(record, StepRecord):
            s = out.step
            s.rank, s.step, s.epoch, s.start_ns = rank, record.step, record.epoch, record.start_ns
            s.data_ns, s.forward_ns, s.backward_ns = record.data_ns, record.forward_ns, record.backward_ns
            s.comm_wait_ns, s.optimizer_ns, s.total_ns = record.comm_wait_ns, record.optimizer_ns, record.total_ns
            s.samples = min(record.samples, 0xFFFFFFFF)
            s.loss = step_loss(record)
            if record.lr is not None:
                s.lr = as_float(record.lr)
        elif isinstance(record, AllreduceRecord):
            settle_allreduce(record)
            a = out.allreduce
            a.rank, a.step, a.bucket, a.bytes = rank, record.step, record.bucket, record.bytes
            a.start_ns, a.end_ns, a.tensors = record.start_ns, record.end_ns, record.tensors
            # nccl-tests' definitions, GB = 1e9 bytes (as worker/probe.cpp)
            seconds = (record.end_ns - record.start_ns) * 1e-9
            a.latency_us = seconds * 1e6
            if seconds > 0:
                a.algbw_gbps = record.bytes / seconds / 1e9
                n = record.world_size
                a.busbw_gbps = a.algbw_gbps * 2.0 * (n - 1) / n if n > 1 else 0.0
            if record.timeline:
                event = pb.Record()
                e = event.timeline
                e.rank, e.lane, e.name, e.step = rank, "comm", "ALLREDUCE", record.step
                e.start_ns, e.end_ns = record.start_ns, record.end_ns
                e.args.update({"bucket": str(record.bucket), "bytes": str(record.bytes),
                               "tensors": str(record.tensors)})
                return [out, event]
        elif isinstance(record, MemoryRecord):
            m = out.memory
            m.rank, m.step, m.time_ns = rank, record.step, record.time_ns
            m.rss_bytes, m.heap_bytes, m.host_total_bytes = record.rss_bytes, record.heap_bytes, record.host_total_bytes
            m.device_used_bytes, m.device_total_bytes = record.device_used_bytes, record.device_total_bytes
        elif isinstance(record, TimelineRecord):
            e = out.timeline
            e.rank, e.lane, e.name = rank, record.lane, record.name
            e.start_ns, e.end_ns, e.step = record.start_ns, record.end_ns, record.step
            if record.args:
                e.args.update(record.args)
        elif isinstance(record, ScalarRecord):
            v = out.scalar
            v.rank, v.step, v.name, v.value = rank, record.step, record.name, as_float(record.value)
        elif isinstance(record, SummaryRecord):
            s = out.summary
            s.rank, s.test_accuracy = rank, record.test_accuracy
            s.final_loss = step_loss(record.last_step) if record.last_step is not None else 0.0
            s.param_checksum, s.steps, s.samples_per_s = record.param_checksum, record.steps, record.samples_per_s
        elif isinstance(record, HeartbeatRecord):
            b = out.heartbeat
            b.rank, b.last_step, b.phase = rank, record.last_step, record.phase
            b.phase_since_ns, b.time_ns = record.phase_since_ns, record.time_ns
        elif isinstance(record, HealthRecord):
            h = out.health
            h.rank, h.records_sent, h.records_dropped = rank, record.records_sent, record.records_dropped
        else:
            raise TypeError(f"not a telemetry record: {type(record).__name__}")
        return [out]
