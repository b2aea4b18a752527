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
from ringmaster._records import AllreduceRecord, Encoder, StepRecord, TimelineRecord  # noqa: E402
from ringmaster._steps import StepTracker  # noqa: E402
from ringmaster._telemetry import RecordBuffer  # noqa: E402


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


class Encoding(unittest.TestCase):
    def test_allreduce_bandwidths_follow_nccl_tests(self):
        encoder = Encoder(rank=3)
        op = AllreduceRecord(step=7, bucket=1, bytes=4_000_000, start_ns=1_000, end_ns=2_001_000, tensors=5,
                             world_size=4, timeline=True)
        record, event = encoder.encode(op)
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
        self.assertEqual(encoder.encode(step)[0].step.loss, 0.75)
        step.logged_loss = 1.5
        self.assertEqual(encoder.encode(step)[0].step.loss, 1.5)


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
            "RINGMASTER_AGENT": "127.0.0.1:4000", "RINGMASTER_JOB_ID": "j", "RINGMASTER_JOB_SECRET": "s",
            "RINGMASTER_INSTRUMENT": "1", "RANK": "3", "WORLD_SIZE": "8", "GROUP_WORLD_SIZE": "2"})
        self.assertEqual((env.agent, env.job_id, env.secret, env.instrument, env.timeline),
                         ("127.0.0.1:4000", "j", "s", True, False))
        self.assertEqual((env.rank, env.group_world_size), (3, 2))

    def test_a_bad_number_is_named_and_ignored(self):
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            env = RankEnvironment.from_environ({"RANK": "three"})
        self.assertIsNone(env.rank)
        self.assertIn("RANK='three' is not a whole number", stderr.getvalue())


@mock.patch.dict(os.environ, {"RINGMASTER_AGENT": ""})
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
