#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Ringmaster's Horovod-compatible layer with real ranks: Horovod scripts on 2 and 4 gloo ranks, started with the
agent's environment and RINGMASTER_HOROVOD=1, as `ringmaster run --horovod` starts them.

  the API: horovod_api.py checks Horovod's semantics of every call it makes, on 2 and 4 ranks
  training: the example pair (examples/python) trains one model on Fashion-MNIST with DDP and with Horovod's
            API; with Average they agree step by step, also with backward_passes_per_step=2, and fp16
            compression stays close; every rank ends with the same parameters
  telemetry: steps with their phases, the optimizer's wait for the gradients, each fused all-reduce with its
            bytes, reported over a real Unix socket
  stalls:   a rank that calls a collective the others do not is named within seconds
"""

from __future__ import annotations

import collections
import re
import sys
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from ranks import PACKAGE_ROOT, Job, check_exit  # noqa: E402

sys.path.insert(1, str(PACKAGE_ROOT))
from receiver import TelemetryReceiver  # noqa: E402

EXAMPLES = HERE.parents[1] / "examples" / "python"
LAYER_NOTICE = "horovod is Ringmaster's Horovod-compatible layer"


class HorovodJob(Job):
    """A job whose ranks import Ringmaster's layer for `horovod`, as --horovod gives them."""

    def __init__(self, *args, environment=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.extra = dict(environment or {})

    def environment(self, rank, master_port):
        env = super().environment(rank, master_port)
        env["RINGMASTER_HOROVOD"] = "1"
        env.update(self.extra)
        return env


def losses(results):
    """{rank: [loss of each step]} from --print-losses lines."""
    out = collections.defaultdict(list)
    for r in results:
        for rank, step, loss in re.findall(r"rank (\d+) step (\d+) loss ([-\d.e]+)", r.stdout):
            out[int(rank)].append(float(loss))
    return dict(out)


def checksums(results):
    return {r.rank: re.search(r"parameters ([0-9a-f]+)", r.stdout).group(1) for r in results}


class TheApi(unittest.TestCase):
    def check(self, world_size):
        results = HorovodJob("", world_size=world_size).run("horovod_api.py", timeout=240)
        check_exit(self, results)
        for r in results:
            self.assertIn(f"rank {r.rank} all checks passed", r.stdout)
            self.assertEqual(len(re.findall(rf"rank {r.rank} ok ", r.stdout)), 14, r.stdout)
        # Rank 0 of the host says which Horovod runs; the others stay quiet.
        self.assertIn(LAYER_NOTICE, results[0].stderr)
        self.assertNotIn(LAYER_NOTICE, results[1].stderr)

    def test_on_2_ranks(self):
        self.check(2)

    def test_on_4_ranks(self):
        self.check(4)

    def test_without_the_flag_a_horovod_script_finds_no_horovod(self):
        job = Job("", world_size=1)
        results = job.run("horovod_api.py", timeout=60)
        self.assertNotEqual(results[0].returncode, 0)
        self.assertIn("No module named 'horovod'", results[0].stderr)


class TrainingAgreesWithDdp(unittest.TestCase):
    """The example pair: the same model, seed and data under DDP and under Horovod's API."""

    STEPS = 12

    def run_pair(self, world_size, *horovod_args):
        common = ("--steps", str(self.STEPS), "--samples", "4096", "--print-losses")
        ddp = Job("", world_size=world_size)
        ddp_results = ddp.run(str(EXAMPLES / "fashion_ddp.py"), *common, timeout=240)
        hvd = HorovodJob("", world_size=world_size)
        hvd_results = hvd.run(str(EXAMPLES / "fashion_horovod.py"), *common, *horovod_args, timeout=240)
        check_exit(self, ddp_results)
        check_exit(self, hvd_results)
        return ddp_results, hvd_results

    def assert_same_parameters_on_every_rank(self, results):
        sums = checksums(results)
        self.assertEqual(len(set(sums.values())), 1, sums)

    def assert_step_by_step(self, ddp_results, hvd_results, tolerance):
        ddp, hvd = losses(ddp_results), losses(hvd_results)
        self.assertEqual(sorted(ddp), sorted(hvd))
        for rank in ddp:
            self.assertEqual(len(hvd[rank]), self.STEPS)
            for step, (a, b) in enumerate(zip(ddp[rank], hvd[rank])):
                self.assertAlmostEqual(a, b, delta=tolerance, msg=f"rank {rank} step {step}")

    def test_on_2_ranks_they_agree_step_by_step(self):
        ddp, hvd = self.run_pair(2)
        self.assert_same_parameters_on_every_rank(ddp)
        self.assert_same_parameters_on_every_rank(hvd)
        self.assert_step_by_step(ddp, hvd, 1e-5)

    def test_on_4_ranks_they_agree_step_by_step(self):
        ddp, hvd = self.run_pair(4)
        self.assert_same_parameters_on_every_rank(hvd)
        self.assert_step_by_step(ddp, hvd, 1e-5)

    def test_two_backward_passes_per_step_make_the_same_steps(self):
        # Each step's 64 samples in 2 micro-batches of 32, each loss halved, reduced once per step.
        ddp, hvd = self.run_pair(2, "--accumulate", "2")
        self.assert_same_parameters_on_every_rank(hvd)
        self.assert_step_by_step(ddp, hvd, 1e-4)  # the sums are taken in another order

    def test_fp16_compression_stays_close(self):
        ddp, hvd = self.run_pair(2, "--fp16-allreduce")
        self.assert_same_parameters_on_every_rank(hvd)
        self.assert_step_by_step(ddp, hvd, 2e-3)
        self.assertNotEqual(checksums(ddp)[0], checksums(hvd)[0], "fp16 gradients must round somewhere")


def by_rank(records):
    out = collections.defaultdict(list)
    for r in records:
        out[r.rank].append(r)
    return out


# train_hvd.py's gradients: the first bucket holds the last layers up to 1 MiB, the second the rest.
LAST_LAYERS = (512 * 512 + 512 + 512 * 10 + 10)
FIRST_LAYER = (64 * 512 + 512)


class Telemetry(unittest.TestCase):
    STEPS = 6
    BATCH = 32

    @classmethod
    def setUpClass(cls):
        cls.receiver = TelemetryReceiver()
        cls.fp16_receiver = TelemetryReceiver()
        job = HorovodJob(cls.receiver.address, environment={"HOROVOD_TIMELINE": "/tmp/unused-timeline.json"})
        cls.results = job.run("train_hvd.py", "--steps", str(cls.STEPS), "--batch", str(cls.BATCH))
        fp16 = HorovodJob(cls.fp16_receiver.address)
        cls.fp16_results = fp16.run("train_hvd.py", "--steps", str(cls.STEPS), "--fp16")
        cls.receiver.stop()
        cls.fp16_receiver.stop()

    def test_the_script_trains(self):
        check_exit(self, self.results)
        check_exit(self, self.fp16_results)
        means = {re.search(r"mean loss ([\d.]+)", r.stdout).group(1) for r in self.results}
        self.assertEqual(len(means), 1, "hvd.allreduce of the loss is one mean on every rank")

    def test_every_optimizer_step_is_a_step_with_its_phases(self):
        steps = by_rank(self.receiver.records("step"))
        self.assertEqual(sorted(steps), [0, 1])
        for rank, records in steps.items():
            self.assertEqual([s.step for s in records], list(range(self.STEPS)), rank)
            for s in records:
                self.assertEqual(s.samples, self.BATCH, "the model's forward was found without DDP")
                self.assertGreater(s.forward_ns, 0)
                self.assertGreater(s.backward_ns, 0)
                self.assertGreater(s.optimizer_ns, 0)
                self.assertGreater(s.comm_wait_ns, 0, "synchronize() waits for the last bucket at least")
                self.assertLessEqual(s.data_ns + s.forward_ns + s.backward_ns + s.comm_wait_ns + s.optimizer_ns,
                                     s.total_ns * 1.001 + 1000, "the wait is not counted twice")
                self.assertTrue(0 < s.loss < 10, s.loss)

    def test_each_fused_bucket_is_an_allreduce_with_its_bytes(self):
        for receiver, element in ((self.receiver, 4), (self.fp16_receiver, 2)):
            ops = by_rank(receiver.records("allreduce"))
            self.assertEqual(sorted(ops), [0, 1])
            for rank, records in ops.items():
                per_step = collections.Counter(o.step for o in records)
                self.assertEqual(per_step, {s: 2 for s in range(self.STEPS)}, rank)
                sizes = sorted({(o.bucket, o.bytes, o.tensors) for o in records})
                # The first bucket carries one flag per rank for join() beside its gradients.
                self.assertEqual(sizes, [(0, (LAST_LAYERS + 2) * element, 4), (1, FIRST_LAYER * element, 2)])
                for o in records:
                    self.assertGreater(o.end_ns, o.start_ns)

    def test_horovod_timeline_turns_the_run_timeline_on(self):
        lanes = collections.Counter((t.lane, t.name) for t in self.receiver.records("timeline"))
        self.assertGreater(lanes[("comm", "ALLREDUCE")], 0, lanes)
        self.assertGreater(lanes[("compute", "FORWARD")], 0, lanes)
        self.assertIn("recorded as the run's timeline", self.results[0].stderr)
        self.assertEqual(self.fp16_receiver.records("timeline"), [])


class Stalls(unittest.TestCase):
    def test_a_rank_calling_a_collective_the_others_do_not_is_named_within_seconds(self):
        receiver = TelemetryReceiver()
        job = HorovodJob(receiver.address, world_size=4)
        job.start("train_hvd.py", "--steps", "20", "--extra-collective", "1:3")
        started = time.monotonic()
        try:
            deadline = started + 60
            reports = []
            while time.monotonic() < deadline and not reports:
                reports = [s for s in receiver.records("stall") if list(s.missing_ranks) == [1]]
                time.sleep(0.2)
            waited = time.monotonic() - started
        finally:
            for process in job.processes:
                process.kill()
            results = job.wait(30)
            receiver.stop()
        self.assertTrue(reports, "no stall report names rank 1")
        self.assertLess(waited, 30, "named within seconds")
        reporters = {s.reporting_rank for s in receiver.records("stall")}
        self.assertTrue(reporters <= {0, 2, 3}, reporters)
        for s in receiver.records("stall"):
            self.assertEqual(list(s.missing_ranks), [1], "only rank 1 is blamed")
            self.assertGreaterEqual(s.waited_s, 5)
            self.assertIn("4.weight", list(s.tensors), "the first bucket of the step rank 1 has not begun")
        self.assertIn("rank 1 waits in extra, which ranks 0, 2, 3 have not called", results[1].stderr)
        self.assertIn("rank 1 calls an allreduce no other rank calls", results[1].stdout)
        told = [r for r in results if "which rank 1 has not called" in r.stderr]
        self.assertTrue(told, [r.stderr for r in results])


if __name__ == "__main__":
    unittest.main()
