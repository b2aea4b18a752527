# SPDX-License-Identifier: GPL-3.0-or-later
"""A rank's telemetry on its way out, as ringmaster-worker's (worker/telemetry_sender.h), in the standard library.

Training threads push records into a bounded buffer and never wait: a full buffer drops the record and counts it.
A background thread drains the buffer every 100 ms (sooner when a batch's worth is waiting) and writes the
records to the host's agent over its rank socket (RINGMASTER_TELEMETRY_SOCKET), or to a record file in
RINGMASTER_RECORD_DIR when no agent runs; it reports its own health every 2 s and asks the agent for control twice
a second (stop, timeline on/off, checkpoint now). The frames are those of protocol/ringmaster/v1/telemetry.proto
(RankFrame). If the agent is unreachable the records are counted as dropped, a single line says so, and training
goes on.

Fork-safe: a forked child (a DataLoader worker) has no sender thread, and the socket or file it inherited is
closed in it at once, so that only the parent ever writes to it.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from collections import deque
from typing import Any, Callable, List, Optional

from ringmaster._environment import RankEnvironment, warn
from ringmaster._records import Encoder, HealthRecord, HeartbeatRecord, RuntimeRecord
from ringmaster._wire import Message, WireError, frame, parse

BUFFER_RECORDS = 1 << 16
BATCH_RECORDS = 4096  # at most 16384 (kMaxRecordsPerReport, common/record_checks.h)
# A program's rank shares its cores with the agent and the console: every batch costs the rank's telemetry thread,
# the agent's journal (an fsync) and the watching console a wake-up, so batches go out ten times a second (a record
# reaches the console within about 200 ms) and control is asked for twice a second.
INTERVAL_S = 0.1
RECONNECT_EVERY_S = 1.0
POLL_CONTROL_EVERY_S = 0.5
HEALTH_EVERY_S = 2.0
HEARTBEAT_EVERY_S = 1.0  # where the training thread is, so that the console can tell a stopped rank from waiting ones
CLOSE_TIMEOUT_S = 5.0
SOCKET_TIMEOUT_S = 5.0
MAX_FRAME_BYTES = 64 << 20

SOCKET_MAGIC = b"RMRANK1\n"
FILE_MAGIC = b"RMRECS1\n"
# RankFrame's fields (protocol/ringmaster/v1/telemetry.proto)
_HELLO, _BATCH, _POLL, _BYE, _WELCOME, _REFUSED, _CONTROL, _ACCEPTED = 1, 2, 3, 4, 10, 11, 12, 13


class RecordBuffer:
    """Bounded, thread-safe; `push` never blocks."""

    def __init__(self, capacity: int = BUFFER_RECORDS, high_water: int = BATCH_RECORDS) -> None:
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


class Control:
    """What the agent asked of this rank; the sender thread sets it, training reads it."""

    def __init__(self, timeline_on: bool) -> None:
        self.timeline_on = timeline_on
        self.stop_requested = False
        self.checkpoint_requested = False

    def apply(self, reply: bytes) -> None:
        """A ControlPollReply from the agent."""
        fields = parse(reply)
        if fields.get(1, [0])[-1]:
            self.stop_requested = True
        if fields.get(2, [0])[-1]:
            self.timeline_on = True
        if fields.get(3, [0])[-1]:
            self.timeline_on = False
        if fields.get(4, [0])[-1]:
            self.checkpoint_requested = True


class Hello:
    """Who the rank is, said first on a socket or in a record file (RankHello)."""

    def __init__(self, env: RankEnvironment, rank: int, world_size: int) -> None:
        self.rank = rank
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self._env = env
        self._world_size = world_size

    def frame(self, with_secret: bool) -> bytes:
        """The hello frame; a record file's goes without the secret, which is for the agent's ears only."""
        env = self._env
        m = Message().text(1, env.job_id).integer(2, self.rank).text(3, env.secret if with_secret else "")
        m.integer(4, self._world_size).integer(5, env.rank if env.rank is not None else self.rank)
        m.integer(6, self.pid).text(7, self.host)
        return frame(Message().message(_HELLO, m))


class ChannelError(Exception):
    """The agent or the file cannot take telemetry now; `lasting` when trying again would not help."""

    def __init__(self, what: str, lasting: bool = False) -> None:
        super().__init__(what)
        self.lasting = lasting


class _AgentSocket:
    """The agent's rank socket: hello, then batches and polls; a bye waits for the agent to journal it all."""

    def __init__(self, path: str, hello: Hello) -> None:
        self.where = f"the agent's socket {path} (RINGMASTER_TELEMETRY_SOCKET)"
        self._path = path
        self._hello = hello
        self._socket: Optional[socket.socket] = None
        self._next_connect = 0.0

    def fileno(self) -> int:
        return self._socket.fileno() if self._socket is not None else -1

    def connected(self) -> bool:
        return self._socket is not None

    def connect(self) -> bool:
        """Connects if it is time to try; False while waiting to try again."""
        if self._socket is not None:
            return True
        now = time.monotonic()
        if now < self._next_connect:
            return False
        self._next_connect = now + RECONNECT_EVERY_S
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        try:
            connection.settimeout(SOCKET_TIMEOUT_S)
            connection.connect(self._path)
            connection.sendall(SOCKET_MAGIC + self._hello.frame(with_secret=True))
            kind, body = _read_frame(connection)
        except (OSError, ChannelError):
            connection.close()
            raise
        if kind == _REFUSED:
            connection.close()
            reason = parse(body).get(1, [b"no reason given"])[0].decode("utf-8", "replace")
            raise ChannelError(f"{self.where} refused this rank: {reason}", lasting=True)
        if kind != _WELCOME:
            connection.close()
            raise ChannelError(f"{self.where} answered the hello with frame {kind}")
        self._socket = connection
        return True

    def send(self, batch: bytes) -> None:
        try:
            self._socket.sendall(batch)
        except OSError:
            self.drop()
            raise

    def poll(self, control: Control) -> None:
        kind, body = self._request(_POLL)
        if kind != _CONTROL:
            self.drop()
            raise ChannelError(f"{self.where} answered a poll with frame {kind}")
        control.apply(body)

    def finish(self, timeout: float) -> None:
        if self._socket is None:
            return
        self._socket.settimeout(timeout)
        kind, _ = self._request(_BYE)
        self.drop()
        if kind != _ACCEPTED:
            raise ChannelError(f"{self.where} answered the last telemetry with frame {kind}")

    def drop(self) -> None:
        if self._socket is not None:
            self._socket.close()  # this process's descriptor: a forked child closing it leaves the parent's open
            self._socket = None

    def _request(self, field: int) -> tuple:
        """Sends an empty frame of `field` (poll, bye) and reads the agent's answer."""
        try:
            self._socket.sendall(frame(Message().message(field, Message())))
            return _read_frame(self._socket)
        except (OSError, ChannelError):
            self.drop()
            raise


