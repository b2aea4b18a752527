# SPDX-License-Identifier: GPL-3.0-or-later
"""Ringmaster's telemetry for PyTorch training programs.

Started by Ringmaster's agent with instrumentation on, an unmodified DDP script reports per-step phase times,
all-reduce operations, memory and (when asked) a timeline to the console, as ringmaster-worker's ranks do. A
program with its own loop can say more:

    import ringmaster, ringmaster.torch
    ringmaster.torch.watch(model, optimizer)      # instrument a model that is not DDP, or a program started
                                                  # without instrumentation
    ...
    ringmaster.log(loss=loss, accuracy=acc)       # named scalars of the current step, for the console
    ringmaster.step(samples=len(batch))           # where a step ends, when not at the optimizer's step
    if ringmaster.stop_requested(): break         # the console asked this run to stop

Every call is cheap and does nothing when nothing takes the records (neither RINGMASTER_TELEMETRY_SOCKET nor
RINGMASTER_RECORD_DIR is set), so a script runs the same with and without Ringmaster.
"""

from __future__ import annotations

import numbers
from typing import Any, Optional

from ringmaster import _session

__all__ = ["log", "step", "stop_requested", "checkpoint_requested"]


def _is_scalar(value: Any) -> bool:
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return True
    numel = getattr(value, "numel", None)  # a one-element tensor, read later on the telemetry thread
    return callable(numel) and numel() == 1


def log(step: Optional[int] = None, **scalars: Any) -> None:
    """Records named scalars (loss=..., accuracy=..., any number) for the step in progress, or for the step that
    just ended when called after the optimizer's step; `step` names the step instead. A logged "loss" becomes the
    step's loss; "accuracy" (or "test_accuracy", a fraction 0..1) goes into the rank's summary."""
    if step is not None and (not isinstance(step, int) or isinstance(step, bool) or step < 0):
        raise TypeError(f"ringmaster.log: step={step!r} is not a step index; pass a whole number >= 0 or leave it out")
    for name, value in scalars.items():
        if not _is_scalar(value):
            raise TypeError(f"ringmaster.log: {name}={value!r} is not a number; pass a float, an int or a "
                            f"one-element tensor")
    session = _session.ensure_started()
    if session is not None and scalars:
        session.log(step, scalars)


def step(samples: Optional[int] = None, loss: Any = None) -> None:
    """Ends the current step here. Use it where a loop's steps do not end at its optimizer's step; once called,
    only these calls end steps. `samples` (this rank's batch size) and `loss` override what was measured."""
    if samples is not None and (not isinstance(samples, int) or isinstance(samples, bool) or samples < 0):
        raise TypeError(f"ringmaster.step: samples={samples!r} is not a count; pass a whole number >= 0")
    if loss is not None and not _is_scalar(loss):
        raise TypeError(f"ringmaster.step: loss={loss!r} is not a number; pass a float or a one-element tensor")
    session = _session.ensure_started()
    if session is not None:
        session.tracker.end_step(samples, loss)


def stop_requested() -> bool:
    """True once the console has asked this rank to stop. Ranks may learn it at different steps: a DDP program
    stops where all ranks agree, with ringmaster.torch.stop_agreed()."""
    session = _session.current()
    return session is not None and session.control.stop_requested


def checkpoint_requested() -> bool:
    """True once per "checkpoint now" request from the console."""
    session = _session.current()
    if session is None or not session.control.checkpoint_requested:
        return False
    session.control.checkpoint_requested = False
    return True


def __getattr__(name: str) -> Any:
    # `import ringmaster` stays light; ringmaster.torch (which imports torch) loads on first use.
    if name == "torch":
        import importlib

        return importlib.import_module("ringmaster.torch")
    raise AttributeError(f"module 'ringmaster' has no attribute {name!r}")
