# SPDX-License-Identifier: GPL-3.0-or-later
"""Horovod's elastic API with fixed membership: under Ringmaster a job's ranks are the ones it started with
(`ringmaster run --max-restarts` restarts them all from a checkpoint), so hvd.elastic.run syncs the state once and
calls the training function; a failure propagates rather than resetting the job."""

from __future__ import annotations

import copy
import functools
from typing import Any, Callable, Dict, Iterator, List, Optional

import torch
from torch.utils.data.distributed import DistributedSampler

from ringmaster._hvd import basics, functions


class State:
    """What a Horovod elastic job keeps: committed copies, restored when a step fails; synced from rank 0."""

    def __init__(self, bcast_object: Callable = functions.broadcast_object, get_rank: Callable = basics.rank,
                 **kwargs: Any) -> None:
        self._bcast_object = bcast_object
        self._rank = get_rank
        self._reset_callbacks: List[Callable] = []
        self._values: Dict[str, Any] = dict(kwargs)
        self._saved: Dict[str, Any] = {}
        for name, value in kwargs.items():
            setattr(self, name, value)

    def register_reset_callbacks(self, callbacks: List[Callable]) -> None:
        self._reset_callbacks.extend(callbacks)

    def on_reset(self) -> None:
        for callback in self._reset_callbacks:
            callback()

    def on_hosts_updated(self, timestamp: float, update_res: Any) -> None:
        """Membership never changes here."""

    def commit(self) -> None:
        self.save()
        self.check_host_updates()

    def check_host_updates(self) -> None:
        """Hosts are fixed: nothing to check (Horovod raises HostsUpdatedInterrupt when they change)."""

    def save(self) -> None:
        self._saved = {name: copy.deepcopy(getattr(self, name)) for name in self._values}

    def restore(self) -> None:
        for name, value in self._saved.items():
            setattr(self, name, copy.deepcopy(value))

    def sync(self) -> None:
        values = {name: getattr(self, name) for name in self._values}
        for name, value in self._bcast_object(values).items():
            setattr(self, name, value)

    def reset(self) -> None:
        """Nothing to reset with fixed membership."""


class ObjectState(State):
    pass


class TorchState(State):
    """A model, an optimizer and any picklable values, synced from rank 0 (parameters and optimizer state by
    broadcast, the values by pickle)."""

    def __init__(self, model: Optional[torch.nn.Module] = None, optimizer: Optional[torch.optim.Optimizer] = None,
                 **kwargs: Any) -> None:
        self.model = model
        self.optimizer = optimizer
        self._model_saved: Optional[dict] = None
        self._optimizer_saved: Optional[dict] = None
        super().__init__(**kwargs)

    def save(self) -> None:
        if self.model is not None:
            self._model_saved = copy.deepcopy(self.model.state_dict())
        if self.optimizer is not None:
            self._optimizer_saved = copy.deepcopy(self.optimizer.state_dict())
        super().save()

    def restore(self) -> None:
        if self.model is not None and self._model_saved is not None:
            self.model.load_state_dict(self._model_saved)
        if self.optimizer is not None and self._optimizer_saved is not None:
            self.optimizer.load_state_dict(self._optimizer_saved)
        super().restore()

    def sync(self) -> None:
        if self.model is not None:
            functions.broadcast_parameters(self.model.state_dict(), root_rank=0)
        if self.optimizer is not None:
            functions.broadcast_optimizer_state(self.optimizer, root_rank=0)
        super().sync()


def run(func: Callable) -> Callable:
    """Decorates the training function: the state is synced from rank 0, saved, and the function runs once."""

    @functools.wraps(func)
    def wrapper(state: State, *args: Any, **kwargs: Any) -> Any:
        basics._job_or_raise()
        state.sync()
        state.save()
        return func(state, *args, **kwargs)

    return wrapper


class ElasticSampler(DistributedSampler):
    """DistributedSampler that remembers how far an epoch got (record_batch), so that a restored state resumes
    there."""

    def __init__(self, dataset: Any, shuffle: bool = True, seed: int = 0) -> None:
        super().__init__(dataset, num_replicas=basics.size(), rank=basics.rank(), shuffle=shuffle, seed=seed)
        self.processed_num = 0

    def set_epoch(self, epoch: int) -> None:
        super().set_epoch(epoch)
        self.processed_num = 0

    def record_batch(self, batch_idx: int, batch_size: int) -> None:
        self.processed_num = (batch_idx + 1) * batch_size * self.num_replicas

    def record_indices(self, indices: List[int]) -> None:
        self.processed_num += len(indices) * self.num_replicas

    def state_dict(self) -> dict:
        return {"epoch": self.epoch, "processed_num": self.processed_num}

    def load_state_dict(self, state: dict) -> None:
        self.epoch = state["epoch"]
        self.processed_num = state["processed_num"]

    def __iter__(self) -> Iterator[int]:
        indices = list(super().__iter__())
        skip = self.processed_num // self.num_replicas
        return iter(indices[skip:])

    def __len__(self) -> int:
        return max(0, super().__len__() - self.processed_num // self.num_replicas)
