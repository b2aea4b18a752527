# SPDX-License-Identifier: GPL-3.0-or-later
"""Horovod's collectives on torch.distributed, with its handles: an `*_async` call launches and returns an int;
poll() says whether it is done, synchronize() waits and returns the result (None for a handle it does not know,
as Horovod). The plain calls are autograd functions with Horovod's gradients.

Horovod keys a collective by its name and negotiates; torch.distributed pairs collectives by the order each
process group issues them, so every rank must call the program's collectives in one order. A rank that calls
one the others do not is found by the stall inspector (stall.py), which names it within seconds.

Gloo takes neither bool nor bfloat16: such tensors travel as uint8 and float32 copies. A non-contiguous tensor
travels as a contiguous copy, written back for the in-place calls.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.distributed as dist

from ringmaster._hvd import basics, stall, telemetry
from ringmaster._hvd.basics import (Adasum, Average, HorovodInternalError, Max, Min, Product, Sum,
                                    check_process_set, global_process_set, not_supported, resolve_op)
from ringmaster._hvd.compression import Compression

_REDUCE_OPS = {Sum: dist.ReduceOp.SUM, Average: dist.ReduceOp.SUM, Min: dist.ReduceOp.MIN,
               Max: dist.ReduceOp.MAX, Product: dist.ReduceOp.PRODUCT}
_WIRE_TYPES = {torch.bool: torch.uint8, torch.bfloat16: torch.float32}


class _Pending:
    __slots__ = ("works", "finish", "tokens")

    def __init__(self, works: List[Any], finish: Callable[[], Any], tokens: List[Any]) -> None:
        self.works = works
        self.finish = finish
        self.tokens = tokens


_handles: Dict[int, _Pending] = {}
_handle_numbers = itertools.count(1)
_names = itertools.count()


def _name(kind: str, name: Optional[str]) -> str:
    return name if name else f"{kind}.noname.{next(_names)}"


def _handle(works: List[Any], finish: Callable[[], Any], tokens: List[Any]) -> int:
    number = next(_handle_numbers)
    _handles[number] = _Pending(works, finish, tokens)
    return number


def poll(handle: int) -> bool:
    """True once the collective behind `handle` is done, so that synchronize() will not wait."""
    pending = _handles.get(handle)
    if pending is None:
        raise ValueError(f"hvd.poll: handle {handle!r} is not a collective in flight (each handle is "
                         f"synchronized once)")
    return all(work is None or work.is_completed() for work in pending.works)


def synchronize(handle: int) -> Any:
    """Waits for the collective behind `handle` and returns its result."""
    pending = _handles.pop(handle, None)
    if pending is None:
        return None
    try:
        with telemetry.collective_wait():
            for work in pending.works:
                if work is not None:
                    work.wait()
    except RuntimeError as e:
        raise HorovodInternalError(str(e)) from e
    finally:
        for token in pending.tokens:
            stall.finished(token)
    return pending.finish()


# -- what travels -----------------------------------------------------------------------------------------------

def _wire(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor as the backend can send it: itself where it can."""
    wire_type = _WIRE_TYPES.get(tensor.dtype)
    if wire_type is not None:
        return tensor.to(wire_type)
    return tensor if tensor.is_contiguous() else tensor.contiguous()


def _check_tensor(tensor: Any, call: str) -> torch.Tensor:
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"{call}: expected a torch.Tensor, got {type(tensor).__name__}")
    if tensor.is_sparse:
        raise not_supported(call, "sparse tensors are not supported; pass tensor.to_dense() (or "
                                  "sparse_as_dense=True to DistributedOptimizer)")
    return tensor


def _scale(tensor: torch.Tensor, factor: float) -> None:
    if factor == 1.0:
        return
    if tensor.dtype.is_floating_point or tensor.is_complex():
        tensor.mul_(factor)
    else:  # integers scale as Horovod's do: through a double, truncated
        tensor.copy_((tensor.double() * factor).trunc().to(tensor.dtype))


