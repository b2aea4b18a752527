# SPDX-License-Identifier: GPL-3.0-or-later
"""Instrumentation of PyTorch training (torch 1.13 and 2.x): what the bootstrap installs into an unmodified
program, and `watch()` for programs that ask for it.

install() wraps, once per process and behind a check that costs a function call when no session runs:
  torch.distributed.init_process_group   starts the session (rank, size, job clock aligned with rank 0)
  torch.distributed.destroy_process_group notes the parameters' checksum for the rank's summary
  DistributedDataParallel.__init__        starts the session if needed; registers the timed communication hook
  DistributedDataParallel.forward         a forward begins; samples = the batch's first dimension
  DistributedDataParallel.register_comm_hook, ._register_builtin_comm_hook
                                          the program's hook runs inside the timed one instead of replacing it
  torch.autograd.backward                 backward begins and ends; a one-element tensor is the step's loss
  torch.optim.Optimizer                   each optimizer class's step is timed (1.13 has no optimizer hooks)
  DistributedSampler.set_epoch            the epoch of the following steps
  torch.distributed's collectives         each call joins the rank's sequence of collectives (op, dtype, elements,
                                          group, the program's line), as each DDP bucket's all-reduce does

Every REPLICA_CHECK-th step (RINGMASTER_CHECK_REPLICAS_EVERY, default 100), a DDP model's parameters and buffers
are hashed just before its forward (after DDP has broadcast the buffers it keeps equal), for the console to
compare across ranks.

Every bucket's all-reduce is timed by a DDP communication hook wrapped around the program's own hook, or around
the same mean all-reduce as torch's allreduce_hook (which divides by the group's size as DDP's built-in path does).
torch lets a DDP model register one hook, and a Python hook replaces the built-in all-reduce, so the timed hook is
registered when the model is built and a hook the program registers later takes the inner place. The first
bucket's hook queues an autograd-engine callback: the engine runs it once every node has run, before DDP's own
finalising callback waits for the all-reduces; that moment splits backward compute from exposed communication wait.

Where torch offers no public way, a private one is used behind a fallback that keeps training going: the default
store (clock alignment; else torchrun's MASTER_ADDR and MASTER_PORT), the engine's queue_callback (else backward's
end stands in for the end of compute), DDP's hook check and hook name (else left out). Nothing is imported that the
program would not import itself: torch.distributed.algorithms.ddp_comm_hooks, whose import makes Python 3.13 warn,
loads only for a program that registers torch's built-in fp16 compression.

torch 2.4 and later make their TCPStore with libuv unless USE_LIBUV=0, and Debian's torch is built without it, so
init_process_group fails there as it is; install() sets USE_LIBUV=0 for such a torch when the program has not set
USE_LIBUV, and says so once on the host (its local rank 0).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import os
import platform
import socket
import sys
import threading
import time
import warnings
import weakref
from datetime import timedelta
from typing import Any, Callable, List, Optional

import torch
import torch.distributed as dist
from torch.autograd import Variable
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

import ringmaster
from ringmaster import _session
from ringmaster._clock import JobClock, align
from ringmaster._collectives import WORLD
from ringmaster._environment import RankEnvironment, warn
from ringmaster._records import AllreduceRecord, ReplicaHashesRecord, RuntimeRecord

__all__ = ["install", "watch", "stop_agreed"]

CLOCK_ALIGNMENT_TIMEOUT = timedelta(seconds=60)

_installed = False
_models: List[weakref.ref] = []  # modules whose parameters make the summary's checksum, in the order seen
_optimizer_depth = 0  # an optimizer's step calling its base class's step is one step
_checksum_at_destroy = ""
_ddp_forward_depth = 0  # a watched module inside a DDP model: the DDP forward already counts
_original_register_comm_hook = DistributedDataParallel.register_comm_hook


# -- the session ----------------------------------------------------------------------------------------------------

def _start() -> Optional[_session.Session]:
    session = _session.current()
    if session is not None:
        return session
    env = RankEnvironment.from_environ()
    if not env.reports:
        return None
    backend = ""
    if dist.is_available() and dist.is_initialized():
        rank, world_size = dist.get_rank(), dist.get_world_size()
        backend = str(dist.get_backend())
        clock = _aligned_clock(env, rank, world_size)
    else:
        rank, world_size, clock = env.rank or 0, 0, JobClock()
    runtime = RuntimeRecord(socket.gethostname(), platform.python_version(), str(torch.__version__),
                            str(torch.version.cuda or ""), backend, os.getpid())
    session = _session.start(env, rank, clock, world_size, runtime)
    if session is not None:
        session.device_memory = _device_memory
        session.parameter_checksum = _parameter_checksum
    return session


def _start_safely() -> Optional[_session.Session]:
    try:
        return _start()
    except Exception as e:  # telemetry must never stop training
        warn(f"telemetry is off: {e}")
        return None


def _aligned_clock(env: RankEnvironment, rank: int, world_size: int) -> JobClock:
    clock = JobClock()
    try:
        store = _default_store(world_size)
        alignment = align(store, rank, world_size, env.group_world_size == 1, CLOCK_ALIGNMENT_TIMEOUT)
        clock.calibrate(alignment.offset_ns, alignment.epoch_ns)
    except Exception as e:  # a rank that never answers, a store that went away
        warn(f"rank {rank}: the job clock is not aligned with rank 0's ({e}); this rank's times are on its own clock")
        clock.calibrate(0, time.monotonic_ns())
    return clock


def _default_store(world_size: int) -> Any:
    """The process group's key-value store (private in torch); else a client of torchrun's store."""
    get = getattr(dist.distributed_c10d, "_get_default_store", None)
    if get is not None:
        return get()
    address, port = os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")
    if not address or not port:
        raise RuntimeError("torch offers no default store here, and MASTER_ADDR and MASTER_PORT are unset")
    options = {}
    if _tcp_store_takes_libuv():  # as torch's env:// rendezvous makes its store
        options["use_libuv"] = os.environ.get("USE_LIBUV", "1") == "1"
    return dist.TCPStore(address, int(port), world_size, False, CLOCK_ALIGNMENT_TIMEOUT, **options)


def _device_memory() -> Optional[tuple]:
    if not torch.cuda.is_available() or not torch.cuda.is_initialized():
        return None
    device = torch.cuda.current_device()
    return torch.cuda.memory_allocated(device), _device_total(device)


@functools.lru_cache(maxsize=None)
def _device_total(device: int) -> int:
    return torch.cuda.get_device_properties(device).total_memory


def _remember(module: torch.nn.Module) -> None:
    if all(ref() is not module for ref in _models):
        _models.append(weakref.ref(module))


def _checksum_of_live_models() -> str:
    digest = hashlib.blake2b(digest_size=8)
    seen = False
    with torch.no_grad():
        for ref in _models:
            module = ref()
            if module is None:
                continue
            for parameter in module.parameters():
                seen = True
                digest.update(parameter.detach().to("cpu", torch.float32).contiguous().numpy().tobytes())
    return digest.hexdigest() if seen else ""


def _parameter_checksum() -> str:
    """Of the models' parameters now, or as they were when the program destroyed its process group (a script's
    model is often gone by exit, with the function that trained it)."""
    return _checksum_of_live_models() or _checksum_at_destroy


# -- what a step is made of -----------------------------------------------------------------------------------------

def _batch_size(args: tuple, kwargs: dict) -> int:
    """The first dimension of the first tensor among a forward's arguments (looking one level into containers)."""
    for value in list(args) + list(kwargs.values()):
        for candidate in (value.values() if isinstance(value, dict) else
                          value if isinstance(value, (list, tuple)) else (value,)):
            if isinstance(candidate, torch.Tensor):
                return int(candidate.shape[0]) if candidate.dim() > 0 else 1
    return 0


