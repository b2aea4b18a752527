# SPDX-License-Identifier: GPL-3.0-or-later
"""A rank's telemetry on its way out, as ringmaster-worker's (worker/telemetry_sender.h).

Training threads push records into a bounded buffer and never wait: a full buffer drops the record and counts it.
A background thread drains the buffer every 100 ms (sooner when a request's worth is waiting), streams the records
to the host's agent (Telemetry.Report), reports its own health every 2 s and polls the agent for control
(Telemetry.PollControl: stop, timeline on/off, checkpoint now). If the agent is unreachable the records are counted
as dropped, a single line says so, and training goes on.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from typing import Any, Callable, List, Optional

from ringmaster._environment import RankEnvironment, warn
from ringmaster._records import Encoder, HealthRecord, HeartbeatRecord

BUFFER_RECORDS = 1 << 16
REQUEST_RECORDS = 4096
# A program's rank shares its cores with the agent and the console: every batch costs the rank's telemetry thread,
# the agent's journal (an fsync) and the watching console a wake-up, so batches go out ten times a second (a record
# reaches the console within about 200 ms) and control is asked for twice a second.
INTERVAL_S = 0.1
RECONNECT_EVERY_S = 1.0
POLL_CONTROL_EVERY_S = 0.5
HEALTH_EVERY_S = 2.0
HEARTBEAT_EVERY_S = 1.0  # where the training thread is, so that the console can tell a stopped rank from waiting ones
CLOSE_TIMEOUT_S = 5.0
MAX_MESSAGE_BYTES = 64 << 20
REQUESTS_IN_FLIGHT = 4  # requests handed to gRPC but not yet written; more means the agent does not keep up


class RecordBuffer:
    """Bounded, thread-safe; `push` never blocks."""

    def __init__(self, capacity: int = BUFFER_RECORDS, high_water: int = REQUEST_RECORDS) -> None:
        self._items: deque = deque()
        self._lock = threading.Lock()
        self._capacity = capacity
        self._high_water = high_water
        self._dropped = 0
        self.reached_high_water = threading.Event()

    def push(self, record: Any) -> None:
        with self._lock:
            if len(self._items) >= self._capacity:
                self._dropped += 1
                return
            self._items.append(record)
            if len(self._items) == self._high_water:
                self.reached_high_water.set()

    def drain(self, limit: int) -> List[Any]:
        with self._lock:
            count = min(limit, len(self._items))
            return [self._items.popleft() for _ in range(count)]

    def count_dropped(self, count: int) -> None:
        with self._lock:
            self._dropped += count

    @property
    def dropped(self) -> int:
        with self._lock:
            return self._dropped


class Control:
    """What the agent asked of this rank; the sender thread sets it, training reads it."""

    def __init__(self, timeline_on: bool) -> None:
        self.timeline_on = timeline_on
        self.stop_requested = False
        self.checkpoint_requested = False


class _ReportStream:
    """One Telemetry.Report call: requests go through a short queue that gRPC's own thread consumes."""

    def __init__(self, stub: Any) -> None:
        self._queue: queue.Queue = queue.Queue(maxsize=REQUESTS_IN_FLIGHT)
        self._finished = False
        self.sent = 0  # records handed to gRPC
        self.future = stub.Report.future(self._requests())

    def _requests(self):
        while True:
            try:
                request = self._queue.get(timeout=0.1)
            except queue.Empty:
                if self._finished or self.future.done():
                    return
                continue
            if request is None:
                return
            self.sent += len(request.batch.records)
            yield request

    def put(self, request: Any) -> bool:
        if self.future.done():
            return False
        try:
            self._queue.put_nowait(request)
            return True
        except queue.Full:
            return False

    def unsent(self) -> int:
        """Records still queued; only meaningful once the call has ended."""
        count = 0
        while True:
            try:
                request = self._queue.get_nowait()
            except queue.Empty:
                return count
            if request is not None:
                count += len(request.batch.records)

    def error(self) -> str:
        try:
            self.future.result(timeout=0)
            return "the agent closed the stream"
        except Exception as e:  # grpc.RpcError and its kin
            details = getattr(e, "details", None)
            return details() if callable(details) else str(e)

    def finish(self, timeout: float) -> Optional[str]:
        """Ends the call, waiting up to `timeout` for the agent's reply; the error, if any."""
        self._finished = True
        try:
            self._queue.put(None, timeout=timeout)
        except queue.Full:
            pass
        try:
            self.future.result(timeout=timeout)
            return None
        except Exception as e:
            self.future.cancel()
            details = getattr(e, "details", None)
            return details() if callable(details) else (str(e) or type(e).__name__)