# -- allreduce ------------------------------------------------------------------------------------------------

def _allreduce_into(tensor: torch.Tensor, output: torch.Tensor, name: Optional[str], op: int,
                    prescale_factor: float, postscale_factor: float, process_set: Any, call: str) -> int:
    check_process_set(process_set, call)
    _check_tensor(tensor, call)
    if op == Adasum:
        raise not_supported(call, "op=hvd.Adasum is not supported (Horovod has no Adasum over Gloo either); use "
                                  "op=hvd.Average")
    if op not in _REDUCE_OPS:
        raise ValueError(f"{call}: op={op!r} is not one of hvd.Average, hvd.Sum, hvd.Min, hvd.Max, hvd.Product")
    if output is not tensor:
        output.copy_(tensor)
    wire = _wire(output)
    _scale(wire, prescale_factor)
    group = basics.program_group(wire)
    token = stall.launched("program", _name("allreduce", name))
    work = dist.all_reduce(wire, op=_REDUCE_OPS[op], group=group, async_op=True)
    post = postscale_factor / basics.size() if op == Average else postscale_factor

    def finish() -> torch.Tensor:
        _scale(wire, post)
        if wire is not output:
            output.copy_(wire)
        return output

    return _handle([work], finish, [token])


def allreduce_async(tensor: torch.Tensor, average: Optional[bool] = None, name: Optional[str] = None,
                    op: Optional[int] = None, prescale_factor: float = 1.0, postscale_factor: float = 1.0,
                    process_set: Any = global_process_set) -> int:
    op = resolve_op(op, average)
    return _allreduce_into(tensor, tensor.clone(), name, op, prescale_factor, postscale_factor, process_set,
                           "hvd.allreduce_async")


def allreduce_async_(tensor: torch.Tensor, average: Optional[bool] = None, name: Optional[str] = None,
                     op: Optional[int] = None, prescale_factor: float = 1.0, postscale_factor: float = 1.0,
                     process_set: Any = global_process_set) -> int:
    op = resolve_op(op, average)
    return _allreduce_into(tensor, tensor, name, op, prescale_factor, postscale_factor, process_set,
                           "hvd.allreduce_async_")


def allreduce_(tensor: torch.Tensor, average: Optional[bool] = None, name: Optional[str] = None,
               op: Optional[int] = None, prescale_factor: float = 1.0, postscale_factor: float = 1.0,
               process_set: Any = global_process_set) -> torch.Tensor:
    return synchronize(allreduce_async_(tensor, average, name, op, prescale_factor, postscale_factor,
                                        process_set))


class _Allreduce(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, tensor: torch.Tensor, name: Optional[str], op: int, prescale_factor: float,
                postscale_factor: float, process_set: Any) -> torch.Tensor:
        ctx.op, ctx.prescale, ctx.postscale, ctx.process_set = op, prescale_factor, postscale_factor, process_set
        return synchronize(_allreduce_into(tensor, tensor.clone(), name, op, prescale_factor, postscale_factor,
                                           process_set, "hvd.allreduce"))

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        reduced = synchronize(_allreduce_into(grad, grad.clone(), None, ctx.op, ctx.prescale, ctx.postscale,
                                              ctx.process_set, "hvd.allreduce (backward)"))
        return reduced, None, None, None, None, None


def allreduce(tensor: torch.Tensor, average: Optional[bool] = None, name: Optional[str] = None,
              compression: Any = Compression.none, op: Optional[int] = None, prescale_factor: float = 1.0,
              postscale_factor: float = 1.0, process_set: Any = global_process_set) -> torch.Tensor:
    """A new tensor: `tensor` reduced over every rank (the mean by default)."""
    op = resolve_op(op, average)
    compressed, ctx = compression.compress(tensor)
    reduced = _Allreduce.apply(compressed, name, op, prescale_factor, postscale_factor, process_set)
    return compression.decompress(reduced, ctx)


