#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The package's parts on their own: step phases from instrumentation events, record encoding, the bounded buffer,
the job clock's alignment through a key-value store, the environment contract and the API's input checks."""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
import unittest
from datetime import timedelta
from unittest import mock
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ranks import PACKAGE_ROOT  # noqa: E402

sys.path.insert(1, str(PACKAGE_ROOT))
import ringmaster  # noqa: E402
from ringmaster._clock import align  # noqa: E402
from ringmaster._environment import RankEnvironment  # noqa: E402
from ringmaster._collectives import CollectiveLog  # noqa: E402
from ringmaster._records import (AllreduceRecord, Collective, CollectiveCallsRecord, Encoder,  # noqa: E402
                                 HealthRecord, HeartbeatRecord, MemoryRecord, ReplicaHashesRecord,
                                 RuntimeRecord, ScalarRecord, StallRecord, StepRecord, SummaryRecord,
                                 TimelineRecord)
from ringmaster._steps import StepTracker  # noqa: E402
from ringmaster._telemetry import RecordBuffer  # noqa: E402
from ringmaster.v1 import records_pb2  # noqa: E402  (the test's side only: the package never imports it)


def decode(encoder: Encoder, record) -> list:
    """What the encoder writes, as protobuf's own parser reads it."""
    out = []
    for data in encoder.encode(record):
        message = records_pb2.Record()
        message.ParseFromString(data)
        out.append(message)
    return out


class FakeClock:
    def __init__(self) -> None:
        self.t = 0

    def at(self, t: int) -> "FakeClock":
        self.t = t
        return self

    def __call__(self) -> int:
        return self.t


class Sink:
    def __init__(self, timeline_on: bool = False) -> None:
        self.timeline_on = timeline_on
        self.records = []
        self.ended = []

    def record(self, record) -> None:
        self.records.append(record)

    def step_ended(self, record, now) -> None:
        self.ended.append((record.step, now))

    def steps(self):
        return [r for r in self.records if isinstance(r, StepRecord)]


