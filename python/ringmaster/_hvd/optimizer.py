# SPDX-License-Identifier: GPL-3.0-or-later
"""DistributedOptimizer: the program's optimizer, with each step's gradients averaged (or summed) over every
rank first, and join().

Horovod fuses whichever gradients are ready in each cycle, in an order rank 0 negotiates. torch.distributed
has no negotiation: it pairs collectives by the order each process group issues them. So the gradients are
laid out once in a fixed plan of buckets (the parameters in reverse order, as backward makes their gradients;
one dtype and device per bucket; 1 MiB for the first bucket, as DDP, then HOROVOD_FUSION_THRESHOLD bytes, 25 MiB
unset, every gradient alone at 0), the plan is checked against every rank's, and bucket k is launched as soon
as its gradients are all there and buckets 0..k-1 have been launched. synchronize() launches whatever is left,
in order (a gradient the backward did not make is zero, as Horovod's), waits, and writes the results back.

The first bucket carries one element per rank beside the gradients: 1 where the rank trains, 0 where it has
joined. A rank in join() replays the plan with zeros until every rank has joined.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import warnings
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import torch
import torch.distributed as dist

from ringmaster._environment import warn
from ringmaster._hvd import basics, stall, telemetry
from ringmaster._hvd.basics import Adasum, Average, check_process_set, global_process_set, not_supported
from ringmaster._hvd.compression import Compression, FP16Compressor, NoneCompressor
from ringmaster._hvd.ops import _REDUCE_OPS, _WIRE_TYPES

FIRST_BUCKET_BYTES = 1 << 20
DEFAULT_BUCKET_BYTES = 25 << 20


def bucket_bytes() -> int:
    """HOROVOD_FUSION_THRESHOLD (bytes; 0: no fusion), else DDP's 25 MiB."""
    text = os.environ.get("HOROVOD_FUSION_THRESHOLD", "").strip()
    if not text:
        return DEFAULT_BUCKET_BYTES
    try:
        value = int(float(text))
    except ValueError:
        value = -1
    if value < 0:
        warn(f"HOROVOD_FUSION_THRESHOLD={text!r} is not a number of bytes; gradients go in buckets of "
             f"{DEFAULT_BUCKET_BYTES >> 20} MiB")
        return DEFAULT_BUCKET_BYTES
    return value


class _Bucket:
    def __init__(self, index: int, params: List[torch.Tensor], names: List[str], wire_type: torch.dtype,
                 flags: int) -> None:
        self.index = index
        self.params = params
        self.names = names
        self.numel = sum(p.numel() for p in params)
        self.flags = flags                 # elements past the gradients: one per rank in the first bucket
        self.flat = torch.zeros(self.numel + flags, dtype=wire_type, device=params[0].device)
        self.ready = 0
        self.work: Any = None
        self.token = 0
        self.contexts: List[Any] = []       # a compression of the program's own: what decompress needs

    @property
    def nbytes(self) -> int:
        return self.flat.numel() * self.flat.element_size()