# -- grouped allreduce: one collective per dtype and device, over the tensors flattened together --------------

def _grouped_into(tensors: Sequence[torch.Tensor], outputs: Sequence[torch.Tensor], name: Optional[str], op: int,
                  prescale_factor: float, postscale_factor: float, process_set: Any, call: str) -> int:
    tensors = [_check_tensor(t, call) for t in tensors]
    if not tensors:
        raise ValueError(f"{call}: no tensors given; pass a list of tensors")
    by_kind: Dict[Tuple[Any, Any], List[int]] = {}
    for i, t in enumerate(tensors):
        by_kind.setdefault((t.dtype, t.device), []).append(i)
    handles = []
    base = _name("grouped_allreduce", name)
    for n, members in enumerate(by_kind.values()):
        flat = torch.cat([tensors[i].reshape(-1) for i in members])
        handles.append((members, _allreduce_into(flat, flat, f"{base}.{n}", op, prescale_factor, postscale_factor,
                                                 process_set, call)))

    def finish() -> List[torch.Tensor]:
        for members, handle in handles:
            flat = synchronize(handle)
            offset = 0
            for i in members:
                count = tensors[i].numel()
                outputs[i].copy_(flat[offset:offset + count].view_as(tensors[i]))
                offset += count
        return list(outputs)

    return _handle([], finish, [])


def grouped_allreduce_async(tensors: Sequence[torch.Tensor], average: Optional[bool] = None,
                            name: Optional[str] = None, op: Optional[int] = None, prescale_factor: float = 1.0,
                            postscale_factor: float = 1.0, process_set: Any = global_process_set) -> int:
    op = resolve_op(op, average)
    return _grouped_into(tensors, [t.clone() for t in tensors], name, op, prescale_factor, postscale_factor,
                         process_set, "hvd.grouped_allreduce_async")


def grouped_allreduce_async_(tensors: Sequence[torch.Tensor], average: Optional[bool] = None,
                             name: Optional[str] = None, op: Optional[int] = None, prescale_factor: float = 1.0,
                             postscale_factor: float = 1.0, process_set: Any = global_process_set) -> int:
    op = resolve_op(op, average)
    return _grouped_into(tensors, tensors, name, op, prescale_factor, postscale_factor, process_set,
                         "hvd.grouped_allreduce_async_")


def grouped_allreduce_(tensors: Sequence[torch.Tensor], average: Optional[bool] = None, name: Optional[str] = None,
                       op: Optional[int] = None, prescale_factor: float = 1.0, postscale_factor: float = 1.0,
                       process_set: Any = global_process_set) -> List[torch.Tensor]:
    return synchronize(grouped_allreduce_async_(tensors, average, name, op, prescale_factor, postscale_factor,
                                                process_set))


def grouped_allreduce(tensors: Sequence[torch.Tensor], average: Optional[bool] = None, name: Optional[str] = None,
                      compression: Any = Compression.none, op: Optional[int] = None, prescale_factor: float = 1.0,
                      postscale_factor: float = 1.0, process_set: Any = global_process_set) -> List[torch.Tensor]:
    """New tensors, each reduced over every rank, in as few collectives as their dtypes allow. Its gradient is
    each tensor's own allreduce."""
    op = resolve_op(op, average)
    pairs = [compression.compress(t) for t in tensors]
    reduced = [_Allreduce.apply(t, None, op, prescale_factor, postscale_factor, process_set)
               for t, _ in pairs] if any(t.requires_grad for t, _ in pairs) and torch.is_grad_enabled() else \
        synchronize(grouped_allreduce_async([t for t, _ in pairs], None, name, op, prescale_factor,
                                            postscale_factor, process_set))
    return [compression.decompress(t, ctx) for t, (_, ctx) in zip(reduced, pairs)]