class StepPhases(unittest.TestCase):
    def setUp(self) -> None:
        self.clock = FakeClock()
        self.sink = Sink()
        self.tracker = StepTracker(self.sink, self.clock)

    def micro_batch(self, forward, backward, compute_end, backward_end, samples=8, loss=None):
        self.clock.at(forward)
        self.tracker.forward_begin(samples)
        self.clock.at(backward)
        self.tracker.backward_begin(loss)
        self.clock.at(compute_end)
        self.tracker.compute_end()
        self.clock.at(backward_end)
        self.tracker.backward_end()

    def optimizer(self, begin, end, lr=0.1):
        self.clock.at(begin)
        self.tracker.optimizer_begin()
        self.clock.at(end)
        self.tracker.optimizer_end(lr)

    def test_one_step(self):
        self.micro_batch(10, 30, 50, 70, loss=2.5)
        self.optimizer(72, 80)
        self.assertEqual(self.sink.steps(), [], "a step goes out when the next one begins")
        self.assertEqual(self.sink.ended, [(0, 80)], "its memory is sampled when it ends")
        self.clock.at(100)
        self.tracker.forward_begin(8)
        (step,) = self.sink.steps()
        self.assertEqual((step.step, step.start_ns, step.data_ns, step.forward_ns), (0, 10, 0, 20))
        self.assertEqual((step.backward_ns, step.comm_wait_ns, step.optimizer_ns), (20, 20, 8))
        self.assertEqual((step.total_ns, step.samples, step.losses, step.lr), (70, 8, [2.5], 0.1))
        self.tracker.backward_begin(None)
        self.tracker.close()
        self.assertEqual(len(self.sink.steps()), 1, "a step that never ended is not a step")

    def test_heartbeats_say_the_phase_in_progress_and_the_last_completed_step(self):
        self.assertEqual(self.tracker.where(), (-1, "idle", 0))
        self.clock.at(10)
        self.tracker.forward_begin(8)
        self.assertEqual(self.tracker.where(), (-1, "forward", 10))
        self.clock.at(30)
        self.tracker.backward_begin(None)
        self.assertEqual(self.tracker.where(), (-1, "backward", 30))
        self.clock.at(50)
        self.tracker.compute_end()
        self.assertEqual(self.tracker.where(), (-1, "comm_wait", 50), "waiting for the all-reduces")
        self.clock.at(70)
        self.tracker.backward_end()
        self.optimizer(72, 80)
        self.assertEqual(self.tracker.where(), (0, "data", 80), "step 0 done, waiting for the next batch")
        self.clock.at(81)
        self.tracker.optimizer_begin()
        self.assertEqual(self.tracker.where(), (0, "optimizer", 81))

    def test_the_next_step_waits_for_data_from_the_optimizer_end(self):
        self.micro_batch(0, 10, 20, 30)
        self.optimizer(30, 40)
        self.micro_batch(65, 70, 80, 90)
        self.optimizer(90, 95)
        self.tracker.close()
        first, second = self.sink.steps()
        self.assertEqual((second.step, second.start_ns, second.data_ns, second.total_ns), (1, 40, 25, 55))

    def test_gradient_accumulation_sums_its_micro_batches(self):
        self.micro_batch(0, 10, 20, 20, loss=1.0)    # no_sync: no all-reduce, compute ends with backward
        self.micro_batch(25, 30, 45, 60, loss=3.0)   # the synchronising one waits 15 for its all-reduces
        self.optimizer(60, 70)
        self.tracker.close()
        (step,) = self.sink.steps()
        self.assertEqual((step.data_ns, step.forward_ns, step.backward_ns), (5, 15, 25))
        self.assertEqual((step.comm_wait_ns, step.samples, step.losses), (15, 16, [1.0, 3.0]))

    def test_an_optimizer_step_alone_is_no_training_step(self):
        self.optimizer(0, 5)
        self.tracker.close()
        self.assertEqual((self.sink.steps(), self.tracker.step), ([], 0))

    def test_logged_loss_lands_in_the_step_in_progress_or_the_one_just_ended(self):
        self.micro_batch(0, 10, 20, 30, loss=9.0)
        self.tracker.log_loss(1.5)
        self.optimizer(30, 40)
        self.assertEqual(self.tracker.logging_step(), 0)
        self.micro_batch(50, 60, 70, 80, loss=9.0)
        self.optimizer(80, 90)
        self.assertEqual(self.tracker.logging_step(), 1)
        self.tracker.log_loss(2.5)
        self.tracker.close()
        self.assertEqual([s.logged_loss for s in self.sink.steps()], [1.5, 2.5])

    def test_explicit_steps_take_over_from_the_optimizer(self):
        self.micro_batch(0, 10, 20, 30)
        self.optimizer(30, 40)
        self.clock.at(41)
        self.tracker.end_step(samples=5, loss=0.5)   # the first call claims the step that just ended
        self.micro_batch(50, 60, 70, 80)
        self.optimizer(80, 90)                       # no longer ends the step
        self.micro_batch(90, 95, 96, 97)
        self.clock.at(100)
        self.tracker.end_step(samples=None, loss=None)
        self.tracker.close()
        first, second = self.sink.steps()
        self.assertEqual((first.step, first.samples, first.logged_loss, first.total_ns), (0, 5, 0.5, 40))
        self.assertEqual((second.step, second.start_ns, second.total_ns, second.samples), (1, 40, 60, 16))
        self.assertEqual(second.optimizer_ns, 10)

    def test_timeline_events_on_the_compute_lane(self):
        self.sink.timeline_on = True
        self.micro_batch(0, 10, 20, 30)
        self.optimizer(30, 40)
        self.micro_batch(45, 50, 55, 60)
        events = [(e.lane, e.name, e.start_ns, e.end_ns, e.step) for e in self.sink.records
                  if isinstance(e, TimelineRecord)]
        self.assertEqual(events, [("compute", "FORWARD", 0, 10, 0), ("compute", "BACKWARD", 10, 20, 0),
                                  ("compute", "OPTIMIZER", 30, 40, 0), ("compute", "DATA", 40, 45, 1),
                                  ("compute", "FORWARD", 45, 50, 1), ("compute", "BACKWARD", 50, 55, 1)])