class _Plan:
    def __init__(self, params: List[torch.Tensor], names: Dict[int, str], groups: Any, compression: Any,
                 op: int, prescale: float, postscale: float, sparse_as_dense: bool) -> None:
        self.size = basics.size()
        self.rank = basics.rank()
        self.compression = compression
        self.op = op
        self.prescale = prescale
        self.postscale = postscale
        self.sparse_as_dense = sparse_as_dense
        self.buckets: List[_Bucket] = []
        self.bucket_of: Dict[int, _Bucket] = {}
        self.next = 0                          # the next bucket to launch
        self.active = [1] * self.size          # who trained, as the first bucket said last
        for members in self._layout(params, groups):
            self._add(members, names)
        self.group = basics.gradient_group(params[0])

    def _wire_type(self, param: torch.Tensor) -> torch.dtype:
        if self.compression is FP16Compressor and param.dtype.is_floating_point:
            return torch.float16
        return _WIRE_TYPES.get(param.dtype, param.dtype)

    def _layout(self, params: List[torch.Tensor], groups: Any) -> List[List[torch.Tensor]]:
        if groups is not None:
            if isinstance(groups, int):
                per = -(-len(params) // groups)
                sets = [params[i:i + per] for i in range(0, len(params), per)]
            else:
                ids = {id(p) for p in params}
                sets = [[p for p in group if id(p) in ids] for group in groups]
                grouped = {id(p) for group in sets for p in group}
                sets += [[p] for p in params if id(p) not in grouped]
            laid = []
            for members in reversed([s for s in sets if s]):
                by_kind: Dict[Tuple[Any, Any], List[torch.Tensor]] = {}
                for p in members:
                    by_kind.setdefault((p.dtype, p.device), []).append(p)
                laid += list(by_kind.values())
            return laid
        # As DDP fills its buckets: a bucket takes tensors until it holds its limit or more.
        cap = bucket_bytes()
        laid: List[List[torch.Tensor]] = []
        filling: Dict[Tuple[Any, Any], Tuple[List[torch.Tensor], int]] = {}
        for p in reversed(params):
            kind = (p.dtype, p.device)
            members, held = filling.get(kind, (None, 0))
            if members is None:
                members, held = [], 0
                laid.append(members)
            members.append(p)
            held += p.numel() * p.element_size()
            limit = FIRST_BUCKET_BYTES if members is laid[0] else cap
            filling[kind] = (None, 0) if held >= limit else (members, held)
        return laid

    def _add(self, members: List[torch.Tensor], names: Dict[int, str]) -> None:
        index = len(self.buckets)
        bucket = _Bucket(index, members, [names[id(p)] for p in members], self._wire_type(members[0]),
                         self.size if index == 0 and self.size > 1 else 0)
        self.buckets.append(bucket)
        for p in members:
            self.bucket_of[id(p)] = bucket

    def describe(self) -> List[Tuple[str, int, str, int]]:
        return [(name, p.numel(), str(p.dtype), b.index) for b in self.buckets for name, p in zip(b.names, b.params)]

    # -- a step ------------------------------------------------------------------------------------------------

    def ready(self, param: torch.Tensor) -> None:
        bucket = self.bucket_of[id(param)]
        bucket.ready += 1
        if bucket.ready == len(bucket.params):
            self.launch_ready()

    def launch_ready(self) -> None:
        while self.next < len(self.buckets) and self.buckets[self.next].ready >= len(self.buckets[self.next].params):
            self._launch(self.buckets[self.next], zeros=False)
            self.next += 1

    def launch_rest(self) -> None:
        for bucket in self.buckets[self.next:]:
            bucket.ready = len(bucket.params)
        self.launch_ready()

    def pending(self) -> bool:
        return self.next > 0

    def _gradient(self, p: torch.Tensor) -> torch.Tensor:
        if p.grad is None:
            p.grad = torch.zeros_like(p)  # a gradient backward did not make is zero, as Horovod's
        grad = p.grad
        if grad.is_sparse:
            if not self.sparse_as_dense:
                raise not_supported("hvd.DistributedOptimizer", "sparse gradients are supported only as dense "
                                                                "ones: pass sparse_as_dense=True")
            grad = grad.to_dense()
        return grad

    def _launch(self, bucket: _Bucket, zeros: bool) -> None:
        flat = bucket.flat
        if zeros:
            flat.zero_()
        elif self.compression is NoneCompressor or self.compression is FP16Compressor:
            offset = 0
            for p in bucket.params:
                count = p.numel()
                flat[offset:offset + count].copy_(self._gradient(p).reshape(-1))
                offset += count
        else:  # the program's own compression: its output, flattened into a buffer made for it
            pairs = [self.compression.compress(self._gradient(p)) for p in bucket.params]
            bucket.contexts = [ctx for _, ctx in pairs]
            pieces = [t.reshape(-1) for t, _ in pairs]
            flat = torch.cat(pieces + [pieces[0].new_zeros(bucket.flags)])
            bucket.flat = flat
        if bucket.flags:
            flat[bucket.numel:].zero_()
            if not zeros:
                flat[bucket.numel + self.rank] = 1
        if self.prescale != 1.0 and not zeros:
            flat[:bucket.numel].mul_(self.prescale)
        bucket.token = stall.launched("gradients", bucket.names)
        timing = telemetry.bucket_launched(bucket.index, bucket.nbytes, len(bucket.params), self.size)
        bucket.work = dist.all_reduce(flat, op=_REDUCE_OPS[self.op], group=self.group, async_op=True)
        token = bucket.token
        try:
            def done(future: Any) -> None:
                stall.finished(token)
                if timing is not None:
                    timing.done()

            bucket.work.get_future().then(done)
        except (AttributeError, RuntimeError):  # a backend without futures: finished where it is waited for
            pass

    def finish(self) -> None:
        """Waits for every bucket launched and writes the results into the gradients."""
        try:
            with telemetry.gradient_wait():
                for bucket in self.buckets[:self.next]:
                    bucket.work.wait()
        except RuntimeError as e:
            raise basics.HorovodInternalError(str(e)) from e
        post = self.postscale / self.size if self.op == Average else self.postscale
        for bucket in self.buckets[:self.next]:
            stall.finished(bucket.token)
            flat = bucket.flat
            if post != 1.0:
                flat[:bucket.numel].mul_(post)
            if bucket.flags:
                self.active = [int(round(float(v))) for v in flat[bucket.numel:].tolist()]
            offset = 0
            for i, p in enumerate(bucket.params):
                count = p.numel()
                piece = flat[offset:offset + count].view(p.shape)
                offset += count
                if bucket.contexts:
                    piece = self.compression.decompress(piece, bucket.contexts[i])
                if p.grad.is_sparse:
                    p.grad = piece.to(p.dtype).to_sparse()
                else:
                    p.grad.copy_(piece)
            bucket.work = None
            bucket.contexts = []
            bucket.ready = 0
        self.next = 0

    def replay_zeros(self) -> List[int]:
        """One round of join(): every bucket launched with zeros; returns who still trains."""
        for bucket in self.buckets:
            self._launch(bucket, zeros=True)
        self.next = len(self.buckets)
        try:
            with telemetry.collective_wait():
                for bucket in self.buckets:
                    bucket.work.wait()
        except RuntimeError as e:
            raise basics.HorovodInternalError(str(e)) from e
        for bucket in self.buckets:
            stall.finished(bucket.token)
            bucket.work = None
            bucket.ready = 0
        self.next = 0
        first = self.buckets[0]
        return [int(round(float(v))) for v in first.flat[first.numel:].tolist()]


_plans: List[_Plan] = []   # of the DistributedOptimizers made in this process, for join()


class _DistributedOptimizer:
    """Put in front of the program's optimizer class (see DistributedOptimizer)."""

    def __init__(self, params: Any, named_parameters: Any, compression: Any, backward_passes_per_step: int,
                 op: int, gradient_predivide_factor: float, groups: Any, sparse_as_dense: bool,
                 process_set: Any) -> None:
        super().__init__(params)
        self._compression = compression
        self._parameter_names = _names_of(self.param_groups, named_parameters)
        self.backward_passes_per_step = backward_passes_per_step
        self.op = op
        self.gradient_predivide_factor = gradient_predivide_factor
        self.sparse_as_dense = sparse_as_dense
        self.process_set = process_set
        self._requires_update = [p for group in self.param_groups for p in group["params"] if p.requires_grad]
        self._allreduce_delay = {id(p): backward_passes_per_step for p in self._requires_update}
        self._synchronized = False
        self._should_synchronize = True
        self._grad_accs: List[Any] = []
        self._plan: Optional[_Plan] = None
        if basics.size() > 1 and self._requires_update:
            prescale, postscale = ((1.0 / gradient_predivide_factor, gradient_predivide_factor)
                                   if op == Average else (1.0, 1.0))
            self._plan = _Plan(self._requires_update, self._parameter_names, groups, compression, op, prescale,
                               postscale, sparse_as_dense)
            _check_plans_agree(self._plan)
            _plans.append(self._plan)
            self._register_hooks()
        self._model_finder = telemetry.ModelFinder(self._requires_update)

    def _register_hooks(self) -> None:
        for p in self._requires_update:
            accumulator = p.expand_as(p).grad_fn.next_functions[0][0]
            accumulator.register_hook(self._make_hook(p))
            self._grad_accs.append(accumulator)

    def _make_hook(self, p: torch.Tensor) -> Any:
        key = id(p)

        def hook(*_: Any) -> None:
            if self._allreduce_delay[key] <= 0:
                raise AssertionError("Gradients were computed more than backward_passes_per_step times before call "
                                     "to step(). Increase backward_passes_per_step to accumulate gradients "
                                     "locally.")
            self._allreduce_delay[key] -= 1
            if self._allreduce_delay[key] == 0:
                self._plan.ready(p)

        return hook

    def set_backward_passes_per_step(self, passes: int) -> None:
        self.backward_passes_per_step = passes
        for key in self._allreduce_delay:
            self._allreduce_delay[key] = passes

    def load_state_dict(self, *args: Any, **kwargs: Any) -> None:
        self._synchronized = False
        self._should_synchronize = True
        for key in self._allreduce_delay:
            self._allreduce_delay[key] = self.backward_passes_per_step
        super().load_state_dict(*args, **kwargs)

    def synchronize(self) -> None:
        """Launches the buckets not yet launched, waits for all, and writes the reduced gradients back."""
        plan = self._plan
        if plan is not None:
            for p in self._requires_update:
                if self._allreduce_delay[id(p)] > 0:  # backward did not reach it (or not often enough)
                    if p.grad is None:
                        p.grad = torch.zeros_like(p)
            plan.launch_rest()
            plan.finish()
            for key in self._allreduce_delay:
                self._allreduce_delay[key] = self.backward_passes_per_step
        self._synchronized = True

    @contextlib.contextmanager
    def skip_synchronize(self) -> Iterator[None]:
        """For optimizer.step() right after an explicit optimizer.synchronize()."""
        self._should_synchronize = False
        try:
            yield
        finally:
            self._should_synchronize = True

    def step(self, closure: Any = None) -> Any:
        if self._should_synchronize:
            if self._synchronized:
                warnings.warn("optimizer.step() called without optimizer.skip_synchronize() context after "
                              "optimizer.synchronize(). This can cause training slowdown. You may want to consider "
                              "using optimizer.skip_synchronize() context if you use optimizer.synchronize() in "
                              "your code.")
            self.synchronize()
        self._synchronized = False
        return super().step(closure)

    def zero_grad(self, *args: Any, **kwargs: Any) -> Any:
        if self._plan is not None and self._plan.pending():
            raise AssertionError("optimizer.zero_grad() was called after loss.backward() but before "
                                 "optimizer.step() or optimizer.synchronize(). This is prohibited as it can cause "
                                 "a race condition.")
        return super().zero_grad(*args, **kwargs)


def _names_of(param_groups: List[dict], named_parameters: Any) -> Dict[int, str]:
    if named_parameters is None:
        named = [(f"allreduce.noname.{i}.{j}", p) for i, group in enumerate(param_groups)
                 for j, p in enumerate(group["params"])]
    else:
        named = list(named_parameters)
    if any(not isinstance(item, tuple) or len(item) != 2 for item in named):
        raise ValueError("named_parameters should be a sequence of tuples (name, parameter), usually produced by "
                         "model.named_parameters().")
    seen, duplicates = set(), set()
    for name, _ in named:
        (duplicates if name in seen else seen).add(name)
    if duplicates:
        raise ValueError("Parameter names in named_parameters must be unique. Found duplicates: "
                         + ", ".join(sorted(duplicates)))
    names = {id(p): name for name, p in named}
    unnamed = [p for group in param_groups for p in group["params"] if id(p) not in names]
    if unnamed:
        raise ValueError(f"named_parameters was specified, but {len(unnamed)} of the optimizer's parameters were not "
                         f"named; pass model.named_parameters() of the model the optimizer trains")
    return names


def _check_plans_agree(plan: _Plan) -> None:
    """Every rank must lay its gradients out alike, or buckets would pair with the wrong ones."""
    mine = plan.describe()
    digest = hashlib.blake2b(repr(mine).encode(), digest_size=8).hexdigest()
    everyone: List[Any] = [None] * plan.size
    dist.all_gather_object(everyone, (digest, mine[:1], len(mine)), group=basics.program_group(torch.empty(0)))
    differ = [r for r, (d, _, _) in enumerate(everyone) if d != everyone[0][0]]
    if differ:
        _, first, count = everyone[differ[0]]
        raise ValueError(f"hvd.DistributedOptimizer: the parameters of rank {differ[0]} differ from rank 0's "
                         f"({count} against {everyone[0][2]} tensors; first {first} against {everyone[0][1]}): "
                         f"every rank must build the same model and optimizer (ranks that differ: "
                         f"{', '.join(str(r) for r in differ)})")


def DistributedOptimizer(optimizer: torch.optim.Optimizer, named_parameters: Any = None,
                         compression: Any = Compression.none, backward_passes_per_step: int = 1, op: int = Average,
                         gradient_predivide_factor: float = 1.0, num_groups: int = 0, groups: Any = None,
                         sparse_as_dense: bool = False, process_set: Any = global_process_set) -> Any:
    """`optimizer`'s class, with its gradients reduced over every rank before each step (Horovod's API)."""
    check_process_set(process_set, "hvd.DistributedOptimizer")
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"hvd.DistributedOptimizer: expected a torch.optim.Optimizer, got "
                        f"{type(optimizer).__name__}")
    if gradient_predivide_factor != 1.0 and op != Average:
        raise ValueError("gradient_predivide_factor not supported with op != Average")
    if num_groups:
        warnings.warn("Parameter `num_groups` has been replaced by `groups` and will be removed in v0.23.0.",
                      DeprecationWarning)
        groups = groups if groups is not None else num_groups
    if groups is not None and not (isinstance(groups, list) or (isinstance(groups, int) and groups > 0)):
        raise ValueError("groups should be a non-negative integer or a list of list of torch.Tensor.")
    if backward_passes_per_step <= 0:
        raise ValueError("backward_passes_per_step must be > 0")
    if op == Adasum and basics.size() > 1:
        raise not_supported("hvd.DistributedOptimizer(op=hvd.Adasum)", "Adasum is not supported (Horovod has no "
                                                                      "Adasum over Gloo either); use "
                                                                      "op=hvd.Average")
    if op not in _REDUCE_OPS and op != Adasum:
        raise ValueError(f"hvd.DistributedOptimizer: op={op!r} is not one of hvd.Average, hvd.Sum, hvd.Min, "
                         f"hvd.Max, hvd.Product")
    cls = type(optimizer.__class__.__name__, (_DistributedOptimizer, optimizer.__class__), {})
    return cls(optimizer.param_groups, named_parameters, compression, backward_passes_per_step,
               op if op != Adasum else Average, gradient_predivide_factor, groups, sparse_as_dense, process_set)