class _RecordFile:
    """A record file in RINGMASTER_RECORD_DIR, for `ringmaster import` once the job has ended."""

    def __init__(self, folder: str, hello: Hello) -> None:
        host = re.sub(r"[^A-Za-z0-9._-]", "_", hello.host)[:64] or "host"
        self.path = os.path.join(folder, f"rank{hello.rank}-{host}-{hello.pid}.rmrecs")
        self.where = f"the record file {self.path} (RINGMASTER_RECORD_DIR)"
        try:
            os.makedirs(folder, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o644)
        except OSError as e:
            raise ChannelError(f"{self.where} cannot be written ({e.strerror}); set RINGMASTER_RECORD_DIR to a "
                               f"folder this rank may write", lasting=True) from e
        self._write(FILE_MAGIC + hello.frame(with_secret=False))

    def fileno(self) -> int:
        return self._fd

    def connected(self) -> bool:
        return self._fd >= 0

    def connect(self) -> bool:
        return self._fd >= 0

    def send(self, batch: bytes) -> None:
        self._write(batch)

    def poll(self, control: Control) -> None:
        pass  # nobody to ask

    def finish(self, timeout: float) -> None:
        if self._fd >= 0:
            self._write(frame(Message().message(_BYE, Message())))
            self.drop()

    def drop(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view):]
        except OSError as e:
            self.drop()
            raise ChannelError(f"{self.where} cannot be written ({e.strerror})", lasting=True) from e


