# SPDX-License-Identifier: GPL-3.0-or-later
"""init and shutdown, ranks and sizes, the reduction ops, process sets and what was built, as Horovod has them.

The job is torch.distributed's default process group, made from torchrun's environment (RANK, WORLD_SIZE,
MASTER_ADDR ...), which Ringmaster's agent gives every rank; where all of HOROVOD_RANK, HOROVOD_SIZE,
HOROVOD_LOCAL_RANK and HOROVOD_LOCAL_SIZE are set they name the rank instead. A process with neither trains alone
(size 1), as Horovod does without a rendezvous.

Gradients go over a process group of their own, so that the program's own collectives (a metric's allreduce,
SyncBatchNorm's statistics) never pair with a gradient bucket: torch.distributed matches collectives by the order
each process group issues them.
"""

from __future__ import annotations

import os
import socket
import warnings
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Dict, List, Optional

import torch
import torch.distributed as dist

from ringmaster._environment import warn

# The reduction ops, with Horovod's values.
Average = 0
Sum = 1
Adasum = 2
Min = 3
Max = 4
Product = 5

OP_NAMES = {Average: "Average", Sum: "Sum", Adasum: "Adasum", Min: "Min", Max: "Max", Product: "Product"}
LAYER = "Ringmaster's Horovod layer"


class HorovodInternalError(RuntimeError):
    """A collective failed (a peer went away, a timeout): as Horovod raises it."""


class HostsUpdatedInterrupt(RuntimeError):
    """Horovod's elastic signal that hosts changed; membership is fixed under Ringmaster, so it is never raised."""

    def __init__(self, skip_sync: bool = False) -> None:
        super().__init__("the job's hosts changed")
        self.skip_sync = skip_sync


def not_supported(call: str, why: str) -> NotImplementedError:
    return NotImplementedError(f"{call}: {why} ({LAYER} on torch.distributed, `ringmaster run --horovod`)")


class ProcessSet:
    """A set of ranks for collectives. Only the global set (every rank) runs here: a script that makes others is
    told so where it uses them."""

    def __init__(self, ranks_or_comm: Any = None) -> None:
        self.ranks: Optional[List[int]] = None if ranks_or_comm is None else sorted(int(r) for r in ranks_or_comm)
        self.process_set_id: Optional[int] = 0 if ranks_or_comm is None else None

    def size(self) -> int:
        return len(self.ranks) if self.ranks is not None else size()

    def rank(self) -> int:
        if self.ranks is None:
            return rank()
        return self.ranks.index(rank()) if rank() in self.ranks else -1

    def included(self) -> bool:
        return self.ranks is None or rank() in self.ranks

    def __repr__(self) -> str:
        return "ProcessSet(global)" if self.ranks is None else f"ProcessSet({self.ranks})"


global_process_set = ProcessSet()


def check_process_set(process_set: Any, call: str) -> None:
    if process_set is not global_process_set and not (isinstance(process_set, ProcessSet) and
                                                      process_set.ranks is None):
        raise not_supported(call, "only the global process set is supported; leave process_set out so that "
                                  "every rank takes part")


def add_process_set(process_set: Any) -> ProcessSet:
    raise not_supported("hvd.add_process_set", "process sets other than the global one are not supported")


def remove_process_set(process_set: Any) -> bool:
    raise not_supported("hvd.remove_process_set", "process sets other than the global one are not supported")


@dataclass
class _Job:
    rank: int
    size: int
    local_rank: int
    local_size: int
    cross_rank: int
    cross_size: int
    program_group: Any      # the program's own collectives (CPU tensors where CUDA has a group of its own)
    gradient_group: Any     # DistributedOptimizer's buckets
    device_groups: Dict[str, Any]  # device type -> (program group, gradient group) where they differ


_job: Optional[_Job] = None
_owns_process_group = False


def _job_or_raise() -> _Job:
    if _job is None:
        raise ValueError("Horovod has not been initialized; use hvd.init().")
    return _job


def _integer(name: str) -> Optional[int]:
    text = os.environ.get(name, "").strip()
    try:
        return int(text) if text else None
    except ValueError:
        raise ValueError(f"hvd.init: {name}={text!r} is not a whole number; unset it or set it as the launcher "
                         f"does (e.g. {name}=0)") from None


