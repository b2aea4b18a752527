# SPDX-License-Identifier: GPL-3.0-or-later
"""Turns what a training loop does (forward, backward, optimizer step) into per-step phase times.

A step ends when the optimizer's step ends (or where the program calls ringmaster.step()) and the next one begins
there. Within a step, possibly over several micro-batches (gradient accumulation):

  data       from the previous step's end (or the previous micro-batch's backward) to the next forward
  forward    from the model's forward to the start of backward (the loss computed on the output included)
  backward   backward compute: to the moment the autograd engine has run every node, before DDP waits for its
             all-reduces
  comm wait  exposed communication wait: from there to the end of backward, and the time a program's optimizer
             waits for its gradients' all-reduces (Horovod's DistributedOptimizer.synchronize)
  optimizer  the optimizer's step, less that wait

The first step begins at its first forward (its data wait is 0). A step's record goes out when the next step
begins, so that a loss the program logs after the optimizer step still lands in it.

The training thread calls these methods; `compute_end` may come from the autograd engine's thread while the
training thread waits inside backward.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Protocol

from ringmaster._records import StepRecord, TimelineRecord


class StepSink(Protocol):
    @property
    def timeline_on(self) -> bool: ...
    def record(self, record: Any) -> None: ...
    def step_ended(self, record: StepRecord, now: int) -> None: ...


class StepTracker:
    def __init__(self, sink: StepSink, now: Callable[[], int]) -> None:
        self._sink = sink
        self._now = now
        self.step = 0                               # index of the step in progress, or of the next one
        self.epoch = 0
        self.backwards = 0                          # backward passes begun
        self.explicit = False                       # the program marks step ends with ringmaster.step()
        self.last: Optional[StepRecord] = None      # the last step that ended
        self._open: Optional[StepRecord] = None     # the step in progress
        self._ended: Optional[StepRecord] = None    # ended, not yet sent
        self._mark: Optional[int] = None            # end of the last activity: a step's end or a backward's
        self._forward_start: Optional[int] = None
        self._backward_start: Optional[int] = None
        self._compute_end: Optional[int] = None
        self._optimizer_start: Optional[int] = None
        self._comm_start: Optional[int] = None
        self._comm_in_optimizer = 0                 # of the optimizer's step: its wait for all-reduces (ns)
        # What the training thread does now, for heartbeats read from the telemetry thread (one tuple, replaced
        # whole, so that a reader never sees a phase with another phase's start).
        self.phase = ("idle", now())

    def _enter(self, phase: str, since: int) -> None:
        self.phase = (phase, since)

    # -- what the instrumentation reports ---------------------------------------------------------------------

    def forward_begin(self, samples: int) -> None:
        now = self._now()
        step = self._ensure_open(now)
        if self._forward_start is None:
            if self._mark is not None and now > self._mark:
                step.data_ns += now - self._mark
                self._timeline("DATA", self._mark, now)
            self._forward_start = now
            self._enter("forward", now)
        step.samples += samples

    def backward_begin(self, loss: Any) -> None:
        now = self._now()
        step = self._ensure_open(now)
        if self._forward_start is not None:
            step.forward_ns += now - self._forward_start
            self._timeline("FORWARD", self._forward_start, now)
            self._forward_start = None
        self._backward_start = now
        self._compute_end = None
        self._enter("backward", now)
        self.backwards += 1
        if loss is not None:
            step.losses.append(loss)

    def compute_end(self) -> None:
        if self._backward_start is not None:
            self._compute_end = self._now()
            self._enter("comm_wait", self._compute_end)

    def backward_end(self) -> None:
        if self._backward_start is None or self._open is None:
            return
        now = self._now()
        compute_end = self._compute_end if self._compute_end is not None else now
        self._open.backward_ns += compute_end - self._backward_start
        self._open.comm_wait_ns += now - compute_end
        self._timeline("BACKWARD", self._backward_start, compute_end)
        self._backward_start = None
        self._compute_end = None
        self._mark = now
        self._enter("data", now)

    def optimizer_begin(self) -> None:
        self._optimizer_start = self._now()
        self._comm_in_optimizer = 0
        self._enter("optimizer", self._optimizer_start)

    def optimizer_end(self, lr: Any) -> None:
        start, self._optimizer_start = self._optimizer_start, None
        if start is None or self._open is None:
            return  # an optimizer step with no forward or backward before it is not a training step
        now = self._now()
        self._open.optimizer_ns += max(0, now - start - self._comm_in_optimizer)
        self._open.lr = lr
        self._timeline("OPTIMIZER", start, now)
        if not self.explicit:
            self._end(now)

    def comm_begin(self) -> tuple:
        """The program waits for its gradients' all-reduces (a Horovod optimizer's synchronize). Returns what
        comm_end needs: the phase to go back to."""
        before = self.phase
        self._comm_start = self._now()
        self._enter("comm_wait", self._comm_start)
        return before

    def comm_end(self, before: tuple) -> None:
        start, self._comm_start = self._comm_start, None
        self.phase = before
        if start is None:
            return
        waited = self._now() - start
        if self._optimizer_start is not None:
            self._comm_in_optimizer += waited
        if self._open is not None:
            self._open.comm_wait_ns += waited

    def waiting(self) -> tuple:
        """The program waits in a collective of its own: heartbeats say so; no phase of the step changes."""
        before = self.phase
        self._enter("comm_wait", self._now())
        return before

    def done_waiting(self, before: tuple) -> None:
        self.phase = before

    def end_step(self, samples: Optional[int], loss: Any) -> None:
        """ringmaster.step(): the program says where its steps end; the optimizer no longer decides."""
        if not self.explicit and self._open is None and self._ended is not None:
            # The first call, right after an optimizer step ended the step: that step is the one meant.
            self.explicit = True
            self._apply(self._ended, samples, loss)
            return
        self.explicit = True
        now = self._now()
        self._apply(self._ensure_open(now), samples, loss)
        self._end(now)

    @staticmethod
    def _apply(step: StepRecord, samples: Optional[int], loss: Any) -> None:
        if samples is not None:
            step.samples = samples
        if loss is not None:
            step.logged_loss = loss

    def log_loss(self, loss: Any) -> None:
        target = self._open or self._ended
        if target is not None:
            target.logged_loss = loss

    def logging_step(self) -> int:
        """The step a logged value belongs to: the one in progress, else the one that just ended."""
        if self._open is not None:
            return self._open.step
        if self.last is not None:
            return self.last.step
        return self.step

    def where(self) -> tuple:
        """(index of the last completed step or -1, phase, since when): what a heartbeat says."""
        phase, since = self.phase
        last = self.last
        return (last.step if last is not None else -1, phase, since)

    def close(self) -> None:
        """Sends the step that ended last; a step still in progress never ended and is not a step."""
        self._send_ended()

    # -- bookkeeping ---------------------------------------------------------------------------------------------

    def _ensure_open(self, now: int) -> StepRecord:
        if self._open is None:
            self._send_ended()
            start = self._mark if self._mark is not None else now
            self._open = StepRecord(step=self.step, epoch=self.epoch, start_ns=start)
        return self._open

    def _end(self, now: int) -> None:
        step = self._open
        assert step is not None
        step.total_ns = now - step.start_ns
        self._open = None
        self._ended = step
        self.last = step
        self.step += 1
        self._mark = now
        self._forward_start = None
        self._backward_start = None
        self._enter("data", now)
        self._sink.step_ended(step, now)

    def _send_ended(self) -> None:
        if self._ended is not None:
            self._sink.record(self._ended)
            self._ended = None

    def _timeline(self, name: str, start: int, end: int) -> None:
        if self._sink.timeline_on:
            step = self._open.step if self._open is not None else self.step
            self._sink.record(TimelineRecord("compute", name, start, end, step))
