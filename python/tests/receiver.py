# SPDX-License-Identifier: GPL-3.0-or-later
"""A real rank socket that keeps what ranks send, for the python tests (protocol/ringmaster/v1/telemetry.proto,
RankFrame).

It stands in for ringmaster-agent, which takes telemetry only from ranks it started itself. The test side reads
the frames with protobuf's own parser, so that the package's encoder of its own is checked against it.
"""

from __future__ import annotations

import os
import socket
import struct
import tempfile
import threading
from dataclasses import dataclass
from typing import Dict, List

from ringmaster.v1 import records_pb2, telemetry_pb2

SOCKET_MAGIC = b"RMRANK1\n"
FILE_MAGIC = b"RMRECS1\n"


@dataclass
class Request:
    """A batch or a poll, with the hello of the connection it came on."""
    job_id: str
    rank: int
    secret: str
    batch: records_pb2.RecordBatch


def _frame(message: telemetry_pb2.RankFrame) -> bytes:
    body = message.SerializeToString()
    return struct.pack("<I", len(body)) + body


def read_frames(data: bytes) -> List[telemetry_pb2.RankFrame]:
    """The frames after a magic, as protobuf parses them (a torn last frame is left out)."""
    frames, at = [], 0
    while at + 4 <= len(data):
        (size,) = struct.unpack_from("<I", data, at)
        if at + 4 + size > len(data):
            break
        frame = telemetry_pb2.RankFrame()
        frame.ParseFromString(data[at + 4:at + 4 + size])
        frames.append(frame)
        at += 4 + size
    return frames


def read_record_file(path: str) -> List[telemetry_pb2.RankFrame]:
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(FILE_MAGIC):
        raise ValueError(f"{path} does not start with {FILE_MAGIC!r}")
    return read_frames(data[len(FILE_MAGIC):])


class TelemetryReceiver:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.hellos: List[telemetry_pb2.RankHello] = []
        self.requests: List[Request] = []
        self.polls: List[Request] = []
        self.byes: List[int] = []  # ranks that said goodbye
        self.refuse_secret = ""   # a hello presenting this secret is refused
        self._control: Dict[int, telemetry_pb2.ControlPollReply] = {}
        self._folder = tempfile.TemporaryDirectory(prefix="ringmaster-receiver-")
        self.address = os.path.join(self._folder.name, "ranks.sock")
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(self.address)
        self._server.listen(16)
        self._threads: List[threading.Thread] = []
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    def stop(self) -> None:
        try:
            self._server.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._server.close()
        self._accepting.join(5)
        for thread in list(self._threads):
            thread.join(10)
        self._folder.cleanup()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._server.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(connection,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, connection: socket.socket) -> None:
        with connection:
            stream = connection.makefile("rb")
            if stream.read(len(SOCKET_MAGIC)) != SOCKET_MAGIC:
                return
            hello = None
            while True:
                head = stream.read(4)
                if len(head) < 4:
                    return
                frame = telemetry_pb2.RankFrame()
                frame.ParseFromString(stream.read(struct.unpack("<I", head)[0]))
                kind = frame.WhichOneof("body")
                reply = telemetry_pb2.RankFrame()
                if kind == "hello":
                    hello = frame.hello
                    with self._lock:
                        self.hellos.append(hello)
                    if self.refuse_secret and hello.secret == self.refuse_secret:
                        reply.refused.reason = "not this secret"
                        connection.sendall(_frame(reply))
                        return
                    reply.welcome.SetInParent()
                elif kind == "batch":
                    with self._lock:
                        self.requests.append(Request(hello.job_id, hello.rank, hello.secret, frame.batch))
                    continue
                elif kind == "poll":
                    with self._lock:
                        self.polls.append(Request(hello.job_id, hello.rank, hello.secret, None))
                        reply.control.CopyFrom(self._control.pop(hello.rank, telemetry_pb2.ControlPollReply()))
                elif kind == "bye":
                    with self._lock:
                        self.byes.append(hello.rank)
                        reply.accepted.accepted = sum(len(r.batch.records) for r in self.requests
                                                      if r.rank == hello.rank)
                connection.sendall(_frame(reply))

    def send_control(self, rank: int, **flags: bool) -> None:
        """Queues a reply for the rank's next poll (stop, timeline_on, timeline_off, checkpoint_now)."""
        with self._lock:
            self._control[rank] = telemetry_pb2.ControlPollReply(**flags)

    def records(self, kind: str) -> list:
        """Every record body of one kind ("step", "allreduce", ...) in the order received."""
        with self._lock:
            return [getattr(r, kind) for q in self.requests for r in q.batch.records if r.WhichOneof("body") == kind]