def _receive(connection: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise ChannelError("the agent closed the connection")
        data += chunk
    return bytes(data)


def _read_frame(connection: socket.socket) -> tuple:
    """The next RankFrame from the agent as (body field, body bytes)."""
    size = int.from_bytes(_receive(connection, 4), "little")
    if size > MAX_FRAME_BYTES:
        raise ChannelError(f"the agent sent a frame of {size} bytes")
    try:
        fields = parse(_receive(connection, size))
    except WireError as e:
        raise ChannelError(f"the agent sent a frame that does not parse ({e})") from e
    for number, values in fields.items():
        if isinstance(values[-1], bytes):
            return number, values[-1]
    return 0, b""


def open_channel(env: RankEnvironment, hello: Hello):
    """The agent's socket when an agent started this rank, else a record file; None for neither."""
    if env.socket:
        return _AgentSocket(env.socket, hello)
    if env.record_dir:
        return _RecordFile(env.record_dir, hello)
    return None


class Sender:
    def __init__(self, channel: Any, rank: int, buffer: RecordBuffer, control: Control,
                 heartbeat: Optional[Callable[[], HeartbeatRecord]] = None,
                 runtime: Optional[RuntimeRecord] = None) -> None:
        self._channel = channel
        self._buffer = buffer
        self._control = control
        self._heartbeat = heartbeat
        self._encoder = Encoder(rank)
        self._pid = os.getpid()
        self.records_sent = 0
        self._lasting_error = False
        self._warned = False
        self._stopping = threading.Event()
        self._flushes: List[threading.Event] = []  # callers of flush() waiting for the buffer to go out
        if runtime is not None:
            buffer.push(runtime)
        os.register_at_fork(after_in_child=self._forget_in_child)
        self._thread = threading.Thread(target=self._run, name="ringmaster-telemetry", daemon=True)
        self._thread.start()

    def close(self, timeout: float = CLOSE_TIMEOUT_S) -> None:
        """Sends what is left and says goodbye, waiting at most about `timeout` for the agent."""
        if self._pid != os.getpid():
            return
        self._stopping.set()
        self._buffer.reached_high_water.set()
        self._thread.join(timeout + 1.0)

    def flush(self, timeout: float) -> None:
        """Waits, at most `timeout` seconds, until what the buffer holds now has been sent."""
        if self._pid != os.getpid() or not self._thread.is_alive():
            return
        sent = threading.Event()
        self._flushes.append(sent)
        self._buffer.reached_high_water.set()
        sent.wait(timeout)

    def _forget_in_child(self) -> None:
        # The parent's socket or file stays the parent's: this process closes its copy of the descriptor (the
        # parent's stays open, nothing goes on the wire) and never sends. No lock is taken here: another thread of
        # the parent may have held one at the fork.
        channel, self._channel = self._channel, None
        if channel is not None:
            try:
                channel.drop()
            except OSError:
                pass

    def _run(self) -> None:
        next_poll = time.monotonic()
        next_health = time.monotonic() + HEALTH_EVERY_S
        next_heartbeat = time.monotonic() + HEARTBEAT_EVERY_S
        while not self._stopping.is_set():
            self._buffer.reached_high_water.wait(INTERVAL_S)
            self._buffer.reached_high_water.clear()
            if self._stopping.is_set():
                break
            flushes, self._flushes = self._flushes, []  # taken before the drain: what they wait for is in it
            self._drain()
            for sent in flushes:
                sent.set()
            if time.monotonic() >= next_health:
                self._report_health()
                next_health = time.monotonic() + HEALTH_EVERY_S
            if self._heartbeat is not None and time.monotonic() >= next_heartbeat:
                self._send([self._heartbeat()])
                next_heartbeat = time.monotonic() + HEARTBEAT_EVERY_S
            if time.monotonic() >= next_poll:
                self._poll_control()
                next_poll = time.monotonic() + POLL_CONTROL_EVERY_S
        if self._pid != os.getpid():
            return
        self._drain()
        self._report_health()
        self._finish()

    def _drain(self) -> None:
        while True:
            records = self._buffer.drain(BATCH_RECORDS)
            if not records:
                return
            self._send(records)

    def _report_health(self) -> None:
        self._send([HealthRecord(self.records_sent, self._buffer.dropped)])

    def _batch(self, records: List[Any]) -> tuple:
        """The records as one RankFrame of a RecordBatch, and how many records it holds."""
        parts: List[bytes] = []
        for record in records:
            try:
                parts.extend(self._encoder.encode(record))
            except Exception as e:  # a value the program handed over that cannot be encoded
                self._buffer.count_dropped(1)
                self._warn_once(f"a record could not be encoded ({e})")
        batch = Message()
        for part in parts:
            batch.raw(1, part)
        return frame(Message().message(_BATCH, batch)), len(parts)

    def _send(self, records: List[Any]) -> None:
        channel = self._channel
        if channel is None or self._lasting_error or not self._ready():
            self._buffer.count_dropped(len(records))
            return
        data, count = self._batch(records)
        try:
            channel.send(data)
            self.records_sent += count
        except (OSError, ChannelError) as e:
            self._buffer.count_dropped(len(records))
            self._failed(e)

    def _ready(self) -> bool:
        try:
            return self._channel.connect()
        except (OSError, ChannelError) as e:
            self._failed(e)
            return False

    def _failed(self, error: Exception) -> None:
        if isinstance(error, ChannelError):
            self._lasting_error = self._lasting_error or error.lasting
            what = str(error)
        else:
            what = f"{self._channel.where} is not taking telemetry ({error.strerror or error})"
        self._warn_once(what)

    def _poll_control(self) -> None:
        if self._channel is None or not self._channel.connected():
            return  # no agent to ask right now
        try:
            self._channel.poll(self._control)
        except (OSError, ChannelError, WireError) as e:
            self._failed(e)

    def _finish(self) -> None:
        try:
            self._channel.finish(CLOSE_TIMEOUT_S)
        except (OSError, ChannelError) as e:
            self._warn_once(f"{self._channel.where} did not confirm the last telemetry ({e})")
            self._channel.drop()

    def _warn_once(self, what: str) -> None:
        if self._warned:
            return
        self._warned = True
        warn(f"{what}; training goes on and telemetry is counted as dropped")