class Sender:
    def __init__(self, env: RankEnvironment, rank: int, buffer: RecordBuffer, control: Control,
                 heartbeat: Optional[Callable[[], HeartbeatRecord]] = None) -> None:
        import grpc  # only ranks that report pay for importing gRPC
        from ringmaster.v1 import telemetry_pb2, telemetry_pb2_grpc

        self._grpc = grpc
        self._pb = telemetry_pb2
        self._env = env
        self._rank = rank
        self._buffer = buffer
        self._control = control
        self._heartbeat = heartbeat
        self._encoder = Encoder(rank)
        self._channel = grpc.insecure_channel(env.agent, options=[("grpc.max_send_message_length", MAX_MESSAGE_BYTES)])
        self._stub = telemetry_pb2_grpc.TelemetryStub(self._channel)
        self._stream: Optional[_ReportStream] = None
        self._sent_before = 0  # by streams that have ended
        self._next_connect = 0.0
        self._warned = False
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ringmaster-telemetry", daemon=True)
        self._thread.start()

    @property
    def records_sent(self) -> int:
        return self._sent_before + (self._stream.sent if self._stream else 0)

    def close(self, timeout: float = CLOSE_TIMEOUT_S) -> None:
        """Sends what is left and ends the stream, waiting at most about `timeout` for the agent."""
        self._stopping.set()
        self._buffer.reached_high_water.set()
        self._thread.join(timeout + 1.0)
        self._channel.close()

    def _run(self) -> None:
        next_poll = time.monotonic()
        next_health = time.monotonic() + HEALTH_EVERY_S
        next_heartbeat = time.monotonic() + HEARTBEAT_EVERY_S
        while not self._stopping.is_set():
            self._buffer.reached_high_water.wait(INTERVAL_S)
            self._buffer.reached_high_water.clear()
            if self._stopping.is_set():
                break
            self._drain()
            if time.monotonic() >= next_health:
                self._report_health()
                next_health = time.monotonic() + HEALTH_EVERY_S
            if self._heartbeat is not None and time.monotonic() >= next_heartbeat:
                self._send([self._heartbeat()])
                next_heartbeat = time.monotonic() + HEARTBEAT_EVERY_S
            if time.monotonic() >= next_poll:
                self._poll_control()
                next_poll = time.monotonic() + POLL_CONTROL_EVERY_S
        self._drain()
        self._report_health()
        self._close_stream()

    def _drain(self) -> None:
        while True:
            records = self._buffer.drain(REQUEST_RECORDS)
            if not records:
                return
            self._send(records)

    def _report_health(self) -> None:
        self._send([HealthRecord(self.records_sent, self._buffer.dropped)])

    def _request(self, records: List[Any]) -> Any:
        request = self._pb.ReportRequest(job_id=self._env.job_id, rank=self._rank, secret=self._env.secret)
        batch = request.batch.records
        for record in records:
            try:
                batch.extend(self._encoder.encode(record))
            except Exception as e:  # a value the program handed over that cannot be encoded
                self._buffer.count_dropped(1)
                self._warn_once(f"a record could not be encoded ({e})")
        return request

    def _send(self, records: List[Any]) -> None:
        if self._stream is None and not self._open_stream():
            self._buffer.count_dropped(len(records))
            return
        request = self._request(records)
        if self._stream.put(request):
            return
        self._buffer.count_dropped(len(records))
        if self._stream.future.done():
            reason = self._stream.error()
            self._end_stream()
            self._warn_once(f"the agent at {self._env.agent} (RINGMASTER_AGENT) is not taking telemetry ({reason})")

    def _open_stream(self) -> bool:
        now = time.monotonic()
        if now < self._next_connect:
            return False
        self._next_connect = now + RECONNECT_EVERY_S
        self._stream = _ReportStream(self._stub)
        return True

    def _end_stream(self) -> None:
        if self._stream is None:
            return
        self._buffer.count_dropped(self._stream.unsent())
        self._sent_before += self._stream.sent
        self._stream = None

    def _close_stream(self) -> None:
        if self._stream is None:
            return
        error = self._stream.finish(CLOSE_TIMEOUT_S)
        self._end_stream()
        if error:
            self._warn_once(f"the agent at {self._env.agent} did not confirm the last telemetry ({error})")

    def _poll_control(self) -> None:
        if self._stream is None or self._stream.future.done():
            return  # no agent to ask right now
        request = self._pb.ControlPollRequest(job_id=self._env.job_id, rank=self._rank, secret=self._env.secret)
        try:
            reply = self._stub.PollControl(request, timeout=1.0)
        except self._grpc.RpcError:
            return
        if reply.stop:
            self._control.stop_requested = True
        if reply.checkpoint_now:
            self._control.checkpoint_requested = True
        if reply.timeline_on:
            self._control.timeline_on = True
        if reply.timeline_off:
            self._control.timeline_on = False

    def _warn_once(self, what: str) -> None:
        if self._warned:
            return
        self._warned = True
        warn(f"{what}; training goes on and telemetry is counted as dropped")