def sparse_allreduce_async(tensor: torch.Tensor, name: Optional[str] = None, op: Optional[int] = None,
                           process_set: Any = global_process_set) -> Callable[[], torch.Tensor]:
    """A sparse tensor summed (or averaged) over every rank through two allgathers; the handle is a callable
    returning the result, as Horovod's."""
    check_process_set(process_set, "hvd.sparse_allreduce_async")
    op = Average if op is None else op
    if op not in (Average, Sum):
        raise ValueError("hvd.sparse_allreduce_async: op must be hvd.Average or hvd.Sum")
    t = tensor.coalesce()
    indices = synchronize(allgather_async(t.indices().transpose(0, 1).contiguous(), _name("sparse.indices", name)))
    values = synchronize(allgather_async(t.values(), _name("sparse.values", name)))
    if op == Average:
        values = values / basics.size()

    def result() -> torch.Tensor:
        return torch.sparse_coo_tensor(indices.transpose(0, 1), values, t.size()).coalesce()

    return result


# -- allgather --------------------------------------------------------------------------------------------------

def _allgather(tensor: torch.Tensor, name: Optional[str], process_set: Any, call: str) -> int:
    """Every rank's tensor, concatenated along the first dimension, which may differ between ranks."""
    check_process_set(process_set, call)
    _check_tensor(tensor, call)
    n = basics.size()
    value = tensor.reshape(1) if tensor.dim() == 0 else tensor
    wire = _wire(value)
    group = basics.program_group(wire)
    label = _name("allgather", name)
    size_token = stall.launched("program", label + ".sizes")
    sizes = torch.tensor([wire.shape[0]], dtype=torch.int64, device=wire.device)
    all_sizes = [torch.empty_like(sizes) for _ in range(n)]
    try:
        with telemetry.collective_wait():
            dist.all_gather(all_sizes, sizes, group=group)
    finally:
        stall.finished(size_token)
    counts = [int(s.item()) for s in all_sizes]
    longest = max(counts)
    padded = wire
    if wire.shape[0] < longest:
        padded = torch.cat([wire, wire.new_zeros((longest - wire.shape[0],) + tuple(wire.shape[1:]))])
    pieces = [torch.empty_like(padded) for _ in range(n)]
    token = stall.launched("program", label)
    work = dist.all_gather(pieces, padded, group=group, async_op=True)

    def finish() -> torch.Tensor:
        gathered = torch.cat([piece[:count] for piece, count in zip(pieces, counts)])
        return gathered.to(tensor.dtype) if gathered.dtype != tensor.dtype else gathered

    return _handle([work], finish, [token])


def allgather_async(tensor: torch.Tensor, name: Optional[str] = None, process_set: Any = global_process_set) -> int:
    return _allgather(tensor, name, process_set, "hvd.allgather_async")


class _Allgather(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, tensor: torch.Tensor, name: Optional[str], process_set: Any) -> torch.Tensor:
        ctx.rows = tensor.shape[0] if tensor.dim() > 0 else 1
        ctx.process_set = process_set
        return synchronize(_allgather(tensor, name, process_set, "hvd.allgather"))

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        reduced = synchronize(_allreduce_into(grad, grad.clone(), None, Average, 1.0, 1.0, ctx.process_set,
                                              "hvd.allgather (backward)"))
        rows = synchronize(_allgather(torch.tensor([ctx.rows]), None, ctx.process_set, "hvd.allgather (backward)"))
        offset = int(rows[:basics.rank()].sum().item())
        return reduced.narrow(0, offset, ctx.rows), None, None


def allgather(tensor: torch.Tensor, name: Optional[str] = None, process_set: Any = global_process_set) -> torch.Tensor:
    return _Allgather.apply(tensor, name, process_set)


def grouped_allgather(tensors: Sequence[torch.Tensor], name: Optional[str] = None,
                      process_set: Any = global_process_set) -> List[torch.Tensor]:
    return [allgather(t, None if name is None else f"{name}.{i}", process_set) for i, t in enumerate(tensors)]


