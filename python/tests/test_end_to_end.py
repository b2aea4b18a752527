#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ringmaster package end to end: real 2-rank gloo DDP programs, started with the agent's environment, report
over a real Unix socket to a receiver that reads the frames with protobuf's own parser (receiver.py)."""

from __future__ import annotations

import collections
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ranks import PACKAGE_ROOT, PYTHON, Job, check_exit, free_port, ringmaster_lines  # noqa: E402

sys.path.insert(1, str(PACKAGE_ROOT))
from receiver import TelemetryReceiver, read_record_file  # noqa: E402

STEPS = 6
BATCH = 64
STEPS_PER_EPOCH = 512 // 2 // BATCH  # train_ddp.py: 512 samples over 2 ranks
PARAMETER_BYTES = (64 * 512 + 512 + 512 * 512 + 512 + 512 * 10 + 10) * 4
SLOW_MS = 60


def by_rank(records):
    out = collections.defaultdict(list)
    for r in records:
        out[r.rank].append(r)
    return out


class UnmodifiedDdpScript(unittest.TestCase):
    """train_ddp.py knows nothing of Ringmaster; the bootstrap instruments it. Rank 1 is slow (a sleep in its
    forward), the data comes through 2 forked DataLoader workers, the timeline is on from the start, and another
    sitecustomize is on the path after the bootstrap."""

    @classmethod
    def setUpClass(cls):
        cls.receiver = TelemetryReceiver()
        cls.folder = tempfile.TemporaryDirectory()
        other = Path(cls.folder.name)
        (other / "sitecustomize.py").write_text("import os\nos.environ['CHAINED_SITECUSTOMIZE'] = 'ran'\n")
        cls.job = Job(cls.receiver.address, timeline=True, extra_path=other)
        cls.results = cls.job.run("train_ddp.py", "--steps", str(STEPS), "--batch", str(BATCH),
                                  "--loader-workers", "2", "--slow-rank", f"1:{SLOW_MS}")
        cls.receiver.stop()
        cls.python_version, cls.torch_version = subprocess.run(
            [PYTHON, "-c", "import platform, torch; print(platform.python_version(), torch.__version__)"],
            capture_output=True, text=True, check=True).stdout.split()
        cls.steps = by_rank(cls.receiver.records("step"))
        cls.ops = by_rank(cls.receiver.records("allreduce"))

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def test_the_program_runs_as_it_would_without_ringmaster(self):
        check_exit(self, self.results)
        for r in self.results:
            self.assertIn(f"rank {r.rank} trained {STEPS} steps", r.stdout)
            # Ringmaster's one word, where the program needs USE_LIBUV=0 to make its store (test_torch.py)
            self.assertEqual(ringmaster_lines(r.stderr, but_libuv_notice=True), [])

    def test_a_rank_loads_neither_grpc_nor_protobuf(self):
        for r in self.results:
            self.assertIn(f"rank {r.rank} rpc modules: none", r.stdout)

    def test_another_sitecustomize_still_runs(self):
        for r in self.results:
            self.assertIn(f"rank {r.rank} chained sitecustomize: ran", r.stdout)

    def test_each_rank_presents_the_job_and_its_secret_and_says_goodbye(self):
        # One connection per rank: the forked DataLoader workers never speak on their parent's socket.
        hellos = sorted((h.rank, h.launched_rank, h.world_size) for h in self.receiver.hellos)
        self.assertEqual(hellos, [(0, 0, 2), (1, 1, 2)])
        for hello in self.receiver.hellos:
            self.assertEqual((hello.job_id, hello.secret), (self.job.job_id, self.job.secret))
        self.assertTrue(self.receiver.requests)
        for request in self.receiver.requests:
            self.assertTrue(all(self._rank_of(r) == request.rank for r in request.batch.records))
        self.assertEqual({p.rank for p in self.receiver.polls}, {0, 1})
        self.assertEqual(sorted(self.receiver.byes), [0, 1])

    def test_each_rank_says_what_it_runs_on(self):
        runtimes = {r.rank: r for r in self.receiver.records("runtime")}
        self.assertEqual(sorted(runtimes), [0, 1])
        for runtime in runtimes.values():
            self.assertEqual(runtime.python, self.python_version)
            self.assertEqual(runtime.torch, self.torch_version)
            self.assertEqual(runtime.backend, "gloo")
            self.assertGreater(runtime.pid, 0)

    @staticmethod
    def _rank_of(record):
        body = getattr(record, record.WhichOneof("body"))
        return body.reporting_rank if record.HasField("stall") else body.rank

    def test_each_rank_reports_each_step_once_with_its_phases(self):
        self.assertEqual(sorted(self.steps), [0, 1])
        for rank, steps in self.steps.items():
            self.assertEqual([s.step for s in steps], list(range(STEPS)), f"rank {rank}")
            for s in steps:
                where = f"rank {rank} step {s.step}"
                self.assertEqual(s.samples, BATCH, where)
                self.assertEqual(s.epoch, s.step // STEPS_PER_EPOCH, where)
                self.assertGreater(s.forward_ns, 0, where)
                self.assertGreater(s.backward_ns, 0, where)
                self.assertGreater(s.comm_wait_ns, 0, where)
                self.assertGreater(s.optimizer_ns, 0, where)
                phases = s.data_ns + s.forward_ns + s.backward_ns + s.comm_wait_ns + s.optimizer_ns
                self.assertLessEqual(phases, s.total_ns, where)
                self.assertAlmostEqual(s.lr, 0.05, where)
                self.assertTrue(math.isfinite(s.loss) and s.loss > 0, where)
                # a step starts where the one before it ended; the first one at its forward
                if s.step == 0:
                    self.assertEqual(s.data_ns, 0, where)
                else:
                    before = steps[s.step - 1]
                    self.assertEqual(s.start_ns, before.start_ns + before.total_ns, where)
                    self.assertGreater(s.data_ns, 0, where)

    def test_the_slow_rank_computes_longer_and_the_other_waits_for_it(self):
        slow = self.steps[1]
        for s in slow:
            self.assertGreaterEqual(s.forward_ns, SLOW_MS * 1_000_000, f"step {s.step}")
        wait = {rank: statistics.median(s.comm_wait_ns for s in steps[1:]) for rank, steps in self.steps.items()}
        self.assertGreater(wait[0], wait[1])
        self.assertGreater(wait[0], SLOW_MS * 1_000_000 / 2)

    def test_every_bucket_is_an_allreduce_op(self):
        for rank in (0, 1):
            per_step = collections.defaultdict(list)
            for op in self.ops[rank]:
                per_step[op.step].append(op)
            self.assertEqual(sorted(per_step), list(range(STEPS)), f"rank {rank}")
            steps = {s.step: s for s in self.steps[rank]}
            for step, ops in per_step.items():
                where = f"rank {rank} step {step}"
                self.assertEqual(sum(op.bytes for op in ops), PARAMETER_BYTES, where)
                self.assertEqual(len({op.bucket for op in ops}), len(ops), where)
                self.assertEqual(sum(op.tensors for op in ops), 6, where)
                s = steps[step]
                for op in ops:
                    self.assertLessEqual(s.start_ns, op.start_ns, where)
                    self.assertLess(op.start_ns, op.end_ns, where)
                    self.assertLessEqual(op.end_ns, s.start_ns + s.total_ns, where)
                    seconds = (op.end_ns - op.start_ns) * 1e-9
                    self.assertAlmostEqual(op.latency_us, seconds * 1e6, places=3)
                    self.assertAlmostEqual(op.algbw_gbps, op.bytes / seconds / 1e9, places=9)
                    self.assertAlmostEqual(op.busbw_gbps, op.algbw_gbps * 2 * (2 - 1) / 2, places=9)
        self.assertEqual(len([op for op in self.ops[0] if op.step == 1]), 2, "two buckets")

    def test_ranks_share_the_job_clock(self):
        # An all-reduce cannot end on one rank before it has begun on the other.
        ops = {(op.rank, op.step, op.bucket): op for rank_ops in self.ops.values() for op in rank_ops}
        for (rank, step, bucket), op in ops.items():
            peer = ops[(1 - rank, step, bucket)]
            self.assertGreaterEqual(op.end_ns, peer.start_ns, f"rank {rank} step {step} bucket {bucket}")

    def test_memory_every_step(self):
        for rank, samples in by_rank(self.receiver.records("memory")).items():
            self.assertEqual([m.step for m in samples], list(range(STEPS)), f"rank {rank}")
            for m in samples:
                self.assertGreater(m.rss_bytes, 10 << 20)
                self.assertGreater(m.heap_bytes, 0)
                self.assertGreaterEqual(m.host_total_bytes, m.rss_bytes)
                self.assertEqual((m.device_used_bytes, m.device_total_bytes), (0, 0))

    def test_timeline_lanes_as_the_worker_names_them(self):
        events = by_rank(self.receiver.records("timeline"))
        self.assertEqual(sorted(events), [0, 1])
        for rank, rank_events in events.items():
            compute = collections.Counter(e.name for e in rank_events if e.lane == "compute")
            self.assertEqual(compute["FORWARD"], STEPS)
            self.assertEqual(compute["BACKWARD"], STEPS)
            self.assertEqual(compute["OPTIMIZER"], STEPS)
            self.assertEqual(compute["DATA"], STEPS - 1)  # the first step has no data wait
            comm = [e for e in rank_events if e.lane == "comm"]
            self.assertEqual(len(comm), len(self.ops[rank]))
            for e in comm:
                self.assertEqual(e.name, "ALLREDUCE")
                self.assertGreater(int(e.args["bytes"]), 0)
            for e in rank_events:
                self.assertLessEqual(e.start_ns, e.end_ns)

    def test_a_summary_per_rank_at_exit(self):
        summaries = {s.rank: s for s in self.receiver.records("summary")}
        self.assertEqual(sorted(summaries), [0, 1])
        self.assertNotEqual(summaries[0].param_checksum, "")
        self.assertEqual(summaries[0].param_checksum, summaries[1].param_checksum, "DDP keeps ranks equal")
        for rank, summary in summaries.items():
            self.assertEqual(summary.steps, STEPS)
            self.assertGreater(summary.samples_per_s, 0)
            self.assertEqual(summary.final_loss, self.steps[rank][-1].loss)
            self.assertLess(summary.test_accuracy, 0, "not evaluated")

    def test_telemetry_health_counts_nothing_dropped(self):
        health = by_rank(self.receiver.records("health"))
        self.assertEqual(sorted(health), [0, 1])
        for rank, reports in health.items():
            self.assertGreater(reports[-1].records_sent, STEPS)
            self.assertEqual(reports[-1].records_dropped, 0)


class ProgramsOwnCommunicationHook(unittest.TestCase):
    def test_the_hook_still_runs_and_its_allreduces_are_timed(self):
        receiver = TelemetryReceiver()
        results = Job(receiver.address).run("train_ddp.py", "--steps", "4", "--own-hook")
        receiver.stop()
        check_exit(self, results)
        ops = by_rank(receiver.records("allreduce"))
        for r in results:
            calls = int(r.stdout.split(f"rank {r.rank} own hook calls ")[1].split()[0])
            self.assertGreater(calls, 4, "two buckets a step once DDP has rebuilt them after the first")
            self.assertEqual(calls, len(ops[r.rank]), "one op per call of the program's hook")
            self.assertEqual({op.step for op in ops[r.rank]}, {0, 1, 2, 3})
        summaries = {s.rank: s.param_checksum for s in receiver.records("summary")}
        self.assertEqual(summaries[0], summaries[1], "the program's hook reduced the gradients")


class LoggedScalarsAndABuiltinHook(unittest.TestCase):
    def test_logged_values_become_scalars_and_the_step_loss(self):
        receiver = TelemetryReceiver()
        results = Job(receiver.address).run("train_with_api.py", "--mode", "log", "--steps", "5")
        receiver.stop()
        check_exit(self, results)
        scalars = by_rank(receiver.records("scalar"))
        steps = by_rank(receiver.records("step"))
        summaries = {s.rank: s for s in receiver.records("summary")}
        for rank in (0, 1):
            losses = {s.step: s.value for s in scalars[rank] if s.name == "loss"}
            accuracies = [s for s in scalars[rank] if s.name == "accuracy"]
            self.assertEqual(sorted(losses), list(range(5)))
            self.assertEqual([a.step for a in accuracies], list(range(5)))
            for a in accuracies:
                self.assertTrue(0 <= a.value <= 1, a.value)
                self.assertAlmostEqual(a.value * 12, round(a.value * 12), places=4, msg="a fraction of 12 samples")
            self.assertEqual({s.step: s.loss for s in steps[rank]}, losses, "the logged loss is the step's")
            self.assertEqual(summaries[rank].test_accuracy, accuracies[-1].value)
            self.assertEqual(summaries[rank].final_loss, losses[4])
        # torch's built-in fp16 compression runs in its Python form, timed
        ops = by_rank(receiver.records("allreduce"))
        for rank in (0, 1):
            self.assertEqual({op.step for op in ops[rank]}, set(range(5)))
        self.assertEqual(summaries[0].param_checksum, summaries[1].param_checksum)


class ControlFromTheConsole(unittest.TestCase):
    def test_timeline_on_then_stop(self):
        receiver = TelemetryReceiver()
        job = Job(receiver.address)
        job.start("train_with_api.py", "--mode", "stop")
        try:
            self._wait(lambda: {s.rank for s in receiver.records("step") if s.step >= 3} == {0, 1}, "steps")
            self.assertEqual(receiver.records("timeline"), [], "no timeline until the console asks")
            for rank in (0, 1):
                receiver.send_control(rank, timeline_on=True)
            self._wait(lambda: {e.rank for e in receiver.records("timeline")} == {0, 1}, "timeline events")
            for rank in (0, 1):
                receiver.send_control(rank, stop=True)
            results = job.wait(timeout=60)
        finally:
            receiver.stop()
        check_exit(self, results)
        stopped = {int(r.stdout.split("stopped after ")[1].split()[0]) for r in results}
        self.assertEqual(len(stopped), 1, "every rank stops at the same step")
        self.assertLess(stopped.pop(), 2000)
        self.assertGreater(min(e.step for e in receiver.records("timeline")), 2)

    def _wait(self, condition, what, timeout=60):
        deadline = time.monotonic() + timeout
        while not condition():
            self.assertLess(time.monotonic(), deadline, f"no {what} within {timeout} s")
            time.sleep(0.05)


class NoAgentListening(unittest.TestCase):
    def test_the_program_trains_on(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        results = Job(str(Path(folder.name) / "nobody.sock")).run("train_ddp.py", "--steps", "3")
        check_exit(self, results)
        for r in results:
            self.assertIn(f"rank {r.rank} trained 3 steps", r.stdout)
            warnings = ringmaster_lines(r.stderr, but_libuv_notice=True)
            self.assertEqual(len(warnings), 1, r.stderr)
            self.assertIn("is not taking telemetry", warnings[0])
            self.assertIn("training goes on", warnings[0])

    def test_a_refused_rank_is_told_why_and_trains_on(self):
        receiver = TelemetryReceiver()
        job = Job(receiver.address)
        receiver.refuse_secret = job.secret
        results = job.run("train_ddp.py", "--steps", "3")
        receiver.stop()
        check_exit(self, results)
        self.assertEqual(receiver.requests, [])
        for r in results:
            warnings = ringmaster_lines(r.stderr, but_libuv_notice=True)
            self.assertEqual(len(warnings), 1, r.stderr)
            self.assertIn("refused this rank: not this secret", warnings[0])


class OfflineRecording(unittest.TestCase):
    """No agent: with RINGMASTER_RECORD_DIR each rank writes its frames to a file of its own there, DataLoader
    workers forked or not."""

    def test_each_rank_writes_a_record_file(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        records = Path(folder.name) / "run"
        results = Job("", record_dir=str(records)).run(
            "train_ddp.py", "--steps", "4", "--loader-workers", "2")
        check_exit(self, results)
        for r in results:
            self.assertEqual(ringmaster_lines(r.stderr, but_libuv_notice=True), [])
            self.assertIn(f"rank {r.rank} rpc modules: none", r.stdout)
        files = sorted(records.iterdir())
        self.assertEqual([f.name.split("-")[0] for f in files], ["rank0", "rank1"])
        for rank, path in enumerate(files):
            frames = read_record_file(str(path))
            kinds = [f.WhichOneof("body") for f in frames]
            self.assertEqual((kinds[0], kinds[-1]), ("hello", "bye"), path)
            self.assertEqual(set(kinds[1:-1]), {"batch"}, path)
            hello = frames[0].hello
            self.assertEqual((hello.rank, hello.world_size, hello.secret), (rank, 2, ""))
            self.assertEqual(hello.job_id, "job-python-test")
            steps = [r.step.step for f in frames[1:-1] for r in f.batch.records if r.WhichOneof("body") == "step"]
            self.assertEqual(steps, [0, 1, 2, 3], path)

    def test_the_import_of_a_recording_finds_its_straggler(self):
        # As the docs say: PYTHONPATH from `ringmaster python-path`, a record folder, no agent; then one import.
        ringmaster = PACKAGE_ROOT.parent / "bin" / "ringmaster"
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        records, store = Path(folder.name) / "run", Path(folder.name) / "runs.sqlite"
        path = subprocess.run([ringmaster, "python-path"], capture_output=True, text=True, check=True).stdout.strip()
        job = Job("", record_dir=str(records), instrument=False, extra_path=Path(path))
        results = job.run("train_ddp.py", "--steps", "40", "--slow-rank", f"1:{SLOW_MS}")
        check_exit(self, results)
        imported = subprocess.run([ringmaster, "import", records, "--store", store], capture_output=True, text=True)
        self.assertEqual(imported.returncode, 0, imported.stdout + imported.stderr)
        self.assertIn("rank 1", imported.stdout)
        shown = subprocess.run([ringmaster, "show", "1", "--store", store], capture_output=True, text=True)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertIn("2 ranks", shown.stdout)
        self.assertRegex(shown.stdout, r"(?i)straggler.*rank 1|rank 1.*straggl", shown.stdout)


class ExplicitApiWithoutInstrumentation(unittest.TestCase):
    # Uninstrumented, nothing sets USE_LIBUV=0 for the program before it initialises its group: where torch's
    # TCPStore lacks libuv (Debian's torch 2.6) its user does, as here; torch 1.13 ignores it.
    @mock.patch.dict(os.environ, {"USE_LIBUV": "0"})
    def test_watch_and_step_measure_a_plain_model(self):
        receiver = TelemetryReceiver()
        results = Job(receiver.address, instrument=False).run("train_with_api.py", "--mode", "watch", "--steps", "5")
        receiver.stop()
        check_exit(self, results)
        steps = by_rank(receiver.records("step"))
        self.assertEqual(sorted(steps), [0, 1])
        for rank, rank_steps in steps.items():
            self.assertEqual([s.step for s in rank_steps], list(range(5)))
            for s in rank_steps:
                self.assertEqual(s.samples, 12)
                self.assertGreater(s.forward_ns, 0)
                self.assertGreater(s.backward_ns, 0)
                self.assertGreater(s.optimizer_ns, 0)
                self.assertEqual(s.comm_wait_ns, 0, "no DDP: the loop's own all-reduces are not backward's")
        self.assertEqual(receiver.records("allreduce"), [], "only DDP buckets are all-reduce ops")


if __name__ == "__main__":
    unittest.main()