CALL = Collective(index=2, op="all_reduce", reduction="MAX", dtype="float32", elements=1, group="world",
                  site="train.py:28")
CALL_PB = records_pb2.Collective(index=2, op="all_reduce", reduction="MAX", dtype="float32", elements=1,
                                 group="world", site="train.py:28")


class Collectives(unittest.TestCase):
    def test_a_step_that_repeats_the_one_before_sends_only_its_count_and_crc(self):
        log = CollectiveLog()
        steps = []
        for step in range(3):
            log.add("all_reduce", "", "float32", 1000, "world", "DDP bucket 0")
            log.add("all_reduce", "", "float32", 24, "world", "DDP bucket 1")
            if step == 1:
                log.add("all_reduce", "SUM", "float32", 1, "world", "train.py:28")
            steps.append(log.end_step(step))
        (c0, crc0, calls0), (c1, crc1, calls1), (c2, crc2, calls2) = steps
        self.assertEqual((c0, c1, c2), (2, 3, 2))
        self.assertEqual(crc0, crc2)
        self.assertNotEqual(crc0, crc1)
        self.assertEqual([c.site for c in calls0], ["DDP bucket 0", "DDP bucket 1"])
        self.assertEqual([(c.index, c.elements, c.site) for c in calls1][2], (2, 1, "train.py:28"))
        self.assertEqual(calls2, ((Collective(0, "all_reduce", "", "float32", 1000, "world", "DDP bucket 0"),
                                   Collective(1, "all_reduce", "", "float32", 24, "world", "DDP bucket 1"))),
                         "unlike the step before")
        self.assertFalse(log.add("all_reduce", "", "float32", 1000, "world", "DDP bucket 0"))
        self.assertFalse(log.add("all_reduce", "", "float32", 24, "world", "DDP bucket 1"))
        self.assertEqual(log.end_step(3), (2, crc0, None), "as the step before: count and CRC only")
        # A call the step before did not make at its place is said at once, once a step.
        self.assertTrue(log.add("all_reduce", "SUM", "float32", 1, "world", "train.py:28"))
        self.assertFalse(log.add("all_reduce", "SUM", "float32", 1, "world", "train.py:28"))

    def test_the_crc_is_what_must_match_not_where_it_was_called(self):
        a, b, c = CollectiveLog(), CollectiveLog(), CollectiveLog()
        a.add("broadcast", "", "int64", 3, "world", "train.py:10")
        b.add("broadcast", "", "int64", 3, "world", "other.py:99")
        c.add("broadcast", "", "int32", 3, "world", "train.py:10")
        self.assertEqual(a.end_step(0)[1], b.end_step(0)[1])
        self.assertNotEqual(a.end_step(1)[1], c.end_step(0)[1])

    def test_a_subgroups_calls_are_kept_but_not_counted_against_every_rank(self):
        log = CollectiveLog()
        log.add("all_reduce", "", "float32", 8, "ranks 0,1", "train.py:5")
        log.add("all_reduce", "", "float32", 8, "world", "train.py:6")
        self.assertEqual(log.in_progress(), (0, 2, (
            Collective(0, "all_reduce", "", "float32", 8, "ranks 0,1", "train.py:5"),
            Collective(1, "all_reduce", "", "float32", 8, "world", "train.py:6"))))
        count, crc, calls = log.end_step(0)
        world = CollectiveLog()
        world.add("all_reduce", "", "float32", 8, "world", "elsewhere.py:1")
        self.assertEqual((count, crc), world.end_step(0)[:2])
        self.assertEqual(len(calls), 2)
        self.assertEqual(log.in_progress(), (1, 0, ()), "the next step begins with none")

    def test_only_the_first_calls_of_a_step_travel(self):
        log = CollectiveLog()
        for i in range(100):
            log.add("barrier", "", "", 0, "world", f"loop.py:{i}")
        step, count, calls = log.in_progress()
        self.assertEqual((step, count, len(calls)), (0, 100, 32))


