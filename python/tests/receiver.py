# SPDX-License-Identifier: GPL-3.0-or-later
"""A real Telemetry service on a loopback port that keeps what ranks send, for the python tests.

It stands in for ringmaster-agent, which takes telemetry only from ranks it started itself.
"""

from __future__ import annotations

import threading
from concurrent import futures
from typing import Dict, List

import grpc
from ringmaster.v1 import telemetry_pb2, telemetry_pb2_grpc


class TelemetryReceiver(telemetry_pb2_grpc.TelemetryServicer):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: List[telemetry_pb2.ReportRequest] = []
        self.polls: List[telemetry_pb2.ControlPollRequest] = []
        self._control: Dict[int, telemetry_pb2.ControlPollReply] = {}
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        telemetry_pb2_grpc.add_TelemetryServicer_to_server(self, self._server)
        self.port = self._server.add_insecure_port("127.0.0.1:0")
        self._server.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        self._server.stop(grace=None)

    def Report(self, request_iterator, context):
        accepted = 0
        for request in request_iterator:
            with self._lock:
                self.requests.append(request)
            accepted += len(request.batch.records)
        return telemetry_pb2.ReportReply(accepted=accepted)

    def PollControl(self, request, context):
        with self._lock:
            self.polls.append(request)
            return self._control.pop(request.rank, telemetry_pb2.ControlPollReply())

    def send_control(self, rank: int, **flags: bool) -> None:
        """Queues a reply for the rank's next poll (stop, timeline_on, timeline_off, checkpoint_now)."""
        with self._lock:
            self._control[rank] = telemetry_pb2.ControlPollReply(**flags)

    def records(self, kind: str) -> list:
        """Every record body of one kind ("step", "allreduce", ...) in the order received."""
        with self._lock:
            return [getattr(r, kind) for q in self.requests for r in q.batch.records if r.WhichOneof("body") == kind]