def _loss_of(tensors: Any) -> Optional[torch.Tensor]:
    if isinstance(tensors, (list, tuple)) and len(tensors) == 1:
        tensors = tensors[0]
    if isinstance(tensors, torch.Tensor) and tensors.numel() == 1:
        return tensors.detach()
    return None


def _mean_allreduce(process_group, bucket):  # unannotated, as _timed_allreduce
    """What DDP does without a hook, as torch's default_hooks.allreduce_hook does it: the bucket's mean over the
    group, divided first so that fp16 gradients do not overflow. Written here, not imported: importing
    torch.distributed.algorithms.ddp_comm_hooks makes Python 3.13 print warnings in a program that never asked
    for it."""
    group = process_group if process_group is not None else dist.group.WORLD
    buffer = bucket.buffer()
    buffer.div_(group.size())
    return dist.all_reduce(buffer, group=group, async_op=True).get_future().then(lambda f: f.value()[0])


def _torch_fp16_compress_hook() -> Callable:
    """torch's own fp16 compression hook, imported when a program asks for it; the warnings its package's import
    raises on Python 3.13 (about functools.partial in an enum) are torch's, not the program's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    return default_hooks.fp16_compress_hook


def _queue_compute_end(callback: Callable[[], None]) -> None:
    """Has the autograd engine call `callback` once every node of this backward has run (a private engine call;
    without it, or outside backward, backward's end stands in)."""
    engine = getattr(Variable, "_execution_engine", None)
    queue_callback = getattr(engine, "queue_callback", None)
    if queue_callback is None:
        return
    try:
        queue_callback(callback)
    except RuntimeError:  # a hook run outside backward (DDP's delayed all-reduce)
        pass


def _name_comm_hook(ddp: DistributedDataParallel, name: str) -> None:
    """Tells DDP's usage logger the hook's name, as register_comm_hook does (a private call; skipped without)."""
    setter = getattr(getattr(ddp, "logger", None), "_set_comm_hook_name", None)
    if setter is not None:
        setter(name)


class _HookSlot:
    """The state DDP hands the timed hook: the hook inside it and that hook's own state."""

    def __init__(self, ddp: DistributedDataParallel) -> None:
        self.state: Any = ddp.process_group
        self.hook: Callable = _mean_allreduce
        self.taken = False  # the program registered its hook (torch allows one)
        self.world_size = ddp.process_group.size()
        self.group = _group_name(ddp.process_group)
        self.queued_for = -1  # the backward whose compute-end callback is queued


def _timed_allreduce(slot, bucket):  # unannotated: DDP checks a hook's annotations against its own types
    session = _session.current()
    if session is None:
        return slot.hook(slot.state, bucket)
    tracker = session.tracker
    if slot.queued_for != tracker.backwards:
        slot.queued_for = tracker.backwards
        _queue_compute_end(tracker.compute_end)
    buffer = bucket.buffer()
    now = session.clock.now()
    record = AllreduceRecord(tracker.step, bucket.index(), buffer.numel() * buffer.element_size(), now, now,
                             len(bucket.parameters()), slot.world_size)
    session.collective("all_reduce", "", _dtype_name(buffer.dtype), buffer.numel(), slot.group,
                       f"DDP bucket {bucket.index()}")
    begin = None
    if buffer.is_cuda:
        begin = torch.cuda.Event(enable_timing=True)
        begin.record()
    with _inside_collective():  # what the hook calls is this all-reduce, not collectives of its own
        future = slot.hook(slot.state, bucket)

    def done(reduced: torch.futures.Future) -> Any:
        try:
            if begin is None:
                record.end_ns = session.clock.now()
            else:
                end = torch.cuda.Event(enable_timing=True)
                end.record()  # on the stream the all-reduce completes on
                record.device_events = (begin, end)
            session.allreduce(record)
        except Exception:  # telemetry must never fail the all-reduce
            pass
        return reduced.value()

    # Chained rather than a plain done-callback: DDP waits for the chained future, so the end is taken before
    # backward goes on, not whenever a callback thread gets the interpreter.
    return future.then(done)


def _time_allreduces(ddp: DistributedDataParallel) -> bool:
    if getattr(ddp, "_use_python_reducer", False):
        # torch 2's compiled-autograd reducer hands hooks a gradient, not a bucket
        warn("the all-reduces of a DistributedDataParallel model are not timed: torch reduces its gradients in "
             "compiled autograd (optimize_ddp python_reducer), whose hooks see no buckets")
        return False
    slot = _HookSlot(ddp)
    try:
        _original_register_comm_hook(ddp, slot, _timed_allreduce)
    except RuntimeError:
        warn("the all-reduces of a DistributedDataParallel model are not timed: its communication hook was "
             "registered before ringmaster.torch.watch() saw it (call watch() before register_comm_hook)")
        return False
    except Exception as e:  # telemetry must never stop training
        warn(f"the all-reduces of a DistributedDataParallel model are not timed ({type(e).__name__}: {e})")
        return False
    ddp._ringmaster_hook = slot
    return True


# -- the sequence of collectives --------------------------------------------------------------------------------------

# torch.distributed's collectives and the parameter holding what a rank contributes (its elements and dtype; the
# outputs differ in shape between ranks for some). Those absent from a torch are skipped.
_COLLECTIVES = {
    "all_reduce": "tensor", "broadcast": "tensor", "reduce": "tensor", "all_gather": "tensor",
    "all_gather_into_tensor": "input_tensor", "_all_gather_base": "input_tensor",
    "reduce_scatter": "input_list", "reduce_scatter_tensor": "input", "_reduce_scatter_base": "input",
    "gather": "tensor", "scatter": "tensor", "all_to_all": "input_tensor_list", "all_to_all_single": "input",
    "all_reduce_coalesced": "tensors", "barrier": "", "broadcast_object_list": "object_list",
    "all_gather_object": "obj", "gather_object": "obj", "scatter_object_list": "scatter_object_output_list",
}
_OWN_FOLDERS = (os.path.dirname(torch.__file__) + os.sep, os.path.dirname(ringmaster.__file__) + os.sep)
_inside = threading.local()  # depth of collectives in progress on this thread: one made of others counts once
_group_names: "weakref.WeakKeyDictionary[Any, str]" = weakref.WeakKeyDictionary()


class _inside_collective:
    def __enter__(self) -> None:
        _inside.depth = getattr(_inside, "depth", 0) + 1

    def __exit__(self, *exc: Any) -> None:
        _inside.depth -= 1


def _dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


def _group_name(group: Any) -> str:
    """"world" for the default group, else its ranks ("ranks 0,2"): the same name on every member."""
    if group is None or group is getattr(dist.group, "WORLD", None):
        return WORLD
    try:
        return _group_names[group]
    except (KeyError, TypeError):
        pass
    ranks = None
    get_ranks = getattr(dist, "get_process_group_ranks", None)  # torch 2
    try:
        if get_ranks is not None:
            ranks = list(get_ranks(group))
        else:  # torch 1.13: the group's global ranks, kept privately
            ranks = sorted(getattr(dist.distributed_c10d, "_pg_group_ranks", {}).get(group, {}).keys())
    except Exception:
        ranks = None
    name = "ranks " + ",".join(str(r) for r in ranks) if ranks else f"a group of {group.size()}"
    try:
        _group_names[group] = name
    except TypeError:
        pass
    return name


_REDUCTIONS = ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM")


def _reduction_name(op: Any) -> str:
    """"SUM", "MAX", ... (torch 1.13's ReduceOp objects print as their address; torch 2's have a name)."""
    for name in _REDUCTIONS:
        known = getattr(dist.ReduceOp, name, None)
        try:
            if known is not None and op == known:
                return name
        except Exception:
            continue
    name = getattr(op, "name", None)
    return name.upper() if isinstance(name, str) else "OTHER"


def _contribution(value: Any) -> tuple:
    """(dtype, elements) of a tensor or a list of tensors; ("object", count) for Python objects."""
    if isinstance(value, torch.Tensor):
        return _dtype_name(value.dtype), value.numel()
    if isinstance(value, (list, tuple)):
        tensors = [t for t in value if isinstance(t, torch.Tensor)]
        if tensors:
            return _dtype_name(tensors[0].dtype), sum(t.numel() for t in tensors)
        return "object", len(value)
    return ("object", 1) if value is not None else ("", 0)


def _call_site() -> str:
    """The program's line that called: the first frame outside torch and ringmaster."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_OWN_FOLDERS):
        frame = frame.f_back
    if frame is None:
        return ""
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"


def _logged_collective(name: str, original: Callable, contributes: str) -> Callable:
    signature = inspect.signature(original)
    reducing = "op" in signature.parameters

    @functools.wraps(original)
    def collective(*args: Any, **kwargs: Any) -> Any:
        session = _session.current()
        if session is None or getattr(_inside, "depth", 0):
            return original(*args, **kwargs)
        try:
            bound = signature.bind_partial(*args, **kwargs).arguments
            dtype, elements = _contribution(bound.get(contributes)) if contributes else ("", 0)
            reduction = _reduction_name(bound.get("op", dist.ReduceOp.SUM)) if reducing else ""
            session.collective(name, reduction, dtype, elements, _group_name(bound.get("group")), _call_site())
        except Exception:  # telemetry must never fail the collective (torch reports a bad call itself)
            pass
        with _inside_collective():
            return original(*args, **kwargs)

    collective._ringmaster_logged = True
    return collective


def _wrap_collectives() -> None:
    c10d = dist.distributed_c10d
    for name, contributes in _COLLECTIVES.items():
        original = getattr(c10d, name, None)
        if original is None or getattr(original, "_ringmaster_logged", False):
            continue
        wrapped = _logged_collective(name, original, contributes)
        setattr(c10d, name, wrapped)  # what torch's own helpers call
        if getattr(dist, name, None) is original:
            setattr(dist, name, wrapped)


# -- replicas -----------------------------------------------------------------------------------------------------------

def _tensor_hash(tensor: torch.Tensor) -> int:
    """A 64-bit BLAKE2b of the tensor's bytes (on the host: a device tensor is copied once per check)."""
    data = tensor.detach().contiguous().view(-1)
    if data.numel() and data.element_size() != 1:
        data = data.view(torch.uint8)
    data = data.cpu()
    digest = hashlib.blake2b(memoryview(data.numpy()) if data.numel() else b"", digest_size=8)
    return int.from_bytes(digest.digest(), "little")


def replica_hashes(module: torch.nn.Module) -> tuple:
    """(names, hashes) of the module's parameters, then its buffers."""
    names, hashes = [], []
    with torch.no_grad():
        for name, tensor in list(module.named_parameters()) + list(module.named_buffers()):
            names.append(name)
            hashes.append(_tensor_hash(tensor))
    return names, hashes


def _replica_check(module: torch.nn.Module, inputs: tuple) -> None:
    """A forward pre-hook on a DDP model's module: runs after DDP has broadcast the buffers it keeps equal."""
    session = _session.current()
    if session is None or not module.training or not torch.is_grad_enabled():
        return
    every = session.env.check_replicas_every
    step = session.tracker.step
    if every <= 0 or step % every or getattr(module, "_ringmaster_replicas_at", -1) == step:
        return
    module._ringmaster_replicas_at = step
    try:
        names, hashes = replica_hashes(module)
    except Exception as e:  # telemetry must never stop training
        warn(f"rank {session.rank}: the replica check is off ({type(e).__name__}: {e})")
        session.env = dataclasses.replace(session.env, check_replicas_every=0)
        return
    session.record(ReplicaHashesRecord(step, names, hashes))


def _check_replicas_of(module: torch.nn.Module) -> None:
    if not getattr(module, "_ringmaster_replica_hook", False):
        module.register_forward_pre_hook(_replica_check)
        module._ringmaster_replica_hook = True


# -- the wrappers -----------------------------------------------------------------------------------------------------

def _wrap_process_group() -> None:
    original = dist.distributed_c10d.init_process_group

    @functools.wraps(original)
    def init_process_group(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        _start_safely()
        return result

    dist.distributed_c10d.init_process_group = init_process_group
    dist.init_process_group = init_process_group

    original_destroy = dist.distributed_c10d.destroy_process_group

    @functools.wraps(original_destroy)
    def destroy_process_group(group: Any = None) -> Any:
        global _checksum_at_destroy
        if group is None and _session.current() is not None:
            try:
                _checksum_at_destroy = _checksum_of_live_models()
            except Exception:  # the summary goes without
                pass
        return original_destroy(group)

    dist.distributed_c10d.destroy_process_group = destroy_process_group
    dist.destroy_process_group = destroy_process_group


def _wrap_ddp() -> None:
    original_init = DistributedDataParallel.__init__
    original_forward = DistributedDataParallel.forward
    original_builtin = getattr(DistributedDataParallel, "_register_builtin_comm_hook", None)

    @functools.wraps(original_init)
    def __init__(self: DistributedDataParallel, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        if _start_safely() is not None:
            _time_allreduces(self)
            _remember(self.module)
            _check_replicas_of(self.module)

    @functools.wraps(original_forward)
    def forward(self: DistributedDataParallel, *inputs: Any, **kwargs: Any) -> Any:
        global _ddp_forward_depth
        session = _session.current()
        if session is not None and torch.is_grad_enabled():
            session.tracker.forward_begin(_batch_size(inputs, kwargs))
        _ddp_forward_depth += 1
        try:
            return original_forward(self, *inputs, **kwargs)
        finally:
            _ddp_forward_depth -= 1

    @functools.wraps(_original_register_comm_hook)
    def register_comm_hook(self: DistributedDataParallel, state: object, hook: Callable) -> None:
        slot = getattr(self, "_ringmaster_hook", None)
        if slot is None:
            return _original_register_comm_hook(self, state, hook)
        check = getattr(self, "_check_comm_hook", None)  # private: the hook's signature, as torch checks it
        if check is not None:
            check(hook)
        if slot.taken:  # torch's own words for the same mistake
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        _name_comm_hook(self, hook.__qualname__)
        slot.state, slot.hook, slot.taken = state, hook, True

    DistributedDataParallel.__init__ = __init__
    DistributedDataParallel.forward = forward
    DistributedDataParallel.register_comm_hook = register_comm_hook
    if original_builtin is None:
        return

    @functools.wraps(original_builtin)
    def _register_builtin_comm_hook(self: DistributedDataParallel, comm_hook_type: Any) -> None:
        slot = getattr(self, "_ringmaster_hook", None)
        if slot is None:
            return original_builtin(self, comm_hook_type)
        # The same reduction in its Python form, so that it can be timed.
        if comm_hook_type == dist.BuiltinCommHookType.ALLREDUCE:
            python_hook = _mean_allreduce
        elif comm_hook_type == dist.BuiltinCommHookType.FP16_COMPRESS:
            python_hook = _torch_fp16_compress_hook()
        else:
            return original_builtin(self, comm_hook_type)
        register_comm_hook(self, self.process_group, python_hook)

    DistributedDataParallel._register_builtin_comm_hook = _register_builtin_comm_hook


def _wrap_backward() -> None:
    original = torch.autograd.backward

    @functools.wraps(original)
    def backward(tensors: Any, *args: Any, **kwargs: Any) -> Any:
        session = _session.current()
        if session is None:
            return original(tensors, *args, **kwargs)
        tracker = session.tracker
        tracker.backward_begin(_loss_of(tensors))
        try:
            return original(tensors, *args, **kwargs)
        finally:
            tracker.backward_end()

    torch.autograd.backward = backward


def _time_steps_of(cls: type) -> None:
    step = cls.step
    if getattr(step, "_ringmaster_timed", False):
        return

    @functools.wraps(step)
    def timed_step(self: torch.optim.Optimizer, *args: Any, **kwargs: Any) -> Any:
        global _optimizer_depth
        session = _session.current()
        if session is None or _optimizer_depth:
            return step(self, *args, **kwargs)
        tracker = session.tracker
        _optimizer_depth += 1
        tracker.optimizer_begin()
        try:
            return step(self, *args, **kwargs)
        finally:
            _optimizer_depth -= 1
            tracker.optimizer_end(self.param_groups[0].get("lr") if self.param_groups else None)

    timed_step._ringmaster_timed = True
    cls.step = timed_step


def _wrap_optimizers() -> None:
    original_init = torch.optim.Optimizer.__init__

    @functools.wraps(original_init)
    def __init__(self: torch.optim.Optimizer, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        _time_steps_of(type(self))

    torch.optim.Optimizer.__init__ = __init__


def _wrap_sampler() -> None:
    original = DistributedSampler.set_epoch

    @functools.wraps(original)
    def set_epoch(self: DistributedSampler, epoch: int) -> None:
        original(self, epoch)
        session = _session.current()
        if session is not None:
            session.tracker.epoch = int(epoch)

    DistributedSampler.set_epoch = set_epoch


def _forward_pre_hook(module: torch.nn.Module, inputs: tuple) -> None:
    session = _session.current()
    if session is not None and torch.is_grad_enabled() and module.training and not _ddp_forward_depth:
        session.tracker.forward_begin(_batch_size(inputs, {}))


def _tcp_store_takes_libuv() -> bool:
    """Whether TCPStore has the choice of libuv (torch 2.x; not 1.13)."""
    store = getattr(dist, "TCPStore", None)
    return store is not None and "use_libuv" in (store.__init__.__doc__ or "")


def _tcp_store_lacks_libuv() -> bool:
    """True where TCPStore uses libuv by default and this torch was built without it (Debian's torch 2.6): a
    store asked for libuv refuses at once, before it listens."""
    if not _tcp_store_takes_libuv():
        return False
    try:
        dist.TCPStore("127.0.0.1", 0, 1, True, wait_for_workers=False, use_libuv=True)
    except RuntimeError as e:
        return "libuv" in str(e)
    except Exception:  # a TCPStore unlike the ones known: leave the choice to torch
        return False
    return False


def _choose_tcp_store_backend() -> None:
    if "USE_LIBUV" in os.environ or not dist.is_available() or dist.is_initialized():
        return
    if not _tcp_store_lacks_libuv():
        return
    os.environ["USE_LIBUV"] = "0"
    if os.environ.get("LOCAL_RANK", "0") == "0":
        warn(f"torch {torch.__version__} was built without libuv, which its TCPStore uses by default: USE_LIBUV=0 "
             f"is set so that init_process_group can make its store (set USE_LIBUV to choose yourself)")


# -- the API ----------------------------------------------------------------------------------------------------------

def install() -> None:
    """Wraps torch's training entry points (once per process); they measure only while a session runs. Sets
    USE_LIBUV=0 for a torch whose TCPStore would otherwise fail (see above)."""
    global _installed
    if _installed:
        return
    _installed = True
    _choose_tcp_store_backend()
    _wrap_process_group()
    _wrap_ddp()
    _wrap_backward()
    _wrap_optimizers()
    _wrap_sampler()
    _wrap_collectives()
    _session.set_starter(_start_safely)


def watch(model: torch.nn.Module, optimizer: Optional[torch.optim.Optimizer] = None) -> torch.nn.Module:
    """Measures `model`'s training steps (forward, backward, all-reduces of a DDP model) and `optimizer`'s step,
    for programs started without instrumentation or training a model that is not DDP. Call it on every rank, after
    init_process_group and before the first forward (and before register_comm_hook). Returns `model`."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"ringmaster.torch.watch: model is a {type(model).__name__}; pass the torch.nn.Module "
                        f"(or DistributedDataParallel) the program trains")
    if optimizer is not None and not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"ringmaster.torch.watch: optimizer is a {type(optimizer).__name__}; pass the "
                        f"torch.optim.Optimizer that steps the model, or leave it out")
    install()
    if _start_safely() is None:
        return model
    if isinstance(model, DistributedDataParallel):
        if getattr(model, "_ringmaster_hook", None) is None:
            _time_allreduces(model)
        _remember(model.module)
        _check_replicas_of(model.module)
    else:
        if not getattr(model, "_ringmaster_watched", False):
            model.register_forward_pre_hook(_forward_pre_hook)
            model._ringmaster_watched = True
        _remember(model)
    if optimizer is not None:
        _time_steps_of(type(optimizer))
    return model


def stop_agreed(group: Optional[Any] = None) -> bool:
    """True on every rank once any rank of `group` (default: the whole job) has been asked to stop. A collective:
    every rank calls it at the same point of its loop (every few steps is enough)."""
    requested = ringmaster.stop_requested()
    if not (dist.is_available() and dist.is_initialized()):
        return requested
    device = torch.device("cuda", torch.cuda.current_device()) if dist.get_backend(group) == "nccl" else "cpu"
    flag = torch.tensor([1 if requested else 0], dtype=torch.int32, device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX, group=group)
    return bool(flag.item())
