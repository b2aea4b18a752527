# SPDX-License-Identifier: GPL-3.0-or-later
"""broadcast_parameters, broadcast_optimizer_state, broadcast_object and allgather_object, as Horovod's."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import torch
import torch.distributed as dist

from ringmaster._hvd import basics, ops, optimizer as distributed, stall, telemetry
from ringmaster._hvd.basics import check_process_set, global_process_set


def _object_group() -> Any:
    return basics.program_group(torch.empty(0))


def broadcast_object(obj: Any, root_rank: int = 0, name: Optional[str] = None,
                     process_set: Any = global_process_set) -> Any:
    """`obj` as root_rank has it (pickled), on every rank."""
    check_process_set(process_set, "hvd.broadcast_object")
    basics._job_or_raise()
    if basics.size() == 1:
        return obj
    holder = [obj]
    token = stall.launched("program", name or "broadcast_object")
    try:
        with telemetry.collective_wait():
            dist.broadcast_object_list(holder, src=root_rank, group=_object_group())
    finally:
        stall.finished(token)
    return holder[0]


def allgather_object(obj: Any, name: Optional[str] = None, process_set: Any = global_process_set) -> List[Any]:
    """Every rank's `obj`, in rank order."""
    check_process_set(process_set, "hvd.allgather_object")
    basics._job_or_raise()
    if basics.size() == 1:
        return [obj]
    gathered: List[Any] = [None] * basics.size()
    token = stall.launched("program", name or "allgather_object")
    try:
        with telemetry.collective_wait():
            dist.all_gather_object(gathered, obj, group=_object_group())
    finally:
        stall.finished(token)
    return gathered


def broadcast_parameters(params: Any, root_rank: int) -> None:
    """Root_rank's values into every rank's parameters and buffers: a state_dict (by sorted key),
    named_parameters() or parameters() as a list."""
    if isinstance(params, dict):
        items = sorted(params.items())
    elif isinstance(params, list):
        items = [p if isinstance(p, tuple) else (None, p) for p in params]
    else:
        raise ValueError(f"invalid params of type: {type(params)}")
    handles = []
    for name, p in items:
        if not isinstance(p, torch.Tensor):
            raise ValueError(f"hvd.broadcast_parameters: {name or 'an entry'} is a {type(p).__name__}, not a tensor; "
                             f"pass model.state_dict() or model.named_parameters()")
        target = p.data if isinstance(p, torch.nn.Parameter) or p.requires_grad else p
        handles.append(ops.broadcast_async_(target, root_rank, name))
    for handle in handles:
        ops.synchronize(handle)


def _initialise_state(optimizer: torch.optim.Optimizer) -> None:
    """An optimizer that has not stepped has no state to send: one step on zero gradients makes it, as Horovod
    does (the program's own optimizer's step, without the gradients' reduction)."""
    for group in optimizer.param_groups:
        for p in group["params"]:
            if p.requires_grad and p.grad is None:
                p.grad = torch.zeros_like(p)
    if distributed.is_distributed(optimizer):
        distributed.base_step(optimizer)
    else:
        optimizer.step()
    optimizer.zero_grad()


def broadcast_optimizer_state(optimizer: torch.optim.Optimizer, root_rank: int, model: Any = None) -> None:
    """Root_rank's optimizer state on every rank: the groups' options and the per-parameter state (its tensors
    in place, scalars and anything else by pickle)."""
    if isinstance(optimizer, torch.optim.LBFGS):
        raise ValueError("cannot broadcast torch.optim.LBFGS state")
    basics._job_or_raise()
    if basics.size() == 1:
        return
    if not optimizer.state_dict()["state"]:
        _initialise_state(optimizer)
    params = [p for group in optimizer.param_groups for p in group["params"]]
    # Root's layout first: which parameter holds which state, tensors by shape and dtype, the rest by value.
    layout: Dict[int, Dict[str, Tuple[str, Any]]] = {}
    for i, p in enumerate(params):
        for key, value in optimizer.state.get(p, {}).items():
            if isinstance(value, torch.Tensor):
                layout.setdefault(i, {})[key] = ("tensor", (tuple(value.shape), str(value.dtype)))
            else:
                layout.setdefault(i, {})[key] = ("value", value)
    options = [{k: v for k, v in group.items() if k != "params"} for group in optimizer.param_groups]
    layout, options = broadcast_object((layout, options), root_rank, "optimizer state layout")
    for group, chosen in zip(optimizer.param_groups, options):
        group.update(chosen)
    handles = []
    for i in sorted(layout):
        p = params[i]
        state = optimizer.state[p]
        for key in sorted(layout[i]):
            kind, what = layout[i][key]
            if kind == "value":
                state[key] = what
                continue
            shape, dtype = what
            current = state.get(key)
            if not isinstance(current, torch.Tensor) or tuple(current.shape) != shape or str(current.dtype) != dtype:
                state[key] = current = torch.zeros(shape, dtype=getattr(torch, dtype.split(".")[-1]),
                                                   device=p.device)
            handles.append(ops.broadcast_async_(current, root_rank, f"optimizer.state.{i}.{key}"))
    for handle in handles:
        ops.synchronize(handle)
