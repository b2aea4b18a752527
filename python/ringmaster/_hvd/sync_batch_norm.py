# SPDX-License-Identifier: GPL-3.0-or-later
"""SyncBatchNorm: batch normalisation over the whole job's batch, on CPU as on GPU.

Each rank sums its batch's values and squares per channel; one allreduce of (sum, sum of squares, count) gives
the job's mean and variance. The allreduce is differentiable (its gradient is the gradient's sum over ranks),
so autograd gives the exact gradient of the job's loss through the shared statistics.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.modules.batchnorm import _BatchNorm

from ringmaster._hvd import basics, stall, telemetry


class _SumOverRanks(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, tensor: torch.Tensor) -> torch.Tensor:
        return _all_reduce(tensor.clone())

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        return _all_reduce(grad.clone())


def _all_reduce(tensor: torch.Tensor) -> torch.Tensor:
    token = stall.launched("program", "SyncBatchNorm statistics")
    try:
        with telemetry.collective_wait():
            dist.all_reduce(tensor, group=basics.program_group(tensor))
    finally:
        stall.finished(token)
    return tensor


class SyncBatchNorm(_BatchNorm):
    """Applies batch normalisation with statistics over every rank's batch while training."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 track_running_stats: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats)

    def _check_input_dim(self, input: torch.Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _run_bn(self, input: torch.Tensor) -> torch.Tensor:
        return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                            self.training or not self.track_running_stats, self.momentum or 0.0, self.eps)

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        self._check_input_dim(input)
        if not self.training or not basics.is_initialized() or basics.size() == 1:
            return self._run_bn(input)
        if self.training and self.track_running_stats:
            self.num_batches_tracked += 1
        channels = input.shape[1]
        dims = [0] + list(range(2, input.dim()))
        count = torch.tensor([input.numel() / channels], dtype=input.dtype, device=input.device)
        local = torch.cat([input.sum(dims), (input * input).sum(dims), count])
        total = _SumOverRanks.apply(local)
        n = total[-1]
        mean = total[:channels] / n
        var = total[channels:2 * channels] / n - mean * mean
        if self.track_running_stats:
            momentum = self.momentum if self.momentum is not None else 1.0 / float(self.num_batches_tracked)
            with torch.no_grad():
                unbiased = var * (n / (n - 1)) if float(n) > 1 else var
                self.running_mean.mul_(1 - momentum).add_(mean.detach(), alpha=momentum)
                self.running_var.mul_(1 - momentum).add_(unbiased.detach(), alpha=momentum)
        shape = [1, channels] + [1] * (input.dim() - 2)
        out = (input - mean.view(shape)) * torch.rsqrt(var.view(shape) + self.eps)
        if self.affine:
            out = out * self.weight.view(shape) + self.bias.view(shape)
        return out