class Encoding(unittest.TestCase):
    def test_allreduce_bandwidths_follow_nccl_tests(self):
        encoder = Encoder(rank=3)
        op = AllreduceRecord(step=7, bucket=1, bytes=4_000_000, start_ns=1_000, end_ns=2_001_000, tensors=5,
                             world_size=4, timeline=True)
        record, event = decode(encoder, op)
        a = record.allreduce
        self.assertEqual((a.rank, a.step, a.bucket, a.bytes, a.tensors), (3, 7, 1, 4_000_000, 5))
        self.assertAlmostEqual(a.latency_us, 2000.0)
        self.assertAlmostEqual(a.algbw_gbps, 2.0)
        self.assertAlmostEqual(a.busbw_gbps, 2.0 * 2 * 3 / 4)
        e = event.timeline
        self.assertEqual((e.lane, e.name, e.start_ns, e.end_ns, e.step), ("comm", "ALLREDUCE", 1_000, 2_001_000, 7))
        self.assertEqual(dict(e.args), {"bucket": "1", "bytes": "4000000", "tensors": "5"})

    def test_step_loss_is_the_logged_one_else_the_sum_of_backward_losses(self):
        encoder = Encoder(rank=0)
        step = StepRecord(step=0, epoch=0, start_ns=0, losses=[0.25, 0.5])
        self.assertEqual(decode(encoder, step)[0].step.loss, 0.75)
        step.logged_loss = 1.5
        self.assertEqual(decode(encoder, step)[0].step.loss, 1.5)

    def test_every_record_kind_reads_back_as_protobuf_writes_it(self):
        # Extremes of each field type: negative int64, the largest uint64, a clamped uint32, zeros (left out by
        # proto3), NaN and infinities, text beyond ASCII.
        encoder = Encoder(rank=5)
        big = (1 << 64) - 1
        cases = [
            (StepRecord(step=big, epoch=3, start_ns=-(1 << 62), data_ns=1, forward_ns=0, backward_ns=3,
                        comm_wait_ns=4, optimizer_ns=5, total_ns=6, samples=1 << 40, losses=[-2.5], lr=1e-3),
             records_pb2.Record(step=records_pb2.StepSample(
                 rank=5, step=big, epoch=3, start_ns=-(1 << 62), data_ns=1, backward_ns=3, comm_wait_ns=4,
                 optimizer_ns=5, total_ns=6, samples=0xFFFFFFFF, loss=-2.5, lr=1e-3))),
            (MemoryRecord(step=9, time_ns=10, rss_bytes=big, heap_bytes=0, device_used_bytes=7,
                          device_total_bytes=8, host_total_bytes=1 << 35),
             records_pb2.Record(memory=records_pb2.MemorySample(
                 rank=5, step=9, time_ns=10, rss_bytes=big, device_used_bytes=7, device_total_bytes=8,
                 host_total_bytes=1 << 35))),
            (TimelineRecord("compute", "FORWARD — ü", 1, 1, 0, {"tensor": "layer.0.wéight", "": "empty key"}),
             records_pb2.Record(timeline=records_pb2.TimelineEvent(
                 rank=5, lane="compute", name="FORWARD — ü", start_ns=1, end_ns=1,
                 args={"tensor": "layer.0.wéight", "": "empty key"}))),
            (ScalarRecord(step=2, name="accuracy", value=float("inf")),
             records_pb2.Record(scalar=records_pb2.Scalar(rank=5, step=2, name="accuracy", value=float("inf")))),
            (SummaryRecord(None, -1.0, "ab12", 40, 1234.5),
             records_pb2.Record(summary=records_pb2.RankSummary(rank=5, test_accuracy=-1.0, param_checksum="ab12",
                                                                steps=40, samples_per_s=1234.5))),
            (HeartbeatRecord(last_step=-1, phase="data", phase_since_ns=-5, time_ns=6),
             records_pb2.Record(heartbeat=records_pb2.Heartbeat(rank=5, last_step=-1, phase="data",
                                                                phase_since_ns=-5, time_ns=6))),
            (HeartbeatRecord(last_step=4, phase="comm_wait", phase_since_ns=7, time_ns=8, collectives_step=5,
                             step_collectives=40, collectives=(CALL,)),
             records_pb2.Record(heartbeat=records_pb2.Heartbeat(rank=5, last_step=4, phase="comm_wait",
                                                                phase_since_ns=7, time_ns=8, collectives_step=5,
                                                                step_collectives=40, collectives=[CALL_PB]))),
            (CollectiveCallsRecord(step=30, count=3, crc=0xFFFFFFFF, calls=(CALL, CALL)),
             records_pb2.Record(collective_calls=records_pb2.CollectiveCalls(rank=5, step=30, count=3,
                                                                            crc=0xFFFFFFFF,
                                                                            calls=[CALL_PB, CALL_PB]))),
            (ReplicaHashesRecord(step=100, names=["fc1.weight", "bn.running_mean"], hashes=[big, 0]),
             records_pb2.Record(replicas=records_pb2.ReplicaHashes(rank=5, step=100,
                                                                   names=["fc1.weight", "bn.running_mean"],
                                                                   hashes=[big, 0]))),
            (HealthRecord(records_sent=0, records_dropped=3),
             records_pb2.Record(health=records_pb2.TelemetryHealth(rank=5, records_dropped=3))),
            (StallRecord(missing_ranks=[0, 3, 300], tensors=["fc2.weight", "", "zählen"], waited_s=5.25),
             records_pb2.Record(stall=records_pb2.StallReport(reporting_rank=5, missing_ranks=[0, 3, 300],
                                                              tensors=["fc2.weight", "", "zählen"],
                                                              waited_s=5.25))),
            (RuntimeRecord("node-1", "3.13.5", "2.6.0+debian", "", "gloo", 4242),
             records_pb2.Record(runtime=records_pb2.RankRuntime(rank=5, host="node-1", python="3.13.5",
                                                                torch="2.6.0+debian", backend="gloo", pid=4242))),
        ]
        for record, expected in cases:
            with self.subTest(kind=type(record).__name__):
                self.assertEqual(decode(encoder, record), [expected])
        self.assertEqual(Encoder(rank=0).encode(HealthRecord(0, 0)),
                         [records_pb2.Record(health=records_pb2.TelemetryHealth()).SerializeToString()])
        nan = decode(encoder, ScalarRecord(step=0, name="loss", value=float("nan")))[0].scalar.value
        self.assertNotEqual(nan, nan)