def _layout_from_environment() -> Optional[tuple]:
    """(rank, size, local rank, local size, cross rank, cross size) from HOROVOD_* when all are set, else from
    torchrun's variables; None where neither says."""
    hvd = [_integer(n) for n in ("HOROVOD_RANK", "HOROVOD_SIZE", "HOROVOD_LOCAL_RANK", "HOROVOD_LOCAL_SIZE")]
    if all(v is not None for v in hvd):
        cross = _integer("HOROVOD_CROSS_RANK")
        cross_size = _integer("HOROVOD_CROSS_SIZE")
        r, n, lr, ln = hvd
        return (r, n, lr, ln, cross if cross is not None else r // max(ln, 1),
                cross_size if cross_size is not None else max(n // max(ln, 1), 1))
    r, n = _integer("RANK"), _integer("WORLD_SIZE")
    if r is None or n is None:
        return None
    lr, ln = _integer("LOCAL_RANK"), _integer("LOCAL_WORLD_SIZE")
    group, groups = _integer("GROUP_RANK"), _integer("GROUP_WORLD_SIZE")
    lr = lr if lr is not None else 0
    ln = ln if ln is not None else 1
    return (r, n, lr, ln, group if group is not None else r // max(ln, 1),
            groups if groups is not None else max(n // max(ln, 1), 1))


def _backend() -> str:
    chosen = os.environ.get("RINGMASTER_HOROVOD_BACKEND", "").strip()
    if chosen:
        return chosen
    if torch.cuda.is_available() and dist.is_nccl_available():
        # torch 2 takes one backend per device type; 1.13 gets a Gloo group for CPU tensors beside NCCL.
        return "cpu:gloo,cuda:nccl" if _torch_major() >= 2 else "nccl"
    return "gloo"


def _torch_major() -> int:
    try:
        return int(str(torch.__version__).split(".")[0])
    except ValueError:
        return 1


def _layout_by_host(r: int, n: int) -> tuple:
    """Local and cross ranks from every rank's host name, for a process group made without them."""
    hosts: List[Any] = [None] * n
    dist.all_gather_object(hosts, socket.gethostname())
    local = [i for i in range(n) if hosts[i] == hosts[r]]
    order = list(dict.fromkeys(hosts))
    return local.index(r), len(local), order.index(hosts[r]), len(order)


def _announce_ignored_knobs(local_rank: int) -> None:
    if local_rank != 0:
        return
    for name, why in (("HOROVOD_CYCLE_TIME", "gradient buckets launch as soon as they are complete, in one order "
                                             "on every rank, so there is no negotiation cycle"),
                      ("HOROVOD_AUTOTUNE", "use `ringmaster tune` for bucket sizes"),
                      ("HOROVOD_HIERARCHICAL_ALLREDUCE", "torch.distributed's backend chooses its algorithm")):
        if os.environ.get(name, "").strip():
            warn(f"{name} is ignored by {LAYER}: {why}")


def init(comm: Any = None, process_sets: Any = None) -> None:
    """Joins the job: the default process group (made here unless the program made it), and the gradient group."""
    global _job, _owns_process_group
    if comm is not None:
        raise not_supported("hvd.init(comm=...)", "MPI communicators are not supported; call hvd.init() and "
                                                   "start the ranks with ringmaster run -np N")
    if process_sets not in (None, [], "dynamic"):
        raise not_supported("hvd.init(process_sets=...)", "process sets other than the global one are not "
                                                          "supported")
    if _job is not None:
        return
    layout = _layout_from_environment()
    backend = _backend()
    timeout = timedelta(seconds=float(os.environ.get("HOROVOD_GLOO_TIMEOUT_SECONDS", "") or 1800))
    if not dist.is_initialized():
        _owns_process_group = True
        if layout is None or layout[1] == 1:
            # No launcher: one process, as Horovod runs without a rendezvous.
            dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1, timeout=timeout)
        else:
            if not os.environ.get("MASTER_ADDR") or not os.environ.get("MASTER_PORT"):
                raise ValueError("hvd.init: MASTER_ADDR and MASTER_PORT are unset, so the ranks cannot meet; start "
                                 "the program with `ringmaster run --horovod -np N -- ...`, which sets them")
            dist.init_process_group(backend, rank=layout[0], world_size=layout[1], timeout=timeout)
    r, n = dist.get_rank(), dist.get_world_size()
    if layout is not None and layout[0] == r and layout[1] == n:
        local_rank, local_size, cross_rank, cross_size = layout[2:]
    elif n == 1:
        local_rank, local_size, cross_rank, cross_size = 0, 1, 0, 1
    else:
        local_rank, local_size, cross_rank, cross_size = _layout_by_host(r, n)
    groups = _make_groups(n)
    _job = _Job(r, n, local_rank, local_size, cross_rank, cross_size, *groups)
    _announce_ignored_knobs(local_rank)
    from ringmaster._hvd import stall, telemetry

    telemetry.started(os.environ.get("HOROVOD_TIMELINE", "").strip())
    stall.start(r, n)


def _make_groups(n: int) -> tuple:
    """The program's group (the default one), the gradients' group, and for torch 1.13 with NCCL a Gloo pair
    for CPU tensors. Every rank makes them in the same order, here."""
    world = dist.group.WORLD
    if n == 1:
        return world, world, {}
    gradients = dist.new_group(list(range(n)))
    devices: Dict[str, Any] = {}
    if str(dist.get_backend()) == "nccl":
        devices["cpu"] = (dist.new_group(list(range(n)), backend="gloo"),
                          dist.new_group(list(range(n)), backend="gloo"))
    return world, gradients, devices


def program_group(tensor: torch.Tensor) -> Any:
    job = _job_or_raise()
    pair = job.device_groups.get(tensor.device.type)
    return pair[0] if pair else job.program_group


def gradient_group(tensor: torch.Tensor) -> Any:
    job = _job_or_raise()
    pair = job.device_groups.get(tensor.device.type)
    return pair[1] if pair else job.gradient_group


def shutdown() -> None:
    """Leaves the job: the process group goes where this layer made it."""
    global _job, _owns_process_group
    if _job is None:
        return
    from ringmaster._hvd import stall

    stall.stop()
    _job = None
    if _owns_process_group and dist.is_initialized():
        _owns_process_group = False
        dist.destroy_process_group()


def is_initialized() -> bool:
    return _job is not None


def start_timeline(file_path: str, mark_cycles: bool = False) -> None:
    from ringmaster._hvd import telemetry

    _job_or_raise()
    telemetry.timeline(True, file_path)


def stop_timeline() -> None:
    from ringmaster._hvd import telemetry

    _job_or_raise()
    telemetry.timeline(False, "")


def rank() -> int:
    return _job_or_raise().rank


def size() -> int:
    return _job_or_raise().size


def local_rank() -> int:
    return _job_or_raise().local_rank


def local_size() -> int:
    return _job_or_raise().local_size


def cross_rank() -> int:
    return _job_or_raise().cross_rank


def cross_size() -> int:
    return _job_or_raise().cross_size


def is_homogeneous() -> bool:
    job = _job_or_raise()
    return job.local_size * job.cross_size == job.size


def mpi_threads_supported() -> bool:
    return False


def mpi_enabled() -> bool:
    return False


def mpi_built() -> bool:
    return False


def gloo_enabled() -> bool:
    return True


def gloo_built() -> bool:
    return True


def nccl_built() -> int:
    """Horovod returns NCCL's version as an int, 0 without it."""
    if not (torch.cuda.is_available() and dist.is_nccl_available()):
        return 0
    try:
        major, minor, patch = torch.cuda.nccl.version()
        return major * 1000 + minor * 100 + patch
    except Exception:  # a build that cannot say
        return 1


def ddl_built() -> bool:
    return False


def ccl_built() -> bool:
    return False


def cuda_built() -> bool:
    return torch.cuda.is_available()


def rocm_built() -> bool:
    return False


def resolve_op(op: Optional[int], average: Optional[bool]) -> int:
    """Horovod's rule for the deprecated `average` beside `op`."""
    if op is not None:
        if average is not None:
            raise ValueError("The op parameter supersedes average. Please provide only one of them.")
        return op
    if average is not None:
        warnings.warn("Parameter `average` has been replaced with `op` and will be removed in v1.0",
                      DeprecationWarning)
        return Average if average else Sum
    return Average