# -- broadcast --------------------------------------------------------------------------------------------------

def _broadcast_into(tensor: torch.Tensor, output: torch.Tensor, root_rank: int, name: Optional[str],
                    process_set: Any, call: str) -> int:
    check_process_set(process_set, call)
    _check_tensor(tensor, call)
    if not isinstance(root_rank, int) or not 0 <= root_rank < basics.size():
        raise ValueError(f"{call}: root_rank={root_rank!r} is not a rank of this job (0 to {basics.size() - 1})")
    if output is not tensor:
        output.copy_(tensor)
    wire = _wire(output)
    token = stall.launched("program", _name("broadcast", name))
    work = dist.broadcast(wire, root_rank, group=basics.program_group(wire), async_op=True)

    def finish() -> torch.Tensor:
        if wire is not output:
            output.copy_(wire)
        return output

    return _handle([work], finish, [token])


def broadcast_async(tensor: torch.Tensor, root_rank: int, name: Optional[str] = None,
                    process_set: Any = global_process_set) -> int:
    return _broadcast_into(tensor, tensor.clone(), root_rank, name, process_set, "hvd.broadcast_async")


def broadcast_async_(tensor: torch.Tensor, root_rank: int, name: Optional[str] = None,
                     process_set: Any = global_process_set) -> int:
    return _broadcast_into(tensor, tensor, root_rank, name, process_set, "hvd.broadcast_async_")


def broadcast_(tensor: torch.Tensor, root_rank: int, name: Optional[str] = None,
               process_set: Any = global_process_set) -> torch.Tensor:
    return synchronize(broadcast_async_(tensor, root_rank, name, process_set))


class _Broadcast(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, tensor: torch.Tensor, root_rank: int, name: Optional[str],
                process_set: Any) -> torch.Tensor:
        ctx.root_rank, ctx.process_set = root_rank, process_set
        return synchronize(_broadcast_into(tensor, tensor.clone(), root_rank, name, process_set, "hvd.broadcast"))

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        reduced = synchronize(_allreduce_into(grad, grad.clone(), None, Average, 1.0, 1.0, ctx.process_set,
                                              "hvd.broadcast (backward)"))
        if basics.rank() != ctx.root_rank:
            reduced.zero_()
        return reduced, None, None, None


def broadcast(tensor: torch.Tensor, root_rank: int, name: Optional[str] = None,
              process_set: Any = global_process_set) -> torch.Tensor:
    return _Broadcast.apply(tensor, root_rank, name, process_set)


# -- alltoall, reducescatter, barrier, join ---------------------------------------------------------------------

def _alltoall(tensor: torch.Tensor, splits: Any, name: Optional[str], process_set: Any,
              call: str) -> Tuple[torch.Tensor, torch.Tensor]:
    check_process_set(process_set, call)
    _check_tensor(tensor, call)
    n = basics.size()
    rows = tensor.shape[0] if tensor.dim() > 0 else 1
    if splits is None:
        if rows % n:
            raise ValueError(f"{call}: the first dimension ({rows}) does not divide by the {n} ranks; pass splits")
        send = [rows // n] * n
    else:
        send = [int(s) for s in (splits.tolist() if isinstance(splits, torch.Tensor) else splits)]
        if len(send) != n or any(s < 0 for s in send) or sum(send) != rows:
            raise ValueError(f"{call}: splits={send} must hold {n} counts >= 0 that add up to the first "
                             f"dimension ({rows})")
    wire = _wire(tensor.reshape(1) if tensor.dim() == 0 else tensor)
    group = basics.program_group(wire)
    label = _name("alltoall", name)
    sent = torch.tensor(send, dtype=torch.int64, device=wire.device)
    received = torch.empty_like(sent)
    token = stall.launched("program", label)
    try:
        with telemetry.collective_wait():
            dist.all_to_all_single(received, sent, group=group)
            counts = [int(c) for c in received.tolist()]
            output = wire.new_empty((sum(counts),) + tuple(wire.shape[1:]))
            dist.all_to_all_single(output, wire, counts, send, group=group)
    except RuntimeError as e:
        raise HorovodInternalError(str(e)) from e
    finally:
        stall.finished(token)
    return output.to(tensor.dtype), received.to(torch.int32).cpu()


class _Alltoall(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, tensor: torch.Tensor, splits: Any, name: Optional[str], process_set: Any) -> Any:
        output, received = _alltoall(tensor, splits, name, process_set, "hvd.alltoall")
        ctx.received, ctx.process_set = received, process_set
        ctx.mark_non_differentiable(received)
        return output, received

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor, _received: Any) -> tuple:
        back, _ = _alltoall(grad, ctx.received, None, ctx.process_set, "hvd.alltoall (backward)")
        return back, None, None, None