class Buffer(unittest.TestCase):
    def test_a_full_buffer_drops_and_counts(self):
        buffer = RecordBuffer(capacity=3, high_water=2)
        for i in range(5):
            buffer.push(i)
        self.assertTrue(buffer.reached_high_water.is_set())
        self.assertEqual((buffer.drain(10), buffer.dropped), ([0, 1, 2], 2))
        buffer.count_dropped(4)
        self.assertEqual(buffer.dropped, 6)


class DictStore:
    """A thread-safe key-value store with torch.distributed.Store's blocking wait."""

    def __init__(self) -> None:
        self._values = {}
        self._changed = threading.Condition()

    def set(self, key, value):
        with self._changed:
            self._values[key] = str(value).encode()
            self._changed.notify_all()

    def get(self, key):
        with self._changed:
            return self._values[key]

    def wait(self, keys, timeout):
        with self._changed:
            if not self._changed.wait_for(lambda: all(k in self._values for k in keys), timeout.total_seconds()):
                raise RuntimeError(f"timed out waiting for {keys}")


class ClockAlignment(unittest.TestCase):
    def align_all(self, world_size, one_host):
        store, results = DictStore(), {}

        def rank(r):
            results[r] = align(store, r, world_size, one_host, timedelta(seconds=10))

        threads = [threading.Thread(target=rank, args=(r,)) for r in range(world_size)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return results

    def test_ranks_measure_their_offset_to_rank_0(self):
        results = self.align_all(3, one_host=False)
        self.assertEqual(len({a.epoch_ns for a in results.values()}), 1, "one epoch for the job")
        for r in (1, 2):
            # one process, one clock: the true offset is 0, the estimate within half the round trip
            self.assertGreater(results[r].rtt_ns, 0)
            self.assertLessEqual(abs(results[r].offset_ns), results[r].rtt_ns // 2 + 1)

    def test_ranks_on_one_host_only_share_the_epoch(self):
        results = self.align_all(3, one_host=True)
        self.assertEqual(len({a.epoch_ns for a in results.values()}), 1)
        self.assertEqual({(a.offset_ns, a.rtt_ns) for a in results.values()}, {(0, 0)})

    def test_a_rank_that_never_answers_is_an_error(self):
        with self.assertRaises(RuntimeError):
            align(DictStore(), 1, 2, True, timedelta(seconds=0.05))


class Environment(unittest.TestCase):
    def test_the_agents_variables(self):
        env = RankEnvironment.from_environ({
            "RINGMASTER_TELEMETRY_SOCKET": "/run/x.sock", "RINGMASTER_JOB_ID": "j", "RINGMASTER_JOB_SECRET": "s",
            "RINGMASTER_INSTRUMENT": "1", "RANK": "3", "WORLD_SIZE": "8", "GROUP_WORLD_SIZE": "2"})
        self.assertEqual((env.socket, env.record_dir, env.job_id, env.secret, env.instrument, env.timeline),
                         ("/run/x.sock", "", "j", "s", True, False))
        self.assertEqual((env.rank, env.group_world_size), (3, 2))
        self.assertEqual(env.check_replicas_every, 100, "the console's default when unset")
        self.assertEqual(RankEnvironment.from_environ({"RINGMASTER_CHECK_REPLICAS_EVERY": "0"}).check_replicas_every,
                         0)

    def test_a_bad_number_is_named_and_ignored(self):
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            env = RankEnvironment.from_environ({"RANK": "three"})
        self.assertIsNone(env.rank)
        self.assertIn("RANK='three' is not a whole number", stderr.getvalue())


@mock.patch.dict(os.environ, {"RINGMASTER_TELEMETRY_SOCKET": "", "RINGMASTER_RECORD_DIR": ""})
class ApiInput(unittest.TestCase):
    def test_log_names_what_is_not_a_number(self):
        with self.assertRaisesRegex(TypeError, r"accuracy='high' is not a number"):
            ringmaster.log(accuracy="high")
        with self.assertRaisesRegex(TypeError, r"step=-1 is not a step index"):
            ringmaster.log(step=-1, loss=1.0)

    def test_step_names_a_bad_count(self):
        with self.assertRaisesRegex(TypeError, r"samples=2.5 is not a count"):
            ringmaster.step(samples=2.5)

    def test_without_an_agent_the_api_does_nothing(self):
        ringmaster.log(loss=1.0)
        ringmaster.step(samples=4)
        self.assertFalse(ringmaster.stop_requested())
        self.assertFalse(ringmaster.checkpoint_requested())


if __name__ == "__main__":
    unittest.main()