def is_distributed(optimizer: Any) -> bool:
    return isinstance(optimizer, _DistributedOptimizer)


def base_step(optimizer: Any) -> None:
    """The program's optimizer's own step, without the reduction in front of it."""
    super(_DistributedOptimizer, optimizer).step()


def join() -> int:
    """join() for the process's one DistributedOptimizer (or, with none, every rank at this call)."""
    basics._job_or_raise()
    n = basics.size()
    if n == 1:
        return 0
    if len(_plans) > 1:
        raise not_supported("hvd.join", "join() answers one DistributedOptimizer's gradients; this process made "
                                        f"{len(_plans)}")
    if not _plans:
        return _join_without_optimizer()
    plan = _plans[0]
    before = list(plan.active)
    while True:
        active = plan.replay_zeros()
        if not any(active):
            break
        before = active
    last = [r for r, a in enumerate(before) if a]
    return max(last) if last else n - 1


def _join_without_optimizer() -> int:
    """Every rank at join(): the last to arrive is the one the store counted last."""
    store = stall._store_client()
    generation = int(store.add(f"ringmaster/horovod/join/generation-of-{basics.rank()}", 1))
    order = int(store.add(f"ringmaster/horovod/join/{generation}", 1))
    flag = torch.tensor([basics.rank() if order == basics.size() else -1], dtype=torch.int64)
    with telemetry.collective_wait():
        dist.all_reduce(flag, op=dist.ReduceOp.MAX, group=basics.program_group(flag))
    return int(flag.item())