def alltoall(tensor: torch.Tensor, splits: Any = None, name: Optional[str] = None,
             process_set: Any = global_process_set) -> Any:
    """Rows of `tensor` scattered to the ranks (equal shares, or `splits` in rank order), and what each sent
    gathered here. With splits given, also the counts received from each rank, as Horovod returns them."""
    output, received = _Alltoall.apply(tensor, splits, name, process_set)
    return output if splits is None else (output, received)


def alltoall_async(tensor: torch.Tensor, splits: Any = None, name: Optional[str] = None,
                   process_set: Any = global_process_set) -> int:
    output, received = _alltoall(tensor, splits, name, process_set, "hvd.alltoall_async")
    return _handle([], lambda: (output, received), [])


def _scatter_rows(rows: int, n: int) -> List[int]:
    """Horovod's split of the first dimension: the first ranks take one more row where it does not divide."""
    return [rows // n + (1 if r < rows % n else 0) for r in range(n)]


def reducescatter(tensor: torch.Tensor, name: Optional[str] = None, compression: Any = Compression.none,
                  op: int = Average, process_set: Any = global_process_set, prescale_factor: float = 1.0,
                  postscale_factor: float = 1.0) -> torch.Tensor:
    """`tensor` reduced over every rank, each rank keeping its share of the first dimension."""
    if op not in (Average, Sum):
        raise ValueError("hvd.reducescatter: op must be hvd.Average or hvd.Sum")
    compressed, ctx = compression.compress(tensor)
    reduced = synchronize(_allreduce_into(compressed, compressed.clone(), name, op, prescale_factor,
                                          postscale_factor, process_set, "hvd.reducescatter"))
    shares = _scatter_rows(reduced.shape[0], basics.size())
    start = sum(shares[:basics.rank()])
    return compression.decompress(reduced.narrow(0, start, shares[basics.rank()]).clone(), ctx)


def reducescatter_async(tensor: torch.Tensor, name: Optional[str] = None, op: int = Average,
                        process_set: Any = global_process_set, prescale_factor: float = 1.0,
                        postscale_factor: float = 1.0) -> int:
    result = reducescatter(tensor, name, Compression.none, op, process_set, prescale_factor, postscale_factor)
    return _handle([], lambda: result, [])


def barrier(process_set: Any = global_process_set) -> None:
    check_process_set(process_set, "hvd.barrier")
    token = stall.launched("program", "barrier")
    try:
        with telemetry.collective_wait():
            dist.barrier(group=basics.program_group(torch.empty(0)))
    except RuntimeError as e:
        raise HorovodInternalError(str(e)) from e
    finally:
        stall.finished(token)


def join(device: int = -1) -> int:
    """This rank has no more data: it answers the others' gradient all-reduces with zeros until every rank has
    joined, and returns the rank that joined last."""
    from ringmaster._hvd import optimizer

    return optimizer.join()
